#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: the counters users read, backed by the hca's Q counter sets
# (kmod/ib_counters.c): the port's hw_counters in sysfs and `rdma statistic
# show link` move by exactly what known traffic adds (perftest's WRITE,
# READ and atomic iterations count at the responder), also with QPs bound
# to counters of their own (auto mode, and by hand), whose counters count
# their own QP's traffic only; known errors (RNR NAKs, a wrong rkey) move
# the error counters by exactly what they are.
set -uo pipefail
# shellcheck source=common.sh
. "${BASH_SOURCE%/*}/common.sh"

dev=softcx_0
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
kmemleak_begin
softcx_up counters

hwc() { cat "$hw/$1" 2>/dev/null || echo -1; }
# The value after NAME in `rdma statistic show link` (one line, name value ...).
linkc() {
	rdma statistic show link $dev/1 2>/dev/null | tr -s ' \n' '\n' |
		awk -v n="$1" 'f { print; exit } $0 == n { f = 1 }'
}

names=$(ls "$hw" 2>/dev/null | grep -vcx lifespan)
if [ "$names" = 29 ] && [ -e "$hw/rx_write_requests" ] && [ -e "$hw/local_ack_timeout_err" ] &&
	[ -n "$(linkc rnr_nak_retry_err)" ]; then
	result counters_names PASS "$names counters in hw_counters and rdma statistic"
else
	result counters_names FAIL "$names counters in $hw; rdma statistic: $(rdma statistic show link $dev/1 2>&1 | head -c 200)"
fi

# moved NAME COUNTER N TOOL [args]: a perftest pair with -n N; the port's
# COUNTER must rise by N in hw_counters and in rdma statistic, for each
# time perftest ran it (a run retried for its clock calibration ran all its
# traffic before it failed; the RESULT line says it was retried).
moved() {
	local name=$1 c=$2 n=$3 h0 l0 h1 l1 want
	shift 3
	h0=$(hwc "$c") l0=$(linkc "$c")
	if ! perftest_pair $dev "$GIDX" "$@" -n "$n"; then
		result "$name" FAIL "perftest: ${PERF_ROW:-no results row}"
		return
	fi
	want=$((n * PERF_ATTEMPTS))
	h1=$(hwc "$c") l1=$(linkc "$c")
	if [ $((h1 - h0)) = "$want" ] && [ $((l1 - l0)) = "$want" ]; then
		result "$name" PASS "$c +$want (hw_counters $h0 -> $h1, rdma statistic $l0 -> $l1)"
	else
		result "$name" FAIL "$c: hw_counters $h0 -> $h1, rdma statistic $l0 -> $l1, want +$want"
	fi
}
moved counters_write rx_write_requests 1000 ib_write_bw -s 64
moved counters_read rx_read_requests 500 ib_read_bw -s 64
moved counters_atomic rx_atomic_requests 300 ib_atomic_bw

# Auto mode by type and process: each perftest QP is bound to a counter of
# its own (by type alone, the server's and the client's RC QPs would share one).
# The link total (hw_counters and rdma statistic both add the counters to
# the port's set, and keep a freed counter's counts) still rises by exactly
# the traffic; while it runs, the responder's counter has the WRITEs and the
# requester's none.
# split_counts SNAPSHOT: how many counters of `rdma statistic qp show` have
# rx_write_requests above 0 ($with), at 0 ($without), unreadable ($other).
split_counts() {
	local v
	with=0 without=0 other=0
	while read -r v; do
		case $v in
		0) without=$((without + 1)) ;;
		[1-9]*) with=$((with + 1)) ;;
		*) other=$((other + 1)) ;;
		esac
	done < <(tr -s ' \n' '\n' <<<"$1" | awk 'p { print; p = 0 } $0 == "rx_write_requests" { p = 1 }')
}
bound() {
	local h0 l0 h1 l1 spid cpid snap= with=0 without=0 other=0
	h0=$(hwc rx_write_requests) l0=$(linkc rx_write_requests)
	if ! perftest_pair $dev "$GIDX" ib_write_bw -s 64 -n 700; then
		result counters_bound FAIL "perftest: ${PERF_ROW:-no results row}"
		return
	fi
	h1=$(hwc rx_write_requests) l1=$(linkc rx_write_requests)
	if [ $((h1 - h0)) != $((700 * PERF_ATTEMPTS)) ] || [ $((l1 - l0)) != $((700 * PERF_ATTEMPTS)) ]; then
		result counters_bound FAIL "bound QPs: hw_counters $h0 -> $h1, rdma statistic $l0 -> $l1, want +$((700 * PERF_ATTEMPTS))"
		return
	fi
	timeout 90 ib_write_bw -d $dev -x "$GIDX" -s 64 -D 8 >/tmp/cnt-srv.log 2>&1 &
	spid=$!
	sleep 1
	timeout 90 ib_write_bw -d $dev -x "$GIDX" -s 64 -D 8 "$PEER_IP" >/tmp/cnt-cli.log 2>&1 &
	cpid=$!
	# Looked at until the traffic shows (how soon depends on the guest's
	# speed), while both QPs still exist.
	while kill -0 $cpid 2>/dev/null; do
		snap=$(rdma statistic qp show link $dev/1 2>&1)
		split_counts "$snap"
		[ $with = 0 ] || break
		sleep 0.5
	done
	wait $cpid $spid
	echo "$snap" >&2
	if [ $with = 1 ] && [ $without = 1 ] && [ $other = 0 ] && [ "$(grep -c 'LQPN: <[0-9]*>' <<<"$snap")" = 2 ]; then
		result counters_bound PASS "+$((700 * PERF_ATTEMPTS)) in hw_counters ($h0 -> $h1) and rdma statistic ($l0 -> $l1); while running, one QP's counter had WRITEs, the other none"
	else
		result counters_bound FAIL "while running: $with counters with WRITEs, $without without, $other unreadable: $(tr -s ' \n' ' ' <<<"$snap" | head -c 300)"
	fi
}
# Known errors (tests/verbs/counted_errors.c): n SENDs that meet no receive
# with rnr_retry 1 and n WRITEs with a wrong rkey, each on a new pair of QPs
# in the port's set. Every counter of the port must move by exactly this
# (the ones not named by 0): per SEND two RNR NAKs for want of a receive
# (out_of_buffer), the first retried (rnr_nak_retry_err), the second ending
# the QP (req_cqe_error); per WRITE the request (rx_write_requests), the
# responder's access error and the requester's error CQE with its cause.
errors_counted() {
	local n=20 c got diff= seen= l0 l1
	local -A b0 want=([rnr_nak_retry_err]=$n [out_of_buffer]=$((2 * n)) [req_cqe_error]=$((2 * n))
		[req_remote_access_errors]=$n [resp_remote_access_errors]=$n [rx_write_requests]=$n)
	for c in $(ls "$hw"); do b0[$c]=$(hwc "$c"); done
	l0=$(linkc req_cqe_error)
	run_program counted_errors 180 /harness/extra/counted_errors -d $dev -g "$GIDX" -n $n
	l1=$(linkc req_cqe_error)
	for c in "${!b0[@]}"; do
		[ "$c" = lifespan ] && continue
		got=$(($(hwc "$c") - b0[$c]))
		[ $got = "${want[$c]:-0}" ] || diff+=" $c+$got(want +${want[$c]:-0})"
		[ $got = 0 ] || seen+=" $c+$got"
	done
	[ $((l1 - l0)) = $((2 * n)) ] || diff+=" rdma-statistic:req_cqe_error+$((l1 - l0))(want +$((2 * n)))"
	if [ -z "$diff" ]; then
		result counters_errors PASS "moved:$seen; the other counters did not"
	else
		result counters_errors FAIL "wrong:$diff; moved:$seen"
	fi
}
errors_counted

