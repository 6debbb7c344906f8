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

# The connection manager between the hosts (QP1's MADs on the wire, as
# RoCEv2 packets to QPN 1): rping with its data checked, over IPv4 and
# IPv6, each guest the server once.
one_cm wire_cm_rping_v4 a 10.9.0.$me 10.9.0.$peer rping -V -C 100 -S 1024
one_cm wire_cm_rping_v4_ba b 10.9.0.$me 10.9.0.$peer rping -V -C 50 -S 4096
if [ -n "$g6" ]; then
	one_cm wire_cm_rping_v6 a fd09::$me fd09::$peer rping -V -C 50 -S 1024
else
	result wire_cm_rping_v6 FAIL "$role: no IPv6 GID"
fi
# perftest connecting through rdma_cm (-R), the server a or b in turn.
# READ with -o 16 on both sides: perftest offers its device's own
# maximum of outstanding READs in the CM's REP (rxe: 128), which the
# other side's librdmacm sets as its QP's max_dest_rd_atomic, and a
# ConnectX (mlx5_ib: 1 << log_max_ra_res_qp, 16), as softcx, refuses
# more with EINVAL.
one wire_cm_send_bw a ib_send_bw -d $dev -R -n 200 -s 65536
one wire_cm_read_bw b ib_read_bw -d $dev -R -n 200 -s 65536 -o 16
one wire_cm_write_bw a ib_write_bw -d $dev -R -n 200 -s 65536
one wire_cm_send_lat b ib_send_lat -d $dev -R -n 200 -s 64
# librdmacm's own examples: RC connections with data (ucmatose), UD
# through the CM (udaddy), and the rdma_server / rdma_client pair.
one_cms wire_cm_ucmatose a "ucmatose -c 4 -C 50 -S 1024" "ucmatose -s 10.9.0.$peer -c 4 -C 50 -S 1024"
one_cms wire_cm_udaddy b "udaddy -c 2 -C 10 -S 512" "udaddy -s 10.9.0.$peer -c 2 -C 10 -S 512"
one_cms wire_cm_rdma_server a "rdma_server" "rdma_client -s 10.9.0.$peer"
# libfabric's verbs provider over rdma_cm (msg endpoints), data checked.
fi="fi_pingpong -p verbs -e msg -d $dev -I 100 -S 4096 -c"
one_cms wire_cm_fi_pingpong b "$fi" "$fi 10.9.0.$peer"

# qperf -cm1: a's server serves b's client, then stops (its per-test
# child segfaults in libibverbs as it ends, on rxe as on softcx: cm.sh).
# b judges its client's status and three figures, a that its device
# carried the exchange. -nr 16: qperf asks for its device's maximum of
# outstanding READs (rxe: 128) on both sides, which a ConnectX, as
# softcx, refuses (see perftest -R READ above).
qperf_tests=(rc_bw rc_lat rc_rdma_read_bw)
if [ "$role" = a ]; then
	r0=$(dev_rx_pkts "$dev")
	qperf >/tmp/qperf-srv.log 2>&1 &
	qpid=$!
	down=0
	listening $qpid qperf || down=1
	agree $down || : # serving
	# One test per client run, the next once this test's child is gone
	# (see cm.sh: a test started while it was ending was rejected).
	for _ in "${qperf_tests[@]}"; do
		agree 0 || : # the client ran the test
		wait_children $qpid 20 || echo "+ qperf's server still has a child" >&2
		agree 0 || : # ready for the next
	done
	kill $qpid 2>/dev/null
	wait $qpid 2>/dev/null
	r1=$(dev_rx_pkts "$dev")
	if [ $((r1 - r0)) -gt 1000 ]; then
		result wire_cm_qperf PASS "a: $dev took $((r1 - r0)) packets serving"
	else
		result wire_cm_qperf FAIL "a: $dev took $((r1 - r0)) packets"
	fi
else
	rc=0 out=
	await_server || rc=1
	for t in "${qperf_tests[@]}"; do
		if [ $rc = 0 ]; then
			opt=()
			[ "$t" = rc_rdma_read_bw ] && opt=(-nr 16)
			run_t 120 qperf -cm1 10.9.0.1 -t 2 -m 4096 "${opt[@]}" "$t" || rc=$?
			out+=$RUN_OUT$'\n'
		fi
		agree 0 || : # ran it
		agree 0 || : # the server is ready for the next
	done
	figs=$(grep -E '^ *(bw|latency) *=' <<<"$out" | tr -s ' ' | tr '\n' ';')
	if [ $rc = 0 ] && [ "$(grep -cE '^ *(bw|latency) *=' <<<"$out")" = 3 ]; then
		result wire_cm_qperf PASS "b: $figs"
	else
		result wire_cm_qperf FAIL "b: exit $rc: $figs"
	fi
