#!/bin/bash
# In-guest demo: load softcx and show it; then the Soft-RoCE baseline on the
# same guest: rxe0 on dummy0 and an RC pingpong over loopback.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

echo "==== softcx"
if load_softcx; then
	line=$(dmesg | grep -m1 'softcx: loaded')
	echo "DEMO softcx: $line"
	result softcx_load PASS "$line"
else
	result softcx_load FAIL
fi

echo "==== rdma_rxe baseline"
setup_netdev && result netdev PASS || result netdev FAIL
if rxe_up rxe0 dummy0 && gidx=$(roce_v2_ipv4_gid_index rxe0); then
	run_t 30 ibv_devinfo -d rxe0
	if pingpong_pair rxe0 "$gidx" ibv_rc_pingpong -n 1000; then
		line=$(grep -m1 'Mbit/sec' <<<"$RUN_OUT")
		echo "DEMO rxe0 ibv_rc_pingpong: $line"
		result rxe_rc_pingpong PASS "$line"
	else
		result rxe_rc_pingpong FAIL
	fi
else
	result rxe_up FAIL
fi
finish
