# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: how a run's closing count is taken
# (tests/lib/count.sh's count_result, which make check's sections and
# make check-debug use): the last count line of the name asked for; a run
# with no count line is 1 failed; a run that exited non-zero although its
# line says 0 failed is 1 failed; each of those said in one line. Fake
# logs, no section run. Sourced by it, in its shell and its TAP count
# ($top, $work, ok, notok). FB_COUNT_LIB (a red run): another count.sh.
# shellcheck shell=sh disable=SC2154

# shellcheck source=tests/lib/count.sh
. "${FB_COUNT_LIB:-$top/tests/lib/count.sh}"
cr=$work/count
mkdir -p "$cr"
printf 'ok 1 - a\nvm-6.1.0-57: 9 passed, 0 failed\nsuite: 1 passed, 4 failed\nvm-6.12.95+deb12: 5 passed, 0 failed, 2 skipped\n' > "$cr/many"
printf 'ok 1 - a\nnot ok 2 - b\nx: 3 passed, 2 failed\n' > "$cr/red"
printf 'ok 1 - a\nBail out! the guest died\n' > "$cr/none"
# cr_case NAME FILE NAME-RE RC WANT LINES: count_result's three numbers
# ("P F S") must be WANT and its output LINES lines matching nothing else
# than its two messages
cr_case() {
	count_result "$2" "$3" "$4" check "sec" > "$cr/out"
	got="$count_pass $count_fail $count_skip"
	n=$(wc -l < "$cr/out")
	if [ "$got" = "$5" ] && [ "$n" = "$6" ] &&
		! grep -qv '^check: sec \(gave no result line\|exited with status .* although it reported 0 failed\): counted as a failure$' "$cr/out"; then
		ok "count_result: $1: $got ($(head -n 1 "$cr/out"))"
	else
		echo "got '$got' and $n lines, want '$5' and $6: $(head -n 2 "$cr/out" | tr '\n' ' ')" > "$work/err"
		notok "count_result: $1"
	fi
}
cr_case "the last count line, exit 0" "$cr/many" "" 0 "5 0 2" 0
cr_case "the line of the name asked for" "$cr/many" 'vm-6\.1\.0-57' 0 "9 0 0" 0
cr_case "exit 1 although 0 failed: 1 failed, one line" "$cr/many" "" 1 "5 1 2" 1
cr_case "no exit status at all: 1 failed, one line" "$cr/many" "" "" "5 1 2" 1
cr_case "exit 1 with 2 failed: 2 failed, nothing said" "$cr/red" "" 1 "3 2 0" 0
cr_case "no count line: 0 passed, 1 failed, one line" "$cr/none" "" 0 "0 1 0" 1
