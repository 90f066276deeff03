# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: make bench-pool (bench/pool.sh) on fake
# runs, the table worked out by hand below: two interleaved runs whose
# repetitions share numbers, so that only a pooling that keeps each ratio
# within its own run pairs them right; then what it must refuse, in one
# line, leaving no results directory behind. Sourced by it, in its shell and
# its TAP count ($top, $work, ok, notok). FB_POOL (a red run): another pool.sh.
# shellcheck shell=sh disable=SC2154

pl=$work/pool
mkdir -p "$pl/bench/k1" "$pl/out"
# pl_run NAME MODULE ORDER LINES...: a fake results/bench/k1/NAME
pl_run() {
	r=$pl/bench/k1/$1
	mkdir -p "$r"
	printf 'command: fake\nmodule: %s\nenv: FB_BENCH_ORDER=%s\n' "$2" "$3" > "$r/meta.txt"
	shift 3
	printf '%s\n' "$@" > "$r/raw.csv"
}
pl_run A m1 interleave lat,raw,-,1,1,100 lat,ours,xattr,1,1,90 lat,ours,xattr,getxattr,0,7 \
	lat,raw,-,1,2,100 lat,ours,xattr,1,2,110
pl_run B m1 interleave lat,raw,-,1,1,200 lat,ours,xattr,1,1,180
pl_run C m2 interleave lat,raw,-,1,1,200 lat,ours,xattr,1,1,180
pl_run D m1 blocks lat,raw,-,1,1,200 lat,ours,xattr,1,1,180
pool() { FB_RESULTS=$pl/out sh "${FB_POOL:-$top/bench/pool.sh}" "$@" > "$pl/stdout" 2> "$work/err"; }
# ratios 0.9 and 1.1 (A), 0.9 (B, against its own raw 200): median 0.90,
# [0.90-1.10]; mean of the logs -0.03847, geometric mean 0.96; their
# spread: sum of squares 0.026846, over 2 and 3, root 0.06689, times t(2)
# 4.303: 0.28783, so exp(-0.32630) 0.72 to exp(0.24936) 1.28
want='| 1 | 0.90× [0.90–1.10], 0.96× (0.72–1.28), n 3 |'
if pool "$pl/bench/k1/A" "$pl/bench/k1/B" && got=$(grep '^| 1 |' "$pl"/out/bench-pool/k1/*/table.md) &&
	[ "$got" = "$want" ]; then
	ok "bench-pool: two runs pooled, each ratio within its run: $got"
else
	echo "got '${got:-}' ($(cat "$work/err")), want '$want'" > "$work/err"
	notok "bench-pool: two runs pooled, each ratio within its run"
fi
rm -rf "$pl/out"
# pl_refuse NAME REGEX RUN...: refused, one line matching REGEX, no results
pl_refuse() {
	n=$1 re=$2
	shift 2
	if pool "$@"; then
		notok "bench-pool refuses $n: it succeeded"
	elif [ "$(wc -l < "$work/err")" != 1 ] || ! grep -Eq "$re" "$work/err"; then
		notok "bench-pool refuses $n: not one line matching /$re/"
	elif [ -n "$(find "$pl/out" -mindepth 3 2> /dev/null)" ]; then
		notok "bench-pool refuses $n: left a results directory"
	else
		ok "bench-pool refuses $n: $(cat "$work/err")"
	fi
}
pl_refuse "another module" 'module m2, the first run.s is m1' "$pl/bench/k1/A" "$pl/bench/k1/C"
pl_refuse "a run not interleaved" 'not an interleaved run' "$pl/bench/k1/A" "$pl/bench/k1/D"
pl_refuse "one run" 'usage' "$pl/bench/k1/A"

# The A/A control (FB_BENCH_VARIANTS="raw2 raw ours"): raw2, raw XFS again,
# gets a column of its own against raw, and none against overlayfs. Run E's
# raw2/raw ratios 1.05 and 0.95, F's 1.00: median 1.00 [0.95-1.05]; logs
# 0.04879, -0.05129, 0: mean -0.00083, geometric mean 1.00; sum of squares
# 0.0050094, over 2 and 3, root 0.028895, times t(2) 4.303: 0.12434, so
# exp(-0.12517) 0.88 to exp(0.12350) 1.13. ours/raw as A and B above.
pl_run E m1 interleave lat,raw2,-,1,1,105 lat,raw,-,1,1,100 lat,ours,xattr,1,1,90 \
	lat,ours,xattr,1,2,110 lat,raw,-,1,2,100 lat,raw2,-,1,2,95
pl_run F m1 interleave lat,raw2,-,1,1,200 lat,raw,-,1,1,200 lat,ours,xattr,1,1,180
want='| jobs | raw2/raw | ours/raw |
|---:|---:|---:|
| 1 | 1.00× [0.95–1.05], 1.00× (0.88–1.13), n 3 | 0.90× [0.90–1.10], 0.96× (0.72–1.28), n 3 |'
got=""
if pool "$pl/bench/k1/E" "$pl/bench/k1/F" && got=$(grep -A 2 '^| jobs |' "$pl"/out/bench-pool/k1/*/table.md) &&
	[ "$got" = "$want" ]; then
	ok "bench-pool: the A/A control raw2 gets its own column against raw: $(echo "$got" | tail -n 1)"
else
	echo "got '$got' ($(cat "$work/err")), want '$want'" > "$work/err"
	notok "bench-pool: the A/A control raw2 gets its own column against raw"
fi
# against overlayfs (report.sh's second table): the FUSE variants only
pl_run G m1 interleave lat,raw2,-,1,1,100 lat,raw,-,1,1,100 lat,overlayfs,-,1,1,100 lat,ours,xattr,1,1,90
got=$(. "$top/bench/lib.sh" && bench_paired "$pl/bench/k1/G/raw.csv" lat overlayfs | head -n 1)
if [ "$got" = '| jobs | ours/overlayfs |' ]; then
	ok "bench_paired against overlayfs leaves raw and raw2 out: $got"
else
	echo "got '$got', want '| jobs | ours/overlayfs |'" > "$work/err"
	notok "bench_paired against overlayfs leaves raw and raw2 out"
fi
rm -rf "$pl/out"
