#!/bin/bash
# In-guest: load and unload softcx three times; each load must print its
# banner, each unload must leave no trace in /proc/modules. On a kernel with
# kmemleak, a scan after the cycles must find nothing.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
kmemleak_begin

ko=/harness/extra/softcx.ko
if [ ! -f "$ko" ]; then
	result softcx_ko FAIL "missing $ko"
	finish
	exit 1
fi

for i in 1 2 3; do
	dmesg -C
	if run_t 60 insmod "$ko" && dmesg | grep -q 'softcx: loaded'; then
		result "insmod_$i" PASS
	else
		result "insmod_$i" FAIL
		continue
	fi
	if run_t 60 rmmod softcx && ! grep -q '^softcx ' /proc/modules && dmesg | grep -q 'softcx: unloaded'; then
		result "rmmod_$i" PASS
	else
		result "rmmod_$i" FAIL
	fi
done

kmemleak_check softcx
finish
