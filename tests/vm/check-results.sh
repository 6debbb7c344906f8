#!/bin/bash
# check-results.sh RESULTS_LOG EXPECT_DIR PART...: what a suite.sh boot must
# have produced, judged on the host. For each part: its PART-BEGIN and
# PART-END lines (a part the guest never finished is a failure), exit status
# 0, and a RESULT line for every name EXPECT_DIR/PART.expect declares (one
# name per line; "#" starts a comment). Prints one line per failure,
# "FAIL <part>/<what> <why>", and a last line "parts: N checked, N failed";
# exits 1 on any failure.
set -uo pipefail
log=$1 dir=$2
shift 2
checked=0 failed=0

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
		[ "$rc" = 0 ] || fail "$part/exit" "status $rc"
	fi
	exp=$dir/$part.expect
	if [ ! -f "$exp" ]; then
		fail "$part/expect" "no $exp"
		continue
	fi
	while read -r name _; do
		[ -n "$name" ] && [ "${name#\#}" = "$name" ] || continue
		grep -q "^RESULT $name " <<<"$body" || fail "$part/$name" "missing: no RESULT line"
	done <"$exp"
done
echo "parts: $checked checked, $failed failed"
# What each part took (suite.sh's PART-TIME lines), not judged.
times=$(tr -d '\r' <"$log" 2>/dev/null | awk '$1 == "PART-TIME" { printf " %s=%ss", $2, $3 }')
[ -z "$times" ] || echo "times:$times"
[ $failed = 0 ]
