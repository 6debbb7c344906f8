# shellcheck shell=bash
# Helpers for in-guest test scripts (bash); run-guest.sh ships this file as
# /harness/common.sh. Source it:  . "${BASH_SOURCE%/*}/common.sh"
# Sourced, so no shell options are set here.
#
# Under TCG every fork+exec costs tens of ms: helpers use bash builtins where
# they can, and return output in $RUN_OUT instead of through $(...).

RESULTS_PORT=/dev/ttyS1 # results.log on the host
PEER_IP=10.0.0.1
_passed=0 _failed=0

# Set by a helper that had to run something again (RETRIED=N, its cause):
# the next result line says so, and the host counts it in its summary.
RETRY_NOTE=

# say LINE: to the console and the results port.
say() {
	echo "$1"
	echo "$1" >"$RESULTS_PORT" 2>/dev/null || true
}

# result NAME PASS|FAIL [details]: one RESULT line to the results port and console.
result() {
	local line="RESULT $1 $2${3:+ ${*:3}}"
	[ -z "$RETRY_NOTE" ] || line+=" [$RETRY_NOTE]"
	RETRY_NOTE=
	say "$line"
	if [ "$2" = PASS ]; then _passed=$((_passed + 1)); else _failed=$((_failed + 1)); fi
}

