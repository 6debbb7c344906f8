#!/bin/bash
# In-guest: load and unload softcx three times, each time with one function
# brought up through the full init sequence and torn down at rmmod; nothing
# may stay behind in /proc/modules or /proc/interrupts. On a kernel with
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
	dmesg -c >/dev/null
	if load_softcx num_devices=1 && grep -q 'softcx0: up' < <(dmesg); then
		result "insmod_$i" PASS
	else
		result "insmod_$i" FAIL
		continue
	fi
	if run_t 120 rmmod softcx && ! grep -q '^softcx ' /proc/modules && ! grep -q softcx /proc/interrupts &&
		grep -q 'softcx0: removed' < <(dmesg); then
		result "rmmod_$i" PASS
	else
		result "rmmod_$i" FAIL
	fi
done

kmemleak_check softcx
finish
