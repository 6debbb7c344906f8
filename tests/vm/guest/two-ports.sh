#!/bin/bash
# In-guest: two softcx devices in one kernel talk to each other, as two
# ConnectX ports on one switch: softcx_0 on dummy0 (10.0.0.1), softcx_1 on
# dummy1 (10.0.1.1). Each tool runs as server on one device and as client
# on the other, with each side's own GID; both must exit 0, the payload
# checked where the tool offers it. The devices' counters must show the
# traffic crossed (peer_requests) rather than looping back.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
kmemleak_begin

IP1=10.0.1.1
CROSS_LOG=/tmp/cross-last.log # both sides' output of the last cross_pair
dev0=softcx_0 dev1=softcx_1

# The RDMA core resolves the destination MAC through the route out of the
# source GID's netdev; a dummy answers no ARP, so each side's neighbour is
# entered by hand (what ARP on a real switch would find). /bin/ip is
# iproute2's: under busybox's timeout a bare `ip` is busybox's applet,
# which has no `neigh replace`.
netdevs() {
	setup_netdev || return
	[ -e /sys/class/net/dummy1 ] || run_t 10 ip link add dummy1 type dummy || return
	run_t 10 ip addr replace "$IP1/24" dev dummy1 || return
	run_t 10 ip link set dummy1 up || return
	local m0 m1
	read -r m0 </sys/class/net/dummy0/address
	read -r m1 </sys/class/net/dummy1/address
	run_t 10 /bin/ip neigh replace "$IP1" lladdr "$m1" dev dummy0 nud permanent || return
	run_t 10 /bin/ip neigh replace "$PEER_IP" lladdr "$m0" dev dummy1 nud permanent
}

if ! { netdevs && load_softcx && run_t 60 rdma link add $dev0 type softcx netdev dummy0 &&
	run_t 60 rdma link add $dev1 type softcx netdev dummy1; }; then
	result two_ports_setup FAIL
	finish
	exit 1
fi
if ! { g0=$(roce_v2_ipv4_gid_index $dev0) && g1=$(roce_v2_ipv4_gid_index $dev1); }; then
	result two_ports_gids FAIL "no RoCEv2 IPv4 GID"
	finish
	exit 1
fi

# peer_requests summed over both devices' data paths.
peer_requests() {
	local f n sum=0
	for f in /sys/kernel/debug/softcx/*/dp; do
		n=$(awk '$1 == "peer_requests" { print $2 }' "$f" 2>/dev/null)
		sum=$((sum + ${n:-0}))
	done
	echo $sum
}

# cross_pair FLAG TOOL [args]: server on softcx_0, client on softcx_1
# (FLAG is the tool's GID-index option: -g for pingpong, -x for perftest).
# Both must exit 0; the client's output is left in RUN_OUT.
cross_pair() {
	local flag=$1 tool=$2 srv_rc=0 cli_rc=0 try spid
	shift 2
	local log=/tmp/cross-server.$$
	echo "+ server: $tool -d $dev0 $flag $g0 $*" >&2
	timeout 200 "$tool" -d $dev0 "$flag" "$g0" "$@" >"$log" 2>&1 &
	spid=$!
	sleep 1
	for ((try = 0; try < 5; try++)); do
		cli_rc=0
		run_t 190 "$tool" -d $dev1 "$flag" "$g1" "$@" "$PEER_IP" || cli_rc=$?
		[ $cli_rc != 0 ] && [[ $RUN_OUT == *"Couldn't connect"* ]] && kill -0 "$spid" 2>/dev/null || break
		sleep 1
	done
	wait "$spid" || srv_rc=$?
	echo "+ server exit status $srv_rc:" >&2
	cat "$log" >&2
	{ cat "$log"; echo "$RUN_OUT"; } >"$CROSS_LOG"
	rm -f "$log"
	[ $srv_rc = 0 ] && [ $cli_rc = 0 ]
}

# pp NAME TOOL [args]: a pingpong across, with -c (payload check) if offered.
pp() {
	local name=$1 tool=$2 chk= before after
	shift 2
	grep -q -- '--chk' < <("$tool" --help 2>&1) && chk=-c
	before=$(peer_requests)
	if cross_pair -g "$tool" -n 1000 $chk "$@"; then
		after=$(peer_requests)
		# 1000 round trips: at least 2000 messages crossed.
		if [ $((after - before)) -ge 2000 ]; then
			result "$name" PASS "$(grep -m1 'usec/iter' <<<"$RUN_OUT"), $((after - before)) requests crossed"
		else
			result "$name" FAIL "only $((after - before)) requests crossed ports"
		fi
	else
		result "$name" FAIL
	fi
}

# perf NAME TOOL [args]: a perftest pair across; its results row. perftest
# times itself by the TSC and reports nothing (inf, "Can't produce a
# report", and then the other side's key exchange fails) when its
# calibration is too noisy under TCG: such a run is repeated, up to four in
# all.
perf() {
	local name=$1 row= before=0 after=0 attempt
	shift
	for attempt in 1 2 3 4; do
		before=$(peer_requests)
		row=
		if cross_pair -x "$@"; then
			after=$(peer_requests)
			row=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' <<<"$RUN_OUT" | tail -1 | tr -s ' ' | sed 's/^ //')
			[ -z "$row" ] && [[ $RUN_OUT == *" inf "* ]] || break
		elif ! perftest_noise "$CROSS_LOG"; then
			result "$name" FAIL
			return
		fi
		echo "+ perftest could not calibrate its clock (TCG noise): again" >&2
	done
	if [ -n "$row" ] && [ $((after - before)) -ge 1000 ]; then
		result "$name" PASS "$row; $((after - before)) requests crossed"
	else
		result "$name" FAIL "row '${row:-none}', $((after - before)) requests crossed"
	fi
}

pp two_ports_rc_pingpong ibv_rc_pingpong
pp two_ports_rc_pingpong_events ibv_rc_pingpong -e
pp two_ports_uc_pingpong ibv_uc_pingpong
pp two_ports_ud_pingpong ibv_ud_pingpong -s 1024
pp two_ports_srq_pingpong ibv_srq_pingpong
for t in write_bw read_bw send_bw atomic_bw send_lat; do
	perf "two_ports_ib_$t" "ib_$t"
done

# One device leaves under no traffic; the other still loops back on its
# own address.
run_t 60 rdma link delete $dev1 || result two_ports_link_del FAIL
if pingpong_pair $dev0 "$g0" ibv_rc_pingpong -n 200; then
	result two_ports_after_peer_left PASS
else
	result two_ports_after_peer_left FAIL
fi
run_t 60 rdma link delete $dev0 || result two_ports_link_del FAIL
rmmod softcx || result two_ports_rmmod FAIL
kmemleak_check two-ports
finish
