#!/bin/bash
# Host unit test of scan-log.sh: a clean guest log must pass, and each kind
# of injected kernel splat must be caught.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A trimmed real boot + test run, with CRLF line ends as QEMU writes them.
clean() {
	sed 's/$/\r/' <<'EOF'
[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org)
[    0.000000] tsc: Fast TSC calibration failed
[    0.899203] acpi PNP0A03:00: fail to add MMCONFIG information
[    5.651412] Run /init as init process
GUEST-INIT-READY uptime=6.15
+ modprobe -a rdma_rxe rdma_ucm ib_umad
[    6.705023] rdma_rxe: loaded
[    7.253931] infiniband rxe0: added dummy0
RESULT rc_pingpong PASS 819200 bytes in 0.76 seconds = 8.65 Mbit/sec
SUMMARY: 6 passed, 0 failed
GUEST-EXIT 0
[    9.981344] reboot: Restarting system
EOF
}

# mk NAME: $tmp/NAME.log is the clean log with stdin spliced into the middle.
mk() { { clean | sed -n '1,7p'; sed 's/$/\r/'; clean | sed -n '8,$p'; } >"$tmp/$1.log"; }

mk warn <<'EOF'
[    8.100000] ------------[ cut here ]------------
[    8.100001] WARNING: CPU: 0 PID: 1 at drivers/infiniband/sw/rxe/rxe_qp.c:812 rxe_qp_do_cleanup+0x1a/0x2b0 [rdma_rxe]
[    8.100002] Modules linked in: rdma_rxe ib_uverbs ib_core
EOF
mk kasan <<'EOF'
[    8.200000] ==================================================================
[    8.200001] BUG: KASAN: slab-use-after-free in rxe_elem_release+0x4c/0x80 [rdma_rxe]
[    8.200002] Read of size 8 at addr ffff888004a3c2d8 by task kworker/0:1/23
EOF
mk kmemleak <<'EOF'
unreferenced object 0xffff888003a1b200 (size 64):
  comm "ibv_rc_pingpong", pid 212, jiffies 4294893202 (age 10.112s)
  hex dump (first 32 bytes):
EOF
mk lockdep <<'EOF'
[    8.300000] ======================================================
[    8.300001] WARNING: possible circular locking dependency detected
[    8.300002] 6.1.0-softcx #1 Not tainted
EOF
mk lockdep-recursive <<'EOF'
[    8.300001] possible recursive locking detected
[    8.300002] rdma/412 is trying to acquire lock:
EOF
mk hung-task <<'EOF'
[  250.000000] INFO: task kworker/u4:2:45 blocked for more than 120 seconds.
EOF
mk rcu-stall <<'EOF'
[  260.000000] rcu: INFO: rcu_preempt self-detected stall on CPU
[  260.000001] rcu: 	0-....: (21000 ticks this GP) idle=8d4/1/0x4000000000000000
EOF
mk panic <<'EOF'
[    8.400000] Kernel panic - not syncing: Fatal exception
EOF
# DMA-API debugging on user memory mapped twice, through ib_umem_get: known.
eexist() { # the report, with the function under dma_map_sgtable as $1
	cat <<EOT
[ 1029.505607] ------------[ cut here ]------------
[ 1029.507201] DMA-API: softcx softcx_0: cacheline tracking EEXIST, overlapping mappings aren't supported
[ 1029.510344] WARNING: CPU: 1 PID: 1535 at kernel/dma/debug.c:571 add_dma_entry+0x263/0x2b6
[ 1029.521808] Call Trace:
[ 1029.523665]  debug_dma_map_sg+0x3ee/0x414
[ 1029.524469]  dma_map_sgtable+0x43/0x67
[ 1029.524779]  $1+0x393/0x440 [ib_uverbs]
[ 1029.525960]  scx_pin_dbrec+0x179/0x310 [softcx]
[ 1029.560000] ---[ end trace 0000000000000000 ]---
EOT
}
eexist ib_umem_get | mk eexist-umem
# the same report from a mapping of the driver's own: softcx's to answer for
eexist scx_map_ring | mk eexist-other
# a known report does not hide another one next to it
{ eexist ib_umem_get; cat <<'EOT'
[ 1030.100000] ------------[ cut here ]------------
[ 1030.100001] WARNING: CPU: 0 PID: 1 at kmod/ib_qp.c:99 scx_destroy_qp+0x1a/0x2b0 [softcx]
[ 1030.100009] ---[ end trace 0000000000000000 ]---
EOT
} | mk eexist-and-warn
# a report cut off before its end-of-trace line is not known
eexist ib_umem_get | head -n 8 | mk eexist-unended
clean >"$tmp/clean.log"

passed=0 failed=0
check() { # NAME WANT_RC
	local rc=0
	"$here/scan-log.sh" "$tmp/$1.log" >"$tmp/$1.out" 2>&1 || rc=$?
	if [ "$rc" = "$2" ]; then
		passed=$((passed + 1))
		echo "ok   $1"
	else
		failed=$((failed + 1))
		echo "FAIL $1: exit $rc, want $2"
		sed 's/^/     /' "$tmp/$1.out"
	fi
}
check clean 0
check eexist-umem 0
grep -q 'known: 1 DMA-API EEXIST' "$tmp/eexist-umem.out" || {
	failed=$((failed + 1))
	echo "FAIL eexist-umem: the known report is not counted"
}
for t in eexist-other eexist-and-warn eexist-unended; do check "$t" 1; done
for t in warn kasan kmemleak lockdep lockdep-recursive hung-task rcu-stall panic; do check "$t" 1; done
check absent 2 # a missing log must not count as clean

echo "scan-log: $passed passed, $failed failed"
[ "$failed" = 0 ]
