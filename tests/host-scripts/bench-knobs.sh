# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: make bench's knobs (bench_knobs_check,
# tests/bench/lib.sh, which tests/bench/run.sh runs before it builds)
# for the A/A control raw2: accepted interleaved beside raw, refused in one
# line without raw, in blocks order and under a name that is no variant.
# Sourced by it, in its shell and its TAP count ($top, $work, ok, notok).
# shellcheck shell=sh disable=SC2154

# bk_check VARIANTS ORDER: bench_knobs_check refuse's exit and line in $bk_out
bk_check() {
	bk_out=$(FB_BENCH_VARIANTS=$1 FB_BENCH_ORDER=$2 sh -c '. "$1/tests/bench/lib.sh" && bench_knobs_check refuse' sh "$top")
}
if bk_check "raw2 raw ours" interleave && [ -z "$bk_out" ]; then
	ok "bench knobs: FB_BENCH_VARIANTS=\"raw2 raw ours\" interleaved is accepted"
else
	echo "refused: $bk_out" > "$work/err"
	notok "bench knobs: FB_BENCH_VARIANTS=\"raw2 raw ours\" interleaved is accepted"
fi
# bk_refuse WHAT VARIANTS ORDER REGEX: refused with one line matching REGEX
bk_refuse() {
	if bk_check "$2" "$3"; then
		echo "accepted" > "$work/err"
		notok "bench knobs refuse $1"
	elif [ "$(echo "$bk_out" | wc -l)" != 1 ] || ! echo "$bk_out" | grep -Eq "$4"; then
		echo "got: $bk_out" > "$work/err"
		notok "bench knobs refuse $1: not one line matching /$4/"
	else
		ok "bench knobs refuse $1: $bk_out"
	fi
}
bk_refuse "raw2 without raw" "raw2 ours" interleave 'raw2, the A/A control, is paired with raw.s runs: list raw too'
bk_refuse "raw2 in blocks order" "raw2 raw ours" blocks 'raw2, the A/A control, needs FB_BENCH_ORDER=interleave'
bk_refuse "a variant that is none" "raw3 raw ours" interleave "must be names from 'raw raw2 overlayfs stock unpatched ours'"
