#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: a doorbell runs the QP it names, not a pass over every QP. The
# engine counts each turn it gives a QP (debugfs dp: qp_visits) and each
# doorbell (doorbells); ib_send_lat's turns per doorbell must be the same
# with no other QP and with 1000 idle RC QPs in RTS beside it (idle_qps).
# A full pass per doorbell would multiply them by about 500.
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

dev=softcx_0
dbg=/sys/kernel/debug/softcx/$dev
kmemleak_begin
softcx_up dbsched

dpc() { awk -v k="$1" '$1 == k { print $2 }' $dbg/dp; }
# per_doorbell NAME: ib_send_lat -n 1000 on two QPs; RATIO (x1000) and the
# deltas, for the result line.
per_doorbell() {
	local v0 d0 v1 d1
	v0=$(dpc qp_visits) d0=$(dpc doorbells)
	if ! perftest_pair $dev "$GIDX" ib_send_lat -s 64 -n 1000; then
		result "$1" FAIL "ib_send_lat: ${PERF_ROW:-no results row}"
		return 1
	fi
	v1=$(dpc qp_visits) d1=$(dpc doorbells)
	DV=$((v1 - v0)) DD=$((d1 - d0))
	RATIO=$((DD > 0 ? DV * 1000 / DD : -1))
	result "$1" PASS "$DV QP turns for $DD doorbells"
}

per_doorbell dbsched_alone
alone=$RATIO alone_v=$DV
rm -f /tmp/idle.out
/harness/extra/idle_qps $dev "$GIDX" 1000 600 >/tmp/idle.out 2>&1 &
idle=$!
for ((i = 0; i < 600; i++)); do
	grep -q ready /tmp/idle.out 2>/dev/null && break
	kill -0 $idle 2>/dev/null || break
	sleep 1
done
if grep -q "ready 1000" /tmp/idle.out; then
	per_doorbell dbsched_idle_1000
	# The same turns per doorbell, within a quarter (timing moves ACK
	# coalescing a little); a pass over 1000 QPs would be ~500x.
	if [ "$alone" -gt 0 ] && [ "$RATIO" -gt 0 ] && [ $((RATIO * 4)) -le $((alone * 5)) ] &&
		[ $((RATIO * 5)) -ge $((alone * 4)) ]; then
		result dbsched_same_turns PASS "turns per doorbell x1000: alone $alone, with 1000 idle QPs $RATIO (turns $alone_v, $DV)"
	else
		result dbsched_same_turns FAIL "turns per doorbell x1000: alone $alone, with 1000 idle QPs $RATIO"
	fi
else
	result dbsched_idle_1000 FAIL "idle_qps: $(tail -1 /tmp/idle.out)"
	result dbsched_same_turns FAIL "no idle QPs"
fi
kill $idle 2>/dev/null
wait $idle 2>/dev/null
softcx_down dbsched
kmemleak_check doorbell-sched
finish
