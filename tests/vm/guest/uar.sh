#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: the UAR doorbell emulation (kmod/ib_uar.c, kmod/uar_emul.c) as
# applications use and abuse the mapping (build/verbs/uar_doorbells from the
# overlay): hand-rung doorbells from several threads at once, an SSE store,
# fork, mremap and mprotect of the UAR page, and a page that streams. Which
# forms are emulated, which are served by mapping the page and which are
# refused: uar_doorbells.c. Then UAR objects and the dynamic UARs libmlx5
# builds every QP and CQ on (build/verbs/uar_objects: uar_objects.c).
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

bin=/harness/extra/uar_doorbells dev=softcx_0
kmemleak_begin
softcx_up uar
dbg=/sys/kernel/debug/softcx/$dev
run_program uar_doorbells 300 "$bin" -d $dev -g "$GIDX" -D $dbg \
	-P /sys/module/softcx/parameters/uar_stream_gap_us -n 4 -i 200
grep '^uar_' $dbg/dp
run_program uar_objects 120 /harness/extra/uar_objects -d $dev -g "$GIDX" -D $dbg
softcx_down uar
kmemleak_check softcx
finish
