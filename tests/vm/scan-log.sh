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

# QEMU serial logs have CRLF line ends.
if hits=$(tr -d '\r' <"$1" | grep -n -E -B2 -A10 -e "$pat"); then
	echo "scan-log: kernel trouble in $1:"
	head -n 200 <<<"$hits"
	exit 1
fi
exit 0
