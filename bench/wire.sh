#!/bin/bash
# In-guest, on both guests of a pair (tests/vm/run-pair.sh): the two-host
# figures between softcx and softcx, softcx and rdma_rxe, or rxe and rxe
# (rxe= on the kernel command line, as wire-pair.sh takes it). Guest b
# serves, guest a runs the clients and reports: perftest RC bandwidth at
# 64 KiB, latency at 2 B, and the RC and UD pingpong per iteration, each
# the median of three runs. BENCH lines go to the results port;
# bench/run.sh puts the three pairs side by side.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
here=/harness/extra
. "$here/wire-common.sh"

bench_line() {
	echo "BENCH $*"
	echo "BENCH $*" >"$RESULTS_PORT" 2>/dev/null || true
}

# value KIND CMD...: b serves CMD, a runs it against b; a's figure of
# merit (bw: average MB/s, lat: typical usec, pp: usec per iteration),
# the median of three runs; "-" if none succeeded.
value() {
	local kind=$1 i v vals=()
	shift
	for i in 1 2 3; do
		ONE_LOG_ONLY=1 one bench b "$@" >/dev/null 2>&1 || continue
		[ "$role" = a ] || continue
		case $kind in
		bw) v=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' <<<"$RUN_OUT" | tail -1 | awk '{print $4}') ;;
		lat) v=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' <<<"$RUN_OUT" | tail -1 | awk '{print $5}') ;;
		pp) v=$(sed -nE 's/.* = ([0-9.]+) usec\/iter.*/\1/p' <<<"$RUN_OUT" | tail -1) ;;
		esac
		[ -n "$v" ] && vals+=("$v")
	done
	median "${vals[@]}"
}

row() {
	local name=$1 unit=$2 kind=$3 v
	shift 3
	v=$(value "$kind" "$@")
	[ "$role" = a ] && bench_line "$(printf '%-22s %10s  %s' "$name" "$v" "$unit")"
}

mtu=$((128 << $(ibv_devinfo -d "$dev" | sed -nE 's/.*active_mtu:.*\(([0-9])\).*/\1/p' | head -1)))
[ "$role" = a ] && bench_line "# $dev on eth0, path MTU $mtu"
row ib_write_bw_64k MB/s bw ib_write_bw -d "$dev" -x "$g4" -n 500 -s 65536
# -o 16: rxe offers 128 outstanding READs, a ConnectX (and softcx) take 16;
# perftest asks the requester for the responder's number.
row ib_read_bw_64k MB/s bw ib_read_bw -d "$dev" -x "$g4" -n 500 -s 65536 -o 16
row ib_send_bw_64k MB/s bw ib_send_bw -d "$dev" -x "$g4" -n 500 -s 65536
row ib_send_lat_2 "usec (typical)" lat ib_send_lat -d "$dev" -x "$g4" -n 200 -s 2
row ib_write_lat_2 "usec (typical)" lat ib_write_lat -d "$dev" -x "$g4" -n 200 -s 2
row rc_pingpong_64 "usec/iter" pp ibv_rc_pingpong -d "$dev" -g "$g4" -n 200 -s 64
row ud_pingpong_64 "usec/iter" pp ibv_ud_pingpong -d "$dev" -g "$g4" -n 200 -s 64
echo "SUMMARY: bench done"
