#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Everything `make check` runs, in order, with one summary at the end:
# lint (shellcheck, checkpatch on our patches), tooling tests, the build
# matrix over every installed kernel headers set, DKMS on the host, the
# packages (.deb, .rpm, prebuilt kmod .deb), and the VM suites on every
# kernel in FB_VM_KVERS.
#
# usage: tests/check.sh
# environment: FB_VM_KVERS, FB_DKMS_KVERS, FB_CHECK_FULL=1 (every mode on
# every kernel, the data suites on stock too, every header set, the Debian
# 13 package and repository tests, the lockdep/KASAN kernel of
# `make check-debug`), FB_CHECK_SECTIONS (shell patterns of the sections to
# run, e.g. "vm-*"; default every one)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=$top/build/logs
mkdir -p "$logs"
vm_kvers=${FB_VM_KVERS:-6.12.95+deb12-amd64}
dkms_kvers=${FB_DKMS_KVERS:-6.12.95+deb12-amd64 6.1.0-57-amd64}
full=${FB_CHECK_FULL:-0}
# stock kernels the splice race takes down (tests/splice/stock.sh, FB_CHECK_FULL=1)
splice_stock_kvers=${FB_SPLICE_STOCK_KVERS:-6.1.0-57-amd64}

total_p=0 total_f=0 total_s=0
summary=""

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

section() {
	name=$1
	shift
	wanted "$name" || return 0
	echo
	echo "=== $name"
	start=$(date +%s)
	rm -f "$logs/$name.rc"
	{
		"$@"
		echo $? > "$logs/$name.rc"
	} 2>&1 | tee "$logs/$name.log"
	line=$(grep -E '^[A-Za-z0-9_.+-]*: [0-9]+ passed, [0-9]+ failed' "$logs/$name.log" | tail -n 1)
	p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	rc=$(cat "$logs/$name.rc" 2> /dev/null)
	if [ -z "$line" ]; then
		p=0 f=1 s=0
		echo "check: $name gave no result line: counted as a failure"
	elif [ "${rc:-x}" != 0 ] && [ "$f" = 0 ]; then
		f=1
		echo "check: $name exited with status ${rc:-unknown} although it reported 0 failed: counted as a failure"
	fi
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + ${s:-0}))
	summary="$summary
$(printf '%-28s %4s passed %4s failed %4s skipped %5s s' "$name" "$p" "$f" "${s:-0}" "$(($(date +%s) - start))")"
}

