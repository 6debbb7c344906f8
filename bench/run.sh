#!/bin/bash
# `make bench`: boot the stock guest with build/kmod-stock's softcx.ko, run
# bench/nop.sh in it, and keep its table in build/bench/nop.txt. Waits while
# another QEMU runs (one guest at a time on a small machine).
# BENCH_KARGS: extra guest kernel arguments (e.g. idle=poll).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=build/bench
rm -rf "$out"
mkdir -p "$out/overlay"
cp build/kmod-stock/src/softcx.ko "$out/overlay/" || exit 1
while pgrep -f qemu-system >/dev/null; do
	echo "bench: waiting for the running QEMU to finish"
	sleep 20
done
read -r load1 load5 _ </proc/loadavg
rc=0
# shellcheck disable=SC2086 # BENCH_KARGS: words
tests/vm/run-guest.sh -l "$out/run" -o "$out/overlay" bench/nop.sh -- ${BENCH_KARGS:-} \
	>"$out/run.log" 2>&1 || rc=$?
{
	grep -a '^BENCH ' "$out/run/results.log" 2>/dev/null | tr -d '\r' | sed 's/^BENCH //'
	echo "# host: $(nproc) CPUs, load average $load1 $load5 at start${BENCH_KARGS:+; guest kernel args: $BENCH_KARGS}"
} >"$out/nop.txt"
cat "$out/nop.txt"
if [ $rc != 0 ] || ! grep -q '^events' "$out/nop.txt"; then
	echo "bench failed (status $rc); logs in $out"
	tail -n 20 "$out/run.log"
	exit 1
fi
echo "table: $out/nop.txt"
