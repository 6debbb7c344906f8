#!/bin/bash
# Build the guest image: Debian 12 userspace (bash, kmod, iproute2, rdma-core
# tools, perftest, python3 + pyverbs) unpacked from debs into an initramfs,
# plus a kernel and the module closure the RDMA tests need.
# No debootstrap/chroot: plain `dpkg-deb -x` needs no maintainer scripts and
# gives a bit-reproducible image.
#
#   build-guest.sh                  stock kernel linux-image-$GUEST_KVER
#   KERNEL_DIR=DIR build-guest.sh   DIR holds bzImage (or arch/x86/boot/bzImage)
#                                   and modroot/ (or ../modroot, as laid out by
#                                   build-test-kernel.sh)
#
# Prints (last line) $SOFTCX_CACHE/guest/<key> with vmlinuz,
# initramfs.cpio.zst and manifest.txt. The key hashes this script,
# guest-init.sh, the package versions and the kernel, so an unchanged key
# returns at once.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

PKGS=(libc6 libgcc-s1 libstdc++6 busybox-static bash kmod libkmod2 liblzma5
	libssl3 libzstd1 zlib1g
	libnl-3-200 libnl-route-3-200 libibverbs1 librdmacm1 ibverbs-providers
	ibverbs-utils perftest rdmacm-utils libibumad3 libpci3 libudev1
	# rdma_cm clients beyond rdmacm-utils (cm.sh): qperf, libfabric's tools.
	qperf libfabric-bin libfabric1 libatomic1 gcc-12-base libpsm-infinipath1
	libpsm2-2 libnuma1
	# UCX (ucx.sh): ucx_info, ucx_perftest and their transports.
	ucx-utils libucx0 libgomp1
	iproute2 libbpf1 libelf1 libmnl0 libcap2 libbsd0 libmd0 libselinux1
	libpcre2-8-0 libxtables12 libdb5.3
	python3-minimal python3.11-minimal libpython3.11-minimal
	libpython3.11-stdlib libpython3.11 libexpat1 libffi8 libbz2-1.0
	libsqlite3-0 libuuid1 libcrypt1 libncursesw6 libtinfo6 libreadline8
	python3-pyverbs
	# rdma-core's DevX tests build their packets with scapy.
	python3-scapy netbase
	# procps' libproc2 links libsystemd, which pulls these in.
	procps libproc2-0 libsystemd0 libgcrypt20 libgpg-error0 liblz4-1
	# The real timeout (and the rest of coreutils): busybox's timeout
	# runs its own applet for a command busybox has one of, so the tests'
	# `timeout N ip ...` / `modprobe` would not run the tools users run.
	coreutils libacl1 libattr1 libgmp10)
# crc32_* are requested by rxe through the crypto API (request_module), so
# they are not in modules.dep and must be named explicitly.
# sch_netem: the lossy link of make soak's wire-netem pairs. nvmet_rdma,
# nvme_rdma: NVMe over RDMA on softcx (nvme.sh).
MODS=(rdma_rxe ib_core ib_uverbs ib_umad rdma_cm rdma_ucm ib_cm iw_cm veth
	dummy virtio_net virtio_pci crc32_generic crc32_pclmul sch_netem
	nvmet nvmet_rdma nvme_rdma)
: "${SOURCE_DATE_EPOCH:=0}"
KERNEL_DIR=${KERNEL_DIR:-}
debs=$SOFTCX_CACHE/debs

# Host tools.
missing=()
for t in zstd:zstd cpio:cpio depmod:kmod; do
	command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
done
# By path: `python3` may be a pyenv shim; the .pyc must match the guest's 3.11.
[ -x /usr/bin/python3.11 ] || missing+=(python3-minimal)
if [ ${#missing[@]} -gt 0 ]; then
	log "installing host tools: ${missing[*]}"
	apt-get install -y -q "${missing[@]}" >&2 ||
		{ apt-get update -q >&2 && apt-get install -y -q "${missing[@]}" >&2; } || log "could not install ${missing[*]}"
fi

# Kernel: a test kernel directory, or the stock deb (then it is a package too).
if [ -n "$KERNEL_DIR" ]; then
	KERNEL_DIR=$(cd "$KERNEL_DIR" && pwd)
	bz=$KERNEL_DIR/bzImage
	[ -f "$bz" ] || bz=$KERNEL_DIR/arch/x86/boot/bzImage
	modroot=$KERNEL_DIR/modroot
	[ -d "$modroot" ] || modroot=$(dirname "$KERNEL_DIR")/modroot
	[ -f "$bz" ] && [ -d "$modroot/lib/modules" ] || die "$KERNEL_DIR: need bzImage and modroot/lib/modules"
	rels=("$modroot"/lib/modules/*)
	[ ${#rels[@]} = 1 ] || die "$modroot: expected one kernel release, found ${#rels[@]}"
	kver=${rels[0]##*/}
	# bzImage content plus module sizes/mtimes: a module-only rebuild counts too.
	kinfo="kernel-dir $KERNEL_DIR $kver $({ cat "$bz"
		find "$modroot/lib/modules/$kver" -name '*.ko*' -printf '%P %s %T@\n' | LC_ALL=C sort; } |
		sha256sum | cut -c1-16)"
