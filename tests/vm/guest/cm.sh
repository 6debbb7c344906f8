#!/bin/bash
# In-guest: the RDMA connection manager on softcx (kernel verbs, QP1, ib_cm,
# rdma_cm) with the standard rdmacm-utils and perftest -R, each run on
# softcx_0 (dummy0, 10.0.0.1) and, as the reference, on rxecm (a dummy
# netdev of its own, cmrxe, 10.0.7.1): every RESULT names rxe's outcome in
# the same boot. The two devices sit on different netdevs so that an
# address names one device; rxe devices earlier parts left (rxe0 on
# dummy0) go first, or rdma_cm could pick them for softcx's address.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

RXE_IP=10.0.7.1
RXE_DEV=rxecm RXE_NETDEV=cmrxe
# Kernel args cm_iters=N (rping's count, 1000) and cm_fi_size=S
# (fi_pingpong's one size; without it, its default set of sizes): make
# check's test-kernel boot runs it lighter (KASAN and lockdep make it
# ~11 min in full), make soak in full.
CM_ITERS=1000 FI_SIZE=()
for arg in $(</proc/cmdline); do
	case $arg in
	cm_iters=*) CM_ITERS=${arg#cm_iters=} ;;
	cm_fi_size=*) FI_SIZE=(-S "${arg#cm_fi_size=}") ;;
	esac
done

rxe_remove_all
softcx_up cm
have_rxe=0
if ! rxe_absent; then
	if run_t 10 ip link add $RXE_NETDEV type dummy && run_t 10 ip addr add "$RXE_IP/24" dev $RXE_NETDEV &&
		run_t 10 ip link set $RXE_NETDEV up && rxe_up $RXE_DEV $RXE_NETDEV &&
		roce_v2_ipv4_gid_index $RXE_DEV >/dev/null; then
		have_rxe=1
	else
		result cm_rxe_up FAIL
	fi
fi

# pair NAME SERVER_CMD... -- CLIENT_CMD...: the server in the background,
# the client after it listens (retried while it does not yet); both must
# exit 0. Sets PAIR_OUT to the client's output and PAIR_NOTE to what was
# done again. perftest gives up when its clock calibration is too noisy
# (TCG, KASAN): the side that gave up exits and the other waits for it,
# so that one is stopped and the pair runs again (three runs at most),
# and the note says so.
pair() {
	local name=$1 srv=() cli=() run
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	PAIR_NOTE=
	for ((run = 1; run <= 3; run++)); do
		pair_once "$name" && return 0
		# Not a pipe into grep -q: under pipefail, a writer it left
		# behind (SIGPIPE) would fail the test instead of retrying it.
		grep -qE "Can't produce a report|Correlation coefficient r\^2" \
			"/tmp/cm-$name.srv" - <<<"$PAIR_OUT" || return 1
		PAIR_NOTE=" RETRIED=$run(perftest clock calibration)"
		echo "+ perftest could not calibrate its clock (TCG noise): again" >&2
	done
	return 1
}

# softcx_state: softcx_0's QPs (each one's retransmissions, RNR and
# sequence NAKs) and its data path's counters, on the console: what a
# stopped pair was doing.
softcx_state() {
	cat /sys/kernel/debug/softcx/softcx_0/qps /sys/kernel/debug/softcx/softcx_0/dp >&2
}

# client_beside SPID SECS CMD...: the client, as run_t runs it, but stopped
# once the server (SPID) has been gone for 30 s: a perftest server that
# gave up on its clock exits before the closing exchange over rdma_cm,
# and the client would busy-poll for it until its timeout. A client still
# running after SECS is stopped too (status 124), after the QPs' transport
# counters and the data path's are on the console: what a hung pair was
# doing. Both sides' output is line-buffered, so a stopped one shows how
# far it got.
client_beside() {
	local spid=$1 secs=$2 cpid rc=0 gone='' hung='' t0=$SECONDS out=/tmp/cm-client.out
	shift 2
	echo "+ $*" >&2
	stdbuf -oL "$@" >"$out" 2>&1 &
	cpid=$!
	while kill -0 "$cpid" 2>/dev/null; do
		kill -0 "$spid" 2>/dev/null || : "${gone:=$SECONDS}"
		if [ -n "$gone" ] && ((SECONDS - gone >= 30)); then
			echo "+ the server ended 30 s ago: client stopped" >&2
			kill "$cpid" 2>/dev/null
			break
		fi
		if ((SECONDS - t0 >= secs)); then
			echo "+ client still running after $secs s: stopped; softcx_0 now:" >&2
			softcx_state
			kill "$cpid" 2>/dev/null
			hung=1
			break
		fi
		sleep 0.1
	done
	wait "$cpid" || rc=$?
	[ -z "$hung" ] || rc=124
	RUN_OUT=$(<"$out")
	[ -z "$RUN_OUT" ] || printf '%s\n' "$RUN_OUT" >&2
	[ $rc = 0 ] || echo "+ exit status $rc" >&2
	return $rc
}

