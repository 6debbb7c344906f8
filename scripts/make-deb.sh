#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make-deb.sh OUTDIR: `make deb`, OUTDIR/softcx-dkms_<version>_all.deb: the
# module's sources under /usr/src/softcx-<version> with a dkms.conf, and the
# scripts that hand them to DKMS (packaging/). The version is VERSION, plus
# the commit when built from git, so each build upgrades the last.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
outdir=$(cd "${1:-.}" && pwd)
command -v dpkg-deb >/dev/null || { echo "make deb: dpkg-deb is missing (apt install dpkg-dev)" >&2; exit 2; }
ver=$(cat "$top/VERSION")
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	ver="$ver+git$(git -C "$top" rev-list --count HEAD).$(git -C "$top" rev-parse --short=7 HEAD)"
fi
stage=$top/build/deb/root
src=$stage/usr/src/softcx-$ver
rm -rf "$top/build/deb"
mkdir -p "$stage/DEBIAN" "$src"
# What Kbuild needs, nothing built.
rsync -a --exclude '*.o' --exclude '.*.cmd' --exclude '*.ko' --exclude '*.mod' \
	--exclude '*.mod.c' --exclude 'modules.order' --exclude 'Module.symvers' --exclude '.*.d' \
	--include 'Kbuild' --include 'scripts/' --include 'scripts/cxx.mk' --include 'kmod/***' \
	--include 'core_cpp/***' --include 'kunit/***' --include 'uapi/***' --exclude '*' \
	"$top/" "$src/"
echo "$ver" >"$src/VERSION"
sed "s/@VERSION@/$ver/" "$top/packaging/dkms.conf.in" >"$src/dkms.conf"
for f in postinst prerm; do
	sed "s/@VERSION@/$ver/" "$top/packaging/$f.in" >"$stage/DEBIAN/$f"
	chmod 755 "$stage/DEBIAN/$f"
done
size=$(du -sk "$stage/usr" | cut -f1)
sed "s/@VERSION@/$ver/; s/@SIZE@/$size/" "$top/packaging/control.in" >"$stage/DEBIAN/control"
deb=$outdir/softcx-dkms_${ver}_all.deb
rm -f "$outdir"/softcx-dkms_*_all.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
