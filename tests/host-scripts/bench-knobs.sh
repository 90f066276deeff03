# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: make bench's knobs (bench_knobs_check,
# bench/lib.sh, which bench/run.sh runs before it builds)
# for the A/A control raw2: accepted interleaved beside raw, refused in one
# line without raw, in blocks order and under a name that is no variant;
# for the workloads: latfiles accepted up to numjobs 8 (its files), refused
# beyond (FB_BENCH_JOBS or FB_BENCH_PERF_JOBS), a name that is no workload
# refused, the list set but empty refused on the host and unset in the guest;
# for the clock (FB_BENCH_CLOCK): wall, icount and icount:SHIFT accepted,
# any other word or shift refused in one line, by bench_knobs_check (which
# bench/run.sh runs before it builds) and by tests/vm/boot.sh --icount.
# Sourced by it, in its shell and its TAP count ($top, $work, ok, notok).
# shellcheck shell=sh disable=SC2154

# bk_check VARIANTS ORDER [WORKLOADS [JOBS [PERF_JOBS]]]: bench_knobs_check
# (the host's "refuse", or $bk_mode)'s exit and line in $bk_out; a knob not
# given, or given as "-", is unset, one given empty is set but empty;
# FB_BENCH_CLOCK is $bk_clock when that is set
bk_check() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	bk_out=$(FB_BENCH_VARIANTS="$1" FB_BENCH_ORDER="$2" sh -c '
		unset FB_BENCH_WORKLOADS FB_BENCH_JOBS FB_BENCH_PERF_JOBS FB_BENCH_DAEMONS FB_BENCH_CLOCK
		[ -z "$6" ] || export FB_BENCH_CLOCK="$6"
		[ "$2" = - ] || export FB_BENCH_WORKLOADS="$2"
		[ "$3" = - ] || export FB_BENCH_JOBS="$3"
		[ "$4" = - ] || export FB_BENCH_PERF_JOBS="$4"
		. "$1/bench/lib.sh" && bench_knobs_check "$5"' sh "$top" "${3--}" "${4--}" "${5--}" "${bk_mode:-refuse}" "${bk_clock:-}")
}
if bk_check "raw2 raw ours" interleave && [ -z "$bk_out" ]; then
	ok "bench knobs: FB_BENCH_VARIANTS=\"raw2 raw ours\" interleaved is accepted"
else
	echo "refused: $bk_out" > "$work/err"
	notok "bench knobs: FB_BENCH_VARIANTS=\"raw2 raw ours\" interleaved is accepted"
fi
# bk_refuse WHAT VARIANTS ORDER REGEX [WORKLOADS [JOBS [PERF_JOBS]]]:
# refused with one line matching REGEX
bk_refuse() {
	if bk_check "$2" "$3" "${5--}" "${6--}" "${7--}"; then
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
if bk_check "raw overlayfs stock ours" interleave "lat latfiles" "1 2 4 8" && [ -z "$bk_out" ]; then
	ok "bench knobs: FB_BENCH_WORKLOADS=\"lat latfiles\" at numjobs 1 2 4 8 is accepted"
else
	echo "refused: $bk_out" > "$work/err"
	notok "bench knobs: FB_BENCH_WORKLOADS=\"lat latfiles\" at numjobs 1 2 4 8 is accepted"
fi
bk_refuse "latfiles beyond its 8 files" "raw ours" interleave \
	'^FB_BENCH_JOBS: workload latfiles has a file for each of up to 8 jobs, not numjobs 16$' latfiles "1 16"
bk_refuse "latfiles profiled beyond its 8 files" "raw ours" interleave \
	'^FB_BENCH_PERF_JOBS: workload latfiles has a file for each of up to 8 jobs, not numjobs 16$' latfiles "1 2" 16
bk_refuse "FB_BENCH_WORKLOADS set but empty (the host)" "raw ours" interleave \
	"FB_BENCH_WORKLOADS must be names from 'lat latfiles aio stat hp', not ''$" ""
# the guest is handed the knobs set but empty when unset on the host
bk_mode="unset"
if bk_check "raw ours" interleave "" && [ -z "$bk_out" ]; then
	ok "bench knobs: FB_BENCH_WORKLOADS set but empty counts as unset in the guest"
else
	echo "refused: $bk_out" > "$work/err"
	notok "bench knobs: FB_BENCH_WORKLOADS set but empty counts as unset in the guest"
fi
bk_mode=""
bk_refuse "a workload that is none" "raw ours" interleave \
	"FB_BENCH_WORKLOADS must be names from 'lat latfiles aio stat hp', not 'lat latfile'" "lat latfile"

# the clock
for bk_clock in wall icount icount:0 icount:10; do
	if bk_check "raw2 raw" interleave lat && [ -z "$bk_out" ]; then
		ok "bench knobs: FB_BENCH_CLOCK=$bk_clock is accepted"
	else
		echo "refused: $bk_out" > "$work/err"
		notok "bench knobs: FB_BENCH_CLOCK=$bk_clock is accepted"
	fi
done
for bk_clock in icount:11 icount: cpu; do
	bk_refuse "FB_BENCH_CLOCK=$bk_clock" "raw2 raw" interleave \
		"^FB_BENCH_CLOCK must be wall, icount or icount:SHIFT \\(SHIFT 0 to 10\\), not '$bk_clock'\$" lat
done
bk_clock=""
# tests/vm/boot.sh's own check, before anything else: a --kdir that is
# not there, so that a runner that lets the shift through stops there,
# booting and fetching nothing
FB_OUT=$work/vm sh "$top/tests/vm/boot.sh" --kdir "$work/no-tree" --icount 11 -- true > "$work/out" 2> "$work/err"
bk_rc=$?
if [ $bk_rc = 2 ] && [ "$(cat "$work/err")" = "vm: --icount needs a shift from 0 to 10, not '11'" ]; then
	ok "tests/vm/boot.sh refuses --icount 11 in one line"
else
	echo "exit $bk_rc" >> "$work/err"
	notok "tests/vm/boot.sh refuses --icount 11 in one line"
fi
