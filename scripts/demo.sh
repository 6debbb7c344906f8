#!/bin/bash
# `make demo`: boot the stock guest, load softcx, and run the tools on it.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${SOFTCX_CACHE:=/var/cache/softcx}"
out=build/demo
rm -rf "$out"
mkdir -p "$out/overlay"
cp build/kmod-stock/src/softcx.ko "$out/overlay/"
rc=0
tests/vm/run-guest.sh -l "$out/run" -o "$out/overlay" tests/vm/guest/demo.sh >"$out/run.log" 2>&1 || rc=$?
grep -a -E '^(DEMO|RESULT|SUMMARY)' "$out/run/console.log" | tr -d '\r'
[ $rc = 0 ] || { echo "demo failed (status $rc); logs in $out"; tail -n 20 "$out/run.log"; }
exit $rc
