#!/bin/bash
# `make bench`: the packet engine natively (build/bench-bin/engine, into
# build/bench/engine.txt), then two stock-guest boots with build/kmod-stock's softcx.ko:
# bench/verbs.sh (softcx against rdma_rxe: perftest, memcpy ceiling, idle
# CPU) into build/bench/verbs.txt, then bench/nop.sh (command NOPs) into
# build/bench/nop.txt; then three pairs of guests on a link (bench/wire.sh:
# softcx with softcx, softcx with rdma_rxe, rxe with rxe) into
# build/bench/wire.txt. Waits while another QEMU runs (one guest at a time
# on a small machine). BENCH_KARGS: extra guest kernel arguments. The
# guests boot without ERMS, as every test guest does (run-guest.sh: under
# TCG the kernel's rep movsb copies a byte a step, and softcx and rxe copy
# payloads with it); GUEST_CPU_ARGS= make bench for the CPU as QEMU offers it.
# They boot with tsc=reliable, as make check's guests do: without it TCG's
# clocksource watchdog moves them to the HPET, every clock read becomes an
# emulated device access, and perftest's calibration against it fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
cpu_args=${GUEST_CPU_ARGS-clearcpuid=erms,rep_good}
out=build/bench
rm -rf "$out"
mkdir -p "$out/overlay"
cp build/kmod-stock/src/softcx.ko build/bench-bin/memcpy_bw build/bench-bin/idle_qps \
	build/bench-bin/trap_floor build/bench-bin/wake_floor \
	tests/vm/guest/wire-common.sh "$out/overlay/" || exit 1

# boot NAME: run bench/NAME.sh in a guest; its BENCH lines into $out/NAME.txt.
boot() {
	local name=$1 rc=0 load1 load5
	while pgrep -f qemu-system >/dev/null; do
		echo "bench: waiting for the running QEMU to finish"
		sleep 20
	done
	read -r load1 load5 _ </proc/loadavg
	# shellcheck disable=SC2086 # BENCH_KARGS: words
	tests/vm/run-guest.sh -t 1800 -l "$out/$name-run" -o "$out/overlay" "bench/$name.sh" -- tsc=reliable ${BENCH_KARGS:-} \
		>"$out/$name-run.log" 2>&1 || rc=$?
	{
		grep -a '^BENCH ' "$out/$name-run/results.log" 2>/dev/null | tr -d '\r' | sed 's/^BENCH //'
		echo "# host: $(nproc) CPUs, load average $load1 $load5 at start; guest kernel args: ${cpu_args:-(CPU as offered)} tsc=reliable ${BENCH_KARGS:-}"
	} >"$out/$name.txt"
	cat "$out/$name.txt"
	return $rc
}

wait_qemu() {
	while pgrep -f qemu-system >/dev/null; do
		echo "bench: waiting for the running QEMU to finish"
		sleep 20
	done
}

# pair NAME [rxe=..]: bench/wire.sh on two guests; guest a's BENCH lines
# into $out/wire-NAME.txt.
pair() {
	local name=$1 rc=0
	shift
	wait_qemu
	# shellcheck disable=SC2086 # BENCH_KARGS: words
	tests/vm/run-pair.sh -t 1800 -l "$out/wire-$name-run" -o "$out/overlay" bench/wire.sh -- "$@" ${BENCH_KARGS:-} \
		>"$out/wire-$name-run.log" 2>&1 || rc=$?
	grep -a '^BENCH ' "$out/wire-$name-run/a/results.log" 2>/dev/null | tr -d '\r' | sed 's/^BENCH //' \
		>"$out/wire-$name.txt"
	return $rc
}

status=0
# The engine natively first, while the host is quiet.
build/bench-bin/engine --gtest_brief=1 >"$out/engine-run.log" 2>&1 || status=1
{
	grep 'us/message' "$out/engine-run.log"
	echo "# host: $(nproc) CPUs; the core at -O2 without sanitizers, loopback through data_path (bench/engine.cpp)"
} >"$out/engine.txt"
cat "$out/engine.txt"
boot verbs || status=1
grep -q '^ib_write_bw' "$out/verbs.txt" || status=1
boot nop || status=1
grep -q '^events' "$out/nop.txt" || status=1
pair softcx || status=1
pair mixed rxe=b || status=1
pair rxe rxe=ab || status=1
read -r load1 load5 _ </proc/loadavg
{
	head -1 "$out/wire-softcx.txt"
	printf '%-22s %14s %14s %14s %12s\n' test softcx-softcx softcx-rxe rxe-rxe "softcx/rxe"
	# Rows by name, the three pairs' values side by side.
	awk 'FNR == 1 { f++ } /^#/ { next } { v[$1, f] = $2; if (f == 1) { order[++n] = $1; unit[$1] = substr($0, index($0, $3)) } }
		END { for (i = 1; i <= n; i++) { k = order[i]; a = v[k, 1]; c = v[k, 3];
			r = (a + 0 > 0 && c + 0 > 0) ? sprintf("%.2f", a / c) : "-";
			printf "%-22s %14s %14s %14s %12s  %s\n", k, a, v[k, 2], c, r, unit[k] } }' \
		"$out/wire-softcx.txt" "$out/wire-mixed.txt" "$out/wire-rxe.txt"
	echo "# two stock guests, one vCPU each, on a QEMU stream link; host: $(nproc) CPUs, load average $load1 $load5 at the end; guest kernel args: ${cpu_args:-(CPU as offered)} ${BENCH_KARGS:-}"
} >"$out/wire.txt"
cat "$out/wire.txt"
grep -q '^ib_write_bw_64k *[0-9]' "$out/wire.txt" || status=1
if [ $status != 0 ]; then
	echo "bench failed; logs in $out"
	exit 1
fi
echo "tables: $out/verbs.txt $out/nop.txt $out/wire.txt"
