#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest: run suites against targets, in one boot. For every target
# (stock FUSE, our module, our unpatched base) it loads the target, runs the
# suites planned for it, and after each suite checks the kernel log.
#
# usage: tests/vm/guest/suites.sh RESULTS PLAN...
#   PLAN: TARGET=SUITE[,SUITE...]   e.g. stock=smoke,integrity ours=smoke
# Environment: FB_MODDIR (ours), FB_MODDIR_UNPATCHED (unpatched).
# Writes RESULTS/TARGET.SUITE.tap (+ .err) and RESULTS/TARGET.SUITE.klog.
results=${1:?usage: suites.sh RESULTS PLAN...}
shift
FB_TOP=$(cd "$(dirname "$0")/../../.." && pwd)
# The suites run the checkout closed to every user but root, as a clone
# under /root (mode 0700) is: bound to /run/fb-closed/top, in a directory
# of mode 0700. A test that runs a program of the checkout as another user
# fails here in every run, CI's included (the program must come from a
# place that user can read: fb_copy_for, tests/lib/fuse.sh). Not closed is
# a failure of the run (RESULTS/setup.err).
closed_err=""
fb_closed=/run/fb-closed
if ! mkdir -p "$fb_closed/top" || ! chmod 0700 "$fb_closed" ||
	! mount --rbind "$FB_TOP" "$fb_closed/top"; then
	closed_err="cannot bind the checkout to $fb_closed/top"
elif setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$fb_closed/top/tests"; then
	closed_err="uid 65534 still reads $fb_closed/top/tests"
else
	FB_TOP=$fb_closed/top
fi
export FB_TOP
. "$FB_TOP/tests/lib/fuse.sh"
. "$FB_TOP/tests/lib/kmemleak.sh"
mkdir -p "$results" /tmp/fb

# A memory-backed XFS for backing files that need a real block filesystem
# (the parallel suite cannot do without it). A failed setup is said, and is
# a failure of the run (RESULTS/setup.err, tests/vm/report.sh).
FB_XFS=""
: > "$results/setup.err"
[ -z "$closed_err" ] || echo "checkout closed to others: $closed_err" >> "$results/setup.err"
if ! modprobe null_blk nr_devices=1 gb=1 memory_backed=1 bs=4096 2> "$results/xfs.err"; then
	echo "XFS scratch: modprobe null_blk failed: $(head -n 1 "$results/xfs.err")" >> "$results/setup.err"
elif ! fb_wait_while 50 [ ! -b /dev/nullb0 ]; then
	echo "XFS scratch: /dev/nullb0 did not appear" >> "$results/setup.err"
elif ! mkfs.xfs -q -f /dev/nullb0 > "$results/xfs.err" 2>&1; then
	echo "XFS scratch: mkfs.xfs /dev/nullb0 failed: $(head -n 1 "$results/xfs.err")" >> "$results/setup.err"
elif ! mkdir -p /tmp/fb-xfs || ! mount -t xfs /dev/nullb0 /tmp/fb-xfs 2> "$results/xfs.err"; then
	echo "XFS scratch: mount -t xfs /dev/nullb0 failed: $(head -n 1 "$results/xfs.err")" >> "$results/setup.err"
else
	FB_XFS=/tmp/fb-xfs
fi
FB_XFS_ERR=$(head -n 1 "$results/setup.err")
export FB_XFS FB_XFS_ERR
echo "guest: kernel $(uname -r), $(nproc) CPUs, XFS scratch: ${FB_XFS:-none ($FB_XFS_ERR)}"
echo "guest: the checkout, closed to other users: ${closed_err:-$FB_TOP}"
taint0=$(fb_taint)
echo "guest: kernel taint at the start: $(fb_taint_who)"
# A kernel with kmemleak (the debug kernel, dev/debug-kernel.config): a scan after
# every suite, before our module comes off (RESULTS/TARGET.SUITE.kmemleak,
# the report in .kmemleak.txt; tests/vm/report.sh fails on a leak of ours);
# whether it was on to the end: RESULTS/kmemleak (tests/debug/run.sh).
fb_kml=""
if fb_kmemleak_on; then
	fb_kml=on
	echo "guest: kmemleak on: scans after every suite"
fi

