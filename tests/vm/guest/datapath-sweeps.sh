#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: perftest RC bandwidth and latency over every message size up
# to 8 MiB (-a) on softcx (loopback on one port), 50 iterations a size to
# keep it to minutes under emulation. In make check on the stock kernel;
# on the test kernel in make soak (it costs ~5 min under KASAN there).
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
kmemleak_begin

softcx_up sweeps
for t in write_bw read_bw send_bw write_lat send_lat read_lat; do
	perf_result softcx_0 "$GIDX" "ib_${t}_all" "ib_$t" -a -n 50
done
softcx_down sweeps
kmemleak_check datapath-sweeps
finish
