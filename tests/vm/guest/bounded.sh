#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: bounded work. One SEND of 1 GiB (as many SGEs as a QP takes,
# all over one MR: big_wqe) while another process runs NOPs through the
# command queue and ib_send_lat runs on other QPs of the same port. softcx
# measures its own lock holds and interrupts-off sections (debugfs
# lock_times, module-wide, timed from the moment the test starts): the
# longest of each stays under 1 ms, and the NOPs and the latency test keep
# completing while the big message moves. A soft lockup or RCU stall would
# fail the boot's log scan. make check runs it on the stock kernel, make
# soak on the test kernel, each in a boot of its own, one vCPU with an
# instruction-counted clock (run-guest.sh -i 0: 1 ns an instruction), so
# what it times is softcx's work and not the host descheduling QEMU (on
# the plain TCG clock even a lock around one queue_work() was seen "held"
# 2.4 ms).
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

# bd_log=N on the kernel command line: a message of 2^N bytes (default
# 30, 1 GiB; the holds are per packet whatever the size).
log_len=30
for arg in $(</proc/cmdline); do
	case $arg in bd_log=*) log_len=${arg#bd_log=} ;; esac
done
dev=softcx_0
dbg=/sys/kernel/debug/softcx
limit_ns=1000000
kmemleak_begin
softcx_up bounded

# NOPs ten at a time until /tmp/bounded-stop appears; each batch a line.
nops() {
	while [ ! -e /tmp/bounded-stop ]; do
		echo 10 >$dbg/$dev/nop || { echo "nop failed"; return 1; }
		echo batch
	done
}

rm -f /tmp/bounded-stop /tmp/bounded-nops /tmp/bounded-lat /tmp/bounded-lat-note
# Timing from now (it is off unless asked: two clock reads a lock).
echo on >$dbg/lock_times
nops >/tmp/bounded-nops 2>&1 &
nop_pid=$!
# In a subshell: what perftest_pair retried, if anything, comes back in a
# file for the result line to say.
(
	rc=0
	perftest_pair $dev "$GIDX" ib_send_lat -s 64 -n 2000 >/tmp/bounded-lat 2>&1 || rc=$?
	echo "$RETRY_NOTE" >/tmp/bounded-lat-note
	exit $rc
) &
lat_pid=$!
run_program big_wqe 1200 /harness/extra/big_wqe $dev "$GIDX" "$log_len"
# What ran beside it while it moved: NOP batches, and the latency test
# still running or finished well.
nop_during=$(grep -c batch /tmp/bounded-nops)
lat_alive=finished
kill -0 $lat_pid 2>/dev/null && lat_alive=running
touch /tmp/bounded-stop
wait $nop_pid
nop_rc=$?
lat_rc=0
wait $lat_pid || lat_rc=$?
cat /tmp/bounded-lat >&2
times=$(<$dbg/lock_times)
echo "$times" >&2

if [ "$nop_rc" = 0 ] && [ "$nop_during" -gt 0 ]; then
	result bounded_nops PASS "$((nop_during * 10)) NOPs completed while the 2^$log_len-byte SEND moved"
else
	result bounded_nops FAIL "status $nop_rc, $nop_during batches of 10 during the SEND"
fi
RETRY_NOTE=$(cat /tmp/bounded-lat-note 2>/dev/null)
if [ "$lat_rc" = 0 ]; then
	result bounded_send_lat PASS "ib_send_lat -n 2000 beside it ($lat_alive when the SEND ended)"
else
	result bounded_send_lat FAIL "ib_send_lat exit status $lat_rc"
fi
# lock_times: "timing on", "irqs_off_max_ns N WHERE", then "held_max_ns
# CLASS N WHERE" for each lock class (WHERE: the function that took it).
worst=0 over=()
while read -r what a b c; do
	if [ "$what" = timing ]; then
		[ "$a" = on ] || over+=("timing $a")
		continue
	fi
	if [ "$what" = irqs_off_max_ns ]; then ns=$a at=$b; else ns=$b at=$c what+=" $a"; fi
	[[ $ns =~ ^[0-9]+$ ]] || { over+=("unreadable: $what $a $b"); continue; }
	[ "$ns" -le "$worst" ] || worst=$ns
	[ "$ns" -lt $limit_ns ] || over+=("$what $ns ns in $at")
done <<<"$times"
irq=$(awk '$1 == "irqs_off_max_ns" { print $2 }' <<<"$times")
dp=$(awk '$1 == "held_max_ns" && $2 == "hca_dp" { print $3 }' <<<"$times")
if [ ${#over[@]} = 0 ] && [ -n "$irq" ] && [ -n "$dp" ] && [ "$dp" -gt 0 ]; then
	result bounded_lock_times PASS "longest interrupts-off ${irq} ns, data-path lock held ${dp} ns, any lock ${worst} ns (limit ${limit_ns})"
else
	result bounded_lock_times FAIL "over ${limit_ns} ns: ${over[*]:-none}; irqs_off ${irq:-?}, hca_dp ${dp:-?}"
fi
softcx_down bounded
kmemleak_check bounded
finish
