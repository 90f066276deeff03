#!/bin/sh
# usage: cases.sh CHECKOUT: each bad knob value against tests/bench/run.sh
# (each dies before anything is built); prints the case, exit status, output
top=${1:?}
cd "$top" || exit 1
one() {
	printf '%s => ' "$*"
	o=$(env -u FB_BENCH_VARIANTS -u FB_BENCH_ORDER -u FB_BENCH_JOBS -u FB_BENCH_DAEMONS -u FB_BENCH_PERF_JOBS \
		"$@" sh tests/bench/run.sh 6.12.95+deb12-amd64 2>&1)
	echo "rc=$? $(echo "$o" | wc -l) line(s): $o"
}
one FB_BENCH_VARIANTS="raw bogus"
one FB_BENCH_VARIANTS=""
one FB_BENCH_VARIANTS=" "
one FB_BENCH_ORDER=random
one FB_BENCH_JOBS=0
one FB_BENCH_JOBS="1 65"
one FB_BENCH_JOBS="1,2"
one FB_BENCH_DAEMONS=""
one FB_BENCH_DAEMONS="xattr nope"
one FB_BENCH_VARIANTS="raw bogus" FB_BENCH_ORDER=random FB_BENCH_JOBS=0 FB_BENCH_DAEMONS=nope
one FB_BENCH_ORDER=random FB_BENCH_JOBS=0 FB_BENCH_DAEMONS=nope
one FB_BENCH_JOBS=0 FB_BENCH_DAEMONS=""
