#!/bin/bash
# In-guest (test kernel): load softcx and its KUnit module; KUnit runs the
# suites at load. Each suite's KTAP document is copied from debugfs to the
# results port between markers for the host to parse with kunit.py. The
# kernel-verbs suite (softcx_kverbs) uses softcx_0 on dummy0, added first.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
kmemleak_begin

softcx_up kunit
if run_t 300 insmod /harness/extra/softcx_kunit.ko; then
	result insmod_kunit PASS
else
	result insmod_kunit FAIL
fi
n=0
for f in /sys/kernel/debug/kunit/softcx*/results; do
	[ -f "$f" ] || continue
	suite=${f%/results}
	suite=${suite##*/}
	{
		echo "KTAP-BEGIN $suite"
		cat "$f"
		echo "KTAP-END $suite"
	} >"$RESULTS_PORT"
	n=$((n + 1))
done
if [ "$n" -gt 0 ]; then result ktap_found PASS "$n suites"; else result ktap_found FAIL "no suites"; fi
run_t 60 rmmod softcx_kunit && run_t 60 rdma link delete softcx_0 && run_t 60 rmmod softcx &&
	result rmmod PASS || result rmmod FAIL
kmemleak_check softcx
finish
