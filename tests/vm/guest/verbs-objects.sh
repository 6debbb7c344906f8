#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: tests/verbs/verbs_objects (from the overlay) on rxe0 and, when
# the overlay has softcx.ko, on softcx_0 with its debugfs object counts; then
# a process holding one of each object is killed with SIGKILL and the counts
# must return to baseline. Results are prefixed rxe_ / softcx_.
#   mkdir -p /tmp/vo-ovl && cp build/verbs/verbs_objects \
#       build/kmod-stock/src/softcx.ko /tmp/vo-ovl/
#   tests/vm/run-guest.sh -o /tmp/vo-ovl tests/vm/guest/verbs-objects.sh
# Kernel arg vo_iter=N changes the cycle count (default 1000).
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

bin=/harness/extra/verbs_objects
iter=1000
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in vo_iter=*) iter=${arg#vo_iter=} ;; esac
done

# run_vo PREFIX ARGS...: verbs_objects, its RESULT lines carried over as
# results named PREFIX_<case>; a crash or timeout is a result of its own.
run_vo() {
	local prefix=$1 out=/tmp/vo.$1.out rc=0 line fails=0
	shift
	echo "+ $bin $*" >&2
	timeout 1500 "$bin" "$@" >"$out" 2>&1 || rc=$?
	while IFS= read -r line; do
		echo "$line"
		if [[ $line =~ ^RESULT\ ([^ ]+)\ (PASS|FAIL)\ ?(.*)$ ]]; then
			[ "${BASH_REMATCH[2]}" = PASS ] || fails=$((fails + 1))
			result "${prefix}_${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"
		fi
	done <"$out"
	# Exit 1 goes with FAIL lines; anything else (signal, timeout) is its own.
	if { [ $rc = 1 ] && [ $fails -gt 0 ]; } || { [ $rc = 0 ] && [ $fails = 0 ]; }; then
		:
	else
		result "${prefix}_run" FAIL "exit status $rc with $fails failed cases"
	fi
}

# counts_get DEV DEBUGFS_DIR: object counts into CNT[type]. With a debugfs
# dir, its objects file ("type N" lines); without, the RDMA core's restrack
# (`rdma resource show`), which every device has but which has no AH count.
declare -A CNT
counts_get() {
	local dev=$1 dir=$2 k v
	CNT=()
	if [ -n "$dir" ]; then
		[ -r "$dir/objects" ] || return 1
		while read -r k v; do CNT[$k]=$v; done <"$dir/objects"
	else
		run_t 10 rdma resource show "$dev" 2>/dev/null || return 1
		# shellcheck disable=SC2086 # "k v k v ..." wants splitting
		set -- ${RUN_OUT#*"$dev": }
		while [ $# -ge 2 ]; do CNT[$1]=$2; shift 2; done
		# restrack calls the user context "ctx"
		[ -z "${CNT[ctx]:-}" ] || CNT[uctx]=${CNT[ctx]}
	fi
	[ ${#CNT[@]} -gt 0 ]
}
counts_str() { # the CNT array as "k=v ..." sorted
	local k s=''
	for k in $(printf '%s\n' "${!CNT[@]}" | sort); do s+="$k=${CNT[$k]} "; done
	echo "${s% }"
}

# hold_kill PREFIX DEV GIDX [DEBUGFS_DIR]: verbs_objects --hold; the counts
# must rise by what it says it holds (plus its context), and return to the
# baseline after kill -9.
hold_kill() {
	local prefix=$1 dev=$2 gidx=$3 dir=${4:-} out=/tmp/hold.$1.out pid line='' try
	local kv k v bad='' base_s held_s
	local -A base held
	if ! counts_get "$dev" "$dir"; then
		result "${prefix}_kill9" FAIL "no objects file${dir:+ in $dir}"
		return
	fi
	for k in "${!CNT[@]}"; do base[$k]=${CNT[$k]}; done
	base_s=$(counts_str)
	"$bin" -d "$dev" -g "$gidx" --hold >"$out" 2>&1 &
	pid=$!
	for ((try = 0; try < 300; try++)); do
		line=$(grep -m1 '^HOLDING' "$out") && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	cat "$out"
	if [ -z "$line" ]; then
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		result "${prefix}_kill9_held" FAIL "no HOLDING line"
		return
	fi
	# HOLDING pid=N pd=1 mr=1 cq=1 qp=3 srq=1 ah=1: expected increases.
	for kv in ${line#HOLDING }; do held[${kv%%=*}]=${kv#*=}; done
	unset 'held[pid]'
	held[uctx]=1
	counts_get "$dev" "$dir"
	held_s=$(counts_str)
	for k in "${!held[@]}"; do
		[ -n "${base[$k]:-}" ] || continue # restrack has no ah
		v=$((base[$k] + held[$k]))
		[ "${CNT[$k]:-}" = "$v" ] || bad+=" $k:${CNT[$k]:-none}!=${base[$k]}+${held[$k]}"
	done
	if [ -z "$bad" ]; then
		result "${prefix}_kill9_held" PASS "${line#HOLDING } -> $held_s"
	else
		result "${prefix}_kill9_held" FAIL "${line#HOLDING }:$bad"
	fi
	kill -9 $pid
	wait $pid 2>/dev/null
	# The uverbs file is released on exit; allow a moment for deferred work.
	for ((try = 0; try < 50; try++)); do
		counts_get "$dev" "$dir" && [ "$(counts_str)" = "$base_s" ] && break
		sleep 0.2
	done
	if [ "$(counts_str)" = "$base_s" ]; then
		result "${prefix}_kill9_cleanup" PASS "$base_s"
	else
		result "${prefix}_kill9_cleanup" FAIL "baseline '$base_s' now '$(counts_str)'"
	fi
}

kmemleak_begin
if [ -x $bin ]; then
	result binary PASS "iter=$iter"
else
	result binary FAIL "$bin missing"
	finish
	exit 1
fi
if setup_netdev; then result netdev PASS dummy0; else result netdev FAIL; fi

# --- rxe: the reference device ---------------------------------------------
if rxe_absent; then
	:
elif rxe_up rxe0 dummy0 && gidx=$(roce_v2_ipv4_gid_index rxe0); then
	result rxe_up PASS "rxe0 gid index $gidx"
	run_vo rxe -d rxe0 -g "$gidx" -n "$iter"
	hold_kill rxe rxe0 "$gidx"
	run_t 30 rdma link delete rxe0
else
	result rxe_up FAIL
fi

# --- softcx ----------------------------------------------------------------
if [ -f /harness/extra/softcx.ko ]; then
	dev=softcx_0 dbg=/sys/kernel/debug/softcx/softcx_0
	# shellcheck disable=SC2119 # no module parameters
	if load_softcx && run_t 60 rdma link add $dev type softcx netdev dummy0 &&
		gidx=$(roce_v2_ipv4_gid_index $dev); then
		result softcx_up PASS "$dev gid index $gidx"
		run_vo softcx -d $dev -g "$gidx" -n "$iter" --debugfs $dbg --mlx5
		[ ! -r $dbg/objects ] || { echo "$dbg/objects:"; cat $dbg/objects; }
		hold_kill softcx $dev "$gidx" $dbg
		# restrack's view too: the RDMA core must agree nothing is left.
		run_t 10 rdma resource show $dev
		dmesg | tail -30
		if run_t 60 rdma link delete $dev && run_t 120 rmmod softcx; then
			result softcx_teardown PASS
		else
			result softcx_teardown FAIL
		fi
	else
		dmesg | tail -20
		result softcx_up FAIL
	fi
	kmemleak_check softcx
fi
finish
