#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fb_passthrough_live (tests/lib/fuse.sh, as FUSE_SH gives it) on the host's
# own FUSE, no VM, no module of ours: in a private mount namespace
# (unshare -m), the Debian 13 guest root's passthrough_hp (chroot) over a
# tmpfs, with and without --nopassthrough.
# usage: unshare -m --propagation private sh host-hp.sh [FUSE_SH]
top=$(cd "$(dirname "$0")/../../.." && pwd)
f=${1:-$top/tests/lib/fuse.sh}
R=/var/cache/fuse-backport/roots/trixie-guest
mount -t proc proc $R/proc
mount --bind /dev $R/dev
mount -t tmpfs tmpfs $R/tmp
mkdir -p $R/tmp/fb/tests/lib
cp "$f" $R/tmp/fb/tests/lib/fuse.sh
cp "$top/tests/lib/klog.sh" $R/tmp/fb/tests/lib/
for a in "" --nopassthrough; do
	# shellcheck disable=SC2016 # a script for the chroot's shell
	chroot $R env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp FB_TOP=/tmp/fb sh -c '
	. $FB_TOP/tests/lib/fuse.sh
	HP=/usr/local/libexec/fuse-backport-test/passthrough_hp
	rm -rf /tmp/b /tmp/m; mkdir -p /tmp/b /tmp/m
	timeout 60 $HP $1 /tmp/b /tmp/m || { echo "passthrough_hp $1: no mount"; exit 1; }
	fb_passthrough_live /tmp/m/pt /tmp/b/pt
	echo "passthrough_hp ${1:-(as built)}, -t $(fb_fstype /tmp/m): fb_passthrough_live rc=$? ($fb_pl_got)"
	umount /tmp/m' sh "$a"
done
