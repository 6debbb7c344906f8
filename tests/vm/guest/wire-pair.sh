#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest, one of two guests on a QEMU socket link (tests/vm/run-pair.sh,
# role=a or role=b): softcx on each guest's eth0 (or, on the guest that
# rxe=a|b names, rdma_rxe), RoCEv2 between them over IPv4 and IPv6 GIDs.
# Each exchange has a server on one guest and a client on the other (the
# client retries until the server listens); both guests report it, with
# the same name. Then each guest's counters must show frames each way (and
# softcx's no drops). A part of suite.sh: run-pair.sh boots suite.sh with
# suite=wire-pair on both guests.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
here=${BASH_SOURCE%/*}
[ -f "$here/wire-common.sh" ] || here=/harness/extra
. "$here/wire-common.sh"

one wire_rc_pingpong_v4 a ibv_rc_pingpong -d $dev -g "$g4" -n 200 -s 4096
one wire_uc_pingpong_v4 b ibv_uc_pingpong -d $dev -g "$g4" -n 200 -s 1024
one wire_ud_pingpong_v4 a ibv_ud_pingpong -d $dev -g "$g4" -n 200 -s 1024
one wire_srq_pingpong_v4 b ibv_srq_pingpong -d $dev -g "$g4" -n 100 -s 2048
one wire_write_bw_ab a ib_write_bw -d $dev -x "$g4" -n 200 -s 65536
one wire_write_bw_ba b ib_write_bw -d $dev -x "$g4" -n 200 -s 65536
one wire_read_bw a ib_read_bw -d $dev -x "$g4" -n 200 -s 65536
one wire_send_bw b ib_send_bw -d $dev -x "$g4" -n 200 -s 65536
one wire_atomic_bw a ib_atomic_bw -d $dev -x "$g4" -n 200
one wire_send_lat b ib_send_lat -d $dev -x "$g4" -n 200 -s 64
one wire_write_lat a ib_write_lat -d $dev -x "$g4" -n 200 -s 64
if [ -n "$g6" ]; then
	one wire_rc_pingpong_v6 b ibv_rc_pingpong -d $dev -g "$g6" -n 200 -s 4096
	one wire_ud_pingpong_v6 a ibv_ud_pingpong -d $dev -g "$g6" -n 100 -s 512
else
	result wire_rc_pingpong_v6 FAIL "$role: no IPv6 GID"
	result wire_ud_pingpong_v6 FAIL "$role: no IPv6 GID"
fi

ip -s link show eth0
# Per-QP transport counters (debugfs qps) while a pingpong runs: its QP's
# line shows packets each way.
if [ $dev != rxe0 ]; then
	# Read every 0.2 s until a QP's line shows packets both ways.
	: >/tmp/qps.txt
	(for ((i = 0; i < 150; i++)); do
		cat /sys/kernel/debug/softcx/$dev/qps >/tmp/qps.now
		if awk 'NR > 1 && $1 ~ /^0x/ && $3 > 0 && $5 > 0 { ok = 1 } END { exit !ok }' /tmp/qps.now; then
			cp /tmp/qps.now /tmp/qps.txt
			break
		fi
		sleep 0.2
	done) &
	qps_reader=$!
	one wire_qp_counters_run a ibv_rc_pingpong -d $dev -g "$g4" -n 600 -s 64
	wait $qps_reader
	cat /tmp/qps.txt
	# A line per QP: qpn state tx_pkts tx_bytes rx_pkts rx_bytes ...
	if awk 'NR > 1 && $1 ~ /^0x/ && $3 > 0 && $5 > 0 { ok = 1 } END { exit !ok }' /tmp/qps.txt; then
		result wire_qp_counters PASS "$(grep -m1 '^0x' /tmp/qps.txt)"
	else
		result wire_qp_counters FAIL "$(tr '\n' ';' </tmp/qps.txt)"
	fi
else
	one wire_qp_counters_run a ibv_rc_pingpong -d $dev -g "$g4" -n 600 -s 64
	say "ABSENT softcx rxe0 on this guest: no softcx QP counters to read"
fi

# The frames really crossed the link (and, on softcx, none was dropped as
# malformed).
if [ $dev = rxe0 ]; then
	h=/sys/class/infiniband/rxe0/ports/1/hw_counters
	read -r sent <"$h/sent_pkts"
	read -r rcvd <"$h/rcvd_pkts"
	if [ "$sent" -gt 0 ] && [ "$rcvd" -gt 0 ]; then
		result wire_counters PASS "rxe sent $sent rcvd $rcvd"
	else
		result wire_counters FAIL "rxe sent $sent rcvd $rcvd"
	fi
	finish
	exit
fi
w=/sys/kernel/debug/softcx/$dev/wire
cat "$w"
declare -A c
while read -r k v; do c[$k]=$v; done <"$w"
if [ "${c[tx_frames]:-0}" -gt 0 ] && [ "${c[rx_frames]:-0}" -gt 0 ] && [ "${c[rx_handler]:-}" = on ] &&
	[ $((${c[rx_bad_ip]:-1} + ${c[rx_bad_udp]:-1} + ${c[rx_bad_icrc]:-1})) = 0 ]; then
	result wire_counters PASS "tx ${c[tx_frames]} rx ${c[rx_frames]}"
else
	result wire_counters FAIL "$(tr '\n' ' ' <"$w")"
fi
finish
