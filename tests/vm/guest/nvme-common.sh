# SPDX-License-Identifier: GPL-2.0
# Sourced by the NVMe over RDMA parts (nvme.sh in one guest, wire-pair.sh
# between two): the nvmet target through configfs and the nvme-rdma host
# through /dev/nvme-fabrics (what `nvme connect -t rdma` writes). The
# caller sets NQN and NVME_IP (the target's address); the namespace is
# the file /tmp/nvme-backing.img, buffered (the guest's root is a ramfs,
# which takes no O_DIRECT).
CFG=/sys/kernel/config/nvmet

nvme_configfs() {
	[ -d $CFG ] || mount -t configfs none /sys/kernel/config
}

# The target: one subsystem, one file-backed namespace, one RDMA port.
target_up() {
	mkdir "$CFG/subsystems/$NQN" &&
		echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFG/subsystems/$NQN/namespaces/1" &&
		echo -n /tmp/nvme-backing.img >"$CFG/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/1/buffered_io" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$CFG/ports/1" &&
		echo rdma >"$CFG/ports/1/addr_trtype" &&
		echo ipv4 >"$CFG/ports/1/addr_adrfam" &&
		echo "$NVME_IP" >"$CFG/ports/1/addr_traddr" &&
		echo 4420 >"$CFG/ports/1/addr_trsvcid" &&
		ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"
}
target_down() {
	rm -f "$CFG/ports/1/subsystems/$NQN"
	rmdir "$CFG/ports/1" 2>/dev/null
	echo 0 >"$CFG/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$CFG/subsystems/$NQN/namespaces/1" "$CFG/subsystems/$NQN" 2>/dev/null
}

# connect: the host side, as nvme-cli does it; NVME_DEV is its namespace,
# NVME_CTRL its controller.
connect() {
	local i ctrl
	NVME_DEV=
	if ! echo "transport=rdma,traddr=$NVME_IP,trsvcid=4420,nqn=$NQN" >/dev/nvme-fabrics 2>/tmp/nvme-connect.err; then
		cat /tmp/nvme-connect.err >&2
		return 1
	fi
	for ((i = 0; i < 100; i++)); do
		for ctrl in /sys/class/nvme/nvme*; do
			[ "$(cat "$ctrl/transport" 2>/dev/null)" = rdma ] || continue
			NVME_CTRL=${ctrl##*/}
			for ns in /sys/block/"$NVME_CTRL"n*; do
				[ -e "$ns" ] && NVME_DEV=/dev/${ns##*/} && [ -b "$NVME_DEV" ] && return 0
			done
		done
		sleep 0.1
	done
	[ -e "$NVME_DEV" ] && [ ! -b "$NVME_DEV" ] && echo "$NVME_DEV is there but no block device" >&2
	return 1
}
disconnect() {
	echo 1 >"/sys/class/nvme/$NVME_CTRL/delete_controller"
}
