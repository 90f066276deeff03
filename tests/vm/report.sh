#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sum up a VM run's results (tests/vm/guest/suites.sh) as a table of suites by
# target, list every failure, and end with "NAME: N passed, N failed, N
# skipped".
#
# The run's plan (RESULTS/plan, "TARGET=SUITE,SUITE ..." as run-suites.sh gave
# it to guest/suites.sh) says which target x suite must have a result. Each of these
# is a failure:
#   - a planned target x suite without a TAP file (the VM died before it);
#   - a TAP file without its plan line, or with fewer or more results than
#     its plan says (the suite was cut off);
#   - a "not ok" line;
#   - a skip that tests/skips/ does not list for this kernel, target, suite
#     and test (an unexpected skip);
#   - a kernel log scan with a hit, or without its scan (RESULTS/*.klog);
#   - a FUSE mount left after the suite, found before the sweep that
#     lets the module come off (RESULTS/*.leaked);
#   - a failed unload of our module after the suite (RESULTS/*.unload);
#   - on a kernel with kmemleak (the debug kernel), an unreferenced object
#     whose backtrace names FUSE in the scan after the suite, or a scan that
#     failed (RESULTS/*.kmemleak, tests/lib/kmemleak.sh); leaks that do not
#     name FUSE are listed as notes;
#   - a failed guest setup, e.g. no XFS scratch (RESULTS/setup.err);
#   - a hit in the guest's final kernel log (RESULTS/dmesg), or no final
#     kernel log at all;
#   - with FB_VM_COUNTS (make check: the tier's tests/tiers/TIER.counts for
#     this kernel's class), a suite whose plan is not the number of tests
#     given there for its target, one not given there, and one given there
#     that was not planned (a suite dropped).
#
# usage: tests/vm/report.sh RESULTS NAME
# environment: FB_SKIPS (allowlist directory, default tests/skips);
#   FB_VM_COUNTS (a file of lines "TARGET SUITE N")
set -u
results=${1:?usage: report.sh RESULTS NAME}
name=${2:-vm}
top=$(cd "$(dirname "$0")/../.." && pwd)
skipdir=${FB_SKIPS:-$top/tests/skips}
# What the kernel log must not show: FB_KLOG_RE, the same as the per-suite scan.
. "$top/tests/lib/klog.sh"

kver=$(cat "$results/kver" 2> /dev/null)
if [ -f "$results/plan" ]; then
	plan=$(cat "$results/plan")
else
	# an old results directory: what is there is all we know
	plan=""
	for t in stock ours unpatched; do
		s=$(find "$results" -name "$t.*.tap" -printf '%f\n' | cut -d. -f2 | sort -u | tr '\n' ',')
		[ -n "$s" ] && plan="$plan $t=${s%,}"
	done
	[ -n "$plan" ] || { echo "report: no plan and no results in $results"; echo "$name: 0 passed, 1 failed"; exit 1; }
	echo "report: no plan file in $results: judging only the results present"
fi
targets=""
suites=""
for p in $plan; do
	targets="$targets ${p%%=*}"
	suites="$suites $(echo "${p#*=}" | tr ',' ' ')"
done
# shellcheck disable=SC2086 # a list of words
suites=$(printf '%s\n' $suites | awk '!seen[$0]++')
planned() {	# planned TARGET SUITE
	for p in $plan; do
		[ "${p%%=*}" = "$1" ] || continue
		case ",${p#*=}," in *",$2,"*) return 0 ;; esac
	done
	return 1
}

# The allowlist: every file of $skipdir whose name is "all" or a prefix of
# the kernel release up to a dot (6.12 for 6.12.95+deb12-amd64). Lines:
#   TARGET SUITE TEST-GLOB :: REASON
# TARGET may be a glob; TEST-GLOB is matched against "TEST: WHY", the skipped
# test's description and the reason the suite gave.
allow=$(mktemp)
trap 'rm -f "$allow"' EXIT
for f in "$skipdir"/*; do
	[ -f "$f" ] || continue
	b=${f##*/}
	case $b in
	all) ;;
	*) case $kver in "$b".*) ;; *) continue ;; esac ;;
	esac
	grep -v -e '^#' -e '^[[:space:]]*$' "$f" >> "$allow"
