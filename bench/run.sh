#!/bin/bash
# `make bench`: two stock-guest boots with build/kmod-stock's softcx.ko:
# bench/verbs.sh (softcx against rdma_rxe: perftest, memcpy ceiling, idle
# CPU) into build/bench/verbs.txt, then bench/nop.sh (command NOPs) into
# build/bench/nop.txt. Waits while another QEMU runs (one guest at a time on
# a small machine). BENCH_KARGS: extra guest kernel arguments.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=build/bench
rm -rf "$out"
mkdir -p "$out/overlay"
cp build/kmod-stock/src/softcx.ko build/bench-bin/memcpy_bw build/bench-bin/idle_qps "$out/overlay/" || exit 1

# boot NAME: run bench/NAME.sh in a guest; its BENCH lines into $out/NAME.txt.
boot() {
	local name=$1 rc=0 load1 load5
	while pgrep -f qemu-system >/dev/null; do
		echo "bench: waiting for the running QEMU to finish"
		sleep 20
	done
	read -r load1 load5 _ </proc/loadavg
	# shellcheck disable=SC2086 # BENCH_KARGS: words
	tests/vm/run-guest.sh -t 1800 -l "$out/$name-run" -o "$out/overlay" "bench/$name.sh" -- ${BENCH_KARGS:-} \
		>"$out/$name-run.log" 2>&1 || rc=$?
	{
		grep -a '^BENCH ' "$out/$name-run/results.log" 2>/dev/null | tr -d '\r' | sed 's/^BENCH //'
		echo "# host: $(nproc) CPUs, load average $load1 $load5 at start${BENCH_KARGS:+; guest kernel args: $BENCH_KARGS}"
	} >"$out/$name.txt"
	cat "$out/$name.txt"
	return $rc
}

status=0
boot verbs || status=1
grep -q '^ib_write_bw' "$out/verbs.txt" || status=1
boot nop || status=1
grep -q '^events' "$out/nop.txt" || status=1
if [ $status != 0 ]; then
	echo "bench failed; logs in $out"
	exit 1
fi
echo "tables: $out/verbs.txt $out/nop.txt"
