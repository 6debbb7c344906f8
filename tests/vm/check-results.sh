#!/bin/bash
# check-results.sh [-w FEATURE]... RESULTS_LOG EXPECT_DIR PART...: what a
# suite.sh boot must have produced, judged on the host. For each part: its
# PART-BEGIN and PART-END lines (a part the guest never finished is a
# failure), exit status 0, and a RESULT line for every name
# EXPECT_DIR/PART.expect declares (one name per line; "#" starts a comment).
# A name tagged "needs:FEATURE" (e.g. needs:rxe, the reference device) is
# required like any other unless -w FEATURE says the guest's kernel lacks it;
# then the part must have said so itself ("ABSENT FEATURE ...") and the name
# must not be reported: it is listed as not run, never counted as passed.
# Prints one line per failure, "FAIL <part>/<what> <why>", a "not run:" line
# per name skipped that way, and a last line "parts: N checked, N failed";
# exits 1 on any failure.
set -uo pipefail
declare -A without=()
while getopts w: opt; do
	case $opt in
	w) without[$OPTARG]=1 ;;
	*) echo "usage: check-results.sh [-w FEATURE]... LOG DIR PART..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
log=$1 dir=$2
shift 2
checked=0 failed=0 notrun=()

fail() {
	failed=$((failed + 1))
	echo "FAIL $1 $2"
}

for part in "$@"; do
	checked=$((checked + 1))
	# The part's own lines, between its markers (CRs from the serial port dropped).
	body=$(tr -d '\r' <"$log" 2>/dev/null | sed -n "/^PART-BEGIN $part\$/,/^PART-END $part /p")
	if [ -z "$body" ]; then
		fail "$part/started" "no PART-BEGIN $part: the part never ran"
		continue
	fi
	end=$(grep -m1 "^PART-END $part " <<<"$body")
	if [ -z "$end" ]; then
		fail "$part/finished" "no PART-END $part: the guest stopped inside it"
	else
		rc=${end##* }
		if grep -q "^SUITE-STOPPED after $part:" < <(tr -d '\r' <"$log"); then
			fail "$part/exit" "status $rc: hung, killed by suite.sh (HANG-DUMP on the console)"
		elif [ "$rc" != 0 ]; then
			fail "$part/exit" "status $rc"
		fi
	fi
	exp=$dir/$part.expect
	if [ ! -f "$exp" ]; then
		fail "$part/expect" "no $exp"
		continue
	fi
	declare -A said=()
	while read -r name tag _; do
		[ -n "$name" ] && [ "${name#\#}" = "$name" ] || continue
		feat=${tag#needs:}
		if [ "${tag%%:*}" = needs ] && [ -n "${without[$feat]:-}" ]; then
			if [ -z "${said[$feat]:-}" ]; then
				grep -q "^ABSENT $feat\( \|\$\)" <<<"$body" &&
					said[$feat]=1 || { fail "$part/absent_$feat" "-w $feat, but the part did not say ABSENT $feat"; said[$feat]=0; }
			fi
			if grep -q "^RESULT $name " <<<"$body"; then
				fail "$part/$name" "reported, though $feat is absent"
			else
				notrun+=("$part/$name")
			fi
			continue
		fi
		grep -q "^RESULT $name " <<<"$body" || fail "$part/$name" "missing: no RESULT line"
	done <"$exp"
	unset said
done
[ ${#notrun[@]} = 0 ] || echo "not run: ${notrun[*]} (${!without[*]} absent from this kernel)"
echo "parts: $checked checked, $failed failed"
# What each part took (suite.sh's PART-TIME lines), not judged.
times=$(tr -d '\r' <"$log" 2>/dev/null | awk '$1 == "PART-TIME" { printf " %s=%ss", $2, $3 }')
[ -z "$times" ] || echo "times:$times"
[ $failed = 0 ]
