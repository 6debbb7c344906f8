#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest, on the test kernel, with softcx NOT loaded: the 6.1 RDMA core's
# task_struct leak that kmemleak_check names as its one exception
# (tests/verbs/ctx_leak_repro.c says where the reference is lost). Ten
# processes each get a context on rxe0 and fail a second GET_CONTEXT
# through the ioctl interface; kmemleak must then report their
# task_structs, with no softcx anywhere. Not part of make check's suite (it
# leaks on purpose):
#   mkdir -p /tmp/kr && cp build/verbs/ctx_leak_repro tests/vm/guest/* /tmp/kr/
#   tests/vm/run-guest.sh -k "$(cat build/testk-dir)" -o /tmp/kr \
#       tests/vm/guest/kmemleak-repro.sh
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

f=/sys/kernel/debug/kmemleak n=10
if grep -q '^softcx ' /proc/modules; then
	result kmemleak_repro_setup FAIL "softcx is loaded"
	finish
	exit 1
fi
setup_netdev && rxe_up rxe0 dummy0 || result kmemleak_repro_setup FAIL rxe0
echo clear >$f
ok=0
for ((i = 0; i < n; i++)); do /harness/extra/ctx_leak_repro rxe0 rxe && ok=$((ok + 1)); done
echo scan >$f
sleep 1
echo scan >$f
report=$(cat $f)
sed "s/unreferenced object/KMEMLEAK-KNOWN object/" <<<"$report" | head -40
[ $ok = $n ] && result kmemleak_repro_calls PASS "$n processes: GET_CONTEXT ok, then EINVAL" ||
	result kmemleak_repro_calls FAIL "$ok of $n as expected"
if grep -q copy_process <<<"$report" && ! grep -qE '\[softcx' <<<"$report"; then
	result kmemleak_repro_leak PASS "$(grep -c 'unreferenced object' <<<"$report") objects" \
		"($(grep -c prepare_creds <<<"$report") creds) from copy_process, softcx not loaded"
else
	result kmemleak_repro_leak FAIL "no copy_process objects reported: the core no longer leaks?"
fi
finish