lint() {
	n=0 bad=0
	for f in scripts/*.sh tests/*.sh tests/*/*.sh tests/*/*/*.sh; do
		n=$((n + 1))
		if shellcheck -x "$f" > "$logs/shellcheck.out" 2>&1; then
			echo "ok $n - shellcheck $f"
		else
			bad=$((bad + 1))
			echo "not ok $n - shellcheck $f"
			sed 's/^/#   /' "$logs/shellcheck.out" | head -n 20
		fi
	done
	n=$((n + 1))
	if shellcheck -s bash dkms.conf > "$logs/shellcheck.out" 2>&1; then
		echo "ok $n - shellcheck dkms.conf"
	else
		bad=$((bad + 1)); echo "not ok $n - shellcheck dkms.conf"
	fi
	for p in backports/*/patches/*.patch backports/*/infra/patches/*.patch; do
		[ -f "$p" ] || continue
		n=$((n + 1))
		if perl src/upstream/scripts/checkpatch.pl --no-tree -q - < "$p" > "$logs/checkpatch.out" 2>&1; then
			echo "ok $n - checkpatch $p"
		elif grep -q '^ERROR' "$logs/checkpatch.out"; then
			bad=$((bad + 1))
			echo "not ok $n - checkpatch $p"
			grep -A2 '^ERROR' "$logs/checkpatch.out" | sed 's/^/#   /' | head -n 20
		else
			echo "ok $n - checkpatch $p (warnings only)"
			grep '^WARNING' "$logs/checkpatch.out" | sed 's/^/#   /'
		fi
	done
	echo "1..$n"
	echo "lint: $((n - bad)) passed, $bad failed"
}

make -s import-all > "$logs/import.log" 2>&1 || { cat "$logs/import.log"; echo "check: 0 passed, 1 failed"; exit 1; }

section lint lint
section tools sh tests/host-scripts/run.sh
section tools-user sh -c 'make -s -C tools > /dev/null && sh tests/host-tools/run.sh'
section build-matrix sh scripts/check-build.sh
# shellcheck disable=SC2086 # a list of kernels
section dkms sh tests/dkms/run.sh $dkms_kvers
section pkg-deb sh tests/pkg/deb.sh
section pkg-rpm sh tests/pkg/rpm.sh
section pkg-kmod sh tests/pkg/kmod.sh
section pkg-secureboot sh tests/pkg/secureboot.sh
section pkg-reboot sh tests/pkg/reboot.sh
skipped() {
	echo "SKIPPED: $1: $2"
	echo "$1: 0 passed, 0 failed, 1 skipped"
}
if [ "$full" = 1 ]; then
	section pkg-trixie sh tests/pkg/trixie.sh
else
	section pkg-trixie skipped pkg-trixie "debootstraps a 1.2 GB Debian 13 root; FB_CHECK_FULL=1 runs it"
fi
if [ "$full" = 1 ]; then
	section pkg-repo sh tests/pkg/repo.sh
else
	section pkg-repo skipped pkg-repo "builds the packages twice and installs them in a chroot; FB_CHECK_FULL=1 runs it"
fi
# The VM sections. The first kernel (Debian 12's 6.12 backport, base 6.12)
# runs every suite but badinput in every mode for ours (the faults suite
# with 20 mount and 10 module cycles; badinput, malformed replies to dev.c,
# which the series does not change, runs on 6.1: the same base's dev.c),
# parallel and security (their expected failures)
# for the stock FUSE, parallel for the unpatched base. The
# others run ours only: stock and the unpatched base are pinned code on a
# pinned kernel, whose expected failures the first kernel's stock column
# keeps proving the tests can show (and FB_CHECK_FULL=1 runs them on every
# kernel; the README has each kernel's). On Debian 12's 6.1 (the same base,
# built against its own APIs and our compat backing-file layer) the data
# and fault suites run the modes where 6.1's code differs (cached: its page
# cache; passthrough through the compat layer) and fewer mount and module
# cycles. Kernels of base 7.2 and 7.3 (7.2.12+deb13,
# 7.3.4+deb13) boot only with FB_CHECK_FULL=1 (the Makefile's VM_KVERS);
# given in FB_VM_KVERS, they run what their series and the tool change
# (vm_core: smoke, the parallel and splice writes, the privilege cache's
# contract, status). Every suite ran on 7.3.4 and the core ones on 7.2.12
# (README, "VM on base 7.3", "VM on base 7.2"), and FB_CHECK_FULL=1 runs
# every suite in every mode everywhere.
vm_core="smoke parallel security status splice"
# What 6.1 runs beside the first kernel: every suite but status and
# libfuse (the tool and the mount helper are the same code, checked on the
# first kernel).
vm_61="smoke integrity aio faults badinput parallel security dropin splice"
# What the first kernel runs: every suite but badinput.
vm_first="smoke integrity aio faults parallel security dropin status libfuse splice"
# vm_run KVER FIRST: the VM section of one kernel (FIRST=1: $vm_first),
# and a NOTE line on what the default tier leaves out.
vm_run() {
	k=$1
	if [ "$full" = 1 ]; then
		sh tests/vm/run-suites.sh "$k"
		return
	fi
	if [ "$2" = 1 ]; then
		# shellcheck disable=SC2086 # a list of suites
		set -- env FB_FAULTS_CYCLES=20 FB_FAULTS_MODCYCLES=10 FB_STOCK_DROP="smoke dropin status libfuse" \
			sh tests/vm/run-suites.sh "$k" $vm_first
		note="suites $vm_first (badinput on 6.1); stock runs parallel and security; 20 mount and 10 module cycles; FB_CHECK_FULL=1 runs every suite on stock and ours and 50/20 cycles"
	elif [ "$(bash scripts/flavor.sh --base "$k" /nonexistent 2> /dev/null | cut -d' ' -f1)" = 6.12 ]; then
		# shellcheck disable=SC2086 # a list of suites
		set -- env FB_VM_TARGETS=ours FB_INTEGRITY_MODES="pt-parallel cached" FB_AIO_MODES="parallel cached" \
			FB_FAULTS_CYCLES=10 FB_FAULTS_MODCYCLES=5 sh tests/vm/run-suites.sh "$k" $vm_61
		note="ours only, suites $vm_61; integrity modes pt-parallel, cached; aio parallel, cached; 10 mount and 5 module cycles; FB_CHECK_FULL=1 runs stock and the unpatched base too, every suite in every mode and 50/20 cycles"
	else
		# shellcheck disable=SC2086 # a list of suites
		set -- env FB_VM_TARGETS=ours sh tests/vm/run-suites.sh "$k" $vm_core
		note="ours only, suites $vm_core; FB_CHECK_FULL=1 runs stock and the unpatched base too, every suite in every mode"
	fi
	"$@"
	vm_rc=$?
	echo "NOTE: vm-$k: $note"
	return $vm_rc
}
first=1
for k in $vm_kvers; do
	section "vm-$k" vm_run "$k" $first
	first=0
done
for k in $splice_stock_kvers; do
	if [ "$full" = 1 ]; then
		section "splice-stock-$k" sh tests/splice/stock.sh "$k"
	else
		section "splice-stock-$k" skipped "splice-stock-$k" "the stock splice crash takes its guest down; FB_CHECK_FULL=1 boots for it"
	fi
done
# The suites on a lockdep/KASAN kernel (tests/debug/run.sh): the kernel build
# alone takes most of an hour on 2 cores the first time.
if [ "$full" = 1 ]; then
	section check-debug sh tests/debug/run.sh
else
	section check-debug skipped check-debug "builds a lockdep/KASAN kernel (about an hour once per machine) and runs 5 suites on it; FB_CHECK_FULL=1 runs it"
fi

# Kernel headers that vanished from the archive (scripts/deps.sh): the
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

echo
echo "=== summary"
echo "$summary"
echo
echo "check: $total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" = 0 ]