done
# expected_skip TARGET SUITE DESC: prints the reason when listed
# shellcheck source=tests/lib/skips.sh
. "$top/tests/lib/skips.sh"
expected_skip() { fb_skip_reason "$allow" "$3" "$1" "$2"; }

# expected_count TARGET SUITE: the number of tests FB_VM_COUNTS gives
expected_count() {
	awk -v t="$1" -v s="$2" '$1 == t && $2 == s { print $3; exit }' "$FB_VM_COUNTS"
}
[ -z "${FB_VM_COUNTS:-}" ] || [ -r "$FB_VM_COUNTS" ] ||
	{ echo "report: cannot read FB_VM_COUNTS=$FB_VM_COUNTS"; echo "$name: 0 passed, 1 failed"; exit 1; }

# The report goes to stdout and, with the plan, to the run's record
# (tests/lib/results.sh): results/vm/KVER/RUN-ID/ (FB_RESULTS=none: not).
# shellcheck source=tests/lib/results.sh
. "$top/tests/lib/results.sh"
rep=$results/.report
exec 3>&1 > "$rep"

pass=0 fail=0 skip=0
failures=""
skiplines=""
notes=""
addfail() { failures="$failures
$1"; }
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
		if ! planned "$t" "$s"; then
			row="$row – |"
			continue
		fi
		if [ ! -f "$f" ]; then
			row="$row NO RESULT |"
			fail=$((fail + 1))
			addfail "$t/$s: planned, but no result: the VM run ended before this suite (see vm.log)"
			continue
		fi
		p=$(grep -c '^ok ' "$f" | tr -d ' ')
		k=$(grep -c '^ok .*# SKIP' "$f" | tr -d ' ')
		x=$(grep -c '^ok .*# fails as expected' "$f" | tr -d ' ')
		n=$(grep -c '^not ok' "$f" | tr -d ' ')
		p=$((p - k))
		extra=""
		nplan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$f" | tail -n 1)
		nres=$(grep -c '^\(not \)\{0,1\}ok ' "$f" | tr -d ' ')
		if [ -z "$nplan" ]; then
			n=$((n + 1))
			extra=" (incomplete)"
			addfail "$t/$s: no TAP plan: the suite did not finish ($(tail -n 1 "$results/$t.$s.err" 2> /dev/null))"
		elif [ "$nres" != "$nplan" ]; then
			n=$((n + 1))
			extra=" (truncated)"
			addfail "$t/$s: plan 1..$nplan but $nres results: truncated or garbled TAP"
		elif [ -n "${FB_VM_COUNTS:-}" ]; then
			ec=$(expected_count "$t" "$s")
			if [ -z "$ec" ]; then
				n=$((n + 1))
				extra=" (count?)"
				addfail "$t/$s: ran $nplan tests; the tier gives no count for it (tests/tiers/*.counts)"
			elif [ "$ec" != "$nplan" ]; then
				n=$((n + 1))
				extra=" (count!)"
				addfail "$t/$s: ran $nplan tests, the tier expects $ec (tests/tiers/*.counts)"
			fi
		fi
		klog=$results/$t.$s.klog
		if [ ! -f "$klog" ]; then
			n=$((n + 1))
			extra="$extra (no kernel log scan!)"
			addfail "$t/$s: kernel log: not scanned after the suite"
		elif [ "$(cat "$klog")" != clean ]; then
			n=$((n + 1))
			extra="$extra (kernel log!)"
			addfail "$t/$s: kernel log: $(head -n 2 "$klog" | tr '\n' ' ')"
		fi
		lk=$results/$t.$s.leaked
		if [ -s "$lk" ]; then
			n=$((n + 1))
			extra="$extra (mount left!)"
			addfail "$t/$s: left mounted after the suite: $(tr '\n' ' ' < "$lk")"
		fi
		unl=$results/$t.$s.unload
		if [ -f "$unl" ] && [ "$(cat "$unl")" != ok ]; then
			n=$((n + 1))
			extra="$extra (module unload!)"
			addfail "$t/$s: unloading our module after the suite failed: $(head -n 2 "$unl" | tr '\n' ' ')"
		fi
		kml=$results/$t.$s.kmemleak
		if [ -f "$kml" ]; then
			case $(head -n 1 "$kml") in
			clean) ;;
			elsewhere:*) notes="$notes
