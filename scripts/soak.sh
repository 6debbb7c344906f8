#!/bin/bash
# `make soak DURATION=S`: the long runs make check cannot afford, S
# seconds in all (default 3600), in this order:
#  - the stock kernel: wqe_fuzz for SOAK_WQES WQEs (default a million,
#    two processes sharing them, one a vCPU), whose rate it reports;
#  - two stock guests on a link made lossy with tc netem (wire-netem.sh),
#    then on a clean link perftest's -a sweeps and the pingpongs over
#    several sizes (wire-sweeps.sh): softcx with softcx and with rdma_rxe;
#    rxe with rxe for reference;
#  - Debian's cloud and RT kernels: the parts make check leaves out there
#    (the perftest sweeps over every size, verbs-objects, doorbell-sched,
#    wqe-fuzz, rdma-core's suite; two-ports on cloud), and NVMe's
#    rmmod-under-load round 30 times;
#  - the KASAN/lockdep/kmemleak test kernel: the parts make check leaves
#    out there (the perftest sweeps over every size, two-ports, rdma-core's
#    suite), bounded work with a 1 GiB WQE (bounded.sh),
#    then the robustness part
#    (tests/vm/guest/robust.sh, 100 kill rounds, 30000 fuzzed uverbs
#    inputs and 200 churn cycles a thread each pass) repeated for what is
#    left of S, at least once.
# The summary says what was done (processes killed, devices removed and
# recovered, inputs and WQEs fuzzed), the kernel logs must be clean and
# every result must pass; exit 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3600} wqes=${SOAK_WQES:-1000000}
out=build/soak
rm -rf "$out"
mkdir -p "$out"
failed=0
t0=$SECONDS

