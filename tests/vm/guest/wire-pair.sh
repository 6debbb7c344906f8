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
role=a rxe=
for arg in $(</proc/cmdline); do
	case $arg in role=*) role=${arg#role=} ;; rxe=*) rxe=${arg#rxe=} ;; esac
done
me=1 peer=2
[ "$role" = a ] || { me=2 peer=1; }
dev=softcx_eth0
[ "$rxe" = "$role" ] && dev=rxe0

# The NIC is virtio-net on PCI: both drivers, then eth0 appears.
run_t 30 modprobe -a virtio_pci virtio_net
for ((i = 0; i < 100; i++)); do
	[ -e /sys/class/net/eth0 ] && break
	sleep 0.1
done
run_t 10 ip link set eth0 up
run_t 10 ip addr add 10.9.0.$me/24 dev eth0
run_t 10 ip -6 addr add fd09::$me/64 dev eth0 nodad
# The RDMA core resolves the peer's MAC through the neighbour table.
run_t 10 ip neigh flush dev eth0
if [ $dev = rxe0 ]; then
	rxe_up rxe0 eth0 || { result wire_up FAIL rxe; finish; exit 1; }
elif ! load_softcx packet_transport=1 || ! run_t 60 rdma link add $dev type softcx netdev eth0; then
	dmesg | tail -20
	result wire_up FAIL
	finish
	exit 1
fi
g4=$(roce_v2_ipv4_gid_index $dev) || { result wire_up FAIL "no IPv4 GID"; finish; exit 1; }
g6=
for ((try = 0; try < 25 && !${#g6}; try++)); do
	for ((i = 0; i < 16; i++)); do
		read -r gid <"/sys/class/infiniband/$dev/ports/1/gids/$i" 2>/dev/null || continue
		read -r type <"/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null || continue
		[ "$type" = "RoCE v2" ] && [[ $gid == fd09:* ]] && g6=$i
	done
	[ -n "$g6" ] || sleep 0.2
done
echo "gids: ipv4 $g4 ipv6 ${g6:-none}"
result wire_up PASS "$dev on eth0, gids $g4 ${g6:-none}"
# Both guests up before the first exchange (ping also fills the neighbour
# tables the RDMA core resolves MACs from).
for ((i = 0; i < 60; i++)); do
	ping -c1 -W1 10.9.0.$peer >/dev/null 2>&1 && break
done
ping -6 -c1 -W2 fd09::$peer >/dev/null 2>&1

# one NAME SERVER GIDX PEER_ADDR_FLAG CMD...: SERVER (a or b) runs CMD as the
# server; the other guest runs it as the client of 10.9.0.x. Each side
# reports NAME: its own exit status, and the client's last output line.
one() {
	local name=$1 server=$2 rc=0 try out
	shift 2
	if [ "$role" = "$server" ]; then
		run_t 150 "$@" || rc=$?
	else
		for ((try = 0; try < 30; try++)); do
			rc=0
			run_t 120 "$@" 10.9.0.$peer || rc=$?
			[ $rc != 0 ] && [[ $RUN_OUT == *"Couldn't connect"* || $RUN_OUT == *"Unable to"* ]] || break
			sleep 1
		done
	fi
	out=$(grep -E 'Mbit/sec|^ *[0-9]+ +[0-9]+ +[0-9.]+' <<<"$RUN_OUT" | tail -1 | tr -s ' \t' ' ')
	if [ $rc = 0 ]; then
		result "$name" PASS "$role:${out:-ok}"
	else
		result "$name" FAIL "$role: exit $rc ${out}"
		echo "$RUN_OUT" | tail -5
	fi
}

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