# wait_children PID SECS: until process PID has no child left (or SECS
# passed); false if one is left. qperf's server forks a child per test,
# which ends (crashing in libibverbs, Debian's qperf 0.4.11) only after the
# client has its figures: the next test waits for it.
wait_children() {
	local pid=$1 i p st found
	for ((i = 0; i < $2 * 10; i++)); do
		found=
		for p in /proc/[0-9]*/stat; do
			st=$(<"$p") 2>/dev/null || continue
			# After "pid (comm) ": state, then the parent's pid.
			st=${st##*) }
			[ "$(cut -d' ' -f2 <<<"$st")" = "$pid" ] && { found=1; break; }
		done
		[ -z "$found" ] && return 0
		sleep 0.1
	done
	return 1
}

# run_t SECS cmd...: run with a timeout; logs the command and its output,
# leaves the output in $RUN_OUT and returns the command's status (124: timeout).
run_t() {
	local secs=$1 rc=0
	shift
	echo "+ $*" >&2
	RUN_OUT=$(timeout "$secs" "$@" 2>&1) || rc=$?
	[ -z "$RUN_OUT" ] || printf '%s\n' "$RUN_OUT" >&2
	[ $rc = 0 ] || echo "+ exit status $rc" >&2
	return $rc
}

# setup_netdev: dummy0 with $PEER_IP/24, up. dummy.ko usually creates dummy0
# itself (numdummies=1), so only add it when missing.
setup_netdev() {
	run_t 30 modprobe dummy || return
	[ -e /sys/class/net/dummy0 ] || run_t 10 ip link add dummy0 type dummy || return
	run_t 10 ip addr replace "$PEER_IP/24" dev dummy0 || return
	run_t 10 ip link set dummy0 up
}

# rxe_absent: true when this kernel has no rdma_rxe at all (Debian's cloud
# kernel), and then says so on the results port ("ABSENT rxe"): the host
# accepts the rxe results' absence only for a kernel it knows lacks rxe
# (check-results.sh -w rxe). A kernel that has it but fails to load it is
# not "absent": rxe_up fails and so do the results.
rxe_absent() {
	modinfo -F filename rdma_rxe >/dev/null 2>&1 && return 1
	say "ABSENT rxe $(uname -r) has no rdma_rxe: no reference to compare with"
}

# rxe_up [DEV [NETDEV]]: Soft-RoCE device DEV (rxe0) on NETDEV (dummy0).
rxe_up() {
	local dev=${1:-rxe0} nd=${2:-dummy0}
	run_t 60 modprobe -a rdma_rxe rdma_ucm ib_umad || return
	[ -e "/sys/class/infiniband/$dev" ] || run_t 30 rdma link add "$dev" type rxe netdev "$nd"
}

# rxe_remove_all: every rdma_rxe device gone (an earlier part's rxe0 on
# dummy0 would answer for softcx_0's address).
rxe_remove_all() {
	local d
	for d in /sys/class/infiniband/rxe*; do
		[ -e "$d" ] && run_t 30 rdma link delete "${d##*/}"
	done
}

# roce_v2_ipv4_gid_index DEV: print the index of DEV's RoCE v2 IPv4-mapped GID.
# Only the first 16 of the 1024 entries are read (builtins only: a `cat` per
# entry costs ~35 s per device under TCG). GIDs are filled in asynchronously
# after `rdma link add`, so retry for a few seconds.
roce_v2_ipv4_gid_index() {
	local p=/sys/class/infiniband/$1/ports/1 i try gid type
	for ((try = 0; try < 25; try++)); do
		for ((i = 0; i < 16; i++)); do
			read -r gid <"$p/gids/$i" 2>/dev/null || continue
			read -r type <"$p/gid_attrs/types/$i" 2>/dev/null || continue
			if [ "$type" = "RoCE v2" ] && [[ $gid == 0000:0000:0000:0000:0000:ffff:* ]]; then
				echo "$i"
				return 0
			fi
		done
		sleep 0.2
	done
	echo "no RoCE v2 IPv4 GID on $1" >&2
	return 1
}

# pingpong_pair DEV GIDX TOOL [args...]: TOOL (an ibv_*_pingpong) as server in
# the background and as client against $PEER_IP; both must exit 0. The client
# output is left in $RUN_OUT. The client is retried while the server is not
# listening yet (slow start under TCG).
pingpong_pair() {
	local dev=$1 gidx=$2 tool=$3 srv_rc=0 cli_rc=0 try spid
	shift 3
	local srv_log=/tmp/pp-server.$$
	echo "+ server: $tool -d $dev -g $gidx $*" >&2
	timeout 120 "$tool" -d "$dev" -g "$gidx" "$@" >"$srv_log" 2>&1 &
	spid=$!
	sleep 1
	for ((try = 0; try < 5; try++)); do
		cli_rc=0
		run_t 100 "$tool" -d "$dev" -g "$gidx" "$@" "$PEER_IP" || cli_rc=$?
		[ $cli_rc != 0 ] && [[ $RUN_OUT == *"Couldn't connect"* ]] && kill -0 "$spid" 2>/dev/null || break
		sleep 1
	done
	[ "$try" = 0 ] || RETRY_NOTE="RETRIED=$try(client connect: server not listening yet)"
	local client_out=$RUN_OUT
	wait "$spid" || srv_rc=$?
	echo "+ server exit status $srv_rc:" >&2
	cat "$srv_log" >&2
	rm -f "$srv_log"
	RUN_OUT=$client_out
	[ $srv_rc = 0 ] && [ $cli_rc = 0 ]
}

# median NUMBERS...: the middle one (the lower of the two middle ones of
# an even count); "-" if none are given.
median() {
	if [ $# = 0 ]; then
		echo -
		return
	fi
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# perftest_pair DEV GIDX TOOL [args...]: a perftest server and client on DEV
# (loopback through PEER_IP); both must exit 0. The client's output is left
# in RUN_OUT and its last results-table row in PERF_ROW. perftest times
# itself by the TSC and gives up ("Can't produce a report") when its
# calibration against the clock is too noisy, as it often is under TCG with
# KASAN; the side that gave up exits, and the other then fails its final
# key exchange over TCP. Such a run is repeated (up to six in all), and
# says so.
perftest_pair() {
	local attempt rc=1 why=()
	CONNECT_TRIES=0
	for attempt in 1 2 3 4 5 6; do
		perftest_pair_once "$@" && { rc=0; break; }
		perftest_noise /tmp/perf-last.log || break
		echo "+ perftest could not calibrate its clock (TCG noise): again" >&2
	done
	# Each attempt ran all its traffic (the calibration is in the report).
	PERF_ATTEMPTS=$attempt
	[ $attempt = 1 ] || why+=("$((attempt - 1))x perftest clock calibration")
	[ $CONNECT_TRIES = 0 ] || why+=("${CONNECT_TRIES}x client connect: server not listening yet")
	[ ${#why[@]} = 0 ] || RETRY_NOTE="RETRIED=$((attempt - 1 + CONNECT_TRIES))(${why[*]})"
	return $rc
}

# perftest_noise LOG: the run failed for perftest's own clock calibration
# (it says so, or warns of a poor fit, or its latency table reports inf).
perftest_noise() {
	grep -qE "Can't produce a report|Correlation coefficient r\^2|^ *[0-9]+ +[0-9]+ +(inf|-?nan) " "$1" 2>/dev/null
}

# Kernel arg perf_bw_iters=N: the bandwidth tools run N iterations where
# the caller gave none (perftest's default is 5000). The test kernel, where
# KASAN and lockdep make every packet slow, runs the same tests shorter.
PERF_BW_ITERS=
for arg in $(</proc/cmdline); do
	case $arg in perf_bw_iters=*) PERF_BW_ITERS=${arg#perf_bw_iters=} ;; esac
done

perftest_pair_once() {
	local dev=$1 gidx=$2 tool=$3 srv_rc=0 cli_rc=0 spid try
	shift 3
	if [[ $tool == ib_*_bw && -n $PERF_BW_ITERS && " $* " != *" -n "* ]]; then
		set -- "$@" -n "$PERF_BW_ITERS"
	fi
	local log=/tmp/perf-server.$$
	echo "+ server: $tool -d $dev -x $gidx $*" >&2
	timeout 300 "$tool" -d "$dev" -x "$gidx" "$@" >"$log" 2>&1 &
	spid=$!
	sleep 1
	for ((try = 0; try < 5; try++)); do
		cli_rc=0
		run_t 290 "$tool" -d "$dev" -x "$gidx" "$@" "$PEER_IP" || cli_rc=$?
		[ $cli_rc != 0 ] && [[ $RUN_OUT == *"Couldn't connect"* ]] && kill -0 $spid 2>/dev/null || break
		sleep 1
	done
	[ "$try" = 0 ] || CONNECT_TRIES=$((CONNECT_TRIES + try))
	wait $spid || srv_rc=$?
	echo "+ server exit status $srv_rc:" >&2
	cat "$log" >&2
	{ cat "$log"; echo "$RUN_OUT"; } >/tmp/perf-last.log
	rm -f "$log"
	PERF_ROW=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' <<<"$RUN_OUT" | tail -1 | tr -s ' ' | sed 's/^ //')
	# A latency tool whose calibration failed still exits 0, with inf in
	# its row for that size: that size was not measured.
	if grep -qE '^ *[0-9]+ +[0-9]+ +(inf|-?nan) ' <<<"$RUN_OUT"; then
		PERF_ROW="$(grep -E '^ *[0-9]+ +[0-9]+ +(inf|-?nan) ' <<<"$RUN_OUT" | head -1 | tr -s ' ' | sed 's/^ //') (not measured)"
		return 1
	fi
	[ $srv_rc = 0 ] && [ $cli_rc = 0 ] && [ -n "$PERF_ROW" ]
}

# perf_result DEV GIDX NAME TOOL [args]: a perftest server and client on the same
# device, reported as result NAME with perftest's results row.
perf_result() {
	local dev=$1 gidx=$2 name=$3
	shift 3
	if perftest_pair "$dev" "$gidx" "$@"; then
		result "$name" PASS "$PERF_ROW"
	else
		result "$name" FAIL "${PERF_ROW:-no results row}"
	fi
}

# run_program NAME SECS CMD...: a test program that prints its own RESULT
# lines: they become ours, its other lines go to the log. Exit 0 with no
# failed case, or 1 with some, is its normal end; anything else (a crash, a
# timeout: a hang it could not catch itself) is a result NAME_run of its own.
run_program() {
	local name=$1 secs=$2 rc=0
	shift 2
	echo "+ $*" >&2
	timeout "$secs" "$@" >"/tmp/$name.out" 2>&1 || rc=$?
	program_report "$name" $rc "/tmp/$name.out"
}

# program_report NAME RC OUT [SUFFIX]: run_program's judgement of a program
# that ended with status RC and wrote OUT; SUFFIX goes after every RESULT
# name (several copies of one program in parallel).
program_report() {
	local name=$1 rc=$2 out=$3 sfx=${4:-} fails=0 line
	while IFS= read -r line; do
		if [[ $line =~ ^RESULT\ ([^ ]+)\ (PASS|FAIL)\ ?(.*)$ ]]; then
			[ "${BASH_REMATCH[2]}" = PASS ] || fails=$((fails + 1))
			result "${BASH_REMATCH[1]}$sfx" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"
		else
			echo "$line"
		fi
	done <"$out"
	{ [ "$rc" = 0 ] && [ $fails = 0 ]; } || { [ "$rc" = 1 ] && [ $fails -gt 0 ]; } ||
		result "${name}_run$sfx" FAIL "exit status $rc with $fails failed cases"
}

# finish: summary line; non-zero if any result failed (use as the last command).
finish() {
	say "SUMMARY: $_passed passed, $_failed failed"
	[ $_failed = 0 ]
}

# kmemleak_begin: forget everything allocated so far (boot-time objects), so
# a later kmemleak_check reports only what the test leaked.
kmemleak_begin() {
	[ -n "${SCX_SUITE:-}" ] && return 0 # suite.sh clears once for all parts
	[ -e /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
	return 0
}

# kmemleak_check TAG: on kernels with kmemleak, scan twice (objects need two
# scans to be reported) and fail on any report but one kind, printed whole
# (the host's scan-log.sh then fails the run on it too). The exception
# (README): a process's task_struct and signal_struct from copy_process and
# its cred from prepare_creds, with no softcx or RDMA frame — the Linux 6.1
# RDMA core's task reference leak when GET_CONTEXT fails through ioctl,
# which libmlx5's first (DevX) request to softcx always does
# (tests/verbs/ctx_leak_repro.c, reproduced without softcx by
# tests/vm/guest/kmemleak-repro.sh). Those are counted and named in the
# RESULT line, printed with their header reworded. Skipped where kmemleak
# is absent.
kmemleak_check() {
	local f=/sys/kernel/debug/kmemleak
	[ -e $f ] || return 0
	[ -n "${SCX_SUITE:-}" ] && return 0 # suite.sh scans once after all parts
	echo scan >$f
	sleep 1
	echo scan >$f
	local report rest rec ours=0 fail=0 known=0
	if ! report=$(cat $f); then
		result "kmemleak_$1" FAIL "cannot read $f"
		return 1
	fi
	# One record per object (builtins only: nothing here may read nothing
	# and pass).
	rest=$report
	while [[ $rest == *"unreferenced object"* ]]; do
		rest=${rest#*unreferenced object}
		rec=${rest%%unreferenced object*}
		if [[ $rec =~ \[(softcx|softcx_kunit|ib_core|ib_uverbs|ib_cm|rdma_cm|rdma_ucm|rdma_rxe|ib_umad|iw_cm)\]|scx_|ib_|rdma_ ]]; then
			ours=$((ours + 1))
		elif [[ $rec == *copy_process* || $rec == *prepare_creds* ]]; then
			known=$((known + 1))
			printf 'KMEMLEAK-KNOWN object%s\n' "$rec"
			continue
		fi
		fail=$((fail + 1))
		printf 'unreferenced object%s\n' "$rec"
	done
	# (Worded so that scan-log.sh, which looks for kmemleak's own header,
	# does not take the result line for a report.)
	if [ $fail = 0 ]; then
		result "kmemleak_$1" PASS "no leak reported$([ $known = 0 ] || echo " but $known objects of the 6.1 core's GET_CONTEXT task leak (task_struct, signal_struct, cred; README)")"
	else
		result "kmemleak_$1" FAIL "$fail leaked objects reported, $ours with softcx/RDMA frames"
	fi
}

# load_softcx [params...]: the RDMA core modules softcx needs, then softcx.ko
# from the overlay.
# Module parameters on the kernel command line (softcx.NAME=VALUE) are
# added, as modprobe would add them.
load_softcx() {
	local arg extra=()
	for arg in $(</proc/cmdline); do
		case $arg in softcx.*=*) extra+=("${arg#softcx.}") ;; esac
	done
	run_t 60 modprobe -a ib_core ib_uverbs rdma_ucm || return
	run_t 120 insmod /harness/extra/softcx.ko "${extra[@]}" "$@"
}

# dev_rx_pkts DEV: the packets RDMA device DEV has taken in so far
# (softcx: debugfs dp's rx_pkts; rxe: its rcvd_pkts counter).
dev_rx_pkts() {
	case $1 in
	softcx*) awk '$1 == "rx_pkts" { print $2 }' "/sys/kernel/debug/softcx/$1/dp" ;;
	*) cat "/sys/class/infiniband/$1/ports/1/hw_counters/rcvd_pkts" ;;
	esac
}

# softcx_up PREFIX [params...]: dummy0, softcx loaded (with params) and
# softcx_0 on it, its RoCEv2 IPv4 GID index in GIDX. A part cannot go on
# without it: on failure, result PREFIX_link_add FAIL, the summary, exit 1.
softcx_up() {
	local prefix=$1
	shift
	setup_netdev || result "${prefix}_netdev" FAIL dummy0
	if load_softcx "$@" && run_t 60 rdma link add softcx_0 type softcx netdev dummy0 &&
		GIDX=$(roce_v2_ipv4_gid_index softcx_0); then
		return 0
	fi
	dmesg | tail -20
	result "${prefix}_link_add" FAIL
	finish
	exit 1
}

# softcx_down PREFIX: softcx_0 deleted and the module unloaded, as result
# PREFIX_teardown.
softcx_down() {
	if run_t 60 rdma link delete softcx_0 && run_t 120 rmmod softcx; then
		result "$1_teardown" PASS
	else
		result "$1_teardown" FAIL
	fi
}
