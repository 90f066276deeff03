#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# All suites on one kernel, in one VM boot: build our module (patched and
# unpatched base) and the test programs on the host, boot Debian's kernel,
# run the suites against ours and (see stock_drop below) the stock FUSE,
# print the report.
#
# usage: tests/vm/run-suites.sh KVER [SUITE...]
#   an unknown SUITE is an error (exit 2, one line on stderr)
# environment: FB_TIMEOUT (whole VM run, default 2700 s); FB_CHECK_FULL=1 or
#   FB_STOCK_ALL=1 (the data and fault suites on stock too); FB_STOCK_DROP
#   (suites stock leaves out besides those); FB_KDIR (a built
#   kernel tree whose release is KVER: build against it and boot it instead of
#   Debian's image, as tests/debug/run.sh does); FB_VM_TARGETS (the targets,
#   in order, default "stock ours unpatched"); FB_VM_MEM (guest MiB);
#   FB_VM_ROOT (boot with another root, tests/vm/boot.sh --root: the
#   Debian 13 guest root of dev/guest-root.sh, tests/vm/debian13.sh)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:?usage: run-suites.sh KVER [SUITE...]}
shift
all_suites="smoke integrity memcg aio faults badinput parallel security dropin status libfuse splice takeover"
# daemons (real FUSE daemons, ~4 min a kernel) only in the full run
[ "${FB_CHECK_FULL:-0}" = 1 ] && all_suites="$all_suites daemons"
want=${*:-$all_suites}
suites=""
# A suite that does not exist is an error, not a note: a typo must not
# quietly run less.
for s in $want; do
	case $s in
	*[!a-z0-9_-]* | '') ;;
	*) [ -f "$top/tests/suites/$s.sh" ] && suites="$suites,$s" && continue ;;
	esac
	known=""
	for k in "$top"/tests/suites/*.sh; do
		k=${k##*/}
		known="$known ${k%.sh}"
	done
	echo "run-suites: unknown suite '$s' (tests/suites/ has:$known)" >&2
	echo "vm-$kver: 0 passed, 1 failed"
	exit 2
done
suites=${suites#,}
[ -n "$suites" ] || { echo "run-suites: no suites to run" >&2; echo "vm-$kver: 0 passed, 1 failed"; exit 2; }

die() { echo "run-suites: $*" >&2; echo "vm-$kver: 0 passed, 1 failed"; exit 1; }
# shellcheck source=tests/lib/served.sh
. "$top/tests/lib/served.sh"

# The guest gets a fresh /tmp: a checkout there is invisible to it.
sh "$top/tests/vm/not-in-tmp.sh" run-suites || { echo "vm-$kver: 0 passed, 1 failed"; exit 1; }
cd "$top" || exit 1
mkdir -p "$top/build" || die "cannot create $top/build"
# Kernels whose headers live in a Debian root (Debian 13's and unstable's:
# their kbuild needs a newer glibc) build there (dev/build-for.sh).
sh dev/build-for.sh "$kver" all > "$top/build/modules-$kver.log" 2>&1
rc=$?
# Exit 3 is a refusal (scripts/build.sh): a skip for a kernel outside the
# pins, a failure for one a base serves (tests/lib/served.sh).
if [ $rc = 3 ]; then
	why=$(tail -n 1 "$top/build/modules-$kver.log")
	if b=$(fb_must_serve "$top" "$kver" "${FB_KDIR:-/lib/modules/$kver/build}/.config"); then
		die "our build refused $kver, which base $b serves (backports/$b/pin): $why"
	fi
	echo "SKIPPED: vm-$kver: $why"
	echo "vm-$kver: 0 passed, 0 failed, 1 skipped"
	exit 0
elif [ $rc != 0 ]; then
	tail -n 20 "$top/build/modules-$kver.log" >&2
	die "building our module for $kver failed"
fi
# The unpatched base: a target, and the status suite's evidence of a build
# without the fix (a module of the same version that is not the installed
# one), whatever the targets.
case " ${FB_VM_TARGETS:-unpatched} ,$suites," in
*" unpatched "* | *,status,*)
	sh dev/build-for.sh "$kver" none > "$top/build/modules-$kver-unpatched.log" 2>&1 ||
		die "building the unpatched base for $kver failed (build/modules-$kver-unpatched.log)"
	;;
