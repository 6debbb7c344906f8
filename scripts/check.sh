#!/bin/bash
# `make check`: host tests, the module for the stock kernel (by hand and by
# DKMS from `make deb`'s package) and its cloud and RT flavours, a guest on
# each of those three kernels, the test kernel with KUnit and kmemleak.
# Every stage reports PASS/FAIL per test it ran; the last line is
# "N passed, N failed"; any failure exits 1.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
: "${SOFTCX_CACHE:=/var/cache/softcx}" "${GUEST_KVER:=6.1.0-57-amd64}"
SOFTCX_CACHE_SRC=$SOFTCX_CACHE/src/linux-source-6.1
export SOFTCX_CACHE GUEST_KVER
out=$top/build/check
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0
failures=()

ok() { passed=$((passed + 1)); echo "PASS $*"; }
bad() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL $*"; }

# stage NAME CMD...: run, log to $out/NAME.log, count one test.
stage() {
	local name=$1 t0=$SECONDS
	shift
	if "$@" >"$out/$name.log" 2>&1; then
		ok "$name ($((SECONDS - t0)) s)"
	else
		bad "$name" "($((SECONDS - t0)) s, log: $out/$name.log)"
		tail -n 40 "$out/$name.log" | sed 's/^/    /'
		return 1
	fi
}

# count_results LOG PREFIX: one test per RESULT line of a guest run.
count_results() {
	local name status rest
	while read -r _ name status rest; do
		if [ "$status" = PASS ]; then ok "$2/$name $rest"; else bad "$2/$name" "$rest"; fi
	done < <(grep -a '^RESULT ' "$1" 2>/dev/null | tr -d '\r')
}

# guest NAME SCRIPT [run-guest options]: one guest run; its RESULT lines
# count as tests, and so does a clean kernel log.
guest() {
	local name=$1 script=$2 rc=0
	shift 2
	echo "---- guest $name"
	# Options for run-guest.sh, then "--" and extra kernel arguments.
	local opts=() kargs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift && kargs=(-- "$@")
	# SCX_PART_FAIL_DEMO=part: that part exits before its RESULT lines.
	[ -n "${SCX_PART_FAIL_DEMO:-}" ] && [ ${#kargs[@]} -gt 0 ] && kargs+=("part_fail_demo=$SCX_PART_FAIL_DEMO")
	tests/vm/run-guest.sh -l "$out/$name" "${opts[@]}" "$script" "${kargs[@]}" >"$out/$name.log" 2>&1 || rc=$?
	judge "$name" "$out/$name" "$out/$name.log" $rc "${kargs[@]}"
	return $rc
}

# judge NAME DIR LOG RC [-- kernel args]: one guest's run in DIR (run-guest.sh's
# logs; LOG its output, RC its status): its RESULT lines count as tests, the
# parts its suite= argument names must all have reported in full, and its
# clean kernel log is one more test.
judge() {
	local name=$1 dir=$2 log=$3 rc=$4
	shift 4
	local kargs=("$@")
	count_results "$dir/results.log" "$name"
	# Every part of the suite ran to its end, exit 0, with the RESULT names
	# it declares (tests/vm/guest/<part>.expect).
	local parts=() a
	for a in "${kargs[@]}"; do
		case $a in suite=*) IFS=, read -r -a parts <<<"${a#suite=}" ;; esac
	done
	# A kernel with kmemleak: suite.sh scans it as a last part of its own.
	[ -n "${EXTRA_PARTS:-}" ] && parts+=($EXTRA_PARTS)
	# WITHOUT: the features (space-separated) this guest lacks.
	local wflags=() f
	for f in ${WITHOUT:-}; do wflags+=(-w "$f"); done
	if [ ${#parts[@]} -gt 0 ]; then
		local line
		while read -r line; do
			case $line in
			"FAIL "*) line=${line#FAIL }; bad "$name/${line%% *}" "${line#* }" ;;
			"parts: "* | "times:"* | "not run: "*) echo "$name: $line" ;;
			esac
		done < <(tests/vm/check-results.sh "${wflags[@]}" "$dir/results.log" tests/vm/guest "${parts[@]}")
	fi
	local scan
	if scan=$(tests/vm/scan-log.sh "$dir/console.log" 2>&1); then
		# a known report is said, with its count, in the PASS line
		ok "$name/kernel_log_clean" "$(sed -n 's/^scan-log: known: //p' <<<"$scan")"
	else
		echo "$scan" >>"$log"
		bad "$name/kernel_log_clean" "(see $dir/console.log)"
		grep -a -m 20 -E 'BUG|WARNING|KASAN|leak|Call Trace' "$dir/console.log" | sed 's/^/    /'
	fi
	# A part suite.sh found hung: what the kernel was doing (CI keeps
	# only this output, not the console log).
	if grep -aq '^HANG-DUMP BEGIN' "$dir/console.log" 2>/dev/null; then
		sed -n '/^HANG-DUMP BEGIN/,/^HANG-DUMP END/p' "$dir/console.log" | tr -d '\r' |
			grep -v '^\s*$' | head -n 150 | sed 's/^/    /'
	fi
	if [ $rc != 0 ] && ! grep -aq '^RESULT .* FAIL' "$dir/results.log" 2>/dev/null; then
		bad "$name/guest_exit" "status $rc"
		tail -n 30 "$log" | sed 's/^/    /'
	fi
}

# pair NAME [-- kernel args]: suite.sh on two stock guests on a link
# (tests/vm/run-pair.sh), each judged as one guest is (NAME/a, NAME/b).
pair() {
	local name=$1 rc=0 side
	shift
	[ "${1:-}" != -- ] || shift
	echo "---- pair $name"
	tests/vm/run-pair.sh -t 900 -o "$out/overlay-stock" -l "$out/$name" tests/vm/guest/suite.sh \
		-- "$@" >"$out/$name.log" 2>&1 || rc=$?
	for side in a b; do
		# The guests rxe=a|b|ab names run rdma_rxe, not softcx.
		local w='' a
		for a in "$@"; do
			case $a in
			rxe=*$side*) w=softcx ;;
			esac
		done
		WITHOUT=$w judge "$name/$side" "$out/$name/$side" "$out/$name/$side.log" $rc -- "$@"
	done
	# Guest a's capture of the link, decoded here by tshark, every
	# frame's ICRC recomputed (tests/vm/wire-decode.py).
	tests/vm/wire-decode.py "$out/$name/a/results.log" "$out/$name/capture.pcap" >"$out/$name/decode.txt" 2>&1
	count_results "$out/$name/decode.txt" "$name/host"
	local r
	for r in wire_icrc wire_tshark wire_opcodes; do
		grep -q "^RESULT $r " "$out/$name/decode.txt" ||
			bad "$name/host/$r" "no result (see $out/$name/decode.txt)"
	done
}

# gtest_counts LOG: add the GoogleTest pass/fail counts (of every run in it).
gtest_counts() {
	local p f
	p=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\./\1/p' "$1" | awk '{s += $1} END {if (NR) print s}')
	f=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) tests?, listed below:/\1/p' "$1" | awk '{s += $1} END {if (NR) print s}')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	[ -n "$p$f" ] || bad host_tests "no GoogleTest summary"
	echo "host tests: ${p:-0} passed, ${f:-0} failed"
}

