#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: the DevX ABI as a context without DevX reaches it through
# libmlx5 (build/verbs/devx_other from the overlay): DEVX_OTHER's
# whitelisted queries, the refusal of the rest, QUERY_EQN. The cases are
# listed in tests/verbs/devx_other.c.
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

dev=softcx_0
kmemleak_begin
softcx_up devx
run_program devx_other 120 /harness/extra/devx_other -d $dev -D /sys/kernel/debug/softcx/$dev
softcx_down devx
kmemleak_check softcx
finish
