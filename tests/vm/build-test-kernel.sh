#!/bin/bash
# Build the KUnit/KASAN/lockdep/kmemleak test kernel from Debian's linux-source.
# The result is cached under $SOFTCX_CACHE/kernel/<key>, keyed by the source
# version, the config fragment, this script and the compiler; an unchanged key
# costs nothing, a changed one rebuilds with a warm ccache.
# Prints the build directory (usable as KDIR for out-of-tree modules).
# --cached: only say whether it is cached (exit 0, and the directory) or not
# (exit 1), building nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

frag="$here/test-kernel.config"
key=$( { dpkg-query -W -f='${Version}' linux-source-6.1; cat "$frag" "$0"; gcc --version | head -1; } |
	sha256sum | cut -c1-16)
out="$SOFTCX_CACHE/kernel/$key"
if [ -f "$out/.done" ]; then
	echo "$out/build"
	exit 0
fi
[ "${1:-}" != --cached ] || exit 1
ensure_ksrc

log "building test kernel $key (cold: ~15 min on 2 cores, warm ccache: ~2 min)"
rm -rf "$out"
mkdir -p "$out/build"
b="$out/build"
make -s -C "$KSRC" O="$b" tinyconfig >&2
make -s -C "$KSRC" O="$b" kvm_guest.config >&2
"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" "$frag" >/dev/null
make -s -C "$KSRC" O="$b" olddefconfig >&2

# Every line of the fragment must survive olddefconfig; a silently dropped
# option (unmet dependency) would make the tests weaker than they claim.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$b/.config" || { log "config: $line did not stick"; missing=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=" "$b/.config"; then log "config: $opt should be unset"; missing=1; fi ;;
	esac
done <"$frag"
[ "$missing" = 0 ] || die "test kernel config does not match $frag"

export CCACHE_DIR="$SOFTCX_CACHE/ccache" CCACHE_BASEDIR="$SOFTCX_CACHE" CCACHE_MAXSIZE=2G
jobs=$(nproc)
make -C "$KSRC" O="$b" -j"$jobs" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=2026-01-01 \
	KBUILD_BUILD_USER=softcx KBUILD_BUILD_HOST=softcx bzImage modules >&2
make -s -C "$KSRC" O="$b" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 modules_install >&2
touch "$out/.done"
log "test kernel ready: $b"
echo "$b"
