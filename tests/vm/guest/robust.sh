#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: the robustness suite on softcx (build/verbs/robust and
# build/verbs/uverbs_fuzz from the overlay):
#  - kill -9 of processes in the middle of traffic and object churn, a
#    bystander's traffic alongside (robust kill);
#  - threads creating and destroying every object while traffic runs
#    (robust threads);
#  - random, boundary and malicious uverbs input (uverbs_fuzz);
#  - `rdma link delete`, and rmmod, while processes run traffic and hold
#    objects: each sees IBV_EVENT_DEVICE_FATAL, nothing hangs, the device
#    comes back and works;
#  - the firmware dying (debugfs inject fw_fatal: the health counter
#    stops): users see DEVICE_FATAL, the function recovers by itself.
# Kernel args (make soak sets them): rb_rounds=N kill rounds (20),
# rb_fuzz=N fuzz inputs (10000), rb_churn=N cycles per thread (50),
# rb_secs=S repeat all of it until S seconds have passed (0: once),
# rb_seed=S.
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

rb=/harness/extra/robust fz=/harness/extra/uverbs_fuzz dev=softcx_0
rounds=20 fuzz=10000 churn=50 secs=0 seed=1
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	rb_rounds=*) rounds=${arg#rb_rounds=} ;;
	rb_fuzz=*) fuzz=${arg#rb_fuzz=} ;;
	rb_churn=*) churn=${arg#rb_churn=} ;;
	rb_secs=*) secs=${arg#rb_secs=} ;;
	rb_seed=*) seed=${arg#rb_seed=} ;;
	esac
done
dbg=/sys/kernel/debug/softcx/$dev

kmemleak_begin
setup_netdev || result robust_netdev FAIL dummy0

# up: softcx loaded (if it is not) and $dev on dummy0, with its GID index.
up() {
	grep -q '^softcx ' /proc/modules || load_softcx || return
	[ -e /sys/class/infiniband/$dev ] || run_t 60 rdma link add $dev type softcx netdev dummy0 ||
		return
	gidx=$(roce_v2_ipv4_gid_index $dev)
}

# workers N: N traffic processes that must end by DEVICE_FATAL; pids in $wpids.
workers() {
	local i
	wpids=()
	for ((i = 0; i < $1; i++)); do
		"$rb" -d $dev -g "$gidx" -F -t 180 traffic >/tmp/rb-w$i.out 2>&1 &
		wpids+=($!)
	done
	for ((i = 0; i < 150; i++)); do
		[ "$(cat /tmp/rb-w*.out 2>/dev/null | grep -c '^READY')" -ge "$1" ] && return 0
		sleep 0.2
	done
	return 1
}

# workers_end WHAT: every worker exited 0 within 60 s, having seen DEVICE_FATAL.
workers_end() {
	local pid good=0 i=0 st t0=$SECONDS
	for pid in "${wpids[@]}"; do
		st=0
		# A worker still running after 60 s hangs: kill it, and fail.
		while kill -0 "$pid" 2>/dev/null && [ $((SECONDS - t0)) -lt 60 ]; do sleep 0.2; done
		kill -9 "$pid" 2>/dev/null
		wait "$pid" || st=$?
		grep -q '^DONE .*fatal=1 error=none' /tmp/rb-w$i.out && [ $st = 0 ] && good=$((good + 1))
		[ $st = 0 ] || { echo "worker $i (status $st):"; cat /tmp/rb-w$i.out; } >&2
		i=$((i + 1))
	done
	rm -f /tmp/rb-w*.out
	[ $good = ${#wpids[@]} ]
	return
}

# works_again TAG: a new process's traffic on the device that came back.
works_again() {
	if up && run_t 60 "$rb" -d $dev -g "$gidx" -t 2 traffic; then
		result "robust_${1}_works_again" PASS "${RUN_OUT##*DONE }"
	else
		result "robust_${1}_works_again" FAIL
	fi
}

removed=0 recovered=0
# remove_under_load TAG CMD...: CMD takes the device away from 3 busy processes.
remove_under_load() {
	local tag=$1 t0
	shift
	if ! { up && workers 3; }; then
		result "robust_${tag}_under_load" FAIL "the workers did not start"
		kill -9 "${wpids[@]}" 2>/dev/null
		wait
		return
	fi
	t0=$SECONDS
	if run_t 120 "$@" && workers_end; then
		removed=$((removed + 1))
		result "robust_${tag}_under_load" PASS "3 processes in traffic saw DEVICE_FATAL and" \
			"exited cleanly, $((SECONDS - t0)) s [COUNT removed=1]"
	else
		result "robust_${tag}_under_load" FAIL "$* or the workers' end"
	fi
	works_again "$tag"
}

# fw_fatal: the firmware stops (health counter frozen); the driver notices,
# users get DEVICE_FATAL, the function is torn down and brought up again.
fw_fatal() {
	local i
	if ! { up && workers 3; }; then
		result robust_fw_fatal FAIL "the workers did not start"
		return
	fi
	echo fw_fatal >$dbg/inject
	if workers_end; then
		result robust_fw_fatal PASS "health counter stopped: 3 processes saw DEVICE_FATAL"
	else
		result robust_fw_fatal FAIL "the workers did not all see DEVICE_FATAL"
	fi
	# The recovery brings $dev back under its name, with a new debugfs.
	for ((i = 0; i < 150; i++)); do
		[ -e /sys/class/infiniband/$dev ] && [ -r $dbg/info ] && grep -q '^recoveries [1-9]' $dbg/info &&
			break
		sleep 0.2
	done
	if grep -q '^recoveries [1-9]' $dbg/info 2>/dev/null; then
		recovered=$((recovered + 1))
		result robust_fw_recovered PASS "$(grep '^recoveries' $dbg/info) [COUNT recovered=1]"
	else
		result robust_fw_recovered FAIL "$dev did not come back"
	fi
	works_again fw
}

if ! up; then
	result robust_link_add FAIL
	finish
	exit 1
fi
t_start=$SECONDS pass=0
while :; do
	pass=$((pass + 1))
	# Time limits scale with the sizes (make soak's are larger).
	run_program robust_kill $((120 + rounds * 30)) "$rb" -d $dev -g "$gidx" -D $dbg -r "$rounds" -s "$((seed + pass))" kill
	run_program robust_threads $((300 + churn * 10)) "$rb" -d $dev -g "$gidx" -D $dbg -n 4 -r "$churn" threads
	run_program uverbs_fuzz $((300 + fuzz / 10)) "$fz" -d $dev -g "$gidx" -D $dbg -n "$fuzz" -s "$((seed + pass))"
	remove_under_load link_delete rdma link delete $dev
	remove_under_load rmmod rmmod softcx
	fw_fatal
	[ $((SECONDS - t_start)) -lt "$secs" ] || break
done
echo "robust: $pass passes in $((SECONDS - t_start)) s; devices removed under load: $removed;" \
	"recovered from firmware death: $recovered"
up && cat $dbg/info $dbg/objects
softcx_down robust
kmemleak_check softcx
finish
