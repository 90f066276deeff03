# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# TAP helpers for the suites. Sourced; the suite sets FB_TARGET (stock, ours,
# unpatched) in the environment.
#
#   tap_check RC DESC          ok when RC is 0
#   tap_new RC DESC WHY        a test of something the target may lack: on
#                              ours it is tap_check; on stock/unpatched a
#                              failure is the expected result ("expected on
#                              stock: WHY") and a pass is a failure (the test
#                              could not tell the difference)
#   tap_stock RC STOCKRC DESC WHY
#                              a test of something the target lacks, where
#                              the target's own behaviour is asserted too:
#                              on ours it is tap_check RC; on stock/
#                              unpatched STOCKRC is the check of the specific
#                              stock behaviour (WHY): 0 is the expected
#                              failure, anything else (an error, another
#                              outcome) fails
#   tap_skip DESC WHY          loud skip
#   tap_done                   plan and "SUITE: N passed, N failed, N skipped";
#                              returns non-zero when anything failed

tap_n=0 tap_pass=0 tap_fail=0 tap_skipped=0
tap_suite=${tap_suite:-$(basename "$0" .sh)}

tap_check() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		tap_pass=$((tap_pass + 1))
		echo "ok $tap_n - $2"
	else
		tap_fail=$((tap_fail + 1))
		echo "not ok $tap_n - $2"
	fi
}

tap_new() {
	case ${FB_TARGET:-ours} in
	ours)
		tap_check "$1" "$2"
		;;
	*)
		tap_n=$((tap_n + 1))
		if [ "$1" != 0 ]; then
			tap_pass=$((tap_pass + 1))
			echo "ok $tap_n - $2 # fails as expected on $FB_TARGET: $3"
		else
			tap_fail=$((tap_fail + 1))
			echo "not ok $tap_n - $2 # passed on $FB_TARGET, so this test cannot tell ($3)"
		fi
		;;
	esac
}

tap_stock() {
	case ${FB_TARGET:-ours} in
	ours)
		tap_check "$1" "$3"
		;;
	*)
		tap_n=$((tap_n + 1))
		if [ "$2" = 0 ]; then
			tap_pass=$((tap_pass + 1))
			echo "ok $tap_n - $3 # fails as expected on $FB_TARGET: $4"
		else
			tap_fail=$((tap_fail + 1))
			echo "not ok $tap_n - $3 # on $FB_TARGET neither the fix nor the expected stock behaviour ($4)"
		fi
		;;
	esac
}

tap_skip() {
	tap_n=$((tap_n + 1))
	tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_n - $1 # SKIP $2"
	echo "SKIPPED: $tap_suite: $1: $2" >&2
}

# tap_skip_n N NAME WHY: N skips, "NAME test 1" to "NAME test N" (the tests
# a mode would have run).
tap_skip_n() {
	tap_i=0
	while [ $tap_i -lt "$1" ]; do
		tap_i=$((tap_i + 1))
		tap_skip "$2 test $tap_i" "$3"
	done
}

tap_diag() {
	echo "$*" | sed 's/^/# /'
}

tap_done() {
	echo "1..$tap_n"
	echo "$tap_suite: $tap_pass passed, $tap_fail failed, $tap_skipped skipped"
	[ "$tap_fail" = 0 ]
}
