#!/bin/sh
# bench_knobs_check under both rules, unset as tests/vm/guest/bench.sh calls it,
# refuse as tests/bench/run.sh does (refuse also shown end to end: cases.sh)
cd "${1:?}" || exit 1
. tests/bench/lib.sh
one() {
	printf '%s => ' "$*"
	o=$(env -u FB_BENCH_VARIANTS -u FB_BENCH_ORDER -u FB_BENCH_JOBS -u FB_BENCH_DAEMONS -u FB_BENCH_PERF_JOBS \
		"$@" sh -c '. tests/bench/lib.sh; bench_knobs_check "$0"' "$rule" 2>&1)
	echo "rc=$? $o"
}
for rule in unset refuse; do
	echo "== bench_knobs_check $rule"
	one FB_BENCH_VARIANTS="" FB_BENCH_DAEMONS=""
	one FB_BENCH_VARIANTS=" " FB_BENCH_DAEMONS=" "
	one FB_BENCH_DAEMONS=""
	one FB_BENCH_VARIANTS="raw bogus"
	one FB_BENCH_DAEMONS="xattr nope"
	one FB_BENCH_VARIANTS="raw overlayfs ours" FB_BENCH_ORDER=interleave FB_BENCH_JOBS="1 2 4 8" FB_BENCH_DAEMONS=xattr FB_BENCH_PERF_JOBS=4
done
echo "== bench_knobs_check bogus"
rule=bogus one
