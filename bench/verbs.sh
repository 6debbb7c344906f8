#!/bin/bash
# In-guest (stock kernel): softcx against Soft-RoCE (rdma_rxe) on the same
# netdev in the same guest, loopback: perftest RC bandwidth (write, read,
# send at 64 B, 4 KiB, 64 KiB; 64 KiB again at path MTU 4096), latency (send, write, read at 2 B),
# atomics, ibv_rc_pingpong with completion events, each the median of
# three runs (send and write latency again with uar_trap=0), the guest's
# memcpy bandwidth as the ceiling, and the CPU softcx's data-path thread
# uses while 1000 connected QPs sit idle; floors under the latency rows
# (entering the device, a null system call, a process's wake-up). BENCH
# lines go to the results port; bench/run.sh collects them.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
x=/harness/extra

bench_line() {
	echo "BENCH $*"
	echo "BENCH $*" >"$RESULTS_PORT" 2>/dev/null || true
}

setup_netdev || exit 1
load_softcx || exit 1
run_t 60 rdma link add softcx_0 type softcx netdev dummy0 || exit 1
rxe_up rxe0 dummy0 || exit 1
sx_g=$(roce_v2_ipv4_gid_index softcx_0) || exit 1
rxe_g=$(roce_v2_ipv4_gid_index rxe0) || exit 1

# value DEV GIDX TOOL ARGS: the figure of merit of a perftest run (bandwidth:
# average MB/s; latency: typical usec), the median of three runs, as one
# short run under emulation swings by 2-3x; "-" if none succeeded.
value() {
	local dev=$1 g=$2 tool=$3 i v vals=()
	shift 3
	for i in 1 2 3; do
		perftest_pair "$dev" "$g" "$tool" "$@" || continue
		case $tool in
		*_bw) v=$(awk '{print $4}' <<<"$PERF_ROW") ;;
		*_lat) v=$(awk '{print $5}' <<<"$PERF_ROW") ;;
		esac
		vals+=("$v")
	done
	median "${vals[@]}"
}

bench_line "test                size     softcx      rxe   softcx/rxe"
row() {
	local tool=$1 size=$2 unit=$3 s r ratio
	shift 3
	s=$(value softcx_0 "$sx_g" "$tool" -s "$size" "$@")
	r=$(value rxe0 "$rxe_g" "$tool" -s "$size" "$@")
	ratio=$(awk -v s="$s" -v r="$r" 'BEGIN { if (s+0 > 0 && r+0 > 0) printf "%.2f", s / r; else print "-" }')
	bench_line "$(printf '%-18s %6s %10s %10s %8s  %s' "$tool" "$size" "$s" "$r" "$ratio" "$unit")"
}
for t in ib_write_bw ib_read_bw ib_send_bw; do
	for s in 64 4096 65536; do
		row $t $s MB/s
	done
done
row ib_send_lat 2 "usec (typical)"
row ib_write_lat 2 "usec (typical)"
row ib_read_lat 2 "usec (typical)"
row ib_atomic_bw 8 MB/s
# perftest's 1 000 atomics last ~25 ms here: mostly the doorbell page's
# move from trapping to the poller. 20 000 measure the steady rate.
row ib_atomic_bw 8 "MB/s, 20 000 atomics" -n 20000

# Floors under the latency rows, no transport work in them: entering the
# device (softcx: a doorbell store that traps, its QP in RESET, the page
# kept trapping; rxe: ibv_post_send refused in the kernel) beside a null
# system call, and a sleeping process's wake-up (two processes passing a
# byte over pipes, on one CPU and pinned to two), which
# ibv_rc_pingpong -e pays twice an iteration or more. Medians of three.
floor_vals() {
	local i out sxv=() rxv=() sysv=()
	echo 0 >/sys/module/softcx/parameters/uar_stream_gap_us
	for i in 1 2 3; do
		out=$("$x/trap_floor" softcx_0 20000) && sxv+=("$(awk '{ print $4 }' <<<"$out")") &&
			sysv+=("$(awk '{ print $2 }' <<<"$out")")
		out=$("$x/trap_floor" rxe0 20000) && rxv+=("$(awk '{ print $4 }' <<<"$out")")
	done
	echo 100 >/sys/module/softcx/parameters/uar_stream_gap_us
	FLOOR_SX=$(median "${sxv[@]}")
	FLOOR_RXE=$(median "${rxv[@]}")
	FLOOR_SYS=$(median "${sysv[@]}")
}
floor_vals
bench_line "$(printf '%-18s %6s %10s %10s %8s  %s' device_entry "" "$FLOOR_SX" "$FLOOR_RXE" "" \
	"ns (floor: softcx a trapped doorbell, rxe a refused ibv_post_send)")"
bench_line "$(printf '%-18s %6s %10s %10s %8s  %s' null_syscall "" "$FLOOR_SYS" "" "" "ns (getppid)")"
for w in same cross; do
	wv=()
	for i in 1 2 3; do
		out=$("$x/wake_floor" 2000 "$w") && wv+=("$(awk '{ print $2 }' <<<"$out")")
	done
	bench_line "$(printf '%-18s %6s %10s %10s %8s  %s' "wake_rtt_$w" "" "$(median "${wv[@]}")" "" "" \
		"usec a round trip, two wake-ups (pipes; $w: $([ $w = same ] && echo 'as the scheduler places them' || echo 'pinned to CPUs 0 and 1'))")"
