#!/bin/bash
# In-guest: softcx as an RDMA device for the stock userspace. `rdma link add`
# binds it to dummy0; libibverbs must pick the stock libmlx5 for it; the port
# follows the netdev (state, MTU, GIDs for its IPv4 and IPv6 addresses);
# `rdma link delete` and rmmod remove everything, also with a context open.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"
kmemleak_begin

dev=softcx_0
if setup_netdev && run_t 10 ip -6 addr add fd00::1/64 dev dummy0; then
	result netdev PASS
else
	result netdev FAIL
fi
if load_softcx && run_t 60 rdma link add $dev type softcx netdev dummy0; then
	result link_add PASS
else
	dmesg | tail -20
	result link_add FAIL
	finish
	exit 1
fi
run_t 10 rdma link show
sleep 2 # IPv6 DAD before the GID appears

if run_t 30 ibv_devices && [[ $RUN_OUT == *"$dev"* ]]; then
	result ibv_devices PASS "$(grep "$dev" <<<"$RUN_OUT")"
else
	result ibv_devices FAIL
fi

if LD_DEBUG=libs run_t 60 ibv_devinfo -v -d $dev; then
	info=$RUN_OUT
	result ibv_devinfo PASS
else
	info=$RUN_OUT
	result ibv_devinfo FAIL
fi
if grep -q 'libmlx5' <<<"$info" && grep -q 'calling init: .*libmlx5' <<<"$info"; then
	result libmlx5_binds PASS "$(grep -m1 -o '/[^ ]*libmlx5[^ ]*' <<<"$info")"
else
	result libmlx5_binds FAIL
fi
check_field() { # check_field NAME REGEX
	if grep -Eq "$2" <<<"$info"; then result "$1" PASS "$(grep -Em1 "$2" <<<"$info" | tr -s ' \t' ' ')"; else result "$1" FAIL; fi
}
check_field port_active 'state:[[:space:]]+PORT_ACTIVE'
check_field link_layer 'link_layer:[[:space:]]+Ethernet'
check_field active_mtu 'active_mtu:[[:space:]]+1024'
check_field vendor_id 'vendor_id:[[:space:]]+0x02c9'
check_field vendor_part 'vendor_part_id:[[:space:]]+4119'
check_field fw_ver 'fw_ver:[[:space:]]+16\.35\.1000'
check_field transport 'transport:[[:space:]]+InfiniBand'
check_field gid_ipv4 'GID\[ *[0-9]+\]:.*::ffff:10\.0\.0\.1, RoCE v2'
check_field gid_ipv6 'GID\[ *[0-9]+\]:.*fd00::1, RoCE v2'
check_field node_guid 'node_guid:[[:space:]]+[0-9a-f]{4}:[0-9a-f]{2}ff:fe'

# MTU follows the netdev.
run_t 10 ip link set dummy0 mtu 4200
if run_t 30 ibv_devinfo -d $dev && grep -Eq 'active_mtu:[[:space:]]+4096' <<<"$RUN_OUT"; then
	result mtu_follows PASS
else
	result mtu_follows FAIL
fi
run_t 10 ip link set dummy0 mtu 1500

# Link down: PORT_DOWN, then back to ACTIVE.
run_t 10 ip link set dummy0 down
sleep 1
if run_t 30 ibv_devinfo -d $dev && grep -Eq 'state:[[:space:]]+PORT_DOWN' <<<"$RUN_OUT"; then
	result port_down PASS
else
	result port_down FAIL
fi
run_t 10 ip link set dummy0 up
run_t 10 ip addr replace 10.0.0.1/24 dev dummy0
sleep 1
if run_t 30 ibv_devinfo -d $dev && grep -Eq 'state:[[:space:]]+PORT_ACTIVE' <<<"$RUN_OUT"; then
	result port_up_again PASS
else
	result port_up_again FAIL
fi

# rdma-core's own device and PD tests from python3-pyverbs, on softcx.
if [ -d /opt/rdma-core/tests ]; then
	cd /opt/rdma-core || exit 1
	run_t 300 python3 tests/run_tests.py --dev $dev -v tests.test_device tests.test_pd
	summary=$(grep -E '^(Ran|OK|FAILED)' <<<"$RUN_OUT" | tr '\n' ' ')
	if grep -qE '^OK' <<<"$RUN_OUT"; then result pyverbs_device_pd PASS "$summary"; else result pyverbs_device_pd FAIL "$summary"; fi
	cd / || exit 1
fi

# rdma link delete while a process holds a context with objects and mapped
# UAR pages: the core disassociates it; nothing may hang or leak.
holder=/harness/extra/verbs_objects
if [ -x $holder ] && gidx=$(roce_v2_ipv4_gid_index $dev); then
	$holder -d $dev -g "$gidx" --hold >/tmp/holder.out 2>&1 &
	hpid=$!
	for ((i = 0; i < 100; i++)); do grep -q '^HOLDING' /tmp/holder.out && break; sleep 0.2; done
	grep -q '^HOLDING' /tmp/holder.out && result holder_up PASS "$(grep -m1 '^HOLDING' /tmp/holder.out)" ||
		result holder_up FAIL
else
	(exec 3</dev/infiniband/uverbs0; sleep 5) &
	hpid=$!
	sleep 0.5
fi
if run_t 60 rdma link delete $dev && ! [ -e /sys/class/infiniband/$dev ]; then
	result link_delete PASS "with a live context"
else
	result link_delete FAIL
fi
kill -9 $hpid 2>/dev/null
wait

# The module parameter creates one too; rmmod removes it.
run_t 10 rmmod softcx
if run_t 120 insmod /harness/extra/softcx.ko netdev=dummy0 && [ -e /sys/class/infiniband/softcx_dummy0 ]; then
	result netdev_param PASS
else
	result netdev_param FAIL
fi
if run_t 120 rmmod softcx && ! [ -e /sys/class/infiniband/softcx_dummy0 ]; then
	result rmmod PASS
else
	result rmmod FAIL
fi
kmemleak_check softcx
finish
