#!/bin/bash
# In-guest: UCX (Debian's ucx-utils 1.13) on softcx, as a user of
# mlx5-specific software tries it: softcx_0's parent shows a ConnectX
# identity in sysfs (vendor 0x15b3, device = vendor_part_id), so UCX
# offers its mlx5 transports for the device with no configuration;
# ucx_info -d must list rc_mlx5, ud_mlx5 and dc_mlx5 on softcx_0:1, and
# ucx_perftest runs over each of them, server and client in this guest
# on softcx_0's address: UCT's am_bw (and put_bw where the transport has
# RDMA), UCP's tag_lat and tag_bw with UCX_TLS naming the transport.
# softcx grants DevX contexts (its default, as mlx5_ib). First UCX's mlx5
# transports run on their direct-verbs path (UCX_IB_MLX5_DEVX=no says
# so); then again on UCX's DevX path with UCX's default DevX objects
# (results ending _devx).
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

# Kernel arg ucx_iters=N: each test's iterations (default 2000); the test
# kernel's KASAN and lockdep make every message slow.
ITERS=2000
for arg in $(</proc/cmdline); do
	case $arg in ucx_iters=*) ITERS=${arg#ucx_iters=} ;; esac
done

rxe_remove_all
softcx_up ucx
export UCX_NET_DEVICES=softcx_0:1 UCX_IB_MLX5_DEVX=no
# Every UCX run also sees the loopback and shared-memory transports; the
# tests below name the ones they mean.
sysdev=/sys/class/infiniband/softcx_0/device
part=$(printf '0x%04x' "$(cat /sys/module/softcx/parameters/vendor_part_id)")
if [ "$(cat $sysdev/vendor 2>/dev/null)" = 0x15b3 ] && [ "$(cat $sysdev/device 2>/dev/null)" = "$part" ]; then
	result ucx_identity PASS "$sysdev: vendor 0x15b3, device $part"
else
	result ucx_identity FAIL "$sysdev: vendor $(cat $sysdev/vendor 2>&1), device $(cat $sysdev/device 2>&1)"
fi

# The transports ucx_info -d lists for softcx_0:1.
run_t 60 ucx_info -d
tls=$(awk '/Transport:/ { tl = $NF } /Device:/ && $NF == "softcx_0:1" { print tl }' <<<"$RUN_OUT" | sort -u | tr '\n' ' ')
echo "ucx_info -d: softcx_0:1 carries: $tls" >&2
missing=
for tl in rc_mlx5 ud_mlx5 dc_mlx5 rc_verbs ud_verbs; do
	[[ " $tls " == *" $tl "* ]] || missing="$missing $tl"
done
if [ -z "$missing" ]; then
	result ucx_info_transports PASS "softcx_0:1: $tls"
else
	result ucx_info_transports FAIL "missing:$missing (listed: $tls)"
fi

# ucx_pair NAME ENV... -- ARGS...: ucx_perftest's server and client with
# ARGS, in the environment ENV; the client must report and both exit 0,
# with packets through softcx_0.
ucx_pair() {
	local name=$1 env=() srv rc=0 r0
	shift
	while [ "$1" != -- ]; do
		env+=("$1")
		shift
	done
	shift
	echo "+ $name" >&2
	r0=$(dev_rx_pkts softcx_0)
	env "${env[@]}" timeout 120 ucx_perftest -p 13337 "$@" >/tmp/ucx-srv.log 2>&1 &
	srv=$!
	sleep 2
	run_t 110 env "${env[@]}" ucx_perftest -p 13337 "$@" "$PEER_IP" || rc=$?
	wait $srv || rc=$((rc ? rc : 100 + $?))
	echo "+ server:" >&2
	cat /tmp/ucx-srv.log >&2
	# Final: iterations, then (50th percentile, average, overall) us,
	# (average, overall) MB/s and (average, overall) messages/s.
	local f=() pk a sz=
	for a in "$@"; do
		[ "$sz" = next ] && sz=$a
		[ "$a" = -s ] && sz=next
	done
	read -r -a f <<<"$(grep -E '^ *Final:' <<<"$RUN_OUT" | tail -1)"
	pk=$(($(dev_rx_pkts softcx_0) - r0))
	# Every message took at least one packet through softcx_0.
	if [ $rc = 0 ] && [ "${f[1]:-}" = "$ITERS" ] && [ "$pk" -ge "$ITERS" ]; then
		UCX_NOTE="${f[1]} x $sz bytes: ${f[3]} us, ${f[6]} MB/s, ${f[8]} msg/s; $pk packets"
		return 0
	fi
	UCX_NOTE="exit $rc, ${f[1]:-no} iterations reported, $pk packets"
	return 1
}

ucx_round() {
	local sfx=$1 tl tests sz tp t ucx_tls
	for tl in rc_mlx5 ud_mlx5 dc_mlx5; do
		# Messages copied into the send queue (bcopy) for active messages,
		# RDMA WRITEs from registered memory (zcopy) for puts.
		# UD's messages are one datagram each, within the path MTU (1024).
		tests="am_bw:bcopy" sz=512
		[ $tl != ud_mlx5 ] && tests="am_bw:bcopy put_bw:zcopy" sz=4096
		for tp in $tests; do
			t=${tp%:*}
			if ucx_pair "uct_${t}_$tl" -- -t "$t" -D "${tp#*:}" -x "$tl" -d softcx_0:1 -s "$sz" -n "$ITERS"; then
				result "ucx_${tl}_uct_$t$sfx" PASS "$UCX_NOTE"
			else
				result "ucx_${tl}_uct_$t$sfx" FAIL "$UCX_NOTE"
			fi
		done
		# UCP wires an RC endpoint up through a datagram transport: ud_mlx5
		# rides along with rc_mlx5. UCX's log (info) names the transports
		# each endpoint's tag lane took: it must be the one under test.
		ucx_tls=$tl
		[ $tl = rc_mlx5 ] && ucx_tls=$tl,ud_mlx5
		for t in tag_lat tag_bw; do
			if ! ucx_pair "ucp_${t}_$tl" UCX_TLS="$ucx_tls" UCX_LOG_LEVEL=info -- -t "$t" -s 4096 -n "$ITERS"; then
				result "ucx_${tl}_ucp_$t$sfx" FAIL "$UCX_NOTE"
			elif ! grep -q "ep_cfg\\[[0-9]*\\]: tag($tl/softcx_0:1[ )]" <<<"$RUN_OUT"; then
				result "ucx_${tl}_ucp_$t$sfx" FAIL "the tag lane is not on $tl: $(grep -o 'tag([^)]*)' <<<"$RUN_OUT" | head -1)"
			else
				result "ucx_${tl}_ucp_$t$sfx" PASS "$UCX_NOTE"
			fi
		done
	done
}

ucx_round ""

# UCX's DevX path, with UCX's own choice of DevX objects
# (UCX_IB_MLX5_DEVX_OBJECTS=rcqp,rcsrq,dct,dcsrq,dci): its RC QPs and DCIs
# made with DEVX_OBJ on umems, its DCTs with DEVX_OBJ CREATE_DCT (drained
# before their destroy), its SRQs as RMPs (rc_mlx5's cyclic), its events
# through a DevX event channel.
export UCX_IB_MLX5_DEVX=yes
# How often the device ran a command (cmd_stats): CREATE_UMEM for UCX's
# DevX QPs, CREATE_RMP for its SRQs.
ran() { awk -v op="$1" '$1 == op { n = $3 } END { print n + 0 }' /sys/kernel/debug/softcx/softcx_0/cmd_stats; }
u0=$(ran 0x0a08) r0=$(ran 0x090c)
ucx_round _devx
u1=$(ran 0x0a08) r1=$(ran 0x090c)
if [ "$u1" -gt "$u0" ]; then
	result ucx_devx_umems PASS "CREATE_UMEM $u0 -> $u1: UCX's QPs on its DevX path"
else
	result ucx_devx_umems FAIL "CREATE_UMEM $u0 -> $u1: UCX never took its DevX path"
fi
if [ "$r1" -gt "$r0" ]; then
	result ucx_devx_rmps PASS "CREATE_RMP $r0 -> $r1: UCX's SRQs are RMPs"
else
	result ucx_devx_rmps FAIL "CREATE_RMP $r0 -> $r1: UCX made no RMP"
fi
softcx_down ucx
finish
