#!/bin/bash
# /init of the guest initramfs (installed by build-guest.sh). Mounts the
# pseudo filesystems, runs the per-run /harness/run.sh (added by
# run-guest.sh as an appended cpio), reports its exit status and reboots;
# QEMU runs with -no-reboot, so that ends QEMU.
# Kernel arg harness=shell: an interactive bash on the console instead.
#
# No `set -e` here on purpose: if PID 1 exits the kernel panics, which hides
# the real error. Failures are reported and the guest still shuts down.
set -uo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=linux

mkdir -p /proc /sys /dev /run /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
# What udev would link: bash's process substitution (<(...)) needs /dev/fd;
# without it such a loop reads nothing and a check built on it passes.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
ip link set lo up
hostname guest

mode=run
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in harness=shell) mode=shell ;; esac
done

read -r up _ </proc/uptime
echo "GUEST-INIT-READY uptime=$up"

cd /root || cd /
if [ "$mode" = shell ]; then
	# A real tty (not /dev/console) so that bash gets job control.
	setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
	rc=$?
elif [ -f /harness/run.sh ]; then
	bash /harness/run.sh
	rc=$?
else
	echo "guest-init: /harness/run.sh missing" >&2
	rc=127
fi

# ttyS1 is the results port (results.log on the host).
echo "GUEST-EXIT $rc" >/dev/ttyS1
echo "GUEST-EXIT $rc"
sync
reboot -f
sleep 5
echo b >/proc/sysrq-trigger