$t/$s: kmemleak: $(head -n 1 "$kml" | cut -c1-400)" ;;
			*)
				n=$((n + 1))
				extra="$extra (kmemleak!)"
				addfail "$t/$s: kmemleak: $(head -n 1 "$kml" | cut -c1-600)"
				;;
			esac
		fi
		# every skip must be listed
		grep '^ok .*# SKIP' "$f" > "$results/.skips" 2> /dev/null
		while IFS= read -r l; do
			desc=${l#ok * - }
			desc=${desc%% # SKIP*}
			why=${l#*# SKIP }
			if reason=$(expected_skip "$t" "$s" "$desc: $why"); then
				skiplines="$skiplines
$t/$s: $desc: $why (expected: $reason)"
			else
				n=$((n + 1))
				addfail "$t/$s: unexpected skip (not in tests/skips/ for $kver): $desc: $why"
			fi
		done < "$results/.skips"
		rm -f "$results/.skips"
		failures="$failures$(grep '^not ok' "$f" | while read -r l; do printf '\n%s' "$t/$s: $l"; done)"
		cell="$p/$((p + n))"
		[ "$k" -gt 0 ] && cell="$cell, $k skipped"
		[ "$x" -gt 0 ] && cell="$cell, $x expected on $t"
		row="$row $cell$extra |"
		pass=$((pass + p)) fail=$((fail + n)) skip=$((skip + k))
	done
	echo "$row"
done

# A target x suite the counts give that the run did not plan: dropped.
if [ -n "${FB_VM_COUNTS:-}" ]; then
	while read -r ct cs cn; do
		[ -n "$cs" ] || continue
		planned "$ct" "$cs" && continue
		fail=$((fail + 1))
		addfail "$ct/$cs: the tier expects $cn tests, but the run did not plan the suite"
	done < "$FB_VM_COUNTS"
fi

# The whole kernel log of the run, as the guest left it after the last
# suite: what happened between suites (loads, unloads) is in no window.
if [ ! -s "$results/dmesg" ]; then
	fail=$((fail + 1))
	addfail "final kernel log: $results/dmesg is missing (the VM run did not finish)"
# A lockdep kernel (dev/debug-kernel.sh) says so at boot: that banner is
# no report.
elif grep -E "$FB_KLOG_RE" "$results/dmesg" | grep -v 'rcu:[[:space:]]*RCU lockdep checking is enabled\.$' > "$results/final.klog"; then
	fail=$((fail + 1))
	addfail "final kernel log: $(head -n 2 "$results/final.klog" | tr '\n' ' ')"
fi
if [ -s "$results/setup.err" ]; then
	fail=$((fail + 1))
	addfail "guest setup: $(head -n 2 "$results/setup.err" | tr '\n' ' ')"
fi
if [ -f "$results/taint" ] && [ "$(cat "$results/taint")" != ok ]; then
	fail=$((fail + 1))
	addfail "final kernel log: $(cat "$results/taint")"
fi

echo
echo "Cells: passed/run. \"expected on stock\": tests of what the target lacks, which fail there as they must. \"–\": not planned."
if [ -n "$failures" ]; then
	echo
	echo "Failures:$failures"
fi
if [ -n "$notes" ]; then
	echo
	echo "Notes (no failure):$notes"
fi
if [ -n "$skiplines" ]; then
	echo
	echo "Skipped (each listed in tests/skips/):$skiplines"
fi
echo
echo "$name: $pass passed, $fail failed, $skip skipped"
exec 1>&3 3>&-
cat "$rep"
if res=$(fb_results_dir vm "${kver:-unknown}"); then
	cp "$rep" "$res/report.md"
	cp "$results/plan" "$res/plan" 2> /dev/null
	fb_meta_write "$res" "tests/vm/report.sh $results $name" "kernel: ${kver:-unknown}" "report: $name"
fi
rm -f "$rep"
[ "$fail" = 0 ]
