#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make bench-ab`: did a change to the series cost or gain anything? Our
# module built from this tree ("a") and from git revision REV ("b", in a
# worktree under build/ab/), side by side in one boot of KVER, with raw XFS:
# bench/ab-guest.sh. The table of medians goes to
# results/bench-ab/<kver>/<run-id>/ (table.md, raw.csv, medians.csv,
# meta.txt: tests/lib/results.sh). Not a timed test: it
# measures and prints, it asserts nothing.
#
# usage: bench/ab.sh KVER REV
# environment: FB_BENCH_REPS (3), FB_BENCH_RUNTIME (4),
#   FB_BENCH_AB_AIO_JOBS ("1 4"), FB_BENCH_AB_LAT_JOBS ("4"): the numjobs of
#   the aio and lat workloads, space-separated, each 1 to 64; passed to the
#   guest as every FB_* is (tests/vm/boot.sh), and recorded in the command
#   of meta.txt when set. A list is checked before anything is built.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
[ $# = 2 ] || { echo "usage: bench/ab.sh KVER REV" >&2; exit 2; }
kver=$1
die() { [ -n "${res:-}" ] && rmdir "$res" 2> /dev/null; echo "bench-ab: $*" >&2; exit 1; }
# shellcheck source=tests/lib/results.sh
. "$top/tests/lib/results.sh"
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
# The numjobs lists, checked here before the builds (the guest checks again).
jobs_env=""
for v in FB_BENCH_AB_AIO_JOBS FB_BENCH_AB_LAT_JOBS; do
	eval "l=\${$v:-}"
	[ -n "$l" ] || continue
	bench_jobs_ok "$l" || die "$v must be numjobs (1-64) separated by spaces, not '$l'"
	jobs_env="$jobs_env$v=\"$l\" "
done
sha=$(git rev-parse --verify -q "$2^{commit}") || die "'$2' is no commit of this repository"
short=$(git rev-parse --short "$sha")
mkdir -p build/ab

# b: REV's own tree, imported and built by its own scripts
wt=$top/build/ab/$short
if [ ! -d "$wt" ]; then
	git worktree prune
	git worktree add --detach "$wt" "$sha" > "build/ab/worktree-$short.log" 2>&1 ||
		die "cannot check out $2 in $wt (build/ab/worktree-$short.log)"
fi
# (dev/build-for.sh; scripts/build-for.sh in a revision before dev/)
bf=dev/build-for.sh
[ -f "$wt/$bf" ] || bf=scripts/build-for.sh
(cd "$wt" && sh "$bf" "$kver" all) > "build/ab/modules-$short.log" 2>&1 ||
	die "cannot build $2's module for $kver (build/ab/modules-$short.log)"
# a: this tree
sh dev/build-for.sh "$kver" all > build/ab/modules-a.log 2>&1 ||
	die "cannot build this tree's module for $kver (build/ab/modules-a.log)"
make -s -C tests daemon > /dev/null || die "cannot build fbtestd (make -C tests daemon)"

ko() { find "$1" -maxdepth 1 -name "*.ko" | head -n 1; }
va=$(modinfo -F version "$(ko "build/$kver")")
vb=$(modinfo -F version "$(ko "$wt/build/$kver")")
head=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- backports)" ] || head="$head with uncommitted changes to backports/"

out=$top/build/vm
res=$(fb_results_dir bench-ab "$kver" "b-$short") || die "cannot make the results directory"
mkdir -p "$out" "$res"
csv=$out/bench-ab-$kver.csv
rm -f "$csv"
FB_OUT=$out FB_MODDIR="$top/build/$kver" FB_MODDIR_UNPATCHED="$wt/build/$kver" \
	"$top/tests/vm/boot.sh" --kver "$kver" --timeout 3600 --log "$out/bench-ab-$kver.log" -- \
	sh "$top/bench/ab-guest.sh" "$csv" ||
	die "the benchmark VM run failed (log: $out/bench-ab-$kver.log)"
cp "$csv" "$res/raw.csv"

# The table of medians (bench/report.sh reads ab's layout too).
rev=$2
[ "$rev" = "$short" ] || rev="$rev, $short"
sh bench/report.sh "$res/raw.csv" "$res" "a: $va (this tree, $head) against b: $vb ($rev), Debian $kver, QEMU TCG 2 vCPUs" ||
	die "cannot make the report"
fb_meta_write "$res" "${jobs_env}make bench-ab REV=$2 KVER=$kver (bench/ab.sh $kver $2)" "module a: $va" "module b: $vb" "rev b: $sha"
