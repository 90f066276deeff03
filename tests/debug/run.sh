#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make check-debug`: the suites on a kernel that sees lock and memory bugs.
# Builds (once per machine, dev/debug-kernel.sh) Linux of the pinned base
# with lockdep (PROVE_LOCKING), KASAN, DEBUG_ATOMIC_SLEEP, DEBUG_LIST,
# kmemleak and failslab and FUSE as a module, builds our module against it
# (the drop-in flavor), boots the tree with virtme-ng and runs the suites for
# our module there. Any lockdep, KASAN or sleep-in-atomic report fails the
# suite it came in (the kernel-log scan of tests/lib/klog.sh, FB_KLOG_RE) or
# the run (the final kernel log, tests/vm/report.sh); so does an unreferenced
# object whose backtrace names FUSE in kmemleak's scan after every suite
# (tests/lib/kmemleak.sh; leaks elsewhere are notes). The failslab suite
# fails slab allocations in the mount, open and write paths one by one
# (tests/suites/failslab.sh). The run also fails when the checkers were not
# on: lockdep must still be active at the end (it turns itself off at its
# first report, so a report at boot would blind it), KASAN must have
# initialized, and kmemleak must have scanned after every suite and still be
# on at the end (it turns itself off on an internal error).
#
# usage: tests/debug/run.sh [SUITE...]   (default: smoke integrity parallel
#                                         security faults badinput failslab,
#                                         and memcg where there is one)
# environment: FB_DEBUG_TARGETS (default "ours"; "ours stock" adds the stock
#   FUSE of the same kernel), FB_TIMEOUT (whole VM run, default 10800 s),
#   FB_VM_MEM (guest MiB, default 4096: KASAN's shadow (1/8) and quarantine,
#   kmemleak's metadata for every object and its pool),
#   FB_INJECT (tests/vm/guest/suites.sh: lockdep:ours.smoke makes it red;
#   leak:ours.smoke a leak of FUSE's for kmemleak, leak-other:ours.smoke one
#   that is a note);
#   the suites' time limits, raised for a kernel several times slower than
#   Debian's: FB_SUITE_TIMEOUT (one suite, default 3000 s), FB_SUITE_BUDGET
#   (integrity, 2400 s), FB_CYCLES_BUDGET (faults' cycles, 1200 s);
#   FB_INTEGRITY_MODES (default pt-parallel parallel cached),
#   FB_FAULTS_CYCLES (10), FB_FAULTS_MODCYCLES (5): every mode and the
#   suites' own cycle counts with FB_CHECK_FULL=1
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
default_suites="smoke integrity parallel security faults badinput failslab"
[ -f "$top/tests/suites/memcg.sh" ] && default_suites="$default_suites memcg"
suites=${*:-$default_suites}
name=check-debug

fail() { echo "debug: $*" >&2; echo "$name: 0 passed, 1 failed"; exit 1; }

# Set by hand: the suites' numbers of tests are not the recorded ones.
handset=${FB_INTEGRITY_MODES+ FB_INTEGRITY_MODES}${FB_FAULTS_CYCLES+ FB_FAULTS_CYCLES}${FB_FAULTS_MODCYCLES+ FB_FAULTS_MODCYCLES}${FB_BADINPUT_FAULTS+ FB_BADINPUT_FAULTS}

# The modes where the series changes the locking (shared-lock passthrough,
# parallel direct, the cached/passthrough iocachectr switch) and fewer mount
# and module cycles: the debug kernel is several times slower than Debian's.
# FB_CHECK_FULL=1 runs every mode and the default cycles.
if [ "${FB_CHECK_FULL:-0}" != 1 ]; then
	FB_INTEGRITY_MODES=${FB_INTEGRITY_MODES:-pt-parallel parallel cached}
	FB_FAULTS_CYCLES=${FB_FAULTS_CYCLES:-10}
	FB_FAULTS_MODCYCLES=${FB_FAULTS_MODCYCLES:-5}
	export FB_INTEGRITY_MODES FB_FAULTS_CYCLES FB_FAULTS_MODCYCLES
fi
FB_SUITE_TIMEOUT=${FB_SUITE_TIMEOUT:-3000}
FB_SUITE_BUDGET=${FB_SUITE_BUDGET:-2400}
FB_CYCLES_BUDGET=${FB_CYCLES_BUDGET:-1200}
export FB_SUITE_TIMEOUT FB_SUITE_BUDGET FB_CYCLES_BUDGET

