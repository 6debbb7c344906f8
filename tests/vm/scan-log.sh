#!/bin/bash
# Scan a guest console log for kernel trouble (WARN/BUG/KASAN/lockdep/
# kmemleak/hung task/panic/...). Exit 0 clean, 1 dirty (hits printed with
# context), 2 unreadable. A passing test script can still hide a kernel
# splat, so run-guest.sh fails the run on any hit.
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 LOGFILE" >&2; exit 2; }
[ -r "$1" ] || { echo "scan-log: cannot read $1" >&2; exit 2; }

pat='BUG:|WARNING:|KASAN|possible recursive locking|possible circular locking'
pat+='|inconsistent lock state|unreferenced object|Call Trace|Oops'
pat+='|[Kk]ernel panic|general protection fault|UBSAN|suspicious RCU usage'
pat+='|sleeping function called from invalid context|INFO: task .* blocked'
pat+='|rcu: INFO: .*detected stall'

# One report is known and not softcx's: DMA-API debugging's "cacheline
# tracking EEXIST" when the RDMA core's ib_umem_get maps user memory that
# is mapped already. Applications may register the same memory twice (two
# MRs on one buffer, a doorbell record inside a ring), and every RDMA driver
# that DMA-maps user memory, mlx5_ib on a ConnectX included, gets it through
# that same call (README, Reliability). Such a WARNING, from its cut line to
# its end-of-trace line, is counted and left out of the scan; any other
# report in it, or anywhere, still fails.
# QEMU serial logs have CRLF line ends.
rest=$(tr -d '\r' <"$1" | awk '
	/------------\[ cut here \]------------/ { inb = 1; blk = $0 "\n"; n = 1; next }
	inb {
		blk = blk $0 "\n"
		if ($0 ~ /---\[ end trace/) {
			inb = 0
			if (blk ~ /cacheline tracking EEXIST, overlapping mappings/ &&
			    blk ~ /ib_umem_get\+/ && gsub(/WARNING:/, "&", blk) == 1)
				known++
			else
				printf "%s", blk
		}
		next
	}
	{ print }
	END {
		if (inb) printf "%s", blk
		if (known) print "SCAN-LOG-KNOWN " known > "/dev/stderr"
	}' 2>"${TMPDIR:-/tmp}/scan-log.$$")
known=$(sed -n 's/^SCAN-LOG-KNOWN //p' "${TMPDIR:-/tmp}/scan-log.$$")
rm -f "${TMPDIR:-/tmp}/scan-log.$$"
if hits=$(grep -n -E -B2 -A10 -e "$pat" <<<"$rest"); then
	echo "scan-log: kernel trouble in $1:"
	head -n 200 <<<"$hits"
	exit 1
fi
[ -z "$known" ] || echo "scan-log: known: $known DMA-API EEXIST report(s) from ib_umem_get (user memory mapped twice; README)"
exit 0
