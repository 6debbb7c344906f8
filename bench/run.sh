#!/bin/bash
# `make bench`: boot the stock guest with build/kmod-stock's softcx.ko, run
# bench/nop.sh in it, and keep its table in build/bench/nop.txt. Waits while
# another QEMU runs (one guest at a time on a small machine).
set -uo pipefail
cd "$(dirname "$0")/.."
out=build/bench
rm -rf "$out"
mkdir -p "$out/overlay"
cp build/kmod-stock/src/softcx.ko "$out/overlay/" || exit 1
while pgrep -f qemu-system >/dev/null; do
	echo "bench: waiting for the running QEMU to finish"
	sleep 20
done
rc=0
tests/vm/run-guest.sh -l "$out/run" -o "$out/overlay" bench/nop.sh >"$out/run.log" 2>&1 || rc=$?
grep -a '^BENCH ' "$out/run/results.log" 2>/dev/null | tr -d '\r' | sed 's/^BENCH //' >"$out/nop.txt"
cat "$out/nop.txt"
if [ $rc != 0 ] || [ ! -s "$out/nop.txt" ]; then
	echo "bench failed (status $rc); logs in $out"
	tail -n 20 "$out/run.log"
	exit 1
fi
echo "table: $out/nop.txt"
