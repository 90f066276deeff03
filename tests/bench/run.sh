#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: one VM boot per kernel runs tests/vm/guest/bench.sh; the table
# and plot go to results/bench/<kver>/<run-id>/ (table.md, bench.png,
# raw.csv, medians.csv, meta.txt: tests/lib/results.sh).
# Not a timed test: it measures and prints, it asserts nothing.
#
# usage: tests/bench/run.sh KVER...
# environment: FB_BENCH_REPS, FB_BENCH_RUNTIME, FB_BENCH_QUICK,
#   FB_BENCH_WORKLOADS, FB_BENCH_VARIANTS, FB_BENCH_ORDER, FB_BENCH_JOBS,
#   FB_BENCH_DAEMONS, FB_BENCH_PERF, FB_BENCH_PERF_JOBS (see
#   tests/vm/guest/bench.sh; the lists and FB_BENCH_ORDER are checked here
#   before anything is built, a list set but empty refused:
#   bench_knobs_check in tests/bench/lib.sh)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
[ $# -gt 0 ] || { echo "usage: tests/bench/run.sh KVER..." >&2; exit 2; }
die() { [ -n "${res:-}" ] && rmdir "$res" 2> /dev/null; echo "bench: $*" >&2; exit 1; }
# shellcheck source=tests/lib/results.sh
. "$top/tests/lib/results.sh"
# shellcheck source=tests/bench/lib.sh
. "$top/tests/bench/lib.sh"
bench_m=$(bench_knobs_check refuse) || die "$bench_m"
# the knobs set, in the command meta.txt records (as tests/bench/ab.sh)
bench_env=""
for v in FB_BENCH_REPS FB_BENCH_RUNTIME FB_BENCH_QUICK FB_BENCH_WORKLOADS FB_BENCH_VARIANTS \
	FB_BENCH_ORDER FB_BENCH_JOBS FB_BENCH_DAEMONS FB_BENCH_PERF FB_BENCH_PERF_JOBS; do
	eval "l=\${$v:-}"
	[ -n "$l" ] && bench_env="$bench_env$v=\"$l\" "
done
mkdir -p build

for kver in "$@"; do
	sh dev/build-for.sh "$kver" all > "build/bench-modules.log" 2>&1 ||
		die "cannot build our module for $kver (build/bench-modules.log)"
	# the unpatched base only for a run that measures it (the stat
	# workload always does)
	case " ${FB_BENCH_VARIANTS:-unpatched} ${FB_BENCH_WORKLOADS:-stat} " in
	*" unpatched "* | *" stat "*)
		sh dev/build-for.sh "$kver" none >> "build/bench-modules.log" 2>&1 ||
			die "cannot build the unpatched base for $kver"
		;;
	esac
	make -s -C tests daemon bin > /dev/null || die "cannot build fbtestd and tests/bin (make -C tests daemon bin)"

	out=$top/build/vm
	res=$(fb_results_dir bench "$kver") || die "cannot make the results directory"
	mkdir -p "$out" "$res"
	csv=$out/bench-$kver.csv
	rm -rf "$csv" "${csv%.csv}.perf"
	FB_OUT=$out FB_MODDIR="$top/build/$kver" FB_MODDIR_UNPATCHED="$top/build/$kver-unpatched" \
		"$top/tests/vm/boot.sh" --kver "$kver" --timeout 3600 --log "$out/bench-$kver.log" -- \
		sh "$top/tests/vm/guest/bench.sh" "$csv" ||
		die "the benchmark VM run failed (log: $out/bench-$kver.log)"
	cp "$csv" "$res/raw.csv"
	# FB_BENCH_PERF's profiles (tests/vm/guest/bench.sh)
	[ -d "${csv%.csv}.perf" ] && cp -r "${csv%.csv}.perf" "$res/perf"
	sh tests/bench/report.sh "$res/raw.csv" "$res" "fuse-backport $(modinfo -F version "$(find "$top/build/$kver" -maxdepth 1 -name "*.ko" | head -n 1)") on Debian $kver, QEMU TCG 2 vCPUs" ||
		die "cannot make the report"
	fb_meta_write "$res" "${bench_env}make bench KVER=$kver (tests/bench/run.sh $*)" \
		"module: $(modinfo -F version "$(find "$top/build/$kver" -maxdepth 1 -name "*.ko" | head -n 1)")"
	res=""
done
