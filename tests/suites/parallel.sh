#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Deterministic parallelism suite (guest): writer A blocks inside its
# O_DIRECT write on a userfaultfd page while holding whatever lock the kernel
# takes; does writer B get through (tests/parallel/run.sh, uffd_pwrite)?
#   - passthrough + FOPEN_PARALLEL_DIRECT_WRITES, B non-extending O_DIRECT:
#     must get through on ours; must wait on stock and on the unpatched base
#   - the same with B a splice(2) of one page asking for 2 MiB: must wait
#     everywhere (splice writes stay exclusive, as in upstream's v3; fb2 to
#     fb4 let it through)
#   - the same with B a buffered write (O_DIRECT dropped by fcntl): must
#     wait everywhere (only direct io shares the lock, as in upstream's v3;
#     fb4 let it through)
#   - passthrough, B extending: must wait everywhere
#   - FOPEN_DIRECT_IO + FOPEN_PARALLEL_DIRECT_WRITES, B non-extending: gets
#     through everywhere (upstream behaviour kept)
#   - control: B writes the backing file itself (XFS allows it in parallel)
#   - the bytes: after those cases, the control file, the
#     passthrough file and the FOPEN_DIRECT_IO file, each through the mount
#     and its backing file read directly, hold exactly what uffd_pwrite's
#     model says its writers wrote (a zero fill, A's pages, B's pages), on
#     every target
#   - the size decision: a write that does not extend
#     the cached i_size runs while a reply that shrinks it is held, by the
#     fbdelay kprobe module, between its version check and applying the
#     size (tests/parallel/sizerace.c): the cached size must end at least
#     at the end of the write, in FOPEN_DIRECT_IO + parallel mode and in
#     passthrough mode, on every target
#   - appends: 4 O_APPEND, then 4 RWF_APPEND, O_DIRECT
#     writers on one passthrough file with FOPEN_PARALLEL_DIRECT_WRITES stay
#     exclusive: every record whole, once and in order, on every target
# Backing files on XFS ($FB_XFS), where non-extending O_DIRECT overwrites
# share the inode lock, so only FUSE's own lock can serialize.
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"

# No XFS is a broken guest, not a reason to skip: the test would assert
# nothing.
if [ -z "${FB_XFS:-}" ]; then
	tap_check 1 "XFS scratch for the backing files: ${FB_XFS_ERR:-FB_XFS is not set (tests/vm/guest/suites.sh sets it up)}"
	tap_done
	exit
fi
out=$FB_SCRATCH/parallel.tap
mkdir -p "$FB_SCRATCH"
trap fb_cleanup EXIT

# size_race MODE: sizerace on a fresh mount in MODE (fb_mode_args), with
# fbdelay holding the stat task's reply for a second inside fi->lock.
size_race() {
	sr_name="$1: a non-extending write while a reply that shrinks i_size is applied leaves i_size >= the write's end"
	FB_BACK=$FB_XFS/sizerace-$1
	rm -rf "$FB_BACK"
	# shellcheck disable=SC2046 # the mode's options
	if ! fb_mount $(fb_mode_args "$1") --attr-timeout 3600 2> "$FB_SCRATCH/sizerace.err"; then
		if [ "$1" = passthrough ] && [ "${FB_TARGET:-ours}" = stock ] &&
			grep -q 'did not offer FUSE_PASSTHROUGH in INIT' "$FB_SCRATCH/sizerace.err"; then
			tap_skip "$sr_name" "mount: $(grep -m 1 FUSE_PASSTHROUGH "$FB_SCRATCH/sizerace.err")"
		else
			tap_check 1 "$sr_name (mount: $(head -n 1 "$FB_SCRATCH/sizerace.err"))"
		fi
		return
	fi
	# fuse_change_attributes_common of the module under test, not of a
	# built-in FUSE beside it
	sr_sym=fuse_change_attributes_common
	[ -n "${FB_MODNAME:-}" ] && [ -f "/sys/module/$FB_MODNAME/refcnt" ] && sr_sym=$FB_MODNAME:$sr_sym
	if ! insmod "${FB_KMOD_DIR:-/nonexistent}/fbdelay.ko" symbol="$sr_sym" comm=fbsz-stat delay_ms=1000 \
		2> "$FB_SCRATCH/sizerace.err"; then
		tap_check 1 "$sr_name (insmod fbdelay.ko symbol=$sr_sym: $(head -n 1 "$FB_SCRATCH/sizerace.err"))"
		fb_umount
		return
	fi
	"$FB_TOP/tests/parallel/sizerace" "$FB_MNT/f" "$FB_BACK/f" /sys/module/fbdelay/parameters fbsz-stat \
		> "$FB_SCRATCH/sizerace.out" 2> "$FB_SCRATCH/sizerace.err"
	sr_rc=$?
	rmmod fbdelay || sr_rc=2
	fb_umount
	cat "$FB_SCRATCH/sizerace.out"
	sed 's/^/stderr: /' "$FB_SCRATCH/sizerace.err" | while IFS= read -r l; do tap_diag "$l"; done
	tap_check "$sr_rc" "$sr_name"
}
size_races() {
	size_race parallel
	size_race passthrough
}
# appends: 4 writers append to one passthrough file with
# FOPEN_PARALLEL_DIRECT_WRITES at once, O_DIRECT, with O_APPEND and with
# pwritev2(RWF_APPEND) (tests/parallel/appenders.py). Appends stay exclusive
# on every target: no record lost, torn, overlapped or
# out of its writer's order, through the mount and in the backing file read
# directly.
appends() {
	FB_BACK=$FB_XFS/appends
	for ap_how in oappend rwf; do
		ap_name="passthrough + parallel writes: 4 $ap_how O_DIRECT appenders at once lose, tear and overlap no record (the mount and the backing file)"
		rm -rf "$FB_BACK"
		# shellcheck disable=SC2046 # the mode's options
		if ! fb_mount $(fb_mode_args pt-parallel) 2> "$FB_SCRATCH/appends.err"; then
			if [ "${FB_TARGET:-ours}" = stock ] &&
				grep -q 'did not offer FUSE_PASSTHROUGH in INIT' "$FB_SCRATCH/appends.err"; then
				tap_skip "$ap_name" "mount: $(grep -m 1 FUSE_PASSTHROUGH "$FB_SCRATCH/appends.err")"
			else
				tap_check 1 "$ap_name (mount: $(head -n 1 "$FB_SCRATCH/appends.err"))"
			fi
			continue
		fi
		ap_out=$(timeout -k 5 120 python3 "$FB_TOP/tests/parallel/appenders.py" "$ap_how" \
			"$FB_MNT/f" "$FB_MNT/f" "$FB_BACK/f" --direct 2>&1)
		ap_rc=$?
		fb_umount
		tap_diag "$ap_how: $ap_out"
		tap_check $ap_rc "$ap_name"
	done
}
# On ours B must get through; on stock and the unpatched base uffd_pwrite
# asserts the stock behaviour itself: B sleeps on the inode lock (state D,
# its innermost kernel frame the FUSE function that takes it: /proc hides
# down_write) and completes right after A is released.
expect=patched
[ "${FB_TARGET:-ours}" = ours ] || expect=stock
TMPDIR=$FB_XFS timeout -k 5 120 sh "$FB_TOP/tests/parallel/run.sh" --expect $expect \
	--dev "$FB_DEV" --fstype "$FB_FSTYPE" > "$out" 2> "$FB_SCRATCH/parallel.err"
