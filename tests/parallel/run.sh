#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Do passthrough writes run in parallel? Mounts fbtestd twice, in passthrough
# mode and in FOPEN_DIRECT_IO mode (both with FOPEN_PARALLEL_DIRECT_WRITES),
# over a backing directory on ext4 or XFS, and runs uffd_pwrite (TAP output):
#
#   1  control: non-extending write straight to the backing file: parallel
#   2  passthrough, non-extending O_DIRECT write: parallel if patched,
#      serial if stock
#   3  passthrough, non-extending splice: serial (splice writes take the
#      inode lock exclusively, patched or not)
#   4  passthrough, non-extending buffered write (no O_DIRECT): serial
#      (only direct io may share the lock, patched or not)
#   5  passthrough, extending write: serial
#   6  FOPEN_DIRECT_IO, non-extending write: parallel
#   7-9  the bytes of the control file, the passthrough file and the
#      FOPEN_DIRECT_IO file, through the mount and the backing file read
#      directly, against uffd_pwrite's model of what its writers wrote (-b)
#
# usage: tests/parallel/run.sh [--expect patched|stock] [--dev DEV]
#                              [--fstype TYPE] [--timeout MS]
#   --expect   what test 2 must show (default patched)
#   --dev      FUSE device (default /dev/fuse)
#   --fstype   file system type (default fuse)
# Needs root: mount(2), loop devices and userfaultfd faults from kernel mode.
# The backing directory is under $TMPDIR (default /var/tmp) if that is on
# ext4 or XFS, else on a loop-mounted ext4 image made there.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
expect=patched
dev=/dev/fuse
fstype=fuse
timeout_ms=2000

die() { echo "parallel: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--expect) expect=${2:?}; shift 2 ;;
	--dev) dev=${2:?}; shift 2 ;;
	--fstype) fstype=${2:?}; shift 2 ;;
	--timeout) timeout_ms=${2:?}; shift 2 ;;
	*) sed -n '20,21p' "$0" | sed 's/^# //' >&2; exit 2 ;;
	esac
done
case $expect in
patched) pt_expect=parallel ;;
stock) pt_expect=serial ;;
*) die "--expect must be patched or stock" ;;
esac

make -s -C "$top/tests" parallel daemon >/dev/null || die "cannot build uffd_pwrite and fbtestd (make -C tests parallel daemon)"
daemon=$top/tests/daemon/fbtestd

work=$(mktemp -d "${TMPDIR:-/var/tmp}/fb-parallel.XXXXXX")
loop_mnt=""
loop_dev=""
cleanup() {
	for m in "$work/mnt-pt" "$work/mnt-dio"; do
		mountpoint -q "$m" && umount "$m"
	done
	[ -n "$loop_mnt" ] && mountpoint -q "$loop_mnt" && umount "$loop_mnt"
	[ -n "$loop_dev" ] && losetup -d "$loop_dev" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

back=$work
case $(stat -f -c %T "$work") in
ext2/ext3|xfs) ;;
*)
	truncate -s 128M "$work/img"
	mkfs.ext4 -q -F "$work/img" || die "mkfs.ext4 failed"
	modprobe loop 2>/dev/null || :
	loop_dev=$(losetup -f --show "$work/img") || die "no loop device"
	loop_mnt=$work/loop
	mkdir "$loop_mnt"
	mount -t ext4 "$loop_dev" "$loop_mnt" || die "cannot mount the ext4 image"
	back=$loop_mnt
	;;
esac
# The mount points are not the backing directories (back is work on XFS):
# a backing file must be readable directly, not only through the mount.
mkdir -p "$back/pt" "$back/dio" "$work/mnt-pt" "$work/mnt-dio"
: >"$back/pt/f"
: >"$back/dio/f"
: >"$back/control"

"$daemon" --dev "$dev" --fstype "$fstype" --backing "$back/pt" \
	--mode passthrough --parallel "$work/mnt-pt" || die "fbtestd (passthrough) failed"
"$daemon" --dev "$dev" --fstype "$fstype" --backing "$back/dio" \
	--mode direct --parallel "$work/mnt-dio" || die "fbtestd (direct) failed"

echo "# backing on $(stat -f -c %T "$back"), kernel $(uname -r), expect $expect"
"$here/uffd_pwrite" -t "$timeout_ms" \
	-b "$back/control:$back/control" \
	-b "$work/mnt-pt/f:$back/pt/f" \
	-b "$work/mnt-dio/f:$back/dio/f" \
	"$back/control:inside:parallel" \
	"$work/mnt-pt/f:inside:$pt_expect" \
	"$work/mnt-pt/f:splice:serial" \
	"$work/mnt-pt/f:buffered:serial" \
	"$work/mnt-pt/f:extend:serial" \
	"$work/mnt-dio/f:inside:parallel"
