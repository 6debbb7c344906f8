#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: perftest RC bandwidth and latency over every message size up
# to 8 MiB (-a) on softcx (loopback on one port), 50 iterations a size to
# keep it to minutes under emulation. In make check on the stock kernel;
# on the test kernel in make soak (it costs ~5 min under KASAN there).
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
kmemleak_begin

dev=softcx_0
setup_netdev || result netdev FAIL
if ! { load_softcx && run_t 60 rdma link add $dev type softcx netdev dummy0 &&
	gidx=$(roce_v2_ipv4_gid_index $dev); }; then
	result sweeps_link_add FAIL
	finish
	exit 1
fi
for t in write_bw read_bw send_bw write_lat send_lat read_lat; do
	perf_result $dev "$gidx" "ib_${t}_all" "ib_$t" -a -n 50
done
run_t 60 rdma link delete $dev || result sweeps_link_del FAIL
rmmod softcx || result sweeps_rmmod FAIL
kmemleak_check datapath-sweeps
finish
