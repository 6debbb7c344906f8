#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: tests/verbs/wqe_fuzz (from the overlay) on softcx_0: random
# malformed send WQEs written straight into an RC send queue through
# mlx5dv; every one must complete or fail in time, the QPs must recover
# after reset, and nothing outside the registered pages may change. Its
# RESULT lines are carried over; the kernel log must stay clean (the
# harness scans it).
#   mkdir -p /tmp/wf-ovl && cp build/kmod-stock/src/softcx.ko \
#       build/verbs/wqe_fuzz tests/vm/guest/*.sh /tmp/wf-ovl/
#   tests/vm/run-guest.sh -t 600 -o /tmp/wf-ovl tests/vm/guest/wqe-fuzz.sh
# Kernel args wf_iter=N (default 2000), wf_seed=S (default 1) and
# wf_procs=P (default 1) change the run; the seeds are printed, so a
# failure can be replayed.
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

bin=/harness/extra/wqe_fuzz
iter=2000 seed=1 procs=1
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	wf_iter=*) iter=${arg#wf_iter=} ;;
	wf_seed=*) seed=${arg#wf_seed=} ;;
	wf_procs=*) procs=${arg#wf_procs=} ;;
	esac
done

kmemleak_begin
if [ ! -x $bin ]; then
	result wqe_fuzz_binary FAIL "$bin missing"
	finish
	exit 1
fi
setup_netdev || result wqe_fuzz_netdev FAIL dummy0
dev=softcx_0
# shellcheck disable=SC2119 # no module parameters
if ! { load_softcx && run_t 60 rdma link add $dev type softcx netdev dummy0; }; then
	dmesg | tail -20
	result wqe_fuzz_link_add FAIL
	finish
	exit 1
fi
if ! gidx=$(roce_v2_ipv4_gid_index $dev); then
	result wqe_fuzz_gid FAIL "no RoCEv2 IPv4 GID"
	finish
	exit 1
fi

# wf_procs=P processes share the WQEs (seeds S, S+1, ...; the results of
# all but the first named _pN): one process leaves a vCPU idle. A timeout of
# 900 s and 20 ms a WQE more.
t0=$SECONDS
rm -f /tmp/wqe_fuzz.*.out
for ((i = 0; i < procs; i++)); do
	n=$((iter / procs + (i < iter % procs ? 1 : 0)))
	echo "+ $bin -d $dev -g $gidx -n $n -s $((seed + i))" >&2
	timeout $((900 + n / 50)) "$bin" -d $dev -g "$gidx" -n "$n" -s $((seed + i)) \
		>/tmp/wqe_fuzz.$i.out 2>&1 &
	pids[i]=$!
done
for ((i = 0; i < procs; i++)); do
	rc=0
	wait "${pids[i]}" || rc=$?
	sfx=
	[ $i = 0 ] || sfx=_p$i
	program_report wqe_fuzz $rc /tmp/wqe_fuzz.$i.out $sfx
done
# The rate of what was done: the WQEs each process counted (one that died
# counted none).
secs=$((SECONDS - t0))
done_wqes=$(cat /tmp/wqe_fuzz.*.out | sed -n 's/.*\[COUNT fuzzed_wqes=\([0-9]*\)\].*/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
echo "wqe_fuzz: $done_wqes WQEs by $procs process(es) in $secs s: $((done_wqes / (secs > 0 ? secs : 1))) WQEs/s in all"

# The device's own counts of what the data path did, for the log.
dbg=/sys/kernel/debug/softcx/$dev
for f in info objects; do
	[ ! -r $dbg/$f ] || { echo "$dbg/$f:"; cat $dbg/$f; }
done
dmesg | tail -20
softcx_down wqe_fuzz
kmemleak_check softcx
finish
