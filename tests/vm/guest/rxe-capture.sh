#!/bin/bash
# In-guest, one of two guests on a socket link (tests/vm/run-pair.sh,
# role=a or role=b): rdma_rxe on eth0 over IPv4 and IPv6, a few exchanges
# of each kind (multi-packet SEND, UD, WRITE, READ, atomics) between them,
# and on "a" a capture of every RoCEv2 frame (roce_sniff.py), printed as
# FRAME lines: test vectors for the host's ICRC and header checks
# (tests/host/vectors). A tool run, not a test: it passes when the
# exchanges did and frames were seen.
. "${BASH_SOURCE%/*}/common.sh"
here=${BASH_SOURCE%/*}
[ -f "$here/roce_sniff.py" ] || here=/harness/extra
role=a
for arg in $(</proc/cmdline); do
	case $arg in role=*) role=${arg#role=} ;; esac
done
me=1 peer=2 eth=
[ "$role" = a ] || { me=2 peer=1; }
PEER_IP=10.9.0.$peer
# The NIC is virtio-net on PCI: both drivers, then eth0 appears on its own time.
run_t 30 modprobe -a virtio_pci virtio_net
for ((i = 0; i < 100 && !${#eth}; i++)); do
	[ -e /sys/class/net/eth0 ] && eth=1 || sleep 0.1
done
run_t 10 ip link set eth0 up
run_t 10 ip addr add 10.9.0.$me/24 dev eth0
run_t 10 ip -6 addr add fd09::$me/64 dev eth0 nodad
rxe_up rxe0 eth0 || { result rxe_up FAIL; finish; exit 1; }
g4=$(roce_v2_ipv4_gid_index rxe0) || { result gid FAIL; finish; exit 1; }
# The RoCE v2 GID of fd09::me.
g6=
for ((i = 0; i < 16 && !${#g6}; i++)); do
	read -r gid <"/sys/class/infiniband/rxe0/ports/1/gids/$i" 2>/dev/null || continue
	read -r type <"/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i" 2>/dev/null || continue
	[ "$type" = "RoCE v2" ] && [[ $gid == fd09:* ]] && g6=$i
done
echo "gids: ipv4 $g4 ipv6 ${g6:-none}"
if [ "$role" = a ]; then
	python3 "$here/roce_sniff.py" eth0 /tmp/frames.txt &
	sniff=$!
fi

# one NAME CMD...: the server side on a, the client side (retried until
# the server listens) on b, both bounded.
ok=0 bad=0
one() {
	local name=$1 rc=0 try
	shift
	if [ "$role" = a ]; then
		run_t 120 "$@" || rc=$?
	else
		for ((try = 0; try < 60; try++)); do
			rc=0
			run_t 100 "$@" 10.9.0.1 && break
			rc=$?
			sleep 1
		done
	fi
	if [ $rc = 0 ]; then ok=$((ok + 1)); else bad=$((bad + 1)); echo "capture: $name failed ($rc)"; fi
}
one rc_v4 ibv_rc_pingpong -d rxe0 -g "$g4" -n 3 -s 3000 -m 1024
one ud_v4 ibv_ud_pingpong -d rxe0 -g "$g4" -n 2 -s 100
one write_v4 ib_write_bw -d rxe0 -x "$g4" -n 5 -s 3000 -m 1024
one read_v4 ib_read_bw -d rxe0 -x "$g4" -n 5 -s 3000 -m 1024
one atomic_v4 ib_atomic_bw -d rxe0 -x "$g4" -n 5
one send_imm_v4 ib_send_lat -d rxe0 -x "$g4" -n 5 -s 40
[ -z "$g6" ] || one rc_v6 ibv_rc_pingpong -d rxe0 -g "$g6" -n 2 -s 200
if [ "$role" = a ]; then
	sleep 1
	kill -TERM "$sniff"
	wait "$sniff"
	n=0
	while read -r f; do
		echo "FRAME $f" >"$RESULTS_PORT"
		n=$((n + 1))
	done </tmp/frames.txt
	echo "capture: $n frames"
	[ $n -gt 0 ] || bad=$((bad + 1))
fi
if [ $bad = 0 ]; then result "capture_$role" PASS "$ok exchanges"; else result "capture_$role" FAIL "$bad failed"; fi
finish