stage deps make deps || { echo "0 passed, 1 failed"; exit 1; }

# A test kernel not yet cached (~17 min cold) is built in the background
# on the cycles the host stages and the stock guest leave idle: SCHED_IDLE,
# so it never preempts the guest's vCPUs (a guest starved of CPU fails
# perftest's clock calibration). Its stage below waits for it.
testk_bg= testk_t0=$SECONDS
if ! tests/vm/build-test-kernel.sh --cached >/dev/null 2>&1; then
	echo "test kernel: not cached, building it in the background ($out/test_kernel_bg.log)"
	chrt --idle 0 nice -n 19 make test-kernel >"$out/test_kernel_bg.log" 2>&1 &
	testk_bg=$!
fi

echo "---- host"
host_rc=0
make -j"$(nproc)" host-test >"$out/host.log" 2>&1 || host_rc=$?
gtest_counts "$out/host.log"
if [ $host_rc != 0 ]; then
	bad host_tests "make host-test exited $host_rc (log: $out/host.log)"
	grep -a -E 'FAILED|ERROR|error:|runtime error' "$out/host.log" | head -30 | sed 's/^/    /'
fi
stage scan_log_selftest tests/vm/test-scan-log.sh
stage check_results_selftest tests/vm/test-check-results.sh
stage fuzz_replay make fuzz-replay
stage kmod_style perl "$SOFTCX_CACHE_SRC/scripts/checkpatch.pl" --no-tree --terse --quiet \
	-f kmod/*.c kmod/*.h kunit/*.c

echo "---- stock kernel ($GUEST_KVER)"
ko=build/kmod-stock/src/softcx.ko
stage verbs_tests make verbs-tests
if stage module_stock make module-stock; then
	stage modinfo_stock scripts/check-module.sh "$ko" "$GUEST_KVER"
	# `make deb`'s package, built by DKMS for the guests' kernel in a tree
	# of its own: the stock guest runs that module (else, counted failed,
	# the one above).
	if stage deb_dkms scripts/check-deb.sh "$GUEST_KVER" build/dkms-stock; then
		ko=build/dkms-stock/softcx.ko
		stage modinfo_dkms scripts/check-module.sh "$ko" "$GUEST_KVER"
	fi
	echo "stock guest module: $ko ($(modinfo -F version "$ko"))"
	flavours_ok=0
	stage module_flavours make module-flavours && flavours_ok=1
	mkdir -p "$out/overlay-stock"
	cp "$ko" build/verbs/* tests/vm/guest/* "$out/overlay-stock/"
	# One boot for all stock-kernel guest tests (tests/vm/guest/suite.sh).
	stock_parts=softcx-load,softcx-cmd,softcx-ib,verbs-objects,datapath,datapath-sweeps,doorbell-sched,two-ports,wqe-fuzz,iommu,events,uar,counters,robust,cm,nvme,ucx,devx,pyverbs
	guest stock tests/vm/guest/suite.sh -t 2400 -o "$out/overlay-stock" -- suite=$stock_parts tsc=reliable
	# Two stock guests on a link: RoCEv2 between softcx and softcx, and
	# between softcx and rdma_rxe (tests/vm/guest/wire-pair.sh).
	pair wire_softcx -- suite=wire-pair
	pair wire_rxe -- suite=wire-pair rxe=b
	# Bounded work (tests/vm/guest/bounded.sh, 1 GiB) in a boot of its
	# own: one vCPU and an instruction-counted clock, so the lock holds it
	# times are softcx's and not the host's scheduling of QEMU's threads.
	# (The test kernel's run is make soak's: ~6 min.)
	guest bounded tests/vm/guest/suite.sh -t 1200 -o "$out/overlay-stock" -c 1 -i 0 -- suite=bounded
	# Debian's cloud and RT flavours of that kernel, each booted from its
	# own package with the module built for it: the parts where a kernel's
	# config shows (loading, commands, the ib_device, the data path and its
	# locks, events, the UAR, counters, teardown under load), and on RT two
	# ports (their locks livelocked there once). make soak runs the rest
	# of the suite there. A kernel whose config has no rdma_rxe (cloud)
	# runs without the comparisons with it.
	for fl in cloud rt; do
		[ $flavours_ok = 1 ] || break
		k=${GUEST_KVER%-amd64}-$fl-amd64 without=
		grep -q '^CONFIG_RDMA_RXE=[ym]' "/usr/src/linux-headers-$k/.config" || without=rxe
		echo "---- $fl kernel ($k${without:+, no $without})"
		mkdir -p "$out/overlay-$fl"
		cp "build/kmod-$k/src/softcx.ko" build/verbs/* tests/vm/guest/* "$out/overlay-$fl/"
		fl_parts=softcx-load,softcx-cmd,softcx-ib,datapath,iommu,events,uar,counters,robust,cm,nvme
		[ $fl = rt ] && fl_parts=$fl_parts,two-ports
		GUEST_KVER=$k WITHOUT=$without guest "$fl" tests/vm/guest/suite.sh -t 1200 -o "$out/overlay-$fl" \
			-- suite=$fl_parts
	done
fi

echo "---- test kernel (KUnit, KASAN, lockdep, kmemleak)"
testk_ok=1
if [ -n "$testk_bg" ]; then
	# A failed background build fails the stage: it is not tried again.
	if wait "$testk_bg"; then
		echo "test kernel: built in the background, ready after $((SECONDS - testk_t0)) s"
	else
		testk_ok=0
		bad test_kernel "(background build failed, log: $out/test_kernel_bg.log)"
		tail -n 40 "$out/test_kernel_bg.log" | sed 's/^/    /'
	fi
fi
if [ $testk_ok = 1 ] && stage test_kernel make test-kernel && stage module_testk make module-testk; then
	kdir=$(cat build/testk-dir)
	mkdir -p "$out/overlay-testk"
	cp build/kmod-testk/src/softcx.ko build/kmod-testk/src/softcx_kunit.ko build/verbs/* \
		tests/vm/guest/* "$out/overlay-testk/"
	# One boot: the KASAN kernel takes a minute to boot under TCG. Its
	# bandwidth tests run 1000 iterations, not 5000 (the stock guests run
	# 5000). make soak runs the rest there: the perftest sweeps over every
	# size (datapath-sweeps, ~5 min), two-ports (~6 min) and rdma-core's
	# suite (pyverbs, ~8 min); make check runs those on the stock kernel.
	EXTRA_PARTS=kmemleak guest testk tests/vm/guest/suite.sh -t 3000 -k "$kdir" -o "$out/overlay-testk" \
		-- suite=kunit,softcx-load,softcx-cmd,softcx-ib,verbs-objects,datapath,wqe-fuzz,iommu,events,uar,counters,robust,cm,ucx,devx vo_iter=100 wf_iter=1000 perf_bw_iters=1000 cm_iters=200 cm_fi_size=4096 ucx_iters=200
	# NVMe over RDMA on the test kernel, in a boot of its own with DMA-API
	# debugging off: nvme_rdma maps 16-byte kmalloc'ed receive buffers
	# that share cachelines, which 6.1's dma-debug reports as overlapping
	# mappings on whatever device carries them (mlx5_core's too). The boot
	# above keeps dma-debug on for everything else; KASAN, lockdep and
	# kmemleak stay on here.
	EXTRA_PARTS=kmemleak guest testk-nvme tests/vm/guest/suite.sh -t 1200 -k "$kdir" -o "$out/overlay-testk" \
		-- suite=nvme dma_debug=off
	# Each suite's KTAP document, parsed by the kernel's own kunit.py.
	n=0
	while read -r suite; do
		n=$((n + 1))
		sed -n "/^KTAP-BEGIN $suite\r\?\$/,/^KTAP-END $suite\r\?\$/p" "$out/testk/results.log" |
			tr -d '\r' | sed '1d;$d' >"$out/kunit-$suite.ktap"
		python3 "$SOFTCX_CACHE_SRC/tools/testing/kunit/kunit.py" parse "$out/kunit-$suite.ktap" \
			>"$out/kunit-$suite.parsed" 2>&1
		sed -E 's/^\[[0-9:]+\] //' "$out/kunit-$suite.parsed"
		while read -r st tname; do
			case $st in
			PASSED) ok "kunit/$suite/$tname" ;;
			FAILED | CRASHED | "TIMED OUT") bad "kunit/$suite/$tname" "$st" ;;
			esac
		done < <(sed -nE 's/^\[[0-9:]+\] +\[(PASSED|FAILED|CRASHED|SKIPPED)\] ([a-z0-9_]+)$/\1 \2/p' \
			"$out/kunit-$suite.parsed" | grep -v "^[A-Z]* $suite\$")
		grep -q 'Testing complete.' "$out/kunit-$suite.parsed" && ! grep -qE 'failed: [1-9]|crashed: [1-9]|errors: [1-9]|ERROR' \
			"$out/kunit-$suite.parsed" || bad "kunit/$suite/parse" "kunit.py reported failure"
	done < <(sed -nE 's/^KTAP-BEGIN ([a-z0-9_]+)\r?$/\1/p' "$out/testk/results.log" 2>/dev/null)
	[ $n -gt 0 ] || bad kunit "no KTAP output"
	# Every suite the sources define must have reported, not just some.
	while read -r suite; do
		[ -f "$out/kunit-$suite.ktap" ] && [ -s "$out/kunit-$suite.ktap" ] ||
			bad "kunit/$suite/missing" "no KTAP document for a suite kunit/ defines"
	done < <(sed -nE 's/^\s*\.name = "(softcx_[a-z0-9_]+)",$/\1/p' kunit/*.c | sort -u)
fi

echo
# What the robustness suite did, per kernel: the [COUNT name=N] notes of
# its RESULT lines, summed (tests/vm/guest/robust.sh).
robust_counts() {
	grep -a -h -o '\[COUNT [a-z_]*=[0-9]*\]' "$@" 2>/dev/null | tr -d '[]' |
		awk '{ split($2, kv, "="); n[kv[1]] += kv[2] } END { for (k in n) printf " %s=%d", k, n[k] }'
}
for k in stock testk; do
	[ -f "$out/$k/results.log" ] && echo "robustness ($k):$(robust_counts "$out/$k/results.log")"
done
# Results that needed a retry (common.sh's RETRY_NOTE), passed or not.
retried=$(cat "$out"/*/results.log 2>/dev/null | grep -a -c '^RESULT .*\[RETRIED=')
echo "retried: $retried results needed a retry (each says why in its line)"
grep -a -h '^RESULT .*\[RETRIED=' "$out"/*/results.log 2>/dev/null | tr -d '\r' | sed 's/^RESULT /    /'
if [ $failed -gt 0 ]; then
	echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
