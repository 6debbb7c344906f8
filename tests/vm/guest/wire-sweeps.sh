#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest, one of two guests on a link (tests/vm/run-pair.sh, suite.sh
# with suite=wire-sweeps; make soak): perftest's -a sweeps (2 B to 8 MiB)
# between the hosts, each direction (the guest named second serves), and
# the pingpongs over a range of sizes with their payloads checked. make
# check's wire-pair.sh runs a few sizes; this is the long run. With
# rxe=a|b, rdma_rxe on that guest.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
here=${BASH_SOURCE%/*}
[ -f "$here/wire-common.sh" ] || here=/harness/extra
. "$here/wire-common.sh"

n=${SWEEP_ITERS:-20}
# An 8 MiB latency sweep against rxe takes minutes.
export ONE_TIMEOUT=900
# READs and atomics: -o 16. rxe offers 128 outstanding, a ConnectX (and softcx)
# take 16, and perftest asks the requester for the responder's number.
for srv in b a; do
	# Named by the side that sends (the client): ab = a to b.
	d=ab
	[ $srv = b ] || d=ba
	one sweep_write_bw_$d $srv ib_write_bw -d $dev -x "$g4" -a -n "$n"
	one sweep_read_bw_$d $srv ib_read_bw -d $dev -x "$g4" -a -n "$n" -o 16
	one sweep_send_bw_$d $srv ib_send_bw -d $dev -x "$g4" -a -n "$n"
	one sweep_atomic_bw_$d $srv ib_atomic_bw -d $dev -x "$g4" -n 500 -o 16
	one sweep_send_lat_$d $srv ib_send_lat -d $dev -x "$g4" -a -n "$n"
	one sweep_write_lat_$d $srv ib_write_lat -d $dev -x "$g4" -a -n "$n"
	one sweep_read_lat_$d $srv ib_read_lat -d $dev -x "$g4" -a -n "$n" -o 16
done
for s in 1 64 1024 4096 65536; do
	one sweep_rc_pingpong_$s a ibv_rc_pingpong -d $dev -g "$g4" -n 50 -s $s --chk
	one sweep_uc_pingpong_$s b ibv_uc_pingpong -d $dev -g "$g4" -n 50 -s $s --chk
	one sweep_srq_pingpong_$s a ibv_srq_pingpong -d $dev -g "$g4" -n 50 -s $s --chk
done
# UD carries at most the path MTU.
for s in 1 64 1024; do
	one sweep_ud_pingpong_$s b ibv_ud_pingpong -d $dev -g "$g4" -n 50 -s $s --chk
done
finish
