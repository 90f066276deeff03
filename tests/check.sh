#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Everything `make check` runs, in order, with one summary at the end:
# lint (shellcheck, checkpatch on our patches), tooling tests, the build
# matrix over every installed kernel headers set, DKMS on the host, the
# packages (.deb, .rpm, prebuilt kmod .deb), and the VM suites on every
# kernel of the tier. What the tier runs (kernels, suites, targets, modes,
# cycles, the sections it leaves out) is data: tests/tiers/default, or
# tests/tiers/full with FB_CHECK_FULL=1.
#
# usage: tests/check.sh
# environment: FB_CHECK_FULL=1 (the full tier), FB_VM_KVERS, FB_DKMS_KVERS,
# FB_SPLICE_STOCK_KVERS (override the tier's kernel lists),
# FB_CHECK_SECTIONS (shell patterns of the sections to run, e.g. "vm-*";
# default every one; the summary names the sections it left out);
# FB_CHECK_NARROW=1 (run although variables that narrow the tier, listed
# below, come from the environment: each is a NOTE)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
FB_TOP=$top
. "$top/tests/lib/tier.sh"
. "$top/tests/lib/count.sh"
# shellcheck source=tests/lib/skips.sh
. "$top/tests/lib/skips.sh"
logs=$top/build/logs
mkdir -p "$logs"
vm_kvers=${FB_VM_KVERS:-$(tier_get vm-kernels)}
dkms_kvers=${FB_DKMS_KVERS:-$(tier_get dkms-kernels)}
# stock kernels the splice race takes down (tests/splice/stock.sh)
splice_stock_kvers=${FB_SPLICE_STOCK_KVERS:-$(tier_get splice-stock-kernels)}

total_p=0 total_f=0 total_s=0
summary=""

# Variables that cut what the suites run (modes, targets, cycles, faults,
# kernels, the skip allowlist) or break it on purpose (the red-run knobs):
# the tier sets what it needs itself, so one inherited from the caller's
# shell would quietly narrow make check. Refused, unless FB_CHECK_NARROW=1
# says the narrowing is meant; then each is a NOTE here and in the summary.
narrow_vars="FB_VM_TARGETS FB_STOCK_DROP FB_STOCK_ALL FB_INTEGRITY_MODES FB_AIO_MODES
FB_FAULTS_CYCLES FB_FAULTS_MODCYCLES FB_BADINPUT_FAULTS FB_SPLICE_ROUNDS FB_SPLICE_FIO
FB_SKIPS FB_DEBUG_TARGETS FB_TRIXIE_KERNELS FB_PKG_VM FB_PKG_PREV FB_TOOL
FB_SUITE_BUDGET FB_CYCLES_BUDGET FB_SUITE_TIMEOUT FB_DKMS_KVERS FB_SPLICE_STOCK_KVERS
FB_INJECT FB_DAEMON_ARGS FB_UFFD_BREAK_B FB_PKG_RED FB_TAKEOVER_RED FB_FAILSLAB_MAX
FB_FAILSLAB_RED FB_FAILSLAB_FROM FB_FAILSLAB_INIT_WAIT FB_KMEMLEAK_OURS FB_MEMCG_MODES FB_MEMCG_MIB FB_MEMCG_FILE_MIB FB_MEMCG_DIRTY_MIB
FB_MEMCG_BREAK FB_SEC_WINDOW_MS"
narrowed=""
for v in $narrow_vars; do
	eval "set_=\${$v+x} val_=\${$v-}"
	# shellcheck disable=SC2154 # set_ and val_: by the eval
	[ -n "$set_" ] && narrowed="$narrowed
NOTE: inherited $v=$val_ (FB_CHECK_NARROW=1): this run is not the tier's"
done
unset set_ val_
if [ -n "$narrowed" ] && [ "${FB_CHECK_NARROW:-0}" != 1 ]; then
	echo "check: refusing to run with variables from the environment that change what the tier runs:$(echo "$narrowed" | sed 's/^NOTE: inherited /  /; s/ (FB_CHECK_NARROW=1).*//')" >&2
	echo "check: unset them, or set FB_CHECK_NARROW=1 to run narrowed on purpose (docs/testing.md)" >&2
	exit 2
fi
[ -z "$narrowed" ] || echo "${narrowed#?}"
# The sections FB_CHECK_SECTIONS leaves out, for the summary.
left_out=""

# section NAME CMD...: run, show its output, take its closing count line
# and its exit status: a non-zero exit is a failure even when the count
# line says "0 failed" (a VM that died between suites, a script that
# stopped early).
only=${FB_CHECK_SECTIONS:-*}
wanted() {
	set -f
	for g in $only; do
		# shellcheck disable=SC2254 # a pattern from FB_CHECK_SECTIONS
		case $1 in $g) set +f; return 0 ;; esac
	done
	set +f
	return 1
}

