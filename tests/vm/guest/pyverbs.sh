#!/bin/bash
# In-guest: rdma-core's own test suite (python3-pyverbs) on rxe0 and on softcx
# in the same guest. Prints a per-module table of ok/fail/error/skip for both.
# softcx passes when each of its failures is listed, with its cause, in
# pyverbs-known-failures.txt (shipped in the overlay); anything else fails.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

modules="tests.test_device tests.test_pd tests.test_mr tests.test_cq tests.test_qp tests.test_shared_pd
	tests.test_cq_events tests.test_cqex tests.test_qpex tests.test_atomic tests.test_odp
	tests.test_rdmacm tests.test_mlx5_raw_wqe tests.test_mlx5_cq tests.test_mlx5_query_port"
here=${BASH_SOURCE%/*}
[ -f "$here/pyverbs_run.py" ] || here=/harness/extra
known=$here/pyverbs-known-failures.txt

# run_suite DEV GIDX TAG: per-test outcomes into /tmp/py-TAG.txt ("name status").
run_suite() {
	local dev=$1 gidx=$2 tag=$3
	cd /opt/rdma-core || return 1
	# shellcheck disable=SC2086
	PYV_OUT=/tmp/py-$tag.txt timeout 1500 python3 "$here/pyverbs_run.py" --dev "$dev" --gid "$gidx" -v \
		$modules >/tmp/py-$tag.log 2>&1
	cd / || return 1
	grep -E '^(Ran|OK|FAILED)' /tmp/py-$tag.log
	awk '$2 == "skipped" { $1 = $2 = ""; print }' /tmp/py-$tag.txt | sort | uniq -c | sed "s/^/PYVERBS $tag skips: /"
}

table() { # table TAG: per-module counts
	awk '{ split($1, a, "."); m = a[1]; c[m, $2]++; mods[m] = 1 }
	     END { for (m in mods) printf "%-16s ok %3d fail %3d error %3d skip %3d\n", m,
		   c[m, "ok"], c[m, "FAIL"], c[m, "ERROR"], c[m, "skipped"] }' /tmp/py-$1.txt | sort
}

setup_netdev
if rxe_up rxe0 dummy0 && gidx=$(roce_v2_ipv4_gid_index rxe0); then
	run_suite rxe0 "$gidx" rxe
	echo "PYVERBS-TABLE rxe0"
	table rxe | sed 's/^/PYVERBS rxe    /'
	result pyverbs_rxe PASS "$(awk '{ c[$2]++ } END { printf "ok=%d fail=%d error=%d skip=%d", c["ok"], c["FAIL"], c["ERROR"], c["skipped"] }' /tmp/py-rxe.txt)"
else
	result pyverbs_rxe FAIL "rxe0 not up"
fi

if load_softcx && run_t 60 rdma link add softcx_0 type softcx netdev dummy0 &&
	gidx=$(roce_v2_ipv4_gid_index softcx_0); then
	run_suite softcx_0 "$gidx" softcx
	table softcx | sed 's/^/PYVERBS softcx /'
	counts=$(awk '{ c[$2]++ } END { printf "ok=%d fail=%d error=%d skip=%d", c["ok"], c["FAIL"], c["ERROR"], c["skipped"] }' /tmp/py-softcx.txt)
	unexpected=$(awk '$2 == "FAIL" || $2 == "ERROR" { print $1 }' /tmp/py-softcx.txt |
		while read -r t; do grep -q "^$t " "$known" 2>/dev/null || echo "$t"; done)
	awk '$2 == "FAIL" || $2 == "ERROR"' /tmp/py-softcx.txt | sed 's/^/PYVERBS softcx failure: /'
	ok_sx=$(awk '$2 == "ok"' /tmp/py-softcx.txt | wc -l)
	ok_rxe=$(awk '$2 == "ok"' /tmp/py-rxe.txt 2>/dev/null | wc -l)
	# What passes on rxe but not here, with softcx's outcome.
	awk 'NR == FNR { if ($2 == "ok") rxe[$1] = 1; next } ($1 in rxe) && $2 != "ok"' \
		/tmp/py-rxe.txt /tmp/py-softcx.txt 2>/dev/null | sed 's/^/PYVERBS rxe-only: /'
	# The bar: softcx passes at least as many as rxe in the same guest.
	echo "PYVERBS-COMPARE softcx ok $ok_sx, rxe ok ${ok_rxe:-0}"
	if [ "$ok_sx" -ge "${ok_rxe:-0}" ] && [ "$ok_sx" -gt 0 ]; then
		result pyverbs_parity PASS "softcx ok $ok_sx >= rxe ok ${ok_rxe:-0}"
	else
		result pyverbs_parity FAIL "softcx ok $ok_sx < rxe ok ${ok_rxe:-0}"
	fi
	if [ -s /tmp/py-softcx.txt ] && [ -z "$unexpected" ]; then
		result pyverbs_softcx PASS "$counts (all failures known)"
	else
		grep -a -E -A25 '^(FAIL|ERROR): ' /tmp/py-softcx.log | head -200
		result pyverbs_softcx FAIL "$counts unexpected: $(echo $unexpected)"
	fi
	run_t 60 rdma link delete softcx_0
	run_t 60 rmmod softcx
else
	result pyverbs_softcx FAIL "softcx not up"
fi
finish
