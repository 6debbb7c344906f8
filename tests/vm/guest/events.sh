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
setup_netdev || result events_netdev FAIL dummy0
if ! { load_softcx && run_t 60 rdma link add $dev type softcx netdev dummy0 &&
	gidx=$(roce_v2_ipv4_gid_index $dev); }; then
	result events_link_add FAIL
	finish
	exit 1
fi
run_program async_events 300 "$bin" -d $dev -g "$gidx"
if run_t 60 rdma link delete $dev && run_t 120 rmmod softcx; then
	result events_teardown PASS
else
	result events_teardown FAIL
fi
kmemleak_check softcx
finish