rc=$?
# the evidence (where B waited, when it completed) and any error: in the TAP
sed -n 's/^# /# /p' "$out"
sed 's/^# //' "$FB_SCRATCH/parallel.err" | while IFS= read -r l; do tap_diag "stderr: $l"; done
if ! grep -q '^ok 1 \|^not ok 1 ' "$out"; then
	# A kernel without FUSE passthrough (stock 6.1) lacks the whole
	# feature: the one expected failure, and only on stock, with the
	# daemon saying exactly that.
	if [ "${FB_TARGET:-ours}" = stock ] &&
		grep -q 'did not offer FUSE_PASSTHROUGH in INIT' "$FB_SCRATCH/parallel.err"; then
		tap_stock 1 0 "passthrough + parallel writes: non-extending B completes while A is blocked" \
			"no FUSE passthrough: $(grep -m 1 FUSE_PASSTHROUGH "$FB_SCRATCH/parallel.err")"
	else
		tap_check 1 "uffd_pwrite ran (exit $rc: $(head -n 1 "$FB_SCRATCH/parallel.err"))"
	fi
	size_races
	appends
	tap_done
	exit
fi
result() { grep -q "^ok $1 " "$out"; echo $?; }
tap_check "$(result 1)" "control: non-extending B on the XFS backing file itself completes while A is blocked"
if [ $expect = patched ]; then
	tap_check "$(result 2)" "passthrough + FOPEN_PARALLEL_DIRECT_WRITES: non-extending B completes while A is blocked"
else
	tap_stock 1 "$(result 2)" "passthrough + FOPEN_PARALLEL_DIRECT_WRITES: non-extending B completes while A is blocked" \
		"B sleeps uninterruptibly (D) directly in fuse_passthrough_write_iter, i.e. on the inode lock, and completes right after A is released: upstream takes the inode lock exclusively for every passthrough write"
fi
tap_check "$(result 3)" "passthrough + FOPEN_PARALLEL_DIRECT_WRITES: a non-extending splice B (asking for more than the file holds) waits on the inode lock while A is blocked, completes after (splice writes stay exclusive)"
tap_check "$(result 4)" "passthrough + FOPEN_PARALLEL_DIRECT_WRITES: a non-extending buffered B (no O_DIRECT) waits on the inode lock while A is blocked, completes after (only direct io shares the lock)"
tap_check "$(result 5)" "passthrough: extending B waits on the inode lock while A is blocked, completes after"
tap_check "$(result 6)" "FOPEN_DIRECT_IO + FOPEN_PARALLEL_DIRECT_WRITES: non-extending B completes while A is blocked"
tap_check "$(result 7)" "control: the XFS file holds exactly the bytes A and B wrote (uffd_pwrite's model)"
tap_check "$(result 8)" "passthrough + FOPEN_PARALLEL_DIRECT_WRITES: after the four cases the file, through the mount and its backing file read directly, holds exactly the bytes A and B wrote (uffd_pwrite's model)"
tap_check "$(result 9)" "FOPEN_DIRECT_IO + FOPEN_PARALLEL_DIRECT_WRITES: the file, through the mount and its backing file read directly, holds exactly the bytes A and B wrote (uffd_pwrite's model)"
size_races
appends
tap_done
