#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest: run suites against targets, in one boot. For every target
# (stock FUSE, our module, our unpatched base) it loads the target, runs the
# suites planned for it, and after each suite checks the kernel log.
#
# usage: tests/guest/main.sh RESULTS PLAN...
#   PLAN: TARGET=SUITE[,SUITE...]   e.g. stock=smoke,integrity ours=smoke
# Environment: FB_MODDIR (ours), FB_MODDIR_UNPATCHED (unpatched).
# Writes RESULTS/TARGET.SUITE.tap (+ .err) and RESULTS/TARGET.SUITE.klog.
results=${1:?usage: main.sh RESULTS PLAN...}
shift
FB_TOP=$(cd "$(dirname "$0")/../.." && pwd)
export FB_TOP
. "$FB_TOP/tests/lib/fuse.sh"
mkdir -p "$results" /tmp/fb

# A memory-backed XFS for backing files that need a real block filesystem.
FB_XFS=""
if modprobe null_blk nr_devices=1 gb=1 memory_backed=1 bs=4096 2> /dev/null &&
   [ -b /dev/nullb0 ] && mkfs.xfs -q -f /dev/nullb0 > /dev/null 2>&1 &&
   mkdir -p /tmp/fb-xfs && mount -t xfs /dev/nullb0 /tmp/fb-xfs; then
	FB_XFS=/tmp/fb-xfs
fi
export FB_XFS
echo "guest: kernel $(uname -r), $(nproc) CPUs, XFS scratch: ${FB_XFS:-none}"

for plan in "$@"; do
	target=${plan%%=*}
	suites=$(echo "${plan#*=}" | tr ',' ' ')
	if ! fb_use "$target" > "$results/$target.load" 2>&1; then
		echo "guest: cannot load target $target: $(cat "$results/$target.load")"
		for s in $suites; do
			echo "not ok 1 - load target $target" > "$results/$target.$s.tap"
		done
		continue
	fi
	echo "guest: target $target: $FB_FSTYPE on $FB_DEV${FB_MODNAME:+, module $FB_MODNAME $(cat "/sys/module/$FB_MODNAME/version" 2> /dev/null)}"
	for s in $suites; do
		FB_SCRATCH=/tmp/fb/$target.$s
		FB_BACK=$FB_SCRATCH/back
		export FB_SCRATCH FB_BACK
		mkdir -p "$FB_SCRATCH"
		[ -n "$FB_XFS" ] && rm -rf "${FB_XFS:?}"/*
		fb_klog_mark "$target.$s"
		start=$(date +%s)
		timeout -k 10 1200 sh "$FB_TOP/tests/suites/$s.sh" \
			> "$results/$target.$s.tap" 2> "$results/$target.$s.err"
		rc=$?
		# Whatever the suite left mounted goes, so the next one starts clean.
		grep -E " $FB_SCRATCH/" /proc/mounts | cut -d' ' -f2 | sort -r | while read -r mp; do
			umount -l "$mp"
		done
		if fb_klog_clean "$target.$s"; then
			echo "clean" > "$results/$target.$s.klog"
		else
			cp "$FB_SCRATCH/klog.hits" "$results/$target.$s.klog"
		fi
		echo "guest: $target $s: exit $rc in $(($(date +%s) - start)) s: $(tail -n 1 "$results/$target.$s.tap")"
		[ $rc = 124 ] && echo "not ok - suite $s timed out" >> "$results/$target.$s.tap"
		# Let the next target see FB_* of the current one cleanly.
		fb_use "$target" > /dev/null 2>&1 || true
	done
	fb_unload_ours
done
dmesg > "$results/dmesg"
true
