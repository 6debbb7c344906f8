#!/bin/bash
# In-guest: NVMe over RDMA on softcx in one guest, the way a user tries it:
# an nvmet-rdma target listening on softcx_0's address (dummy0) with a
# file-backed namespace (buffered: the guest's root is a ramfs, which
# takes no O_DIRECT), the kernel's nvme-rdma host connecting to it
# through /dev/nvme-fabrics (what `nvme connect -t rdma` writes), 64 MiB
# of random data written with O_DIRECT and read back identical, then
# disconnect, connect again and read it once more, and every module
# unloaded. Then the device is removed under load (`rdma link delete`
# while rping runs and NVMe I/O is in flight): rping must see
# DEVICE_REMOVAL and exit, the controller must go, nothing may hang; with
# the device added again, NVMe connects and reads the data back. Both
# ends are kernel consumers of softcx: rdma_cm, FRWR
# (IB_WR_REG_MR, LOCAL_INV, SEND_WITH_INV), kernel CQs polled in softirq
# and workqueue context, ib_drain_qp at teardown.
set -uo pipefail
. "${BASH_SOURCE%/*}/common.sh"

NQN=nqn.2026-12.io.softcx:loop
NVME_IP=$PEER_IP
MIB=${NVME_MIB:-64}
# shellcheck source=nvme-common.sh
. "${BASH_SOURCE%/*}/nvme-common.sh"

rxe_remove_all
softcx_up nvme
dbg=/sys/kernel/debug/softcx/softcx_0
if ! run_t 120 modprobe -a nvmet nvmet-rdma nvme-rdma; then
	result nvme_modules FAIL "nvmet, nvmet-rdma, nvme-rdma"
	finish
	exit 1
fi
result nvme_modules PASS
nvme_configfs

truncate -s "${MIB}M" /tmp/nvme-backing.img
dd if=/dev/urandom of=/tmp/nvme-data bs=1M count="$MIB" status=none
if target_up; then result nvme_target PASS "$NQN on $PEER_IP:4420"; else result nvme_target FAIL; fi

if connect; then
	result nvme_connect PASS "$NVME_DEV ($NVME_CTRL)"
	r0=$(dev_rx_pkts softcx_0)
	if run_t 300 dd if=/tmp/nvme-data of="$NVME_DEV" bs=1M count="$MIB" oflag=direct status=none &&
		run_t 300 dd if="$NVME_DEV" of=/tmp/nvme-back bs=1M count="$MIB" iflag=direct status=none &&
		cmp /tmp/nvme-data /tmp/nvme-back && [ $(($(dev_rx_pkts softcx_0) - r0)) -gt $((MIB * 256)) ]; then
		# 64 MiB each way in packets of at most 4 KiB (at least 2 x 16384),
		# through softcx_0.
		result nvme_write_read PASS "$MIB MiB, O_DIRECT, identical, $(($(dev_rx_pkts softcx_0) - r0)) packets through softcx_0"
	else
		result nvme_write_read FAIL
	fi
	if disconnect; then result nvme_disconnect PASS; else result nvme_disconnect FAIL; fi
else
	result nvme_connect FAIL
	result nvme_write_read FAIL "no controller"
	result nvme_disconnect FAIL "no controller"
fi

rm -f /tmp/nvme-back
if connect; then
	if run_t 300 dd if="$NVME_DEV" of=/tmp/nvme-back bs=1M count="$MIB" iflag=direct status=none &&
		cmp /tmp/nvme-data /tmp/nvme-back; then
		result nvme_reconnect PASS "read back identical"
	else
		result nvme_reconnect FAIL "data differs or unreadable"
	fi
	disconnect
else
	result nvme_reconnect FAIL "connect"
fi