# Deliberate breakage for the red runs (docs/testing.md, "Red runs"): FB_INJECT is a
# list of KIND:TARGET.SUITE, done right after that suite: warn (a WARNING
# line in the kernel log), hold (a process keeps our device open, so our
# module cannot be unloaded; the module loaded again first where the suite
# unloaded it), lockdep, kasan, sleep (tests/kmod/fbbug.ko
# commits that bug: an ABBA, an out-of-bounds read, might_sleep() under a
# spinlock; only the debug kernel, dev/debug-kernel.sh, reports them),
# leak, leak-other (fbbug.ko drops an object that FUSE's fuse_dev_alloc()
# allocated, or one of its own: kmemleak's scan after the suite reports them),
# kmemleak-off (turns kmemleak off: the scan after the suite fails).
# hold_dev DEV: a process in the background keeps DEV open; returns once
# it has (at most 5 s), so that the rmmod after the suite cannot win the
# race with the background shell's open.
hold_dev() {
	(exec 9< "$1" && exec sleep 3600) > /dev/null 2>&1 &
	hd_n=0
	while [ $hd_n -lt 50 ] && [ "$(readlink "/proc/$!/fd/9" 2> /dev/null)" != "$1" ]; do
		sleep 0.1
		hd_n=$((hd_n + 1))
	done
}
inject() {	# inject TARGET.SUITE
	for fb_i in ${FB_INJECT:-}; do
		[ "${fb_i#*:}" = "$1" ] || continue
		case ${fb_i%%:*} in
		warn) echo "<4>WARNING: CPU: 0 PID: $$ at injected by FB_INJECT for $1" > /dev/kmsg ;;
		hold)
			# a suite that unloads our module itself (takeover's
			# last test) leaves nothing to hold: load it again
			[ -c "${FB_DEV:-}" ] || fb_use "$target" > /dev/null 2>&1
			[ -c "${FB_DEV:-}" ] && hold_dev "$FB_DEV"
			;;
		lockdep | kasan | sleep | leak | leak-other)
			insmod "${FB_KMOD_DIR:-}/fbbug.ko" what="${fb_i%%:*}" && rmmod fbbug
			;;
		kmemleak-off) echo off > "$FB_KMEMLEAK" ;;
		esac
	done
}

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
		timeout -k 10 "${FB_SUITE_TIMEOUT:-1200}" sh "$FB_TOP/tests/suites/$s.sh" \
			> "$results/$target.$s.tap" 2> "$results/$target.$s.err"
		rc=$?
		# A FUSE mount the suite left behind is a leak, recorded before
		# anything is swept (tests/vm/report.sh fails on it); then
		# whatever the suite left mounted goes, so the next one starts
		# clean.
		awk '$3 ~ /^(fuse|fuseblk|fusebp|fusebpblk)([.]|$)/ { print $2 " (" $3 ")" }' /proc/mounts \
			> "$results/$target.$s.leaked"
		{ grep -E " $FB_SCRATCH/" /proc/mounts | cut -d' ' -f2
			awk '$3 ~ /^(fuse|fuseblk|fusebp|fusebpblk)([.]|$)/ { print $2 }' /proc/mounts; } |
			sort -r -u | while read -r mp; do
				umount -l "$mp"
			done
		inject "$target.$s"
		if [ -n "$fb_kml" ]; then
			if fb_kmemleak_scan "$results/$target.$s.kmemleak.txt"; then
				fb_kmemleak_verdict "$results/$target.$s.kmemleak.txt" > "$results/$target.$s.kmemleak"
			else
				echo "scan failed: kmemleak refused scan or read after the suite (turned off? see dmesg)" > "$results/$target.$s.kmemleak"
				fb_kml=""
			fi
			echo "guest: $target $s: kmemleak: $(cut -c1-200 "$results/$target.$s.kmemleak")"
		fi
		# Our module must come off after every suite: a reference a
		# suite leaked (a mount, an open device, a stuck daemon) is a
		# failure.
		if fb_unload_ours > "$results/$target.$s.unload" 2>&1; then
			echo ok > "$results/$target.$s.unload"
		else
			echo "rmmod failed: $(tr '\n' ' ' < "$results/$target.$s.unload")$(grep -E '^(fuse|fusebp)' /proc/modules | cut -d' ' -f1,3 | tr '\n' ' ')" > "$results/$target.$s.unload"
		fi
		if fb_klog_clean "$target.$s"; then
			echo "clean" > "$results/$target.$s.klog"
		else
			cp "$FB_SCRATCH/klog.hits" "$results/$target.$s.klog"
		fi
		last=$(tail -n 1 "$results/$target.$s.tap")
		echo "guest: $target $s: exit $rc in $(($(date +%s) - start)) s: $last"
		# The failed tests by name, at once: a run stopped later (CI's
		# time limit) still shows them.
		case $rc/$last in
		0/*" 0 failed"*) ;;
		*) grep '^not ok' "$results/$target.$s.tap" | head -n 5 | cut -c1-300 | sed "s/^/guest: $target $s: /" ;;
		esac
		[ $rc = 124 ] && echo "not ok - suite $s timed out" >> "$results/$target.$s.tap"
		# Let the next suite see FB_* of the current target cleanly.
		if ! fb_use "$target" > "$results/$target.load" 2>&1; then
			echo "guest: cannot load target $target again: $(cat "$results/$target.load")"
		fi
	done
	fb_unload_ours
done
t1=$(fb_taint)
if [ "$taint0" = "$t1" ]; then
	echo ok > "$results/taint"
else
	echo "/proc/sys/kernel/tainted changed during the run: $taint0 -> $t1 (O and E masked; $(fb_taint_who))" > "$results/taint"
fi
if [ -z "$fb_kml" ]; then
	echo "off: $FB_KMEMLEAK $([ -e "$FB_KMEMLEAK" ] && echo "refuses commands (kmemleak turned itself off)" || echo "is not there")" > "$results/kmemleak"
elif fb_kmemleak_on; then
	echo on > "$results/kmemleak"
else
	echo "off at the end of the run (kmemleak turned itself off)" > "$results/kmemleak"
fi
dmesg > "$results/dmesg"
# A lockdep kernel: whether lockdep was still on at the end (it turns itself
# off at its first report); tests/debug/run.sh checks it.
[ -r /proc/lockdep_stats ] && cp /proc/lockdep_stats "$results/lockdep_stats"
true