skipped() {
	echo "SKIPPED: $1: $2"
	echo "$1: 0 passed, 0 failed, 1 skipped"
}

# A section the tier leaves out (tests/tiers/*: skip) is one skip, with the
# tier's reason.
section() {
	name=$1
	shift
	wanted "$name" || { left_out="$left_out $name"; return 0; }
	if treason=$(tier_skip "$name"); then
		set -- skipped "$name" "$treason (tests/tiers/$tier)"
	fi
	echo
	echo "=== $name"
	start=$(date +%s)
	rm -f "$logs/$name.rc"
	{
		"$@"
		echo $? > "$logs/$name.rc"
	} 2>&1 | tee "$logs/$name.log"
	account "$name" "$start" "$(date +%s)"
}

# quiet NAME CMD...: a section of the lane (below), run as section runs it,
# its output to its log only, its start and end in NAME.start and NAME.end.
quiet() {
	name=$1
	shift
	wanted "$name" || return 0
	if treason=$(tier_skip "$name"); then
		set -- skipped "$name" "$treason (tests/tiers/$tier)"
	fi
	date +%s > "$logs/$name.start"
	rm -f "$logs/$name.rc"
	{
		"$@"
		echo $? > "$logs/$name.rc"
	} > "$logs/$name.log" 2>&1
	date +%s > "$logs/$name.end"
}
# shown NAME: a section of the lane, shown and counted as section does, once
# the lane has ended.
shown() {
	name=$1
	wanted "$name" || { left_out="$left_out $name"; return 0; }
	treason=$(tier_skip "$name") || treason=""
	echo
	echo "=== $name (ran beside the VM sections)"
	cat "$logs/$name.log"
	account "$name" "$(cat "$logs/$name.start" 2> /dev/null || echo 0)" "$(cat "$logs/$name.end" 2> /dev/null || echo 0)"
}

# account NAME START END: take the closing count line of section NAME's log
# and its exit status: a non-zero exit is a failure even when the count
# line says "0 failed" (a VM that died between suites, a script that
# stopped early).
account() {
	count_result "$logs/$1.log" "" "$(cat "$logs/$1.rc" 2> /dev/null)" check "$1"
	p=$count_pass f=$count_fail s=$count_skip
	# A host section's skips are allowed only where tests/skips/host lists
	# them (the VM sections' are judged by tests/vm/report.sh against the
	# kernels' lists; a section the tier leaves out is the tier's).
	case $1 in
	vm-* | splice-stock-* | check-debug) ;;
	*) [ -n "$treason" ] || { host_skips "$1" "$logs/$1.log" "$s"; f=$((f + host_bad)); } ;;
	esac
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
	summary="$summary
$(printf '%-28s %4s passed %4s failed %4s skipped %5s s' "$1" "$p" "$f" "$s" "$(($3 - $2))")"
}

