#!/bin/bash
# In-guest (stock kernel): NOP commands/s and latency percentiles of one
# softcx function through debugfs bench_nop, with commands completed by
# events (the default) and by polling (cmd_polling=1), from 1 and more
# kernel threads. The table goes to the console and the results port as
# BENCH lines; bench/run.sh collects it.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

N=10000            # NOPs per thread and run
THREADS="1 2 8"    # the queue has 32 slots (31 for regular commands)
dbg=/sys/kernel/debug/softcx/softcx0

# load [params]: softcx with one function (and what it needs, when common.sh knows).
load() {
	if declare -F load_softcx >/dev/null; then
		load_softcx num_devices=1 "$@"
	else
		run_t 120 insmod /harness/extra/softcx.ko num_devices=1 "$@"
	fi
}

bench_line() {
	echo "BENCH $*"
	echo "BENCH $*" >"$RESULTS_PORT" 2>/dev/null || true
}

# bench_mode NAME [insmod args]: load, warm up, one run per thread count, unload.
bench_mode() {
	local name=$1 t line kv n=0 threads=0 mode='?' ops='?' p50='?' p99='?' max='?'
	shift
	if ! load "$@"; then
		result "bench_$name" FAIL "insmod"
		return
	fi
	echo 1000 >$dbg/bench_nop # warm-up: caches, first-touch allocations
	for t in $THREADS; do
		if ! echo "$N $t" >$dbg/bench_nop; then
			result "bench_${name}_t$t" FAIL "bench_nop write"
			continue
		fi
		read -r line <$dbg/bench_nop
		echo "$line"
		for kv in $line; do
			case $kv in
			n=*) n=${kv#*=} ;; threads=*) threads=${kv#*=} ;; mode=*) mode=${kv#*=} ;;
			ops_per_s=*) ops=${kv#*=} ;; p50_ns=*) p50=${kv#*=} ;;
			p99_ns=*) p99=${kv#*=} ;; max_ns=*) max=${kv#*=} ;;
			esac
		done
		bench_line "$(printf '%-8s %7s %7s %10s %9s %9s %10s' "$mode" "$threads" "$((n * threads))" \
			"$ops" "$p50" "$p99" "$max")"
		result "bench_${name}_t$t" PASS "$line"
	done
	run_t 120 rmmod softcx || result "bench_${name}_rmmod" FAIL
}

read -r kver </proc/sys/kernel/osrelease
idle=none cs='?'
read -r idle 2>/dev/null </sys/devices/system/cpu/cpuidle/current_driver
read -r cs 2>/dev/null </sys/devices/system/clocksource/clocksource0/current_clocksource
bench_line "# softcx NOP commands: stock guest $kver, $(nproc) vCPUs, QEMU TCG, cpuidle $idle, clocksource $cs"
bench_line "# $N NOPs per thread; latency per command, ops/s over the whole run"
bench_line "$(printf '%-8s %7s %7s %10s %9s %9s %10s' mode threads nops ops/s p50_ns p99_ns max_ns)"
bench_mode events
bench_mode polling cmd_polling=1
finish