# Manual binding: each QP of one pair bound by hand to a counter of its
# own; n good WRITEs from one to the other count in the responder's
# counter only (and in the port's total).
# rx_of COUNTERS QPN: rx_write_requests of the counter QPN is bound to.
rx_of() {
	tr -s ' \n' '\n' <<<"$1" | awk -v q="$2" '
		$0 == "cntn" { getline c } $0 == "rx_write_requests" { getline v[c] }
		$0 == "LQPN:" { getline l; gsub(/[<>]/, "", l); if (("," l ",") ~ ("," q ",")) { print v[c]; exit } }'
}
manual_bind() {
	local n=200 tag qa qb line snap ra rb h0 h1 pid rc=0 in out
	h0=$(hwc rx_write_requests)
	coproc CE { exec /harness/extra/counted_errors -d $dev -g "$GIDX" -n $n -b 2>&1; }
	# bash forgets CE's pid and fds once it has ended: our own copies.
	pid=$CE_PID
	exec {in}<&"${CE[0]}" {out}>&"${CE[1]}"
	if read -t 30 -r tag qa qb <&$in && [ "$tag" = QPN ]; then
		run_t 30 rdma statistic qp bind link $dev/1 lqpn "$qa" &&
			run_t 30 rdma statistic qp bind link $dev/1 lqpn "$qb" ||
			echo "RESULT counters_manual_bind FAIL $RUN_OUT" >>/tmp/counted_bound.out
		echo go >&$out
		while read -t 120 -r line <&$in; do
			echo "$line" >>/tmp/counted_bound.out
			[ "$line" = DONE ] && break
		done
		snap=$(rdma statistic qp show link $dev/1 2>&1)
		echo "$snap" >&2
		h1=$(hwc rx_write_requests)
	else
		echo "no QP numbers from counted_errors -b ($tag $qa $qb)" >>/tmp/counted_bound.out
	fi
	echo done >&$out
	cat <&$in >>/tmp/counted_bound.out
	exec {in}<&- {out}>&-
	wait $pid || rc=$?
	program_report counted_bound $rc /tmp/counted_bound.out
	ra=$(rx_of "$snap" "$qa") rb=$(rx_of "$snap" "$qb")
	if [ "$rb" = $n ] && [ "$ra" = 0 ] && [ $((h1 - h0)) = $n ]; then
		result counters_manual PASS "QP $qb's counter +$n WRITEs, QP $qa's 0; hw_counters $h0 -> $h1"
	else
		result counters_manual FAIL "QP $qb's counter '$rb', QP $qa's '$ra' (want $n and 0); hw_counters $h0 -> ${h1:-?}"
	fi
}
: >/tmp/counted_bound.out
manual_bind

if run_t 30 rdma statistic qp set link $dev/1 auto type,pid on; then
	bound
	run_t 30 rdma statistic qp set link $dev/1 auto off || result counters_auto_off FAIL "$RUN_OUT"
else
	result counters_bound FAIL "auto mode refused: $RUN_OUT"
fi
softcx_down counters
kmemleak_check softcx
finish