make -s module-stock module-flavours module-testk verbs-tests >"$out/build.log" 2>&1 || { echo "build failed ($out/build.log)"; exit 1; }
overlay() { # overlay DIR KO...
	local d=$1
	shift
	mkdir -p "$d"
	cp "$@" build/verbs/* tests/vm/guest/* "$d/"
}
# one NAME PARTS TIMEOUT [run-guest options] -- kernel args: a suite.sh boot, judged.
one() {
	local name=$1 parts=$2 tmo=$3 opts=() rc=0
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	echo "---- $name: $parts ($(date +%T))"
	# A soak's part may take as long as its boot (suite.sh's part_timeout).
	tests/vm/run-guest.sh -l "$out/$name" -t "$tmo" "${opts[@]}" tests/vm/guest/suite.sh -- \
		"suite=$parts" "part_timeout=$tmo" "$@" >"$out/$name.log" 2>&1 || rc=$?
	local extra=() wflags=() f
	[ -e "$out/$name/results.log" ] && grep -aq '^PART-BEGIN kmemleak' "$out/$name/results.log" && extra=(kmemleak)
	for f in ${WITHOUT:-}; do wflags+=(-w "$f"); done
	tests/vm/check-results.sh "${wflags[@]}" "$out/$name/results.log" tests/vm/guest ${parts//,/ } "${extra[@]}" ||
		failed=$((failed + 1))
	tests/vm/scan-log.sh "$out/$name/console.log" >>"$out/$name.log" 2>&1 ||
		{ echo "FAIL $name: kernel log (see $out/$name/console.log)"; failed=$((failed + 1)); }
	local n_pass n_fail
	n_pass=$(grep -a -c '^RESULT .* PASS' "$out/$name/results.log" 2>/dev/null)
	n_fail=$(grep -a -c '^RESULT .* FAIL' "$out/$name/results.log" 2>/dev/null)
	echo "$name: ${n_pass:-0} results passed, ${n_fail:-0} failed, guest exit $rc"
	grep -a '^RESULT .* FAIL' "$out/$name/results.log" 2>/dev/null | tr -d '\r' | head -20 | sed 's/^/    /'
	[ "${n_fail:-0}" = 0 ] && [ $rc = 0 ] || failed=$((failed + 1))
}

# The fixed work first, the repeated robustness passes fill the rest of
# DURATION (at least one pass).
overlay "$out/ovl-stock" build/kmod-stock/src/softcx.ko
one stock wqe-fuzz $((wqes / 20 + 1800)) -o "$out/ovl-stock" -- "wf_iter=$wqes" wf_procs=2
# Two hosts on a bad link (tc netem, tests/vm/guest/wire-netem.sh), and
# perftest's -a sweeps between two hosts (wire-sweeps.sh): softcx with
# softcx and with rdma_rxe, judged; rxe with rxe, the reference, only
# recorded (what the link allows rxe itself).
pair_one() { # pair_one NAME PART TIMEOUT JUDGED -- kernel args
	local name=$1 part=$2 tmo=$3 judged=$4 rc=0 side bad=0
	shift 5
	echo "---- $name: $part on two guests ($(date +%T))"
	tests/vm/run-pair.sh -t "$tmo" -o "$out/ovl-stock" -l "$out/$name" tests/vm/guest/suite.sh -- \
		suite=$part "part_timeout=$tmo" "$@" >"$out/$name.log" 2>&1 || rc=$?
	for side in a b; do
		tests/vm/check-results.sh "$out/$name/$side/results.log" tests/vm/guest "$part" || bad=1
		tests/vm/scan-log.sh "$out/$name/$side/console.log" >>"$out/$name.log" 2>&1 ||
			{ echo "FAIL $name/$side: kernel log (see $out/$name/$side/console.log)"; bad=1; }
		grep -a '^RESULT' "$out/$name/$side/results.log" 2>/dev/null | tr -d '\r' | sed "s/^/    $side: /"
	done
	[ $rc = 0 ] || bad=1
	if [ "$judged" = 0 ]; then
		echo "$name: reference only, not judged (guest exit $rc)"
	elif [ $bad = 1 ]; then
		failed=$((failed + 1))
	fi
}
pair_one netem-softcx wire-netem 3600 1 --
pair_one netem-softcx-rxe wire-netem 3600 1 -- rxe=b
pair_one netem-rxe-rxe wire-netem 3600 0 -- rxe=ab
pair_one sweeps-softcx wire-sweeps 3600 1 --
pair_one sweeps-softcx-rxe wire-sweeps 3600 1 -- rxe=b
pair_one sweeps-rxe-rxe wire-sweeps 3600 0 -- rxe=ab
# The parts make check leaves out on Debian's cloud and RT kernels (a
# kernel without rdma_rxe runs without the comparisons with it).
: "${GUEST_KVER:=6.1.0-57-amd64}"
for fl in cloud rt; do
	k=${GUEST_KVER%-amd64}-$fl-amd64 without=
	grep -q '^CONFIG_RDMA_RXE=[ym]' "/usr/src/linux-headers-$k/.config" || without=rxe
	overlay "$out/ovl-$fl" "build/kmod-$k/src/softcx.ko"
	parts=verbs-objects,doorbell-sched,wqe-fuzz,pyverbs,datapath-sweeps,nvme
	[ $fl = rt ] || parts=$parts,two-ports
	# nvme.sh with its rmmod-under-load round 30 times (make check: once).
	GUEST_KVER=$k WITHOUT=$without one "$fl-rest" $parts 3600 -o "$out/ovl-$fl" -- nvme_rmmod_rounds=30
done
overlay "$out/ovl-testk" build/kmod-testk/src/softcx.ko build/kmod-testk/src/softcx_kunit.ko
# make check sweeps every perftest size on the stock kernel only. On the
# test kernel the guest's clocksource is HPET (TCG's TSCs look unsynced to
# it), so perftest's clock calibration - gettimeofday() against rdtsc,
# r^2 >= 0.9 - fails whenever an interrupt or a host thread lands between
# the two reads of a sample: in two soaks, 1 and 3 of the 6 sweeps failed
# it four times in a row. tsc=reliable gives it the TSC (TCG's is the
# host's, synced): 6 of 6 passed without a retry.
# cm.sh in full there too (make check runs it lighter on this kernel).
one testk-rest datapath-sweeps,two-ports,pyverbs,cm 5400 -k "$(cat build/testk-dir)" -o "$out/ovl-testk" -- tsc=reliable
# Bounded work on the test kernel (make check runs it on the stock one),
# 1 GiB, one vCPU, the instruction-counted clock (tests/vm/guest/bounded.sh).
one testk-bounded bounded 2400 -k "$(cat build/testk-dir)" -o "$out/ovl-testk" -c 1 -i 0 --
left=$((secs - (SECONDS - t0)))
[ $left -gt 0 ] || left=1
one testk robust $((left + 3600)) -k "$(cat build/testk-dir)" -o "$out/ovl-testk" -- \
	"rb_secs=$left" rb_rounds=100 rb_fuzz=30000 rb_churn=200
echo
counts=$(grep -a -h -o '\[COUNT [a-z_]*=[0-9]*\]' "$out"/*/results.log 2>/dev/null | tr -d '[]' |
	awk '{ split($2, kv, "="); n[kv[1]] += kv[2] } END { for (k in n) printf " %s=%d", k, n[k] }')
rate=$(grep -a -h -o '[0-9]* WQEs by .* WQEs/s in all' "$out/stock/console.log" 2>/dev/null | tail -1)
passes=$(grep -a -h -o 'robust: [0-9]* passes in [0-9]* s' "$out/testk/console.log" 2>/dev/null | tail -1)
echo "soak: $((SECONDS - t0)) s; ${passes:-robust: no summary}; done:$counts; wqe_fuzz ${rate:-no rate}"
echo "soak: $failed failures"
[ $failed = 0 ]
