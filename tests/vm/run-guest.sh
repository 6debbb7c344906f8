#!/bin/bash
# Boot the guest under QEMU (TCG) and run one script inside it.
#
#   run-guest.sh [-k KERNEL_DIR] [-t TIMEOUT_S] [-m MEM] [-c CPUS]
#                [-o OVERLAY_DIR] [-l LOGDIR] [-n listen|connect:PORT] [-S]
#                [-i SHIFT] SCRIPT [-- kernel args]
#
#   SCRIPT       runs as /harness/run.sh (bash); guest/common.sh is at
#                /harness/common.sh, OVERLAY_DIR's contents under /harness/extra/
#   -k DIR       test kernel instead of the stock one (see build-guest.sh)
#   -S           interactive shell on stdio (SCRIPT optional)
#   -n ROLE:ID   eth0, a virtio NIC on a QEMU stream link to another guest
#                (unix socket /tmp/softcx-link-ID.sock): "listen" boots
#                first, "connect" joins it; their MACs are 52:54:00:5c:00:01
#                and :02 (run-pair.sh)
#   -i SHIFT     the guest's clock counts instructions, 2^SHIFT ns each
#                (QEMU -icount, one TCG thread): what the host does to
#                QEMU's threads no longer shows in the guest's time, so a
#                guest timing a short section times softcx, not the host
#
# Exit status: the script's, from the GUEST-EXIT line on the results port;
# 124 timeout, 125 no GUEST-EXIT (crash/panic); 3 if scan-log.sh finds kernel
# trouble in console.log, whatever the script returned.
# LOGDIR (default: new dir under $SOFTCX_CACHE/runs) keeps console.log,
# results.log and cmd.txt; its path is printed on stderr at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

usage() { sed -n '3,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2; }
kdir='' tmo=900 mem=2G cpus=2 ovl='' logdir='' shell=0 nic='' icount=''
while getopts k:t:m:c:o:l:n:i:Sh opt; do
	case $opt in
	k) kdir=$OPTARG ;; t) tmo=$OPTARG ;; m) mem=$OPTARG ;; c) cpus=$OPTARG ;;
	o) ovl=$OPTARG ;; l) logdir=$OPTARG ;; n) nic=$OPTARG ;; S) shell=1 ;;
	i) icount=$OPTARG ;; *) usage ;;
	esac
done
net=()
if [ -n "$nic" ]; then
	sock=/tmp/softcx-link-${nic#*:}.sock
	case ${nic%%:*} in
	listen) mac=52:54:00:5c:00:01 server=on && rm -f "$sock" ;;
	connect) mac=52:54:00:5c:00:02 server=off ;;
	*) die "-n wants listen:ID or connect:ID, not $nic" ;;
	esac
	# A lossless link, as RoCE's Ethernet is (PFC): a full socket holds
	# the sender back. Over TCP, QEMU's small frames wait on Nagle against
	# delayed ACKs (~40 ms each time a guest sends two in a row, as every
	# RC responder does); over UDP, a burst overflows the host's socket
	# buffer. Loss, where a test wants it, is tc netem's in the guest.
	# shellcheck disable=SC2054 # commas are QEMU syntax
	net=(-netdev "stream,id=n0,server=$server,addr.type=unix,addr.path=$sock"
		-device "virtio-net-pci,netdev=n0,mac=$mac")
