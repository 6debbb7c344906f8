# SPDX-License-Identifier: GPL-2.0
# Sourced by the parts that run on two guests on a link (wire-pair.sh,
# wire-netem.sh; tests/vm/run-pair.sh): eth0 up with 10.9.0.x and fd09::x
# (x = 1 on guest a, 2 on b), softcx on it (or rdma_rxe on the guests that
# rxe=a, b or ab names) as $dev, its RoCEv2 GID indexes in $g4 and $g6, the peer
# reachable; result wire_up. Then one() runs an exchange between them.
role=a rxe=
for arg in $(</proc/cmdline); do
	case $arg in role=*) role=${arg#role=} ;; rxe=*) rxe=${arg#rxe=} ;; esac
done
me=1 peer=2
[ "$role" = a ] || { me=2 peer=1; }
dev=softcx_eth0
[[ -n $rxe && $rxe == *$role* ]] && dev=rxe0

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
# On a softcx guest, rdma_rxe too, on a netdev of its own (rxe1 on
# dummy0): loaded before softcx on guest a, after it on guest b, so both
# orders are tried; wire-pair.sh runs traffic on it at the end.
alongside_up=0
if [ $dev != rxe0 ] && [ "$role" = a ] && setup_netdev && rxe_up rxe1 dummy0; then
	alongside_up=1
fi
if [ $dev = rxe0 ]; then
	rxe_up rxe0 eth0 || { result wire_up FAIL rxe; finish; exit 1; }
elif ! load_softcx || ! run_t 60 rdma link add $dev type softcx netdev eth0; then
	dmesg | tail -20
	result wire_up FAIL
	finish
	exit 1
fi
if [ $dev != rxe0 ] && [ "$role" = b ] && setup_netdev && rxe_up rxe1 dummy0; then
	alongside_up=1
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

# one NAME SERVER CMD...: SERVER (a or b) runs CMD as the server; the other
# guest runs it as the client of the server's IPv4 address once the server
# listens (serve), again if its connect is refused all the same (said in
# the result). Each side reports NAME:
# its own exit status, and its last results line (with ONE_LOG_ONLY set,
# only to the log). ONE_TIMEOUT: the client's limit in seconds (120).
# perftest gives up when its clock calibration is too noisy (TCG), on one
# side or both (its peer may then fail the key exchange, or finish well):
# the two sides tell each other (agree) and, if either gave up, both run
# it again (three runs at most); the result says so, as perftest_pair does
# in one guest.
one() {
	local name=$1 server=$2 rc=0 out note=() run noisy=0 mine
	shift 2
	for ((run = 1; run <= 3; run++)); do
		one_run "$@" && rc=0 || rc=$?
		mine=0
		[ $rc != 0 ] && grep -qE "Can't produce a report|Correlation coefficient r\^2|Failed to exchange data" \
			<<<"$RUN_OUT" && mine=1
		[ $run -lt 3 ] || break
		agree $mine || break
		echo "+ perftest could not calibrate its clock (TCG noise), here or on the peer: again" >&2
		noisy=$((noisy + 1))
	done
	out=$(grep -E 'Mbit/sec|^ *[0-9]+ +[0-9]+ +[0-9.]+' <<<"$RUN_OUT" | tail -1 | tr -s ' \t' ' ')
	[ "$ONE_CONNECTS" = 0 ] || note+=("connect retried ${ONE_CONNECTS}x though the server listened")
	[ $noisy = 0 ] || note+=("run ${noisy}x again: perftest clock calibration")
	[ ${#note[@]} = 0 ] || out="$out [$(IFS=';'; echo "${note[*]}")]"
	if [ -n "${ONE_LOG_ONLY:-}" ]; then
		# Run for what it puts on the wire; the caller judges that.
		echo "$name: exit $rc ${out}"
	elif [ $rc = 0 ]; then
		result "$name" PASS "$role:${out:-ok}"
	else
		result "$name" FAIL "$role: exit $rc ${out}"
		echo "$RUN_OUT" | tail -5
	fi
	return $rc
}

# one_cm NAME SERVER IP_ME IP_PEER CMD...: an rdma_cm exchange (CM MADs on
# QP1 over the wire, then the data): CMD with -s -a IP_ME on SERVER, with
# -c -a IP_PEER on the other guest (rping's syntax).
one_cm() {
	local name=$1 server=$2 ip_me=$3 ip_peer=$4
	shift 4
	one_cms "$name" "$server" "$* -s -a $ip_me" "$* -c -a $ip_peer"
}

# one_cms NAME SERVER 'SERVER CMD' 'CLIENT CMD': an rdma_cm exchange, each
# side's command line whole (split at spaces). The client starts once the
# server listens (serve); it is run again if its connect is refused all
# the same (said in the result).
one_cms() {
	local name=$1 server=$2 rc=0 try=0 cmd
	if [ "$role" = "$server" ]; then
		read -r -a cmd <<<"$3"
		serve 150 "${cmd[@]}" || rc=$?
	else
		read -r -a cmd <<<"$4"
		for ((try = 0; try < 20; try++)); do
			[ $try != 0 ] || await_server || { rc=$?; break; }
			rc=0
			run_t 120 "${cmd[@]}" || rc=$?
			# Refused: the CM's REQ is rejected.
			[ $rc != 0 ] && [[ $RUN_OUT == *REJECTED* || $RUN_OUT == *"rdma_connect"* ||
				$RUN_OUT == *refused* || $RUN_OUT == *UNREACHABLE* ]] || break
			sleep 1
		done
	fi
	local note=
	[ $try = 0 ] || note=" [connect retried ${try}x though the server listened]"
	if [ $rc = 0 ]; then
		result "$name" PASS "$role:$dev ok$note"
	else
		result "$name" FAIL "$role: exit $rc$note"
		echo "$RUN_OUT" | tail -5
	fi
}

# tcp_listening COMM: a process called COMM holds a TCP socket in LISTEN
# (its socket inodes against /proc/net/tcp*; the guest has no working ss).
tcp_listening() {
	local comm=$1 p c inodes=" "
	for p in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$p/comm" && [ "$c" = "$comm" ] || continue
		inodes+=$(ls -l "$p/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')
	done
	[ "$inodes" != ' ' ] || return 1
	awk -v want="$inodes" 'FNR > 1 && $4 == "0A" && index(want, " " $10 " ") { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# listening PID COMM: true once process PID (command COMM) listens, within
# 30 s: an rdma_cm id of COMM in LISTEN on some device (rdma res), or a
# TCP socket of COMM. False at once if PID has ended.
listening() {
	local pid=$1 comm=${2:0:15} i
	for ((i = 0; i < 150; i++)); do
		kill -0 "$pid" 2>/dev/null || return 1
		rdma res show cm_id 2>/dev/null | grep 'state LISTEN' |
			grep -qE "comm $comm( |\$)" && return 0
		tcp_listening "$comm" && return 0
		sleep 0.2
	done
	return 1
}

# serve SECS CMD...: the server's side of an exchange. CMD runs in the
# background with a limit of SECS; once it listens the peer is told
# (agree), so the client never meets a server not listening yet: a
# perftest -R client that did crashed in librdmacm handling the REJ, and
# its retry hung. RUN_OUT and the status as run_t gives them.
serve() {
	local secs=$1 rc=0 pid down=0
	shift
	echo "+ $* (serving)" >&2
	timeout "$secs" "$@" >/tmp/serve.out 2>&1 &
	pid=$!
	listening $pid "${1##*/}" || down=1
	[ $down = 0 ] || echo "+ not listening: $1" >&2
	agree $down || :
	wait $pid || rc=$?
	RUN_OUT=$(</tmp/serve.out)
	[ -z "$RUN_OUT" ] || printf '%s\n' "$RUN_OUT" >&2
	[ $rc = 0 ] || echo "+ exit status $rc" >&2
	return $rc
}

# await_server: the client's side of serve(): false (RUN_OUT says why)
# when the peer's server never listened.
await_server() {
	agree 0 && { RUN_OUT="the peer's server did not listen"; return 1; }
	return 0
}

# agree MINE: this side's word (1: run it again) to the peer, the peer's
# back; true if either says 1. Both sides call it in the same order, so
# the Nth call of one meets the Nth of the other on TCP port 5000+N (each
# listens on its own address and sends to the peer's). A peer that does
# not answer within 180 s (a run's limit on one side, ~150 s, while the
# other's ended at once) counts as 0.
AGREE_N=0
agree() {
	local mine=$1 port theirs got=/tmp/agree.$AGREE_N lpid i
	port=$((5000 + AGREE_N % 1000))
	AGREE_N=$((AGREE_N + 1))
	timeout 200 busybox nc -l -p "$port" >"$got" 2>/dev/null &
	lpid=$!
	for ((i = 0; i < 900; i++)); do
		(echo "$mine" >"/dev/tcp/10.9.0.$peer/$port") 2>/dev/null && break
		sleep 0.2
	done
	wait $lpid
	theirs=$(tr -dc 01 <"$got" | head -c1)
	echo "+ agree #$AGREE_N: here $mine, peer ${theirs:-silent}" >&2
	[ "$mine" = 1 ] || [ "$theirs" = 1 ]
}

# one_run CMD...: one run of one()'s exchange on this side ($server's
# role); RUN_OUT its output, ONE_CONNECTS the client's connect retries
# (none expected: the client starts once the server listens).
one_run() {
	local rc=0 try tmo=${ONE_TIMEOUT:-120}
	ONE_CONNECTS=0
	if [ "$role" = "$server" ]; then
		serve $((tmo + 30)) "$@" || rc=$?
		return $rc
	fi
	await_server || return
	for ((try = 0; try < 30; try++)); do
		rc=0
		run_t "$tmo" "$@" 10.9.0.$peer || rc=$?
		# Refused: TCP, or (perftest -R) the CM's REQ rejected
		# ("Unexpected CM event ... 8", 8 being REJECTED).
		[ $rc != 0 ] && [[ $RUN_OUT == *"Couldn't connect"* || $RUN_OUT == *REJECTED* ||
			$RUN_OUT == *"Unable to perform rdma_client function"* ]] || break
		sleep 1
	done
	ONE_CONNECTS=$try
	return $rc
}
