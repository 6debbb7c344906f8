#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest, one of two guests on a link (tests/vm/run-pair.sh, suite.sh
# with suite=wire-netem; make soak): the link made bad on purpose with tc
# netem on both guests' eth0 (delay 1ms reorder 1% loss 1% duplicate
# 0.5%; reordering needs the delay), then long runs between them: every
# one must complete, ibv_rc_pingpong with its payload checked (--chk), and
# afterwards softcx's counters must show the loss was real and recovered
# from (retransmissions, duplicates seen by the responder, packets out of
# sequence). With rxe=a|b, rdma_rxe on that guest.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
here=${BASH_SOURCE%/*}
[ -f "$here/wire-common.sh" ] || here=/harness/extra
. "$here/wire-common.sh"

run_t 30 modprobe sch_netem
if run_t 10 tc qdisc add dev eth0 root netem delay 1ms reorder 1% loss 1% duplicate 0.5%; then
	result wire_netem_on PASS "$(tc qdisc show dev eth0 | head -1)"
else
	result wire_netem_on FAIL "$RUN_OUT"
fi
n=${NETEM_ITERS:-10000}
one netem_rc_pingpong a ibv_rc_pingpong -d $dev -g "$g4" -n "$n" -s 1024 --chk
one netem_write_bw b ib_write_bw -d $dev -x "$g4" -n "$n" -s 4096
one netem_read_bw a ib_read_bw -d $dev -x "$g4" -n "$((n / 5))" -s 16384
one netem_send_bw b ib_send_bw -d $dev -x "$g4" -n "$n" -s 4096
run_t 10 tc qdisc del dev eth0 root

# The loss happened and was repaired: softcx's Q counters (rxe's own
# hw_counters on an rxe guest).
declare -A c
if [ $dev = rxe0 ]; then
	for k in duplicate_request out_of_seq_request rcvd_seq_err completer_retry_err; do
		read -r c[$k] <"/sys/class/infiniband/rxe0/ports/1/hw_counters/$k" 2>/dev/null || c[$k]=0
	done
	line="rxe: dup ${c[duplicate_request]} out_of_seq ${c[out_of_seq_request]} seq_err ${c[rcvd_seq_err]} retries ${c[completer_retry_err]}"
	if [ $((${c[duplicate_request]} + ${c[out_of_seq_request]})) -gt 0 ]; then
		result netem_counters PASS "$line"
	else
		result netem_counters FAIL "$line"
	fi
	finish
	exit
fi
while read -r k v; do c[$k]=$v; done < <(rdma statistic show link $dev/1 | tr ' ' '\n' | paste - - | tail -n +2)
retrans=$((${c[local_ack_timeout_err]:-0} + ${c[packet_seq_err]:-0} + ${c[implied_nak_seq_err]:-0}))
line="retransmit causes $retrans dup ${c[duplicate_request]:-0} out_of_seq ${c[out_of_sequence]:-0}"
if [ $retrans -gt 0 ] && [ "${c[duplicate_request]:-0}" -gt 0 ] && [ "${c[out_of_sequence]:-0}" -gt 0 ]; then
	result netem_counters PASS "$line"
else
	result netem_counters FAIL "$line ($(rdma statistic show link $dev/1))"
fi
cat "/sys/kernel/debug/softcx/$dev/wire"
finish
