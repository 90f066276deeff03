#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest: load our module next to the kernel's FUSE (or instead of its
# modular one), mount the test daemon through it, round-trip a file byte for
# byte, unmount and unload. TAP.
#
# usage: tests/vm/guest/demo.sh MODDIR
FB_MODDIR=${1:?usage: demo.sh MODDIR}
FB_TOP=$(cd "$(dirname "$0")/../../.." && pwd)
export FB_MODDIR FB_TOP
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
mkdir -p "$FB_SCRATCH"

fb_klog_mark demo
builtin=no
grep -q '^fuse ' /proc/modules || { grep -qw fuse /proc/filesystems && builtin=yes; }
tap_diag "kernel $(uname -r); FUSE built in: $builtin"

fb_use ours
tap_check $? "load our module from $FB_MODDIR"
m=$FB_MODNAME
tap_diag "module $m: version $(cat /sys/module/"$m"/version 2> /dev/null)," \
	"$(grep -E "^($m|fuse) " /proc/modules | cut -d' ' -f1-2 | tr '\n' ' ')"
[ -c "$FB_DEV" ]
tap_check $? "$FB_DEV is a character device ($(stat -c '%t:%T' "$FB_DEV" 2> /dev/null))"
grep -qw "$FB_FSTYPE" /proc/filesystems
tap_check $? "file system type $FB_FSTYPE registered"
if [ $builtin = yes ]; then
	grep -qw fuse /proc/filesystems && [ -c /dev/fuse ]
	tap_check $? "the built-in fuse and /dev/fuse are still there"
fi

fb_mount --mode cached
tap_check $? "mount -t $FB_FSTYPE with the test daemon"
grep " $FB_MNT " /proc/mounts | sed 's/^/# /'
conn=$(find "$FB_CTL" -mindepth 1 -maxdepth 1 -printf "%f\n" 2> /dev/null | head -n 1)
[ -n "$conn" ] && [ -f "$FB_CTL/$conn/waiting" ]
tap_check $? "control fs ${FB_FSTYPE}ctl at $FB_CTL shows connection ${conn:-none}"
head -c 8388608 /dev/urandom > "$FB_SCRATCH/ref"
cp "$FB_SCRATCH/ref" "$FB_MNT/file" && sync
cmp "$FB_SCRATCH/ref" "$FB_BACK/file"
tap_check $? "8 MiB written through $FB_FSTYPE land byte for byte in the backing file"
echo 3 > /proc/sys/vm/drop_caches
cmp "$FB_SCRATCH/ref" "$FB_MNT/file"
tap_check $? "and read back byte for byte"
fb_umount
tap_check $? "unmount; the daemon exits"
fb_unload_ours
tap_check $? "rmmod $m"
fb_klog_clean demo
tap_check $? "kernel log has no WARNING/BUG/Oops"
[ -s "$FB_SCRATCH/klog.hits" ] && sed 's/^/# /' "$FB_SCRATCH/klog.hits"
tap_done
