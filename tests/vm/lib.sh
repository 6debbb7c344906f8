# Shared settings for the VM scripts. Sourced, not run.
# Everything slow to rebuild lives under $SOFTCX_CACHE, outside the repo, at
# fixed paths so that ccache hits across runs.
: "${SOFTCX_CACHE:=/var/cache/softcx}"
: "${GUEST_KVER:=6.1.0-57-amd64}"
KSRC_TARBALL=/usr/src/linux-source-6.1.tar.xz
KSRC="$SOFTCX_CACHE/src/linux-source-6.1"
export SOFTCX_CACHE GUEST_KVER

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Extract Debian's linux-source once; the tree is reused by every kernel build.
ensure_ksrc() {
	if [ ! -f "$KSRC/.softcx-extracted" ]; then
		[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing (apt-get install linux-source-6.1)"
		log "extracting $KSRC_TARBALL"
		rm -rf "$KSRC"
		mkdir -p "$(dirname "$KSRC")"
		tar -C "$(dirname "$KSRC")" -xJf "$KSRC_TARBALL"
		touch "$KSRC/.softcx-extracted"
	fi
}
