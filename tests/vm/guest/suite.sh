#!/bin/bash
# In-guest: several test scripts in one boot — a boot of the KASAN test kernel
# costs a minute under TCG, and a kmemleak scan half of one. The parts come
# from the kernel command line (suite=a,b,c: tests/vm/guest/a.sh ...); each
# runs in its own bash and reports its own RESULT lines between PART-BEGIN
# and PART-END markers (with its exit status). kmemleak is scanned once,
# after the last part.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
here=${BASH_SOURCE%/*}
[ -f "$here/softcx-load.sh" ] || here=/harness/extra

parts= fail_demo=
for arg in $(</proc/cmdline); do
	case $arg in
	suite=*) parts=${arg#suite=} ;;
	# A part broken on purpose (make check SCX_PART_FAIL_DEMO=name): it
	# exits before its first RESULT line, which the host must catch.
	part_fail_demo=*) fail_demo=${arg#part_fail_demo=} ;;
	esac
done
[ -n "$parts" ] || { result suite FAIL "no suite= on the kernel command line"; finish; exit 1; }

kmemleak_begin
# DMA-API debugging prints only its first error of a boot: after a known
# report (scan-log.sh) every later one, of whatever kind, would be silent.
da=/sys/kernel/debug/dma-api/all_errors
[ ! -w $da ] || echo 1 >$da
export SCX_SUITE=1
for p in ${parts//,/ }; do
	echo "==== suite part $p"
	if [ ! -f "$here/$p.sh" ]; then
		result "suite_$p" FAIL "no such part"
		continue
	fi
	# The host checks each part's markers, exit status and RESULT names
	# (tests/vm/check-results.sh, tests/vm/guest/<part>.expect).
	echo "PART-BEGIN $p" >"$RESULTS_PORT"
	rc=0 t_part=$SECONDS
	if [ "$p" = "$fail_demo" ]; then
		bash -c 'echo "part $0 broken on purpose" >&2; exit 9' "$p" || rc=$?
	else
		bash "$here/$p.sh" || rc=$?
	fi
	echo "PART-END $p $rc" >"$RESULTS_PORT"
	# What each part costs, for make check's summary (not judged).
	echo "PART-TIME $p $((SECONDS - t_part))" >"$RESULTS_PORT"
	# Each part ends with its modules unloaded; make sure for the next one.
	rmmod softcx_kunit 2>/dev/null
	rmmod softcx 2>/dev/null
done
unset SCX_SUITE
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo "PART-BEGIN kmemleak" >"$RESULTS_PORT"
	kmemleak_check suite
	echo "PART-END kmemleak $?" >"$RESULTS_PORT"
fi
finish
