#!/bin/bash
# In-guest: rdma-core's whole test suite (python3-pyverbs, every module, as
# its users run it) on rxe0 and on softcx in the same guest.
#  - pyverbs_softcx_complete: the suite ran to its end on softcx (a crash of
#    the python process leaves its end marker out);
#  - pyverbs_softcx: no FAIL and no ERROR anywhere;
#  - pyverbs_parity: every test of a generic module (not test_mlx5_*, not
#    test_efa*) that passes on rxe0 passes on softcx, unless
#    pyverbs-libmlx5-skips.txt names it with the reason libmlx5 skips it on a
#    ConnectX without that capability, and softcx skips it.
# Per-module tables, every skip with its reason and the seeds of both runs
# (PYV_SEED=... repeats one) are printed.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

here=${BASH_SOURCE%/*}
[ -f "$here/pyverbs_run.py" ] || here=/harness/extra
allowed=$here/pyverbs-libmlx5-skips.txt

# run_suite DEV GIDX TAG: per-test outcomes into /tmp/py-TAG.txt ("name status").
run_suite() {
	local dev=$1 gidx=$2 tag=$3 rc=0
	cd /opt/rdma-core || return 1
	PYV_OUT=/tmp/py-$tag.txt timeout 2400 python3 "$here/pyverbs_run.py" --dev "$dev" --gid "$gidx" -v \
		>/tmp/py-$tag.log 2>&1 || rc=$?
	cd / || return 1
	echo "PYVERBS $tag: python exit status $rc, $(sed -n 's/^#seed /seed /p' /tmp/py-$tag.txt)"
	grep -E '^(Ran|OK|FAILED)' /tmp/py-$tag.log
	awk '$2 == "skipped" { $2 = "skipped:"; print }' /tmp/py-$tag.txt | sed "s/^/PYVERBS $tag skip: /"
	# What a crash left behind: the faulthandler stack and the tests before it.
	grep -q '^#end$' /tmp/py-$tag.txt || grep -a -B30 -A40 'Fatal Python error' /tmp/py-$tag.log | head -120
	return 0
}

table() { # table TAG: per-module counts
	awk '!/^#/ { split($1, a, "."); m = a[1]; c[m, $2]++; mods[m] = 1 }
	     END { for (m in mods) printf "%-24s ok %3d fail %3d error %3d skip %3d\n", m,
		   c[m, "ok"], c[m, "FAIL"], c[m, "ERROR"], c[m, "skipped"] }' /tmp/py-$1.txt | sort
}

counts() {
	awk '!/^#/ { c[$2]++ } END { printf "ok=%d fail=%d error=%d skip=%d", c["ok"], c["FAIL"], c["ERROR"], c["skipped"] }' \
		/tmp/py-$1.txt
}

generic() { [[ $1 != test_mlx5* && $1 != test_efa* ]]; }

# parity: every generic test rxe0 passed passes on softcx, or is a named skip.
parity() {
	lost=() excused=0 compared=0
	awk '$2 == "ok"' /tmp/py-rxe.txt >/tmp/py-rxe-ok.txt 2>/dev/null
	while read -r t st; do
		generic "$t" || continue
		compared=$((compared + 1))
		sx=$(awk -v t="$t" '$1 == t { print $2; exit }' /tmp/py-softcx.txt)
		[ "$sx" = ok ] && continue
		if [ "$sx" = skipped ] && grep -q "^$t " "$allowed" 2>/dev/null; then
			excused=$((excused + 1))
			echo "PYVERBS parity: $t skipped on softcx as on a ConnectX: $(grep "^$t " "$allowed" | cut -d' ' -f2-)"
			continue
		fi
		lost+=("$t(${sx:-missing})")
	done </tmp/py-rxe-ok.txt
	if [ "$compared" -gt 0 ] && [ ${#lost[@]} = 0 ]; then
		result pyverbs_parity PASS "$compared generic tests rxe passes: all pass on softcx but $excused named skips"
	else
		result pyverbs_parity FAIL "$compared compared, passed on rxe only: ${lost[*]}"
	fi
}

setup_netdev
no_rxe=0
if rxe_absent; then
	no_rxe=1
elif rxe_up rxe0 dummy0 && gidx=$(roce_v2_ipv4_gid_index rxe0); then
	run_suite rxe0 "$gidx" rxe
	table rxe | sed 's/^/PYVERBS rxe    /'
	if grep -q '^#end$' /tmp/py-rxe.txt; then
		result pyverbs_rxe PASS "$(counts rxe) (the reference)"
	else
		result pyverbs_rxe FAIL "the suite did not run to its end on rxe0"
	fi
else
	result pyverbs_rxe FAIL "rxe0 not up"
fi

# softcx_round TAG [MODULE PARAMS]: the suite on softcx_0, judged as
# pyverbs_TAG_complete and pyverbs_TAG (no FAIL, no ERROR); true if it ran.
softcx_round() {
	local tag=$1 bad
	shift
	if ! load_softcx "$@" || ! run_t 60 rdma link add softcx_0 type softcx netdev dummy0 ||
		! gidx=$(roce_v2_ipv4_gid_index softcx_0); then
		result "pyverbs_$tag" FAIL "softcx not up"
		return 1
	fi
	run_suite softcx_0 "$gidx" "$tag"
	table "$tag" | sed "s/^/PYVERBS $tag /"
	if grep -q '^#end$' "/tmp/py-$tag.txt"; then
		result "pyverbs_${tag}_complete" PASS "$(grep -c -v '^#' "/tmp/py-$tag.txt") tests"
	else
		result "pyverbs_${tag}_complete" FAIL "the suite died after $(grep -c -v '^#' "/tmp/py-$tag.txt") tests"
	fi
	bad=$(awk '$2 == "FAIL" || $2 == "ERROR" { print $1 }' "/tmp/py-$tag.txt")
	awk '$2 == "FAIL" || $2 == "ERROR"' "/tmp/py-$tag.txt" | sed "s/^/PYVERBS $tag failure: /"
	if [ -s "/tmp/py-$tag.txt" ] && [ -z "$bad" ]; then
		result "pyverbs_$tag" PASS "$(counts "$tag")"
	else
		grep -a -E -A25 '^(FAIL|ERROR): ' "/tmp/py-$tag.log" | head -300
		result "pyverbs_$tag" FAIL "$(counts "$tag"): $(echo $bad)"
	fi
	return 0
}

# softcx as loaded by default: DevX contexts granted, as mlx5_ib grants
# them, so libmlx5 opens every context as a DevX context, and the DevX
# tests (test_mlx5_devx and others) run instead of skipping;
# test_mlx5_devx must pass some and fail none.
if softcx_round softcx; then
	# Per test: what rxe0 passes in a generic module, softcx passes too
	# (on a kernel without rxe there is nothing to compare with).
	[ $no_rxe = 1 ] || parity
	n=$(awk '$1 ~ /^test_mlx5_devx\./ && $2 == "ok"' /tmp/py-softcx.txt | wc -l)
	if [ "$n" -gt 0 ]; then
		result pyverbs_mlx5_devx PASS "test_mlx5_devx: $n pass with DevX contexts"
	else
		result pyverbs_mlx5_devx FAIL "test_mlx5_devx: none passes with DevX contexts"
	fi
	run_t 60 rdma link delete softcx_0
	run_t 60 rmmod softcx
fi
# Again without DevX (devx=0): libmlx5 falls back to plain contexts.
if softcx_round softcx_nodevx devx=0; then
	run_t 60 rdma link delete softcx_0
	run_t 60 rmmod softcx
fi
finish
