#!/bin/bash
# Host unit test of check-results.sh: a complete run passes; a part that
# exits before its RESULT lines, one that fails its exit status, one the
# guest never finished, one suite.sh killed as hung, one never started and
# one with a declared name missing each fail, and are named.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/exp"
printf '# comment\nalpha\nbeta\n\n' >"$tmp/exp/one.expect"
printf 'gamma\nref_delta needs:ref\n' >"$tmp/exp/two.expect"

good() {
	sed 's/$/\r/' <<'EOF'
PART-BEGIN one
RESULT alpha PASS
RESULT beta FAIL something
PART-END one 0
PART-TIME one 4
PART-BEGIN two
RESULT gamma PASS 3 ok
RESULT ref_delta PASS
PART-END two 0
PART-TIME two 7
EOF
}

expect() { # expect WANT(0|1) PATTERN LOG [ABSENT]: exit status and a FAIL line matching
	local rc=0 out
	out=$("$here/check-results.sh" ${4:+-w "$4"} "$3" "$tmp/exp" one two) || rc=$?
	if [ "$1" = 0 ] && [ $rc = 0 ]; then return 0; fi
	if [ "$1" = 1 ] && [ $rc = 1 ] && grep -q "$2" <<<"$out"; then return 0; fi
	echo "check-results on $3: status $rc, wanted $1 with '$2':"
	echo "$out"
	exit 1
}

good >"$tmp/good.log"
expect 0 '' "$tmp/good.log"
# Each part's time, as suite.sh reported it, on a line of its own.
grep -qx 'times: one=4s two=7s' < <("$here/check-results.sh" "$tmp/good.log" "$tmp/exp" one two) ||
	{ echo "check-results: no 'times: one=4s two=7s' line"; exit 1; }
# A part that died before its RESULT lines (exit status 1).
good | sed '/alpha\|beta/d; s/^PART-END one 0/PART-END one 1/' >"$tmp/early.log"
expect 1 'FAIL one/alpha missing' "$tmp/early.log"
expect 1 'FAIL one/exit status 1' "$tmp/early.log"
# All names there, but the part's script failed.
good | sed 's/^PART-END two 0/PART-END two 2/' >"$tmp/status.log"
expect 1 'FAIL two/exit status 2' "$tmp/status.log"
# The guest stopped inside part two.
good | sed '/^PART-END two/d' >"$tmp/crash.log"
expect 1 'FAIL two/finished' "$tmp/crash.log"
# suite.sh found part one hung, killed it and stopped: both said.
good | sed '/beta/,$d' >"$tmp/hung.log"
printf 'PART-END one 124\r\nSUITE-STOPPED after one: it hung\r\n' >>"$tmp/hung.log"
expect 1 'FAIL one/exit status 124: hung' "$tmp/hung.log"
expect 1 'FAIL two/started' "$tmp/hung.log"
# Part two never started.
good | sed '/two\|gamma/d' >"$tmp/never.log"
expect 1 'FAIL two/started' "$tmp/never.log"
# A name from another part does not count for this one.
good | sed '/RESULT gamma/d; s/^RESULT alpha PASS/RESULT gamma PASS/' >"$tmp/moved.log"
expect 1 'FAIL two/gamma missing' "$tmp/moved.log"
# A name that needs a feature ("needs:ref") is required like any other...
good | sed '/ref_delta/d' >"$tmp/noref.log"
expect 1 'FAIL two/ref_delta missing' "$tmp/noref.log"
# ...unless the host says the kernel lacks it and the part said so too:
# then it is listed as not run, not counted.
good | sed 's/^RESULT ref_delta PASS/ABSENT ref no such module/' >"$tmp/absent.log"
expect 0 '' "$tmp/absent.log" ref
out=$("$here/check-results.sh" -w ref "$tmp/absent.log" "$tmp/exp" one two)
grep -qx 'not run: two/ref_delta (ref absent from this kernel)' <<<"$out" ||
	{ echo "check-results: no 'not run: two/ref_delta' line"; exit 1; }
# The host's word alone is not enough: the guest must agree it is absent.
expect 1 'FAIL two/absent_ref' "$tmp/noref.log" ref
# A result from a feature said to be absent is a contradiction.
expect 1 'FAIL two/ref_delta reported' "$tmp/good.log" ref
echo "check-results.sh: all cases behave"
