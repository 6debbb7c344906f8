#!/bin/bash
# In-guest: several test scripts in one boot — a boot of the KASAN test kernel
# costs a minute under TCG, and a kmemleak scan half of one. The parts come
# from the kernel command line (suite=a,b,c: tests/vm/guest/a.sh ...); each
# runs in its own bash and reports its own RESULT lines between PART-BEGIN
# and PART-END markers (with its exit status). kmemleak is scanned once,
# after the last part.
#
# A part that has not ended after part_timeout= seconds (default 900; the
# longest part takes ~200 s on the test kernel) is taken as hung: the
# blocked tasks and the part's own processes are dumped to the console
# between HANG-DUMP markers, the part is killed and ends with status 124,
# and the suite stops there - a kernel with a stuck task is no base for the
# next part, and a hang must not cost the whole boot's timeout.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
here=${BASH_SOURCE%/*}
[ -f "$here/softcx-load.sh" ] || here=/harness/extra

parts= fail_demo= part_tmo=900 hung=
for arg in $(</proc/cmdline); do
	case $arg in
	suite=*) parts=${arg#suite=} ;;
	part_timeout=*) part_tmo=${arg#part_timeout=} ;;
	# A part broken on purpose (make check SCX_PART_FAIL_DEMO=name): it
	# exits before its first RESULT line, which the host must catch.
	part_fail_demo=*) fail_demo=${arg#part_fail_demo=} ;;
	esac
done
[ -n "$parts" ] || { result suite FAIL "no suite= on the kernel command line"; finish; exit 1; }

# hang_dump PART PID: what the kernel and the part's processes are doing.
hang_dump() {
	local p=$1 pid=$2 d
	echo "HANG-DUMP BEGIN $p (no end after ${part_tmo}s)"
	for d in /proc/[0-9]*; do
		# The part's processes: its own session (setsid below).
		[ "$(awk '{ print $6 }' "$d/stat" 2>/dev/null)" = "$pid" ] || continue
		echo "-- ${d#/proc/} $(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)"
		grep -E '^(State|voluntary)' "$d/status" 2>/dev/null
		cat "$d/stack" 2>/dev/null
	done
	# Blocked (D state) tasks, with their stacks, to the kernel log.
	echo w >/proc/sysrq-trigger
	sleep 1
	dmesg | tail -n 200
	echo "HANG-DUMP END $p"
}

# run_part PART: the part in a session of its own, watched; its status.
run_part() {
	local p=$1 pid sl done= rc
	setsid bash "$here/$p.sh" &
	pid=$!
	sleep "$part_tmo" &
	sl=$!
	wait -n -p done "$pid" "$sl"
	rc=$?
	if [ "$done" = "$pid" ]; then
		kill "$sl" 2>/dev/null
		wait "$sl" 2>/dev/null
		return $rc
	fi
	hung=$p
	hang_dump "$p" "$pid"
	kill -KILL -- "-$pid" 2>/dev/null
	return 124
}

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
		run_part "$p" || rc=$?
	fi
	echo "PART-END $p $rc" >"$RESULTS_PORT"
	# What each part costs, for make check's summary (not judged).
	echo "PART-TIME $p $((SECONDS - t_part))" >"$RESULTS_PORT"
	if [ -n "$hung" ]; then
		say "SUITE-STOPPED after $p: it hung (see HANG-DUMP on the console)"
		finish
		exit 1
	fi
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
