#!/bin/bash
# In-guest smoke test of the stock Soft-RoCE path: rxe0 on dummy0, device
# queries, and one RC pingpong over loopback. Run it with
#   tests/vm/run-guest.sh tests/vm/guest/rxe-smoke.sh
set -euo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

if setup_netdev; then result netdev PASS dummy0; else result netdev FAIL; fi
if ! rxe_up rxe0 dummy0; then
	result rxe_up FAIL
	finish || exit 1
fi
result rxe_up PASS rxe0

if run_t 30 ibv_devices && [[ $RUN_OUT == *rxe0* ]]; then
	result ibv_devices PASS
else
	result ibv_devices FAIL
fi

if run_t 30 ibv_devinfo -d rxe0 && [[ $RUN_OUT == *PORT_ACTIVE* ]]; then
	result ibv_devinfo PASS PORT_ACTIVE
else
	result ibv_devinfo FAIL "port not active"
fi

if gidx=$(roce_v2_ipv4_gid_index rxe0); then
	result gid_index PASS "$gidx"
	if pingpong_pair rxe0 "$gidx" ibv_rc_pingpong -n 100; then
		line=$(grep -m1 'Mbit/sec' <<<"$RUN_OUT") || line=''
		echo "rc_pingpong: $line"
		if [ -n "$line" ]; then
			result rc_pingpong PASS "$line"
		else
			result rc_pingpong FAIL "no Mbit/sec line"
		fi
	else
		result rc_pingpong FAIL
	fi
else
	result gid_index FAIL
fi

finish