# host_skips NAME LOG N: the skips of host section NAME (its TAP lines
# "ok K - DESC # SKIP WHY", and N, its count line's) against tests/skips/host,
# lines "SECTION-GLOB TEXT-GLOB :: REASON" with TEXT "DESC: WHY". Prints each
# skip that no line allows, and a count line's skips that no TAP line shows;
# sets host_bad to their number.
host_skips() {
	host_bad=0
	hs_n=0
	hs_list=$top/tests/skips/host
	grep -E '^ok [0-9]+ - .* # SKIP' "$2" > "$logs/$1.skips" 2> /dev/null
	while IFS= read -r hs_l; do
		hs_n=$((hs_n + 1))
		hs_d=${hs_l#ok * - }
		hs_t="${hs_d%% # SKIP*}: ${hs_l#*# SKIP }"
		hs_ok=$(fb_skip_reason "$hs_list" "$hs_t" "$1")
		if [ -n "$hs_ok" ]; then
			echo "check: $1: skip allowed by tests/skips/host ($hs_ok): $hs_t"
		else
			echo "check: $1: unexpected skip (not in tests/skips/host): $hs_t"
			host_bad=$((host_bad + 1))
		fi
	done < "$logs/$1.skips"
	if [ "${3:-0}" -gt "$hs_n" ]; then
		echo "check: $1: $3 skipped in its count line, $hs_n shown as TAP skips: counted as a failure"
		host_bad=$((host_bad + 1))
	fi
}

lint() {
	tap_suite=lint
	. "$top/tests/lib/tap.sh"
	for f in scripts/*.sh dev/*.sh bench/*.sh tests/*.sh tests/*/*.sh tests/*/*/*.sh; do
		shellcheck -x "$f" > "$logs/shellcheck.out" 2>&1
		r=$?
		tap_check $r "shellcheck $f"
		[ $r = 0 ] || sed 's/^/#   /' "$logs/shellcheck.out" | head -n 20
	done
	shellcheck -s bash dkms.conf > "$logs/shellcheck.out" 2>&1
	tap_check $? "shellcheck dkms.conf"
	# scripts/ ships as it is: a file with a #! line must be executable
	# (rpmlint's non-executable-script fails the rpm, lintian's too)
	noexec=$(for f in scripts/*; do
		[ "$(head -c 2 "$f")" = "#!" ] && [ ! -x "$f" ] && echo "$f"
	done)
	tap_check "$([ -z "$noexec" ]; echo $?)" "scripts/: every file with a #! line is executable${noexec:+: }$(printf "%s " "$noexec" | tr "\n" " ")"
	# tracker numbers and private tags (tests/lint/refs.sh: the patterns)
	sh tests/lint/refs.sh > "$logs/refs.out" 2>&1
	tap_check $? "no tracker numbers or private tags in tracked files: $(tail -n 1 "$logs/refs.out")"
	sed '$d' "$logs/refs.out" | head -n 40 | sed 's/^/#   /'
	# tools/: which file calls which, no cycle, no call into a higher layer
	if sh tests/lint/layers.sh > "$logs/layers.out" 2>&1; then
		tap_check 0 "tools/ layered as tools/layers says, no cycle"
	else
		tap_check 1 "tools/ layering: $(head -n 1 "$logs/layers.out" | sed 's/^layers: //')"
		sed 's/^/#   /' "$logs/layers.out"
	fi
	# make check-red's registry: every red knob the code reads is there
	sh tests/red/lint.sh > "$logs/red-lint.out" 2>&1
	r=$?
	tap_check $r "every red knob the code reads is in tests/red/knobs, and every one there is read"
	[ $r = 0 ] || sed 's/^/#   /' "$logs/red-lint.out" | head -n 20
	for p in backports/*/patches/*.patch backports/*/infra/patches/*.patch; do
		[ -f "$p" ] || continue
		if perl src/upstream-6.12/scripts/checkpatch.pl --no-tree -q - < "$p" > "$logs/checkpatch.out" 2>&1; then
			tap_check 0 "checkpatch $p"
		elif grep -q '^ERROR' "$logs/checkpatch.out"; then
			tap_check 1 "checkpatch $p"
			grep -A2 '^ERROR' "$logs/checkpatch.out" | sed 's/^/#   /' | head -n 20
		else
			tap_check 0 "checkpatch $p (warnings only)"
			grep '^WARNING' "$logs/checkpatch.out" | sed 's/^/#   /'
		fi
	done
	tap_done
}

# The generated docs are what the pins and results/ give (dev/docs.sh): on
# the host, before anything is built.
section docs sh tests/docs/check.sh
make -s import-all > "$logs/import.log" 2>&1 || { cat "$logs/import.log"; echo "check: 0 passed, 1 failed"; exit 1; }

section build-matrix sh dev/check-build.sh
# shellcheck disable=SC2086 # a list of kernels
section dkms sh tests/dkms/run.sh $dkms_kvers
section pkg-deb sh tests/pkg/deb.sh
section pkg-rpm sh tests/pkg/rpm.sh
section pkg-kmod sh tests/pkg/kmod.sh
section pkg-secureboot sh tests/pkg/secureboot.sh
section pkg-reboot sh tests/pkg/reboot.sh
section pkg-fallback sh tests/pkg/fallback.sh
section pkg-trixie sh tests/pkg/trixie.sh
section pkg-stock sh tests/pkg/stock.sh
section pkg-repo sh tests/pkg/repo.sh

# The lane: host sections that leave the kernels' modules, DKMS, the
# packages and the builds the guests use alone, run one after another beside
# the VM sections (QEMU under TCG keeps about one of the two cores busy;
# measured 114% of 200%). Their output comes after the VM sections'. The
# tools and the test programs are built first, so that neither the lane nor
# a VM section builds them while the other runs them.
lane() {
	quiet lint lint
	quiet tools sh tests/host-scripts/run.sh
	quiet tools-user sh tests/host-tools/run.sh
	quiet pkg-headers sh tests/pkg/headers.sh
}
# the lane's sections, in lane's order, for shown
lane_names="lint tools tools-user pkg-headers"
if ! { make -s -C tools > "$logs/lane-make.log" 2>&1 && make -s -C tests >> "$logs/lane-make.log" 2>&1; }; then
	cat "$logs/lane-make.log"
	echo "check: building tools/ and tests/ failed"
	echo "check: 0 passed, 1 failed"
	exit 1
fi
lane &
lane_pid=$!
trap 'kill "$lane_pid" 2> /dev/null' EXIT
trap 'exit 1' INT TERM HUP
# The VM sections: what each kernel runs is the tier's (tests/tiers/*: vm,
# vm-env, vm-note), by the kernel's class: the kernel's own release (a vm
# line that names it), first (the first kernel booted), base-B (a later
# kernel of base B), * (any other).
# vm_run KVER FIRST: the VM section of one kernel, and a NOTE line on what
# the tier leaves out.
vm_run() {
	k=$1
	class='*'
	if tier_has vm "$k"; then
		class=$k
	elif [ "$2" = 1 ] && tier_has vm first; then
		class=first
	else
		b=$(bash scripts/flavor.sh --base "$k" /nonexistent 2> /dev/null | cut -d' ' -f1)
		[ -n "$b" ] && tier_has vm "base-$b" && class=base-$b
	fi
	tier_has vm "$class" || { echo "check: tests/tiers/$tier has no vm line for $k (class $class)"; echo "vm-$k: 0 passed, 1 failed"; return 1; }
	set -- env
	for w in $(tier_class vm-env "$class"); do
		set -- "$@" "$(echo "$w" | tr , ' ')"
	done
	# How many tests each target x suite runs, as data
	# (tests/tiers/TIER.counts): tests/vm/report.sh fails on another number.
	vm_counts=$logs/vm-$k.counts
	awk -v c="$class" '$1 == c { print $2, $3, $4 }' "$top/tests/tiers/$tier.counts" > "$vm_counts" 2> /dev/null
	if [ -s "$vm_counts" ]; then
		set -- "$@" FB_VM_COUNTS="$vm_counts"
	else
		count_note="tests/tiers/$tier.counts has no counts for class $class: the number of tests each suite runs is not checked"
	fi
	set -- "$@" sh tests/vm/run-suites.sh "$k"
	suites=$(tier_class vm "$class")
	# shellcheck disable=SC2086 # a list of suites
	[ "$suites" = all ] || set -- "$@" $suites
	"$@"
	vm_rc=$?
	note=$(tier_class vm-note "$class")
	[ -z "$note" ] || echo "NOTE: vm-$k: $note"
	[ -z "${count_note:-}" ] || echo "NOTE: vm-$k: $count_note"
	count_note=""
	return $vm_rc
}
first=1
for k in $vm_kvers; do
	section "vm-$k" vm_run "$k" $first
	first=0
done
# The debian13 suite in a guest whose root is Debian 13 (dev/guest-root.sh),
# on the tier's debian13-kernels (the full tier's; the default tier skips it).
section vm-debian13 sh tests/vm/debian13.sh
# A boot through fuse-backport-takeover.service: systemd as PID 1 on a copy
# of the Debian 13 guest root, on the tier's boot-kernels (tests/vm/boot-unit.sh).
section vm-boot sh tests/vm/boot-unit.sh
for k in $splice_stock_kvers; do
	section "splice-stock-$k" sh tests/splice/stock.sh "$k"
done
# The suites on a lockdep/KASAN/kmemleak/failslab kernel (tests/debug/run.sh): the kernel build
# alone takes most of an hour on 2 cores the first time.
section check-debug sh tests/debug/run.sh

wait "$lane_pid"
trap - EXIT
for n in $lane_names; do
	shown "$n"
done

# Kernel headers that vanished from the archive (dev/deps.sh): the
# build matrix has one kernel less, which the summary must say.
if [ -s "$top/build/deps-skipped" ]; then
	n=$(grep -c . "$top/build/deps-skipped")
	total_s=$((total_s + n))
	summary="$summary
$(printf '%-28s %4s passed %4s failed %4s skipped' deps 0 0 "$n")"
	while read -r l; do
		summary="$summary
SKIPPED: deps: $l"
	done < "$top/build/deps-skipped"
fi

# A narrowed run says so where its result is read.
[ -z "$left_out" ] || summary="$summary
NOTE: FB_CHECK_SECTIONS=\"$only\" left out:$left_out"
[ -z "$narrowed" ] || summary="$summary$narrowed"

echo
echo "=== summary"
echo "$summary"
echo
echo "check: $total_p passed, $total_f failed, $total_s skipped"
# The run's record, with the section times (tests/lib/results.sh):
# results/check/HOST-KERNEL/RUN-ID/summary.txt and meta.txt.
# shellcheck source=tests/lib/results.sh
. "$top/tests/lib/results.sh"
if res=$(fb_results_dir check "$(uname -r)"); then
	printf '%s\n\ncheck: %s passed, %s failed, %s skipped\n' "${summary#?}" "$total_p" "$total_f" "$total_s" > "$res/summary.txt"
	fb_meta_write "$res" "tests/check.sh (make check; FB_CHECK_FULL=${FB_CHECK_FULL:-0}, FB_CHECK_SECTIONS=$only${narrowed:+, FB_CHECK_NARROW=1})"
fi
[ "$total_f" = 0 ]
