# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The count line every test script ends with, "NAME: N passed, N failed"
# or "NAME: N passed, N failed, N skipped" (tests/lib/tap.sh's tap_done,
# tests/vm/report.sh), read in one place.
#
#   count_line FILE [NAME-RE]   the last count line of FILE (of the name
#                               NAME-RE, an extended regex; default any
#                               name) into count_pass, count_fail,
#                               count_skip (0 when the line has none);
#                               false, with all three empty, when there is none
#   count_result FILE NAME-RE RC WHO WHAT
#                               the closing count of a run that exited with
#                               RC ("" when unknown), into the same three:
#                               no count line is 0 passed, 1 failed; a run
#                               whose RC is not 0 although its line says
#                               0 failed is 1 failed (a VM that died between
#                               suites, a script that stopped early); each
#                               said in one line "WHO: WHAT ..."
# shellcheck disable=SC2034 # the counts are the caller's
count_line() {
	count_pass='' count_fail='' count_skip=''
	count_l=$(grep -E "^${2:-[A-Za-z0-9_.+-]*}: [0-9]+ passed, [0-9]+ failed" "$1" 2> /dev/null | tail -n 1)
	[ -n "$count_l" ] || return 1
	count_pass=$(echo "$count_l" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
	count_fail=$(echo "$count_l" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	count_skip=$(echo "$count_l" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	: "${count_skip:=0}"
}

count_result() {
	if ! count_line "$1" "$2"; then
		count_pass=0 count_fail=1 count_skip=0
		echo "$4: $5 gave no result line: counted as a failure"
	fi
	if [ "${3:-x}" != 0 ] && [ "$count_fail" = 0 ]; then
		count_fail=1
		echo "$4: $5 exited with status ${3:-unknown} although it reported 0 failed: counted as a failure"
	fi
}
