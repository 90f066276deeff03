#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make bench-ab`: did a change to the series cost or gain anything? Our
# module built from this tree ("a") and from git revision REV ("b", in a
# worktree under build/ab/), side by side in one boot of KVER, with raw XFS:
# tests/vm/guest/bench-ab.sh. The table of medians goes to
# results/bench/<kver>-ab-<rev>/ (table.md, raw.csv). Not a timed test: it
# measures and prints, it asserts nothing.
#
# usage: tests/bench/ab.sh KVER REV
# environment: FB_BENCH_REPS (3), FB_BENCH_RUNTIME (4)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
[ $# = 2 ] || { echo "usage: tests/bench/ab.sh KVER REV" >&2; exit 2; }
kver=$1
die() { echo "bench-ab: $*" >&2; exit 1; }
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
(cd "$wt" && sh scripts/build-for.sh "$kver" all) > "build/ab/modules-$short.log" 2>&1 ||
	die "cannot build $2's module for $kver (build/ab/modules-$short.log)"
# a: this tree
sh scripts/build-for.sh "$kver" all > build/ab/modules-a.log 2>&1 ||
	die "cannot build this tree's module for $kver (build/ab/modules-a.log)"
make -s -C tests daemon > /dev/null || die "cannot build fbtestd (make -C tests daemon)"

ko() { find "$1" -maxdepth 1 -name "*.ko" | head -n 1; }
va=$(modinfo -F version "$(ko "build/$kver")")
vb=$(modinfo -F version "$(ko "$wt/build/$kver")")
head=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain -- backports)" ] || head="$head with uncommitted changes to backports/"

out=$top/build/vm
res=$top/results/bench/$kver-ab-$short
mkdir -p "$out" "$res"
csv=$out/bench-ab-$kver.csv
rm -f "$csv"
FB_OUT=$out FB_MODDIR="$top/build/$kver" FB_MODDIR_UNPATCHED="$wt/build/$kver" \
	"$top/tests/vm/boot.sh" --kver "$kver" --timeout 3600 --log "$out/bench-ab-$kver.log" -- \
	sh "$top/tests/vm/guest/bench-ab.sh" "$csv" ||
	die "the benchmark VM run failed (log: $out/bench-ab-$kver.log)"
cp "$csv" "$res/raw.csv"

# workload,variant,numjobs -> median IOPS; GETXATTR summed over the reps
med() {
	awk -F, -v w="$1" -v v="$2" -v n="$3" '$1 == w && $2 == v && $3 == n { print $5 }' "$csv" |
		sort -n | awk '{ x[NR] = $1 } END { if (NR) print (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}
getx() { awk -F, -v w="$1" -v v="$2" '$1 == w && $2 == v && $3 == "getxattr" { s += $5 } END { print s + 0 }' "$csv"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else printf "–" }'; }
{
	rev=$2
	[ "$rev" = "$short" ] || rev="$rev, $short"
	echo "### a: $va (this tree, $head) against b: $vb ($rev), Debian $kver, QEMU TCG 2 vCPUs"
	echo
	echo "fio randwrite 4k direct on one shared pre-written file, XFS on memory-backed"
	echo "null_blk; a and b in passthrough mode, xattr daemon, attr_timeout 1 s."
	echo "IOPS: median of ${FB_BENCH_REPS:-3} runs of ${FB_BENCH_RUNTIME:-4} s, raw, a and b in turn in each repetition."
	echo
	echo "| workload | jobs | raw XFS | a | b | a/b | a/raw | b/raw |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	for wn in "aio 1" "aio 4" "lat 4"; do
		# shellcheck disable=SC2086 # workload and numjobs
		set -- $wn
		r=$(med "$1" raw "$2") a=$(med "$1" a "$2") b=$(med "$1" b "$2")
		echo "| $1 | $2 | $r | $a | $b | $(ratio "$a" "$b") | $(ratio "$a" "$r") | $(ratio "$b" "$r") |"
	done
	echo
	echo "GETXATTR the daemon saw: aio a $(getx aio a), b $(getx aio b); lat a $(getx lat a), b $(getx lat b)."
} > "$res/table.md"
cat "$res/table.md"