mkdir -p "$top/build/logs" || fail "cannot create $top/build/logs"
# How many tests each suite runs on this kernel, as data: the lines of class
# "debug" of tests/tiers/default.counts (the narrowed modes and cycles
# above), for the suites of this run; tests/vm/report.sh (FB_VM_COUNTS)
# fails a suite that ran another number or has no line. Not checked with
# FB_CHECK_FULL=1 (every mode: no recorded numbers), with modes, cycles or
# faults set by hand, or with a target besides ours (a NOTE says so).
counts=$top/build/logs/check-debug.counts
: > "$counts" || fail "cannot write $counts"
count_note=""
if [ "${FB_CHECK_FULL:-0}" = 1 ]; then
	count_note="FB_CHECK_FULL=1: tests/tiers/default.counts has the narrowed run's numbers only"
elif [ -n "$handset" ]; then
	count_note="set by hand:$handset"
elif [ "${FB_DEBUG_TARGETS:-ours}" != ours ]; then
	count_note="targets ${FB_DEBUG_TARGETS}: the counts are ours only"
else
	for s in $suites; do
		awk -v s="$s" '$1 == "debug" && $2 == "ours" && $3 == s { print $2, $3, $4 }' \
			"$top/tests/tiers/default.counts" >> "$counts"
	done
fi
if [ -n "$count_note" ]; then
	unset FB_VM_COUNTS
else
	FB_VM_COUNTS=$counts
	export FB_VM_COUNTS
fi

start=$(date +%s)
tree=$("$top/dev/debug-kernel.sh") || fail "no debug kernel (above)"
rel=$(cat "$tree/include/config/kernel.release") || fail "$tree has no kernel.release"
built=$(date +%s)
echo "debug: kernel $rel in $tree ($(sed -n 's/.*seconds=\([0-9]*\).*/built in \1 s/p' "$tree/../built"); $((built - start)) s now)"

out=$top/build/logs/check-debug.vm
rm -f "$out.rc"
{
	# shellcheck disable=SC2086 # a list of suites
	FB_KDIR=$tree FB_VM_TARGETS=${FB_DEBUG_TARGETS:-ours} FB_VM_MEM=${FB_VM_MEM:-4096} \
		FB_TIMEOUT=${FB_TIMEOUT:-10800} sh "$top/tests/vm/run-suites.sh" "$rel" $suites
	echo $? > "$out.rc"
} | tee "$out"
results=$top/build/vm/results-$rel
. "$top/tests/lib/count.sh"
count_result "$out" "vm-$rel" "$(cat "$out.rc" 2> /dev/null)" debug "the VM run (tests/vm/run-suites.sh)"
p=$count_pass f=$count_fail s=$count_skip

# The checkers themselves.
n=0
check() {	# check DESCRIPTION CMD...
	d=$1
	shift
	n=$((n + 1))
	if "$@"; then
		p=$((p + 1))
		echo "ok $n - debug kernel: $d"
	else
		f=$((f + 1))
		echo "not ok $n - debug kernel: $d"
	fi
}
check "KASAN initialized (generic)" grep -q 'KernelAddressSanitizer initialized' "$results/dmesg"
check "lockdep still on at the end of the run (debug_locks: 1 in /proc/lockdep_stats)" \
	grep -Eq '^ *debug_locks: +1$' "$results/lockdep_stats"
if ! grep -Eq '^ *debug_locks: +1$' "$results/lockdep_stats" 2> /dev/null; then
	echo "#   $(grep -E 'debug_locks' "$results/lockdep_stats" 2> /dev/null || echo "no $results/lockdep_stats")"
fi
# kmemleak: on at the end, and a verdict after every suite that ran
# (tests/vm/guest/suites.sh; tests/vm/report.sh judged each one).
kml_all() {
	grep -qx on "$results/kmemleak" 2> /dev/null || return 1
	for t in "$results"/*.tap; do
		[ -f "$t" ] || return 1
		[ -s "${t%.tap}.kmemleak" ] || { echo "#   no kmemleak scan after ${t##*/}"; return 1; }
	done
}
check "kmemleak on to the end, a scan after every suite" kml_all
if ! grep -qx on "$results/kmemleak" 2> /dev/null; then
	echo "#   kmemleak: $(cat "$results/kmemleak" 2> /dev/null || echo "no $results/kmemleak")"
fi
for k in "$results"/*.kmemleak; do
	[ -f "$k" ] || continue
	case $(head -n 1 "$k") in
	elsewhere:*) echo "debug: NOTE: $(basename "$k" .kmemleak): kmemleak: $(head -n 1 "$k" | cut -c1-300)" ;;
	esac
done

[ -z "$count_note" ] || echo "debug: NOTE: the number of tests each suite runs is not checked: $count_note"
echo "debug: $rel: $(($(date +%s) - built)) s for the suites ($suites), targets ${FB_DEBUG_TARGETS:-ours}"
echo "$name: $p passed, $f failed, $s skipped"
[ "$f" = 0 ]
