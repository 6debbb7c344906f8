#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: the DevX ABI as libmlx5 reaches it (build/verbs/devx_other from
# the overlay). Loaded with devx=0, softcx grants no DevX context:
# DEVX_OTHER's whitelisted queries, the refusal of the rest, QUERY_EQN.
# By default (devx=1, as mlx5_ib) it grants them: general commands under
# the context's uid, and verbs objects that carry it (an RDMA WRITE in
# devx_other, and ibv_rc_pingpong, whose contexts are all DevX contexts),
# DEVX_OBJ DCTs, event channels and async commands
# (build/verbs/devx_events), and one process's DevX context kept from
# another's objects (build/verbs/devx_isolation). The cases are listed in
# tests/verbs/devx_other.c, devx_events.c and devx_isolation.c.
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

dev=softcx_0 bin=/harness/extra/devx_other
dbg=/sys/kernel/debug/softcx/$dev
kmemleak_begin
softcx_up devx devx=0
run_program devx_other 120 $bin -d $dev -D $dbg
softcx_down devx

softcx_up devx_on
param=$(cat /sys/module/softcx/parameters/devx)
if [ "$param" = Y ]; then
	result devx_default_on PASS "devx=$param with no parameter given"
else
	result devx_default_on FAIL "devx=$param with no parameter given"
fi
run_program devx_other_on 120 $bin -d $dev -D $dbg -x -g "$GIDX"
if pingpong_pair $dev "$GIDX" ibv_rc_pingpong -n 200 -c; then
	result devx_rc_pingpong PASS "$(grep -m1 'usec/iter' <<<"$RUN_OUT")"
else
	result devx_rc_pingpong FAIL
fi
# One process's DevX context against another's objects and the kernel's.
run_program devx_isolation 120 /harness/extra/devx_isolation -d $dev -D $dbg -g "$GIDX"
# Last: it takes dummy0 down and up (the port's events).
run_program devx_events 120 /harness/extra/devx_events -d $dev -D $dbg -N dummy0
grep -E '^(uctx|uar|devx_sub|devx_obj|umem) ' $dbg/objects
softcx_down devx_on
kmemleak_check softcx
finish
