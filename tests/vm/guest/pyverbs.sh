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

if load_softcx && run_t 60 rdma link add softcx_0 type softcx netdev dummy0 &&
	gidx=$(roce_v2_ipv4_gid_index softcx_0); then
	run_suite softcx_0 "$gidx" softcx
	table softcx | sed 's/^/PYVERBS softcx /'
	if grep -q '^#end$' /tmp/py-softcx.txt; then
		result pyverbs_softcx_complete PASS "$(grep -c -v '^#' /tmp/py-softcx.txt) tests"
	else
		result pyverbs_softcx_complete FAIL "the suite died after $(grep -c -v '^#' /tmp/py-softcx.txt) tests"
	fi
	bad=$(awk '$2 == "FAIL" || $2 == "ERROR" { print $1 }' /tmp/py-softcx.txt)
	awk '$2 == "FAIL" || $2 == "ERROR"' /tmp/py-softcx.txt | sed 's/^/PYVERBS softcx failure: /'
	if [ -s /tmp/py-softcx.txt ] && [ -z "$bad" ]; then
		result pyverbs_softcx PASS "$(counts softcx)"
	else
		grep -a -E -A25 '^(FAIL|ERROR): ' /tmp/py-softcx.log | head -300
		result pyverbs_softcx FAIL "$(counts softcx): $(echo $bad)"
	fi
	# Per test: what rxe0 passes in a generic module, softcx passes too
	# (on a kernel without rxe there is nothing to compare with).
	[ $no_rxe = 1 ] || parity
	run_t 60 rdma link delete softcx_0
	run_t 60 rmmod softcx
else
	result pyverbs_softcx FAIL "softcx not up"
fi
finish
