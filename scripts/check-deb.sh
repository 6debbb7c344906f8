#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-deb.sh KVER OUTDIR: the package `make deb` makes, taken as a user's
# machine takes it but without touching this machine's DKMS: its control
# fields and maintainer scripts, then DKMS adding and building its sources
# for KVER in a private tree (--dkmstree/--sourcetree: nothing is installed,
# nothing loaded). The module DKMS built is left in OUTDIR/softcx.ko; make
# check's stock guest runs that one.
set -euo pipefail
kver=$1 out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build/deb-check
rm -rf "$work"
mkdir -p "$work/pkg" "$work/x" "$work/tree" "$out"
deb=$("$top/scripts/make-deb.sh" "$work/pkg")
f() { dpkg-deb -f "$deb" "$1"; }
ver=$(f Version)
[ "$(f Package)" = softcx-dkms ] && [ "$(f Architecture)" = all ] ||
	{ echo "control: $(f Package) $(f Architecture)"; exit 1; }
[[ $(f Depends) == *dkms* ]] || { echo "control: Depends '$(f Depends)' lacks dkms"; exit 1; }
[ "$(basename "$deb")" = "softcx-dkms_${ver}_all.deb" ] || { echo "named $(basename "$deb")"; exit 1; }
dpkg-deb -e "$deb" "$work/ctl"
for s in postinst prerm; do
	[ -x "$work/ctl/$s" ] && sh -n "$work/ctl/$s" || { echo "$s missing or not sh"; exit 1; }
done
grep -q 'autoinstall_all_kernels=1' "$work/ctl/postinst" || { echo "postinst builds only for some kernels"; exit 1; }
dpkg-deb -x "$deb" "$work/x"
src=$work/x/usr/src
conf=$src/softcx-$ver/dkms.conf
grep -qx 'AUTOINSTALL="yes"' "$conf" && grep -qx "PACKAGE_VERSION=\"$ver\"" "$conf" ||
	{ echo "dkms.conf: no AUTOINSTALL or version $ver"; cat "$conf"; exit 1; }
dk=(--dkmstree "$work/tree" --sourcetree "$src")
dkms add -m softcx -v "$ver" "${dk[@]}" >"$work/dkms.log" 2>&1 &&
	dkms build -m softcx -v "$ver" -k "$kver" "${dk[@]}" >>"$work/dkms.log" 2>&1 ||
	{ cat "$work/dkms.log" "$work/tree/softcx/$ver/build/make.log" 2>/dev/null | tail -40; exit 1; }
log=$work/tree/softcx/$ver/$kver/x86_64/log/make.log
if grep -E 'warning:|WARNING:|error:' "$log"; then
	echo "the DKMS build for $kver has warnings ($log)"
	exit 1
fi
ko=$(find "$work/tree/softcx/$ver/$kver" -name 'softcx.ko*' | head -1)
[ -n "$ko" ] || { echo "DKMS left no softcx.ko"; exit 1; }
cp "$ko" "$out/softcx.ko"
[ "$(modinfo -F version "$out/softcx.ko")" = "$ver" ] ||
	{ echo "module version '$(modinfo -F version "$out/softcx.ko")', package $ver"; exit 1; }
echo "softcx-dkms_${ver}_all.deb: DKMS built softcx.ko $ver for $kver, no warning"
