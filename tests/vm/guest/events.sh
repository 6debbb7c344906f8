#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: what an application sees of the device's asynchronous events
# and memory-window rights (build/verbs/async_events from the overlay):
# IBV_EVENT_SRQ_LIMIT_REACHED, IBV_EVENT_QP_ACCESS_ERR and
# IBV_EVENT_QP_REQ_ERR on the responder's objects, the requester's error
# CQEs, and type 1 window binds the device must refuse.
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

bin=/harness/extra/async_events dev=softcx_0
kmemleak_begin
softcx_up events
run_program async_events 300 "$bin" -d $dev -g "$GIDX"
softcx_down events
kmemleak_check softcx
finish
