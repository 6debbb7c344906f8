#!/bin/bash
# Two stock guests on one QEMU stream link (a unix socket), one vCPU each:
# "a" listens, "b" connects; SCRIPT runs in both, with role=a / role=b on
# the kernel command line.
#
#   run-pair.sh [-t TIMEOUT_S] [-o OVERLAY_DIR] -l LOGDIR SCRIPT [-- kernel args]
#
# Logs in LOGDIR/a and LOGDIR/b (run-guest.sh's). Exit status: a's if it
# failed, else b's. Both guests boot with tsc=reliable: under TCG the
# clocksource watchdog may otherwise move them to HPET, and perftest's
# calibration of the TSC against that clock fails (r^2 < 0.9).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
tmo=600 ovl='' logdir=''
while getopts t:o:l: opt; do
	case $opt in
	t) tmo=$OPTARG ;; o) ovl=$OPTARG ;; l) logdir=$OPTARG ;; *) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$logdir" ] && [ $# -ge 1 ] || die "usage: run-pair.sh [-t S] [-o DIR] -l LOGDIR SCRIPT [-- args]"
script=$1
shift
[ "${1:-}" != -- ] || shift
port=$((20000 + $$ % 20000))
opts=(-t "$tmo" -c 1 -m 1G)
[ -z "$ovl" ] || opts+=(-o "$ovl")
mkdir -p "$logdir"
"$here/run-guest.sh" "${opts[@]}" -l "$logdir/a" -n "listen:$port" "$script" -- role=a tsc=reliable "$@" \
	>"$logdir/a.log" 2>&1 &
pa=$!
# QEMU opens the listening socket before the guest boots.
sleep 2
"$here/run-guest.sh" "${opts[@]}" -l "$logdir/b" -n "connect:$port" "$script" -- role=b tsc=reliable "$@" \
	>"$logdir/b.log" 2>&1 &
pb=$!
ra=0 rb=0
wait $pa || ra=$?
wait $pb || rb=$?
log "pair finished: a rc $ra, b rc $rb"
[ $ra = 0 ] || exit $ra
exit $rb
