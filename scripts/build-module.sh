#!/bin/bash
# build-module.sh OUTDIR KDIR [make args]: build softcx.ko (and, on a KUnit
# kernel, softcx_kunit.ko) against KDIR. Kbuild of 6.1 writes objects beside
# the sources, so each target kernel builds its own copy of the tree in
# OUTDIR/src. Any compiler, objtool or modpost warning fails the build.
set -euo pipefail
out=$1 kdir=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/src"
rsync -a --delete --exclude '*.o' --exclude '.*.cmd' --exclude '*.ko' --exclude '*.mod' \
	--exclude '*.mod.c' --exclude 'modules.order' --exclude 'Module.symvers' --exclude '.*.d' \
	--include 'Kbuild' --include 'VERSION' --include 'scripts/***' --include 'kmod/***' --include 'core_cpp/***' \
	--include 'kunit/***' --include 'uapi/***' --exclude '*' "$top/" "$out/src/"
rc=0
make -C "$kdir" M="$out/src" -j"$(nproc)" "$@" modules >"$out/build.log" 2>&1 || rc=$?
cat "$out/build.log"
[ $rc = 0 ] || exit $rc
if grep -E 'warning:|WARNING:|error:' "$out/build.log"; then
	echo "module build in $out has warnings" >&2
	exit 1
fi
