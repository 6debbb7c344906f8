#!/bin/bash
# In-guest: several test scripts in one boot — a boot of the KASAN test kernel
# costs a minute under TCG, and a kmemleak scan half of one. The parts come
# from the kernel command line (suite=a,b,c: tests/vm/guest/a.sh ...); each
# runs in its own bash and reports its own RESULT lines. kmemleak is scanned
# once, after the last part.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
here=${BASH_SOURCE%/*}
[ -f "$here/softcx-load.sh" ] || here=/harness/extra

parts=
for arg in $(</proc/cmdline); do
	case $arg in suite=*) parts=${arg#suite=} ;; esac
done
[ -n "$parts" ] || { result suite FAIL "no suite= on the kernel command line"; finish; exit 1; }

kmemleak_begin
export SCX_SUITE=1
for p in ${parts//,/ }; do
	echo "==== suite part $p"
	if [ ! -f "$here/$p.sh" ]; then
		result "suite_$p" FAIL "no such part"
		continue
	fi
	bash "$here/$p.sh"
	# Each part ends with its modules unloaded; make sure for the next one.
	rmmod softcx_kunit 2>/dev/null
	rmmod softcx 2>/dev/null
done
unset SCX_SUITE
kmemleak_check suite
finish
