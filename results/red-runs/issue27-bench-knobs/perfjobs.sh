#!/bin/sh
# the new knob's cases, after only (before, run.sh did not check it and went
# on to build)
cd "${1:?}" || exit 1
for v in 0 "4 65" x; do
	printf 'FB_BENCH_PERF_JOBS=%s => ' "$v"
	o=$(env -u FB_BENCH_VARIANTS -u FB_BENCH_ORDER -u FB_BENCH_JOBS -u FB_BENCH_DAEMONS \
		FB_BENCH_PERF_JOBS="$v" sh tests/bench/run.sh 6.12.95+deb12-amd64 2>&1)
	echo "rc=$? $(echo "$o" | wc -l) line(s): $o"
done
