#!/bin/bash
# In-guest demo: load softcx and show it; then the Soft-RoCE baseline on the
# same guest: rxe0 on dummy0 and an RC pingpong over loopback.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

echo "==== softcx"
setup_netdev && result netdev PASS || result netdev FAIL
if load_softcx && run_t 60 rdma link add softcx_0 type softcx netdev dummy0; then
	line=$(dmesg | grep -m1 'softcx: loaded')
	echo "DEMO softcx: $line"
	echo "DEMO softcx: $(dmesg | grep -m1 'ib device on')"
	result softcx_load PASS "$line"
	if run_t 30 ibv_devinfo -d softcx_0; then
		sed 's/^/DEMO ibv_devinfo: /' <<<"$RUN_OUT"
		result softcx_devinfo PASS
	else
		result softcx_devinfo FAIL
	fi
else
	result softcx_load FAIL
fi

echo "==== rdma_rxe baseline"
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