else
	PKGS+=("linux-image-$GUEST_KVER")
	kver=$GUEST_KVER
fi

# Candidate versions; an empty or stale apt list is refreshed once.
versions() {
	apt-cache policy "${PKGS[@]}" 2>/dev/null |
		awk '/^[^ ]/ { p = $1; sub(/:$/, "", p) } /^  Candidate:/ && $2 != "(none)" { print p, $2 }'
}
vers=$(versions)
if [ "$(grep -c . <<<"$vers")" != ${#PKGS[@]} ]; then
	log "apt-cache lacks some packages; running apt-get update"
	apt-get update -q >&2
	vers=$(versions)
	[ "$(grep -c . <<<"$vers")" = ${#PKGS[@]} ] ||
		die "packages not available: $(printf '%s\n' "${PKGS[@]}" | grep -vxFf <(cut -d' ' -f1 <<<"$vers") | tr '\n' ' ')"
fi
[ -n "$KERNEL_DIR" ] || kinfo="linux-image-$GUEST_KVER $(awk -v p="linux-image-$GUEST_KVER" '$1 == p { print $2 }' <<<"$vers")"

key=$({ cat "$here/build-guest.sh" "$here/guest-init.sh"; echo "$vers"; echo "$kinfo"; echo "$SOURCE_DATE_EPOCH"; } |
	sha256sum | cut -c1-16)
out=$SOFTCX_CACHE/guest/$key
if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi
log "building guest image $key ($kinfo)"

# Download only the debs not cached yet, pinned to the versions in the key.
# apt-get download writes an epoch ':' as '%3a' in the file name.
debfile() { compgen -G "$debs/${1}_${2//:/%3a}_*.deb" | head -n1; }
mkdir -p "$debs"
want=()
while read -r p v; do
	[ -n "$(debfile "$p" "$v")" ] || want+=("$p=$v")
done <<<"$vers"
if [ ${#want[@]} -gt 0 ]; then
	log "downloading ${#want[@]} debs"
	dl() { (cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${want[@]}" >&2); }
	dl || { apt-get update -q >&2 && dl; }
fi

# Stock kernel: unpack the deb once (it ships no modules.dep, hence depmod).
if [ -z "$KERNEL_DIR" ]; then
	kdeb=$(debfile "linux-image-$GUEST_KVER" "${kinfo##* }")
	kroot=$SOFTCX_CACHE/kernel-deb/$GUEST_KVER
	if [ "$(cat "$kroot/.done" 2>/dev/null)" != "$kdeb" ]; then
		log "extracting $(basename "$kdeb")"
		rm -rf "$kroot"
		mkdir -p "$kroot"
		dpkg-deb -x "$kdeb" "$kroot"
		depmod -b "$kroot" "$GUEST_KVER"
		echo "$kdeb" >"$kroot/.done"
	fi
	bz=$kroot/boot/vmlinuz-$GUEST_KVER
	modroot=$kroot
fi
[ -f "$modroot/lib/modules/$kver/modules.dep" ] || depmod -b "$modroot" "$kver"

mkdir -p "$SOFTCX_CACHE/guest"
work=$(mktemp -d "$SOFTCX_CACHE/guest/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
mkdir -p "$root"

: >"$work/manifest.txt"
while read -r p v; do
	[ "$p" = "linux-image-$GUEST_KVER" ] && [ -z "$KERNEL_DIR" ] && continue
	f=$(debfile "$p" "$v")
	dpkg-deb -x "$f" "$root"
	echo "$p $v $(basename "$f")" >>"$work/manifest.txt"
done <<<"$vers"

# rdma-core's python test suite ships as docs; run_tests.py wants it in a
# directory named tests.
src=$root/usr/share/doc/rdma-core/tests
[ -d "$src" ] || die "rdma-core tests not found at /usr/share/doc/rdma-core/tests"
mkdir -p "$root/opt/rdma-core"
cp -a "$src" "$root/opt/rdma-core/tests"
find "$root/opt/rdma-core/tests" -name '*.gz' -exec gunzip -f {} +
rm -rf "$root"/usr/share/{doc,man,info,locale,lintian}

# What maintainer scripts would have done: libpsm-infinipath1's library is
# named through update-alternatives (libfabric1 links it).
ln -sf ../libpsm1/libpsm_infinipath.so.1.16 "$root/usr/lib/x86_64-linux-gnu/libpsm_infinipath.so.1"

# Busybox fills gaps only: its applets shadow real tools badly (busybox ip has
# no netns/rdma support), so a real binary anywhere in PATH wins.
while read -r a; do
	case $a in */*) ;; *) continue ;; esac
	n=${a##*/} have=0
	for d in bin sbin usr/bin usr/sbin; do
		if [ -e "$root/$d/$n" ] || [ -L "$root/$d/$n" ]; then have=1; fi
	done
	[ $have = 1 ] || { mkdir -p "$root/${a%/*}"; ln -s /bin/busybox "$root/$a"; }
done < <("$root/bin/busybox" --list-full)

mkdir -p "$root"/{proc,sys,dev,run,tmp,root,etc,harness}
chmod 1777 "$root/tmp"
mknod -m 600 "$root/dev/console" c 5 1
echo 'root:x:0:0:root:/root:/bin/bash' >"$root/etc/passwd"
printf 'root:x:0:\ntty:x:5:\n' >"$root/etc/group"
printf '127.0.0.1 localhost guest\n::1 localhost\n' >"$root/etc/hosts"
printf 'passwd: files\ngroup: files\nhosts: files\n' >"$root/etc/nsswitch.conf"
echo 'include /etc/ld.so.conf.d/*.conf' >"$root/etc/ld.so.conf"
install -m 755 "$here/guest-init.sh" "$root/init"

# Module closure via modinfo; names missing from this kernel (e.g. built in,
# or crc32_pclmul on the test kernel) are skipped, not fatal.
mdir=lib/modules/$kver
mkdir -p "$root/$mdir"
declare -A seen=()
queue=("${MODS[@]}")
nmods=0
while [ ${#queue[@]} -gt 0 ]; do
	m=${queue[0]}
	queue=("${queue[@]:1}")
	[ -z "$m" ] || [ -n "${seen[$m]:-}" ] && continue
	seen[$m]=1
	if ! f=$(modinfo -b "$modroot" -k "$kver" -F filename "$m" 2>/dev/null); then
		log "module $m: not in $kver, skipped"
		continue
	fi
	if [ "$f" = "(builtin)" ]; then
		log "module $m: built in"
		continue
	fi
	rel=${f#"$modroot"/}
	mkdir -p "$root/$(dirname "$rel")"
	cp "$modroot/$rel" "$root/$rel"
	nmods=$((nmods + 1))
	IFS=, read -ra deps <<<"$(modinfo -b "$modroot" -k "$kver" -F depends "$m")"
	queue+=("${deps[@]}")
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ ! -f "$modroot/$mdir/$f" ] || cp "$modroot/$mdir/$f" "$root/$mdir/"
done
depmod -b "$root" "$kver"
log "$nmods modules copied"

# unchecked-hash keeps the .pyc valid after the mtime reset below.
if [ -x /usr/bin/python3.11 ]; then
	/usr/bin/python3.11 -m compileall -q -j2 --invalidation-mode unchecked-hash -s "$root" -p / \
		"$root/usr/lib/python3.11" "$root/usr/lib/python3/dist-packages" "$root/opt/rdma-core/tests" >&2 ||
		log "compileall reported errors (ignored)"
else
	log "no /usr/bin/python3.11 on the host: python left uncompiled"
fi
ldconfig -r "$root"

# Catch a missing shared library at build time rather than in the guest.
for b in bin/bash sbin/modprobe bin/ip usr/bin/rdma usr/bin/ibv_rc_pingpong usr/bin/ib_write_bw \
	usr/bin/rping bin/ps usr/bin/python3.11 usr/bin/timeout; do
	[ -e "$root/$b" ] || [ -L "$root/$b" ] || die "/$b missing from the image"
	l=$(chroot "$root" /lib64/ld-linux-x86-64.so.2 --list "/$b" 2>&1) && ! grep -q 'not found' <<<"$l" ||
		die "/$b: unresolved libraries: $(grep 'not found' <<<"$l" | tr -s ' \t\n' ' ')"
done

# Reproducible archive: fixed mtimes, sorted names, fixed owner.
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
(cd "$root" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
	cpio --quiet -o -H newc --reproducible -R 0:0) | zstd -q -3 -T2 -o "$work/initramfs.cpio.zst"
cp "$bz" "$work/vmlinuz"
{
	echo "kernel $kinfo"
	echo "modules $(cd "$root/$mdir" && find . -name '*.ko*' -printf '%f\n' | LC_ALL=C sort | tr '\n' ' ')"
	echo "rootfs-bytes $(du -sb "$root" | cut -f1)"
	(cd "$work" && sha256sum vmlinuz initramfs.cpio.zst)
} >>"$work/manifest.txt"
rm -rf "$root"
touch "$work/.done"
rm -rf "$out"
mv "$work" "$out"
trap - EXIT
log "guest image ready: $out ($(du -h "$out/initramfs.cpio.zst" | cut -f1) initramfs)"
echo "$out"