fi
shift $((OPTIND - 1))
script=''
if [ $# -gt 0 ] && [ "$1" != -- ] && { [ $shell = 0 ] || [ -f "$1" ]; }; then
	script=$1
	shift
fi
[ "${1:-}" != -- ] || shift
[ -n "$script" ] || [ $shell = 1 ] || usage
[ -z "$script" ] || [ -f "$script" ] || die "no such script: $script"
[ -z "$ovl" ] || [ -d "$ovl" ] || die "no such overlay dir: $ovl"
command -v qemu-system-x86_64 >/dev/null || apt-get install -y -q qemu-system-x86 >&2 ||
	{ apt-get update -q >&2 && apt-get install -y -q qemu-system-x86 >&2; }

img=$(KERNEL_DIR=$kdir "$here/build-guest.sh" | tail -n1)
if [ -z "$logdir" ]; then
	mkdir -p "$SOFTCX_CACHE/runs"
	logdir=$(mktemp -d "$SOFTCX_CACHE/runs/$(date +%Y%m%d-%H%M%S)-XXXX")
fi
mkdir -p "$logdir"
rm -f "$logdir"/{console,results}.log

# Per-run files go into a small gzip cpio appended to the cached base image;
# the kernel unpacks both, so the base image is never rebuilt for a test.
stage=$logdir/overlay
rm -rf "$stage"
mkdir -p "$stage/harness/extra"
install -m 644 "$here/guest/common.sh" "$stage/harness/common.sh"
[ -z "$script" ] || install -m 755 "$script" "$stage/harness/run.sh"
[ -z "$ovl" ] || cp -a "$ovl/." "$stage/harness/extra/"
(cd "$stage" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) | gzip -1 >"$logdir/overlay.cpio.gz"
rm -rf "$stage"
cat "$img/initramfs.cpio.zst" "$logdir/overlay.cpio.gz" >"$logdir/initrd.img"

append="console=ttyS0 panic=-1 oops=panic loglevel=7 mitigations=off"
# TCG runs a rep movs one element per step. With ERMS (-cpu max offers it)
# the guest kernel's memcpy and user copies are rep movsb, a byte a step;
# without ERMS and REP_GOOD they take their unrolled loops, 4-6x faster
# here (on hardware rep movsb is the fast one). User space still sees the
# CPU's CPUID. GUEST_CPU_ARGS= boots the CPU as QEMU offers it.
append+=" ${GUEST_CPU_ARGS-clearcpuid=erms,rep_good}"
if [ $shell = 1 ]; then
	append+=" harness=shell"
	# stdio for the user, still logged so the scan below works.
	con=(-chardev "stdio,id=con,logfile=$logdir/console.log" -serial chardev:con)
	fg=(--foreground) # let QEMU read the terminal
else
	con=(-serial "file:$logdir/console.log")
	fg=()
fi
[ $# = 0 ] || append+=" $*"
accel=(-accel tcg,thread=multi)
# shellcheck disable=SC2054 # commas are QEMU syntax
[ -z "$icount" ] || accel=(-accel tcg,thread=single -icount "shift=$icount,sleep=on")
# shellcheck disable=SC2054 # commas are QEMU syntax
qemu=(qemu-system-x86_64 "${accel[@]}" -cpu max -smp "$cpus" -m "$mem"
	-no-reboot -nodefaults -display none -kernel "$img/vmlinuz" -initrd "$logdir/initrd.img"
	"${net[@]}" "${con[@]}" -serial "file:$logdir/results.log" -monitor none -append "$append")
printf '%q ' "${qemu[@]}" >"$logdir/cmd.txt"
echo >>"$logdir/cmd.txt"

log "booting $(basename "$img") (timeout ${tmo}s, logs in $logdir)"
start=$SECONDS
qrc=0
if [ $shell = 1 ]; then
	timeout "${fg[@]}" "$tmo" "${qemu[@]}" || qrc=$?
else
	timeout "$tmo" "${qemu[@]}" </dev/null || qrc=$?
fi
wall=$((SECONDS - start))
[ "${KEEP_INITRD:-0}" = 1 ] || rm -f "$logdir/initrd.img" "$logdir/overlay.cpio.gz"

touch "$logdir/results.log" "$logdir/console.log"
grep -a '^RESULT ' "$logdir/results.log" | tr -d '\r' >&2 || true
rc=$(tr -d '\r' <"$logdir/results.log" | sed -n 's/^GUEST-EXIT \([0-9][0-9]*\)$/\1/p' | tail -n1)
if [ -z "$rc" ]; then
	if [ $qrc = 124 ]; then
		log "FAIL: guest timed out after ${tmo}s (no GUEST-EXIT)"
		rc=124
	else
		log "FAIL: guest stopped without GUEST-EXIT (qemu rc $qrc; kernel panic or crash?)"
		rc=125
	fi
fi
if ! "$here/scan-log.sh" "$logdir/console.log" >&2; then
	log "FAIL: kernel trouble in console.log (script rc $rc)"
	rc=3
fi
echo "qemu_rc=$qrc rc=$rc wall_s=$wall" >"$logdir/status.txt"
log "guest finished: rc $rc, ${wall}s wall"
echo "$logdir" >&2
exit "$rc"