fi

ip -s link show eth0
# Per-QP transport counters (debugfs qps) while a pingpong runs: its QP's
# line shows packets each way.
if [ $dev != rxe0 ]; then
	# The QP that stays: the GSI QP ib_mad keeps on the port.
	stay=1
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
	# Once the pingpong's QPs are gone (its process has exited; its
	# context may take a moment to go), the port's totals (the last
	# line, port(N), N the live QPs) keep what they counted.
	for ((i = 0; i < 50; i++)); do
		cat /sys/kernel/debug/softcx/$dev/qps >/tmp/qps.after
		port=$(grep '^port(' /tmp/qps.after)
		[[ $port == "port($stay) "* ]] && break
		sleep 0.1
	done
	if [[ $port == "port($stay) "* ]] && awk '{ exit !($3 > 0 && $5 > 0) }' <<<"$port"; then
		result wire_port_counters PASS "$port"
	else
		result wire_port_counters FAIL "$(tr '\n' ';' </tmp/qps.after)"
	fi
else
	one wire_qp_counters_run a ibv_rc_pingpong -d $dev -g "$g4" -n 600 -s 64
	say "ABSENT softcx rxe0 on this guest: no softcx QP counters to read"
fi

# rdma_rxe in this guest too (wire-common.sh), loaded before softcx on a,
# after it on b: softcx's traffic above ran with it there; now its own, on
# a TCP port of its own (the other guest may already be calling on the
# usual one for the next exchange).
if [ $dev != rxe0 ]; then
	order=after
	[ "$role" = a ] && order=before
	if [ $alongside_up = 1 ] && gx=$(roce_v2_ipv4_gid_index rxe1) &&
		pingpong_pair rxe1 "$gx" ibv_rc_pingpong -n 100 -s 1024 -p 18999; then
		result wire_rxe_alongside PASS "rxe1 on dummy0, loaded $order softcx: $(grep -m1 Mbit <<<"$RUN_OUT")"
	else
		result wire_rxe_alongside FAIL "rxe1 on dummy0, loaded $order softcx (up: $alongside_up)"
	fi
fi

# The frames really crossed the link (and, on softcx, none was dropped as
# malformed, and none by the sender: a full netdev queue holds the engine
# back instead).
if [ $dev = rxe0 ]; then
	h=/sys/class/infiniband/rxe0/ports/1/hw_counters
	read -r sent <"$h/sent_pkts"
	read -r rcvd <"$h/rcvd_pkts"
	if [ "$sent" -gt 0 ] && [ "$rcvd" -gt 0 ]; then
		result wire_counters PASS "rxe sent $sent rcvd $rcvd"
	else
		result wire_counters FAIL "rxe sent $sent rcvd $rcvd"
	fi
else
	w=/sys/kernel/debug/softcx/$dev/wire
	cat "$w"
	declare -A c
	while read -r k v; do c[$k]=$v; done <"$w"
	retries=$(awk '$1 == "retries" { print $2 }' /sys/kernel/debug/softcx/$dev/dp)
	if [ "${c[tx_frames]:-0}" -gt 0 ] && [ "${c[rx_frames]:-0}" -gt 0 ] && [ "${c[rx_handler]:-}" = on ] &&
		[ $((${c[rx_bad_ip]:-1} + ${c[rx_bad_udp]:-1} + ${c[rx_bad_icrc]:-1} + ${c[tx_drops]:-1})) = 0 ]; then
		result wire_counters PASS "tx ${c[tx_frames]} rx ${c[rx_frames]}, sends refused while the link was full ${c[tx_link_full]} (ACK timeouts $retries)"
	else
		result wire_counters FAIL "$(tr '\n' ' ' <"$w")"
	fi
fi

# A capture of a few exchanges of every kind, on guest a, for the host to
# decode with tshark and to check every frame's ICRC (tests/vm/wire-decode.py):
# FRAME lines on the results port.
tx0=$(</sys/class/net/eth0/statistics/tx_packets)
if [ "$role" = a ]; then
	python3 "$here/roce_sniff.py" eth0 /tmp/frames.txt &
	sniff=$!
	sleep 1