# Removal under load: CMD... (rdma link delete) while rping
# runs and NVMe I/O is in flight. ctrl_loss_tmo bounds how long the host
# retries.
removal_under_load() {
	local rp_s rp_c io t0 gone=0 i
	echo "transport=rdma,traddr=$PEER_IP,trsvcid=4420,nqn=$NQN,ctrl_loss_tmo=5,reconnect_delay=1" \
		>/dev/nvme-fabrics || return 1
	sleep 1
	# nocreat: once the namespace is gone, a dd starting then must not
	# leave a regular file /dev/nvme0n1, where the next controller's
	# block device node would go.
	(while dd if=/tmp/nvme-data of=/dev/nvme0n1 bs=1M oflag=direct conv=nocreat,notrunc status=none; do :; done) &
	io=$!
	timeout 200 rping -s -a "$PEER_IP" -C 1000000 >/tmp/rping-s.log 2>&1 &
	rp_s=$!
	sleep 1
	timeout 200 rping -c -a "$PEER_IP" -C 1000000 >/tmp/rping-c.log 2>&1 &
	rp_c=$!
	sleep 3
	t0=$SECONDS
	run_t 120 "$@" || { echo "$* failed" >&2; return 1; }
	echo "$* took $((SECONDS - t0)) s" >&2
	# rping sees DEVICE_REMOVAL and exits (not the timeout's 124).
	wait $rp_c
	[ $? != 124 ] || { echo "rping client still ran" >&2; return 1; }
	wait $rp_s
	[ $? != 124 ] || { echo "rping server still ran" >&2; return 1; }
	grep -q "device removal" /tmp/rping-c.log /tmp/rping-s.log || { echo "no DEVICE_REMOVAL seen" >&2; return 1; }
	for ((i = 0; i < 300; i++)); do
		ls /sys/class/nvme/nvme* >/dev/null 2>&1 || { gone=1; break; }
		sleep 0.1
	done
	kill $io 2>/dev/null
	wait $io 2>/dev/null
	[ $gone = 1 ] || { echo "the NVMe controller stayed" >&2; return 1; }
	REMOVAL_NOTE="$* $((SECONDS - t0)) s; rping saw DEVICE_REMOVAL; controller deleted"
}
if removal_under_load rdma link delete softcx_0; then
	result nvme_removal_under_load PASS "$REMOVAL_NOTE"
else
	result nvme_removal_under_load FAIL
	dmesg | tail -30
fi
# The device again: nvmet dropped its listener with the device, so the
# port is linked anew; the host connects and reads the data back.
if run_t 60 rdma link add softcx_0 type softcx netdev dummy0 && roce_v2_ipv4_gid_index softcx_0 >/dev/null &&
	rm -f "$CFG/ports/1/subsystems/$NQN" && ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN" &&
	connect && run_t 300 dd if="$NVME_DEV" of=/tmp/nvme-back bs=1M count="$MIB" iflag=direct status=none &&
	cmp /tmp/nvme-data /tmp/nvme-back; then
	result nvme_after_readd PASS "connected to the new device, data identical"
	disconnect
else
	result nvme_after_readd FAIL
fi

# What softcx and NVMe looked like when a round failed.
nvme_dump() {
	local f
	for f in /sys/class/nvme/nvme*; do
		[ -e "$f" ] && echo "$f: $(cat "$f/state" 2>/dev/null) $(cat "$f/transport" 2>/dev/null)"
	done
	ls /sys/block /sys/class/nvme-subsystem/*/ 2>&1
	ps -eo pid,stat,wchan:32,args | grep -E " D |dd |nvme" | grep -v grep
	echo w >/proc/sysrq-trigger
	for f in dp qps; do
		echo "== debugfs $f"
		cat "$dbg/$f" 2>&1
	done
	dmesg | tail -60
}
# The module removed under the same load; loaded again, a new softcx_0
# takes NVMe's connection and the data reads back. Kernel arg
# nvme_rmmod_rounds=N (default 1) repeats the round (make soak).
rounds=1
for arg in $(</proc/cmdline); do
	case $arg in nvme_rmmod_rounds=*) rounds=${arg#nvme_rmmod_rounds=} ;; esac
done
ok=0
for ((r = 1; r <= rounds; r++)); do
	rm -f /tmp/nvme-back
	if ! removal_under_load rmmod softcx; then
		echo "round $r: the removal failed" >&2
		nvme_dump >&2
		break
	fi
	note=$REMOVAL_NOTE
	if ! { load_softcx && run_t 60 rdma link add softcx_0 type softcx netdev dummy0 &&
		roce_v2_ipv4_gid_index softcx_0 >/dev/null &&
		rm -f "$CFG/ports/1/subsystems/$NQN" && ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"; }; then
		echo "round $r: softcx_0 did not come back" >&2
		nvme_dump >&2
		break
	fi
	if ! connect; then
		echo "round $r: no connection to the new softcx_0" >&2
		nvme_dump >&2
		break
	fi
	if ! { run_t 300 dd if="$NVME_DEV" of=/tmp/nvme-back bs=1M count="$MIB" iflag=direct status=none &&
		cmp /tmp/nvme-data /tmp/nvme-back; }; then
		echo "round $r: data unreadable or different" >&2
		nvme_dump >&2
		disconnect
		break
	fi
	disconnect
	ok=$r
done
if [ "$ok" = "$rounds" ]; then
	result nvme_rmmod_under_load PASS "$note; loaded again, data identical ($rounds round(s))"
else
	result nvme_rmmod_under_load FAIL "round $((ok + 1)) of $rounds (see the log)"
fi

target_down
if run_t 60 rmmod nvme_rdma && run_t 60 rmmod nvmet_rdma; then
	result nvme_rmmod PASS
else
	result nvme_rmmod FAIL
fi
rm -f /tmp/nvme-data /tmp/nvme-back /tmp/nvme-backing.img
softcx_down nvme
finish