# wait_listen PID: until the server under PID (timeout's child) listens on
# PAIR_DEV, 30 s at most: a client that comes before the listener is
# rejected (perftest's then crashes in librdmacm), and a fixed wait is too
# short on a loaded host. An rdma_cm ID in LISTEN on that device (a
# wildcard listener has one per device, added one after the other, each
# in LISTEN just before its ib_cm listener is in place: hence the device,
# and a second more, never sooner than the fixed wait it replaced), or
# for the tools that meet over TCP first (fi_pingpong), a listening TCP
# socket of its own.
wait_listen() {
	local i child
	for ((i = 0; i < 300; i++)); do
		child=$(pgrep -P "$1" | head -n 1)
		if [ -n "$child" ] && listening "$child"; then
			# 0.2 s was not enough: an rxe client was still
			# REJECTED once its device's LISTEN showed.
			sleep 1
			return 0
		fi
		sleep 0.1
	done
	echo "+ the server under pid $1 did not listen on $PAIR_DEV within 30 s" >&2
}

listening() {
	local pid=$1 inodes
	grep -qE "^link $PAIR_DEV/([0-9]+|-) .*state LISTEN .*pid $pid " \
		< <(rdma resource show cm_id 2>/dev/null) && return 0
	inodes=$(readlink /proc/"$pid"/fd/* 2>/dev/null | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')
	[ -n "$inodes" ] || return 1
	# /proc/net/tcp*: field 4 the state (0A: LISTEN), field 10 the inode.
	awk -v want="$inodes" 'BEGIN { n = split(want, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
		$4 == "0A" && ($10 in w) { found = 1 } END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# server_after SPID SECS: the server (SPID, timeout's) SECS after its
# client ended well, or stopped then, with where it waits (its kernel
# stack) and softcx_0's counters on the console: a server of the rxe
# comparison once sat 240 s after its client's "end 0", its log empty.
server_after() {
	local spid=$1 t0=$SECONDS child
	while kill -0 "$spid" 2>/dev/null && ((SECONDS - t0 < $2)); do
		sleep 0.1
	done
	kill -0 "$spid" 2>/dev/null || return 0
	child=$(pgrep -P "$spid" | head -n 1)
	echo "+ server still running $2 s after its client ended: stopped; it waits in:" >&2
	[ -z "$child" ] || cat "/proc/$child/stack" >&2
	softcx_state
	kill "$spid" 2>/dev/null
}

pair_once() {
	local srv_rc=0 cli_rc=0 try spid log=/tmp/cm-$1.srv
	echo "+ server: ${srv[*]}" >&2
	timeout 240 stdbuf -oL "${srv[@]}" >"$log" 2>&1 &
	spid=$!
	wait_listen "$spid"
	for ((try = 0; try < 5; try++)); do
		cli_rc=0
		client_beside "$spid" 240 "${cli[@]}" || cli_rc=$?
		[ $cli_rc != 0 ] && kill -0 "$spid" 2>/dev/null &&
			[[ $RUN_OUT == *"REJECTED"* || $RUN_OUT == *"refused"* || $RUN_OUT == *"rdma_connect"* ]] || break
		sleep 1
	done
	PAIR_OUT=$RUN_OUT
	PAIR_TRIES=$try
	# A client that gave up leaves a server that waits for it.
	if [ $cli_rc != 0 ]; then
		sleep 2
		kill "$spid" 2>/dev/null
	else
		server_after "$spid" 60
	fi
	wait "$spid" || srv_rc=$?
	echo "+ server exit status $srv_rc:" >&2
	cat "$log" >&2
	[ $srv_rc = 0 ] && [ $cli_rc = 0 ]
}

# cm_test NAME ARGS: runs the pair on softcx, then on rxe, and reports
# softcx's outcome with rxe's named. In ARGS, @IP@ is the device's address
# and @DEV@ its name (perftest opens the device it is given, else the
# first one, whatever address rdma_cm resolved).
# The softcx run must move packets through softcx_0 (its data path counts
# every packet it takes in, CM MADs on QP1 included), the rxe run none.
cm_test() {
	local name=$1 ok=FAIL note rxe=absent args r0 r1
	shift
	args=("${@//@IP@/$PEER_IP}")
	r0=$(dev_rx_pkts softcx_0)
	PAIR_DEV=softcx_0
	pair "$name" "${args[@]//@DEV@/softcx_0}" && ok=PASS
	r1=$(dev_rx_pkts softcx_0)
	[ "$r1" -gt "$r0" ] || { ok=FAIL; echo "softcx_0 took no packet" >&2; }
	note="softcx tries=$((PAIR_TRIES + 1)), $((r1 - r0)) packets$PAIR_NOTE"
	if [ $have_rxe = 1 ]; then
		args=("${@//@IP@/$RXE_IP}")
		PAIR_DEV=$RXE_DEV
		if pair "$name-rxe" "${args[@]//@DEV@/$RXE_DEV}"; then rxe=pass; else rxe=fail; fi
		r0=$(dev_rx_pkts softcx_0)
		[ "$r0" = "$r1" ] || rxe="$rxe, but softcx_0 took $((r0 - r1)) packets of it"
	fi
	result "cm_$name" "$ok" "$note; rxe: $rxe"
}

cm_test rping rping -s -a @IP@ -V -C "$CM_ITERS" -S 1024 -- rping -c -a @IP@ -V -C "$CM_ITERS" -S 1024
cm_test ucmatose ucmatose -c 4 -C 50 -S 1024 -- ucmatose -s @IP@ -c 4 -C 50 -S 1024
cm_test udaddy udaddy -c 2 -C 10 -S 512 -- udaddy -s @IP@ -c 2 -C 10 -S 512
cm_test rdma_server rdma_server -- rdma_client -s @IP@
# perftest -R: the connection through rdma_cm and the traffic over it are
# what is judged here, not the figures. -F: a bandwidth tool whose clock
# calibration TCG's noise defeats still reports (nonsense) instead of
# exiting before the closing exchange its peer waits for.
cm_test send_bw_R ib_send_bw -d @DEV@ -R -F -n 200 -s 4096 -- ib_send_bw -d @DEV@ -R -F -n 200 -s 4096 @IP@
cm_test write_bw_R ib_write_bw -d @DEV@ -R -F -n 200 -s 4096 -- ib_write_bw -d @DEV@ -R -F -n 200 -s 4096 @IP@
cm_test read_bw_R ib_read_bw -d @DEV@ -R -F -n 200 -s 4096 -- ib_read_bw -d @DEV@ -R -F -n 200 -s 4096 @IP@
cm_test send_lat_R ib_send_lat -d @DEV@ -R -n 200 -s 64 -- ib_send_lat -d @DEV@ -R -n 200 -s 64 @IP@

# qperf -cm1: its server (run for the one client, then stopped) is a
# forked child per test that segfaults in libibverbs when it ends, on rxe0
# as on softcx (Debian's qperf 0.4.11 with rdma-core 44): the client's
# exit status and its three figures are what is judged. One test per
# client run, each once the server's child for the last one is gone: a
# test started while that child was still ending was rejected.
qperf_once() {
	local ip=$1 spid rc=0 t out=
	qperf >/tmp/qperf-srv.log 2>&1 &
	spid=$!
	sleep 1
	for t in rc_bw rc_lat rc_rdma_read_bw; do
		wait_children "$spid" 20 || echo "+ qperf's server still has a child" >&2
		run_t 120 qperf -cm1 "$ip" -t 2 -m 4096 "$t" || rc=$?
		out+=$RUN_OUT$'\n'
	done
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	QPERF_FIGS=$(grep -E '^ *(bw|latency) *=' <<<"$out" | tr -s ' ' | tr '\n' ';')
	[ $rc = 0 ] && [ "$(grep -cE '^ *(bw|latency) *=' <<<"$out")" = 3 ]
}
cm_qperf() {
	local ok=FAIL rxe=absent r0 r1 figs
	r0=$(dev_rx_pkts softcx_0)
	qperf_once "$PEER_IP" && ok=PASS
	figs=$QPERF_FIGS
	r1=$(dev_rx_pkts softcx_0)
	[ "$r1" -gt "$r0" ] || ok=FAIL
	if [ $have_rxe = 1 ]; then
		if qperf_once "$RXE_IP"; then rxe="pass ($QPERF_FIGS)"; else rxe=fail; fi
	fi
	result cm_qperf "$ok" "softcx $figs $((r1 - r0)) packets; rxe: $rxe"
}
cm_qperf

# libfabric's verbs provider over rdma_cm (msg endpoints), every size up
# to its default maximum (or the one cm_fi_size), data checked (-c); the
# domain named on both sides.
cm_test fi_pingpong fi_pingpong -p verbs -e msg -d @DEV@ -I 100 "${FI_SIZE[@]}" -c -- \
	fi_pingpong -p verbs -e msg -d @DEV@ -I 100 "${FI_SIZE[@]}" -c @IP@

# QP1 and the CM keep working after all that: one more short rping.
cm_test rping_again rping -s -a @IP@ -V -C 10 -- rping -c -a @IP@ -V -C 10

if [ $have_rxe = 1 ]; then
	run_t 30 rdma link delete $RXE_DEV
	run_t 10 ip link delete $RXE_NETDEV
fi
softcx_down cm
finish