fi
# The exchanges are run for their frames (perftest may still fail
# its own clock calibration after them); the host judges the frames.
export ONE_LOG_ONLY=1
one capture_rc a ibv_rc_pingpong -d $dev -g "$g4" -n 3 -s 3000
one capture_ud b ibv_ud_pingpong -d $dev -g "$g4" -n 2 -s 100
one capture_write a ib_write_bw -d $dev -x "$g4" -n 5 -s 3000
# -o: rxe offers 128 outstanding READs; a ConnectX (and softcx) take 16.
one capture_read b ib_read_bw -d $dev -x "$g4" -n 5 -s 3000 -o 16
one capture_atomic a ib_atomic_bw -d $dev -x "$g4" -n 5
[ -z "$g6" ] || one capture_rc_v6 b ibv_rc_pingpong -d $dev -g "$g6" -n 2 -s 200
unset ONE_LOG_ONLY
if [ "$role" = a ]; then
	sleep 1
	kill -TERM $sniff
	wait $sniff
	n=0
	while read -r f; do
		echo "FRAME $f" >"$RESULTS_PORT"
		n=$((n + 1))
	done </tmp/frames.txt
	if [ $n -gt 0 ]; then
		result wire_capture PASS "$n frames captured (judged on the host)"
	else
		result wire_capture FAIL "no frame captured"
	fi
else
	tx=$(($(</sys/class/net/eth0/statistics/tx_packets) - tx0))
	if [ $tx -gt 0 ]; then
		result wire_capture PASS "$tx frames sent to a, which captures"
	else
		result wire_capture FAIL "nothing sent during the exchanges"
	fi
fi

# Malformed frames from the wire: guest b copies one of its own frames to
# a and sends it damaged eight ways (wire_inject.py, N of each) while an RC
# pingpong with its payload checked runs on that QP pair. a (softcx) must
# count exactly what was sent, each kind where it belongs, and the
# pingpong must complete.
n_bad=5
if [ "$role" = b ]; then
	python3 "$here/wire_inject.py" eth0 10.9.0.1 $n_bad >/tmp/inject.txt 2>&1 &
	inj=$!
	one wire_malformed_run a ibv_rc_pingpong -d $dev -g "$g4" -n 300 -s 512 --chk
	irc=0
	wait $inj || irc=$?
	cat /tmp/inject.txt
	if [ $irc = 0 ] && [ "$(grep -c "^sent [a-z_]* $n_bad\$" /tmp/inject.txt)" = 8 ]; then
		result wire_malformed PASS "8 kinds x $n_bad sent; $(grep ICRC /tmp/inject.txt)"
	else
		result wire_malformed FAIL "injector exit $irc: $(tr '\n' ';' </tmp/inject.txt)"
	fi
elif [ $dev = rxe0 ]; then
	one wire_malformed_run a ibv_rc_pingpong -d $dev -g "$g4" -n 300 -s 512 --chk
	result wire_malformed FAIL "guest a must run softcx to judge what it received"
else
	dbg=/sys/kernel/debug/softcx/$dev
	declare -A w0 w1
	while read -r k v; do w0[$k]=$v; done < <(cat $dbg/wire $dbg/dp)
	one wire_malformed_run a ibv_rc_pingpong -d $dev -g "$g4" -n 300 -s 512 --chk
	sleep 2 # the injector's last frames
	while read -r k v; do w1[$k]=$v; done < <(cat $dbg/wire $dbg/dp)
	delta() { echo $((${w1[$1]:-0} - ${w0[$1]:-0})); }
	got="bad_icrc $(delta rx_bad_icrc) bad_ip $(delta rx_bad_ip) bad_udp $(delta rx_bad_udp) no_qp $(delta rx_no_qp)"
	got+=" bad_pkey $(delta rx_bad_pkey) malformed $(delta rx_malformed)"
	want="bad_icrc $n_bad bad_ip $((2 * n_bad)) bad_udp $n_bad no_qp $n_bad"
	want+=" bad_pkey $n_bad malformed $((2 * n_bad))"
	if [ "$got" = "$want" ]; then
		result wire_malformed PASS "dropped and counted: $got"
	else
		result wire_malformed FAIL "counted $got, sent $want"
	fi
fi

# QP1 from the wire: while an rping connects from b to a, b sends datagrams
# to QP1 that its rules refuse (wire_inject.py --qp1: larger than a MAD, a
# P_Key not in the port's table, another Q_Key than QP1's), N of each, on
# the headers of b's first CM MAD. a (softcx) drops and counts each kind
# where it belongs; that rping and one right after it pass (ib_mad still
# has its receives, the CM still answers).
n_qp1=5
if [ "$role" = a ] && [ $dev != rxe0 ]; then
	dbg=/sys/kernel/debug/softcx/$dev
	declare -A q0 q1
	while read -r k v; do q0[$k]=$v; done <$dbg/dp
