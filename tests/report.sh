#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sum up a VM run's results (tests/guest/main.sh) as a table of suites by
# target, list every failure, and end with "NAME: N passed, N failed, N
# skipped". A suite without its TAP plan, or a kernel log with a hit after
# it, counts as a failure.
#
# usage: tests/report.sh RESULTS NAME
set -u
results=${1:?usage: report.sh RESULTS NAME}
name=${2:-vm}

targets=""
for t in stock ours unpatched; do
	ls "$results"/"$t".*.tap > /dev/null 2>&1 && targets="$targets $t"
done
suites=$(find "$results" -name '*.tap' -printf '%f\n' | cut -d. -f2 | sort -u)
[ -n "$targets" ] || { echo "report: no results in $results"; echo "$name: 0 passed, 1 failed"; exit 1; }

pass=0 fail=0 skip=0
failures=""
header="| suite |"
rule="|---|"
for t in $targets; do
	header="$header $t |"
	rule="$rule---|"
done
echo "$header"
echo "$rule"
for s in $suites; do
	row="| $s |"
	for t in $targets; do
		f=$results/$t.$s.tap
		if [ ! -f "$f" ]; then
			row="$row – |"
			continue
		fi
		p=$(grep -c '^ok ' "$f" | tr -d ' ')
		k=$(grep -c '^ok .*# SKIP' "$f" | tr -d ' ')
		x=$(grep -c '^ok .*# fails as expected' "$f" | tr -d ' ')
		n=$(grep -c '^not ok' "$f" | tr -d ' ')
		p=$((p - k))
		extra=""
		if ! grep -q '^1\.\.[0-9]' "$f"; then
			n=$((n + 1))
			extra=" (incomplete)"
			failures="$failures
$t/$s: no TAP plan: the suite did not finish ($(tail -n 1 "$results/$t.$s.err" 2> /dev/null))"
		fi
		if [ -f "$results/$t.$s.klog" ] && [ "$(cat "$results/$t.$s.klog")" != clean ]; then
			n=$((n + 1))
			extra="$extra (kernel log!)"
			failures="$failures
$t/$s: kernel log: $(head -n 2 "$results/$t.$s.klog" | tr '\n' ' ')"
		fi
		failures="$failures$(grep '^not ok' "$f" | while read -r l; do printf '\n%s' "$t/$s: $l"; done)"
		cell="$p/$((p + n))"
		[ "$k" -gt 0 ] && cell="$cell, $k skipped"
		[ "$x" -gt 0 ] && cell="$cell, $x expected on $t"
		row="$row $cell$extra |"
		pass=$((pass + p)) fail=$((fail + n)) skip=$((skip + k))
	done
	echo "$row"
done
echo
echo "Cells: passed/run. \"expected on stock\": tests of what the target lacks, which fail there as they must."
if [ -n "$failures" ]; then
	echo
	echo "Failures:$failures"
fi
skips=$(grep -h '# SKIP' "$results"/*.tap 2> /dev/null | sed 's/.*# SKIP/SKIPPED:/' | sort | uniq -c)
[ -n "$skips" ] && { echo; echo "Skipped:"; echo "$skips"; }
echo
echo "$name: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