esac
# test-only kernel modules (tests/kmod), built out of the tree for the guest
kmod=$top/build/$kver-testmod
rm -rf "$kmod"
mkdir -p "$kmod" || die "cannot create $kmod"
cp "$top"/tests/kmod/*.c "$top/tests/kmod/Kbuild" "$kmod/" || die "cannot copy tests/kmod to $kmod"
sh dev/build-for.sh "$kver" kmod "$kmod" > "$top/build/testmod-$kver.log" 2>&1 ||
	die "building the test modules (tests/kmod) for $kver failed (build/testmod-$kver.log)"
# the C test helpers (tests/Makefile) and the userspace tool
make -s -C tests > "$top/build/test-progs.log" 2>&1 ||
	{ tail -n 20 "$top/build/test-progs.log" >&2; die "building the test programs failed (make -C tests; build/test-progs.log)"; }
make -s -C tools > /dev/null || die "building tools failed"

out=$top/build/vm
results=$out/results-$kver
rm -rf "$results"
mkdir -p "$results"
# splice takes a buggy stock kernel down: stock runs it in a boot of its own
# (tests/splice/stock.sh); takeover is what ours does in place of the
# built-in FUSE, stock has nothing to run it on. The stock FUSE is the reference where a suite
# asserts what stock does (parallel, security: its expected failures) or
# how it refuses (smoke, dropin, status, libfuse, daemons); the data and
# fault suites (integrity, memcg, aio, faults, badinput) test our module, and run
# on stock as well, as a check of the tests themselves, only with
# FB_CHECK_FULL=1 or FB_STOCK_ALL=1 (12 minutes a kernel under TCG).
# FB_STOCK_DROP: more suites stock does not run (make check's default tier).
stock_drop="splice takeover debian13 ${FB_STOCK_DROP:-}"
[ "${FB_CHECK_FULL:-0}" = 1 ] || [ "${FB_STOCK_ALL:-0}" = 1 ] ||
	stock_drop="$stock_drop integrity memcg aio faults badinput"
stock_suites=,$suites,
for s in $stock_drop; do
	stock_suites=$(echo "$stock_suites" | sed "s/,$s,/,/")
done
stock_suites=$(echo "$stock_suites" | sed 's/^,//; s/,$//')
plan=""
for t in ${FB_VM_TARGETS:-stock ours unpatched}; do
	case $t in
	stock) [ -n "$stock_suites" ] && plan="$plan stock=$stock_suites" ;;
	ours) plan="$plan ours=$suites" ;;
	unpatched)
		case ",$suites," in
		*,parallel,*) plan="$plan unpatched=parallel" ;;
		esac
		;;
	*) die "FB_VM_TARGETS: unknown target '$t' (stock, ours, unpatched)" ;;
	esac
done
plan=${plan# }
[ -n "$plan" ] || die "FB_VM_TARGETS='${FB_VM_TARGETS:-}' plans nothing"

# The report knows what was planned: a target x suite without a complete
# result is a failure, whatever happened to the VM.
echo "$plan" > "$results/plan"
echo "$kver" > "$results/kver"

echo "run-suites: $kver: suites $suites"
boot="--kver $kver"
[ -n "${FB_KDIR:-}" ] && boot="--kdir $FB_KDIR"
[ -n "${FB_VM_ROOT:-}" ] && boot="$boot --root $FB_VM_ROOT"
# shellcheck disable=SC2086 # one word per target; boot: option and value
FB_OUT=$out FB_MODDIR="$top/build/$kver" FB_MODDIR_UNPATCHED="$top/build/$kver-unpatched" \
	FB_KMOD_DIR=$kmod "$top/tests/vm/boot.sh" $boot --mem "${FB_VM_MEM:-2048}" --timeout "${FB_TIMEOUT:-2700}" \
	--log "$results/vm.log" -- sh "$top/tests/vm/guest/suites.sh" "$results" $plan
vrc=$?
[ $vrc = 0 ] || echo "run-suites: the VM run ended with status $vrc (log: $results/vm.log)" >&2

# not through a pipe: its status is the report's
"$top/tests/vm/report.sh" "$results" "vm-$kver" > "$results/report.md"
rrc=$?
cat "$results/report.md"
[ $vrc = 0 ] && [ $rrc = 0 ]