fi
# Both sides here (a has read its counters) before b injects anything.
agree 0 || :
if [ "$role" = b ]; then
	python3 "$here/wire_inject.py" --qp1 eth0 10.9.0.1 $n_qp1 >/tmp/inject-qp1.txt 2>&1 &
	inj=$!
	# Capturing before the rping's first frame leaves.
	for ((i = 0; i < 100; i++)); do
		grep -q listening /tmp/inject-qp1.txt && break
		sleep 0.1
	done
fi
one_cm wire_qp1_rping_during a 10.9.0.$me 10.9.0.$peer rping -V -C 50 -S 512
if [ "$role" = b ]; then
	irc=0
	wait $inj || irc=$?
	cat /tmp/inject-qp1.txt
fi
sleep 2 # the injector's last frames
one_cm wire_qp1_rping_after a 10.9.0.$me 10.9.0.$peer rping -V -C 50 -S 512
if [ "$role" = b ]; then
	if [ $irc = 0 ] && [ "$(grep -c "^sent qp1_[a-z_]* $n_qp1\$" /tmp/inject-qp1.txt)" = 3 ]; then
		result wire_qp1_robust PASS "3 kinds x $n_qp1 sent to QPN 1"
	else
		result wire_qp1_robust FAIL "injector exit $irc: $(tr '\n' ';' </tmp/inject-qp1.txt)"
	fi
elif [ $dev = rxe0 ]; then
	result wire_qp1_robust FAIL "guest a must run softcx to judge what it received"
else
	while read -r k v; do q1[$k]=$v; done <$dbg/dp
	qd() { echo $((${q1[$1]:-0} - ${q0[$1]:-0})); }
	got="malformed $(qd rx_malformed) bad_pkey $(qd rx_bad_pkey) bad_qkey $(qd rx_bad_qkey)"
	want="malformed $n_qp1 bad_pkey $n_qp1 bad_qkey $n_qp1"
	if [ "$got" = "$want" ]; then
		result wire_qp1_robust PASS "dropped and counted: $got"
	else
		result wire_qp1_robust FAIL "counted $got, sent $want"
	fi
fi

# NVMe over RDMA between the hosts: a the target (nvmet-rdma on 10.9.0.1,
# a file-backed namespace), b the host (nvme-rdma). b writes 16 MiB of
# seeded data with O_DIRECT, reads it back identical after a reconnect;
# a's backing file then holds those bytes. The guests meet (agree) when
# the target listens and when the host is done.
NQN=nqn.2026-12.io.softcx:wire
NVME_IP=10.9.0.1
nvme_mib=16
# shellcheck source=nvme-common.sh
. "$here/nvme-common.sh"
seeded() {
	python3 -c "import random, sys; random.seed(4791); sys.stdout.buffer.write(random.randbytes($nvme_mib << 20))" >"$1"
}
if [ "$role" = a ]; then
	up=0
	truncate -s "${nvme_mib}M" /tmp/nvme-backing.img
	run_t 60 modprobe -a nvmet nvmet-rdma && nvme_configfs && target_up && up=1
	agree 0 || : # listening
	agree 0 || : # the host is done
	seeded /tmp/nvme-seeded
	if [ $up = 1 ] && cmp /tmp/nvme-seeded /tmp/nvme-backing.img; then
		result wire_nvme PASS "$dev target: the host's $nvme_mib MiB in the backing file"
	else
		result wire_nvme FAIL "target up $up; backing file differs"
	fi
	target_down
	run_t 60 rmmod nvmet_rdma nvmet
else
	seeded /tmp/nvme-seeded
	run_t 60 modprobe nvme-rdma
	agree 0 || : # listening
	note=FAIL
	if connect && run_t 120 dd if=/tmp/nvme-seeded of="$NVME_DEV" bs=1M count=$nvme_mib oflag=direct status=none &&
		disconnect && connect &&
		run_t 120 dd if="$NVME_DEV" of=/tmp/nvme-back bs=1M count=$nvme_mib iflag=direct status=none &&
		cmp /tmp/nvme-seeded /tmp/nvme-back && disconnect; then
		note=PASS
	else
		[ -z "${NVME_CTRL:-}" ] || disconnect 2>/dev/null
	fi
	agree 0 || : # done
	result wire_nvme $note "$dev host: $nvme_mib MiB O_DIRECT to 10.9.0.1, reconnected, read back"
	run_t 60 rmmod nvme_rdma
fi
rm -f /tmp/nvme-seeded /tmp/nvme-back /tmp/nvme-backing.img
finish