done

# pp_value DEV GIDX ARGS: ibv_rc_pingpong's usec/iter, the median of three.
pp_value() {
	local dev=$1 g=$2 i v vals=()
	shift 2
	for i in 1 2 3; do
		pingpong_pair "$dev" "$g" ibv_rc_pingpong "$@" || continue
		v=$(sed -n 's/.* = \([0-9.]*\) usec\/iter.*/\1/p' <<<"$RUN_OUT" | head -1)
		[ -n "$v" ] && vals+=("$v")
	done
	median "${vals[@]}"
}
s=$(pp_value softcx_0 "$sx_g" -e -n 1000)
r=$(pp_value rxe0 "$rxe_g" -e -n 1000)
ratio=$(awk -v s="$s" -v r="$r" 'BEGIN { if (s+0 > 0 && r+0 > 0) printf "%.2f", s / r; else print "-" }')
bench_line "$(printf '%-18s %6s %10s %10s %8s  %s' "rc_pingpong -e" 4096 "$s" "$r" "$ratio" "usec/iter (events)")"

# The 64 KiB bandwidth rows again at path MTU 4096: dummy0 at 9000 bytes
# gives both devices an active MTU of 4096 (a jumbo netdev, as a RoCE
# network with jumbo frames); a quarter of the packets per message.
active_mtu() { ibv_devinfo -d "$1" | awk '/active_mtu/ { print $2; exit }'; }
if run_t 30 ip link set dummy0 mtu 9000; then
	sleep 1
	if [ "$(active_mtu softcx_0)" = 4096 ] && [ "$(active_mtu rxe0)" = 4096 ]; then
		for t in ib_write_bw ib_read_bw ib_send_bw; do
			row $t 65536 "MB/s, path MTU 4096"
		done
	else
		bench_line "path MTU 4096 rows: active_mtu softcx $(active_mtu softcx_0), rxe $(active_mtu rxe0), not 4096"
	fi
	run_t 30 ip link set dummy0 mtu 1500
	sleep 1
fi

# The ceiling: the guest's user-space memcpy (glibc), as it chooses and
# with rep movsb kept out (glibc takes it above a few KiB where the CPU
# says ERMS, and TCG runs it a byte per step), the faster of the two.
if out=$("$x/memcpy_bw") &&
	out2=$(GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=1073741824 "$x/memcpy_bw"); then
	while read -r _ size mbs _ _ mbs2; do
		best=$(awk -v a="$mbs" -v b="$mbs2" 'BEGIN { print (b + 0 > a + 0) ? b : a }')
		bench_line "$(printf '%-18s %6s %10s %10s %8s  %s' memcpy "$size" "$best" "" "" "MB/s (guest ceiling; glibc $mbs, without rep movsb $mbs2)")"
	done < <(paste -d' ' <(echo "$out") <(echo "$out2"))
fi

# Idle: the data-path thread's CPU time while 1000 QPs sit connected.
pid=$(ps -eo pid,comm | awk '/-dp$/ { print $1; exit }')
if [ -n "$pid" ]; then
	"$x/idle_qps" softcx_0 "$sx_g" 1000 12 >/tmp/idle.out 2>&1 &
	ipid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q 'ready\|failed' /tmp/idle.out 2>/dev/null && break
		sleep 0.5
	done
	sleep 2 # past the poller's back-off after the setup commands
	read -r t0 _ <"/proc/$pid/schedstat"
	s0=$(cut -d' ' -f1 /proc/uptime)
	sleep 8
	read -r t1 _ <"/proc/$pid/schedstat"
	s1=$(cut -d' ' -f1 /proc/uptime)
	wait $ipid
	# schedstat: ns on a CPU; uptime: seconds (busybox date has no %N).
	cpu=$(awk -v a="$t0" -v b="$t1" -v c="$s0" -v d="$s1" 'BEGIN { printf "%.2f", 100 * (b - a) / 1e9 / (d - c) }')
	bench_line "$(printf '%-18s %6s %10s %10s %8s  %s' idle_1000_qps "" "$cpu" 0 "" "% of one CPU (data-path thread; rxe has none)")"
	grep -q 'done' /tmp/idle.out || bench_line "idle_qps failed: $(tail -1 /tmp/idle.out)"
fi

# The same latency rows with the doorbell trap off (uar_trap=0: the poller
# alone), for comparison.
run_t 60 rdma link delete softcx_0
run_t 60 rmmod softcx
if load_softcx uar_trap=0 && run_t 60 rdma link add softcx_0 type softcx netdev dummy0 &&
	sx_g=$(roce_v2_ipv4_gid_index softcx_0); then
	row ib_send_lat 2 "usec (typical), uar_trap=0"
	row ib_write_lat 2 "usec (typical), uar_trap=0"
fi
echo "SUMMARY: bench done"
