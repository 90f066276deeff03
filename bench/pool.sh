#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make bench-pool RUNS="..."`: the paired ratios of several interleaved
# `make bench` runs (FB_BENCH_ORDER=interleave) of one kernel and one module,
# pooled: every run's repetitions renumbered after the previous run's, so
# that each ratio still pairs two runs of the same boot that ran side by
# side, then one table per workload (bench_paired in bench/lib.sh),
# with the number of ratios in each cell. Not a timed test: it reads
# results/, measures nothing and asserts nothing.
# The table goes to results/bench-pool/<kver>/<run-id>/ (table.md, raw.csv,
# meta.txt: tests/lib/results.sh); meta.txt names the runs.
#
# usage: bench/pool.sh RUN-DIR... (results/bench/KVER/RUN-ID, at least 2)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# res: the results directory this run made, removed if it fails
res=""
die() { [ -n "$res" ] && rm -rf "$res"; echo "bench-pool: $*" >&2; exit 1; }
[ $# -ge 2 ] || { echo "usage: bench/pool.sh RUN-DIR... (two or more results/bench/KVER/RUN-ID)" >&2; exit 2; }
# shellcheck source=tests/lib/results.sh
. "$top/tests/lib/results.sh"
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"

kver="" mod="" runs=""
for d in "$@"; do
	d=${d%/}
	if [ ! -s "$d/raw.csv" ] || [ ! -s "$d/meta.txt" ]; then
		die "$d: no raw.csv and meta.txt (not a make bench run)"
	fi
	k=$(basename "$(dirname "$d")")
	m=$(sed -n 's/^module: //p' "$d/meta.txt")
	grep -qx 'env: FB_BENCH_ORDER=interleave' "$d/meta.txt" ||
		die "$d: not an interleaved run (FB_BENCH_ORDER=interleave): its runs are not paired"
	[ -z "$kver" ] || [ "$k" = "$kver" ] || die "$d: kernel $k, the first run's is $kver"
	[ -z "$mod" ] || [ "$m" = "$mod" ] || die "$d: module ${m:-not recorded}, the first run's is $mod"
	case " $runs " in *" $(basename "$d") "*) die "$d: named twice" ;; esac
	kver=$k mod=$m runs="$runs $(basename "$d")"
done

res=$(fb_results_dir bench-pool "$kver") || die "cannot make the results directory"
# the runs' lines, each run's repetitions after the last one's (request
# counts, rep 0, left out: they are per run); "-" ends a run
for d in "$@"; do
	bench_rows "${d%/}/raw.csv"
	echo -
done | awk -F, -v OFS=, '
	$0 == "-" { off += m; m = 0; next }
	m < $5 + 0 { m = $5 + 0 }
	$4 != "getxattr" && $4 != "getattr" { $5 += off; print }' > "$res/raw.csv"
fb_meta_write "$res" "make bench-pool RUNS=\"$*\" (bench/pool.sh $*)" "module: $mod" "runs:$runs"
{
	echo "### Pooled paired ratios: $mod on Debian $kver, $# interleaved runs"
	echo
	echo "Each \`make bench\` run's ratios (every run of a variant divided by raw XFS's run"
	echo "of the same repetition and numjobs, which ran beside it) pooled over the runs$(for r in $runs; do printf " \`%s\`" "$r"; done):"
	echo "median [min–max], geometric mean (95% confidence interval, Student t on the log"
	echo "ratios), and n, the number of ratios."
	cut -d, -f1 "$res/raw.csv" | sort -u | while read -r w; do
		echo
		echo "**$w**:"
		echo
		bench_paired "$res/raw.csv" "$w" raw n
	done
} > "$res/table.md"
cat "$res/table.md"
