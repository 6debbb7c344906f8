#!/bin/bash
# In-guest demo: load softcx, bind it to dummy0 and run the standard tools on
# it: ibv_devinfo, ibv_rc_pingpong with completion events, ib_write_bw. Then
# the same pingpong and ib_write_bw on Soft-RoCE in the same guest.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

# show TAG: the last command's output, each line prefixed for the summary.
show() { sed "s/^/DEMO $1: /" <<<"$RUN_OUT"; }

echo "==== softcx"
setup_netdev && result netdev PASS || result netdev FAIL
if load_softcx && run_t 60 rdma link add softcx_0 type softcx netdev dummy0 &&
	gidx=$(roce_v2_ipv4_gid_index softcx_0); then
	echo "DEMO softcx: $(dmesg | grep -m1 'softcx: loaded')"
	result softcx_load PASS
	if run_t 30 ibv_devinfo -d softcx_0; then
		show ibv_devinfo
		result softcx_devinfo PASS
	else
		result softcx_devinfo FAIL
	fi
	if pingpong_pair softcx_0 "$gidx" ibv_rc_pingpong -e -n 1000; then
		show "softcx ibv_rc_pingpong -e"
		result softcx_rc_pingpong_events PASS "$(grep -m1 'usec/iter' <<<"$RUN_OUT")"
	else
		result softcx_rc_pingpong_events FAIL
	fi
	if perftest_pair softcx_0 "$gidx" ib_write_bw; then
		show "softcx ib_write_bw"
		result softcx_ib_write_bw PASS "$PERF_ROW"
	else
		result softcx_ib_write_bw FAIL
	fi
else
	result softcx_load FAIL
fi

echo "==== rdma_rxe baseline"
if rxe_up rxe0 dummy0 && gidx=$(roce_v2_ipv4_gid_index rxe0); then
	if pingpong_pair rxe0 "$gidx" ibv_rc_pingpong -e -n 1000; then
		echo "DEMO rxe0 ibv_rc_pingpong -e: $(grep -m1 'usec/iter' <<<"$RUN_OUT")"
		result rxe_rc_pingpong_events PASS
	else
		result rxe_rc_pingpong_events FAIL
	fi
	if perftest_pair rxe0 "$gidx" ib_write_bw; then
		echo "DEMO rxe0 ib_write_bw: $PERF_ROW"
		result rxe_ib_write_bw PASS
	else
		result rxe_ib_write_bw FAIL
	fi
else
	result rxe_up FAIL
fi
finish
