#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# module-for.sh KVER OUTDIR: `make module`, softcx.ko for an installed kernel
# (KVER, the running one by default) through its headers' build directory,
# as any out-of-tree module is built. Without those headers it says what to
# install, and which kernels it could build for instead.
set -uo pipefail
kver=$1 out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=/lib/modules/$kver/build

if [ ! -f "$kdir/Makefile" ]; then
	{
		echo "make module: no headers for kernel $kver ($kdir/Makefile is missing)."
		if command -v apt-get >/dev/null; then
			echo "  Install them:  apt install linux-headers-$kver"
		else
			echo "  Install your distribution's headers package for $kver."
		fi
		have=()
		for m in /lib/modules/*/build/Makefile; do
			[ -f "$m" ] && { m=${m#/lib/modules/}; have+=("${m%%/*}"); }
		done
		if [ ${#have[@]} -gt 0 ]; then
			echo "  Or build for a kernel whose headers are installed:"
			printf '    make module KVER=%s\n' "${have[@]}"
		fi
	} >&2
	exit 2
fi
# Kbuild builds C++ with the C compiler's g++ twin (scripts/cxx.mk).
cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\?\([^ ]*\) .*/\1/p' "$kdir/include/config/auto.conf" 2>/dev/null)
cxx=${cc/gcc/g++}
if [ -n "$cxx" ] && ! command -v "$cxx" >/dev/null; then
	echo "make module: $kver was built with $cc; softcx's core needs its C++ twin: apt install $cxx" >&2
	exit 2
fi
"$top/scripts/build-module.sh" "$out" "$kdir" || exit 1
echo "built $out/src/softcx.ko for $kver"
