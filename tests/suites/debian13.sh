#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Debian 13 suite (guest, renamed flavor, booted on the Debian 13 guest root
# of dev/guest-root.sh: tests/vm/debian13.sh): a real passthrough daemon on
# a real Debian 13 userspace, through the takeover.
#   - the root is Debian 13 (/etc/debian_version 13.x), its fusermount3 is
#     3.17, and libfuse's passthrough_hp, built unmodified from trixie's own
#     fuse3 source package, links Debian's libfuse3.so.4;
#   - with the takeover on, passthrough_hp mounts -t fuse on /dev/fuse, in
#     passthrough mode (3.17.2's default: it has --nopassthrough, no
#     --passthrough), and is served by ours (its connection is in our
#     control fs, not the built-in's, and our refcount rises: the takeover
#     suite's test); passthrough is in effect (bytes changed in the backing
#     file directly are read through the mount at once, where a FUSE page
#     cache would give the old ones: fb_passthrough_live); 3 MB byte for
#     byte (cold cache) and 4 parallel writers on one
#     file (tests/lib/daemons.sh), fio randwrite 4k direct with 4 jobs on
#     one file, each verifying its own 1 MiB (crc32c); unlink, unmount, the
#     daemon exits;
#   - Debian 13's mergerfs (2.40) and fuse-overlayfs, their own mounts:
#     served by ours, 3 MB and 4 writers byte for byte, unmount;
#   - the takeover off again: passthrough_hp's mount is the built-in's.
# FB_TAKEOVER_RED=off (a red run): the takeover is never turned on, so each
# "served by ours" must fail.
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
. "$FB_TOP/tests/lib/daemons.sh"
S=$FB_SCRATCH
P=/sys/module/$FB_MODNAME/parameters/takeover
BICTL=/sys/fs/fuse/connections
HP=/usr/local/libexec/fuse-backport-test/passthrough_hp
N=18
# the backing stores on the guest's XFS when there is one (else tmpfs)
fb_backing_base dm
DM_S=$FB_BASE DM_M=$S/m
mkdir -p "$DM_S" "$DM_M"

if [ "$FB_FSTYPE" = fuse ]; then
	tap_skip_n $N "debian13" "target $FB_TARGET is fs type fuse itself (stock or drop-in): nothing to take over"
	tap_done
	exit
fi

cleanup() {
	while fb_mounted "$DM_M"; do
		umount -l "$DM_M" 2> /dev/null || break
	done
	[ -w "$P" ] && echo 0 > "$P" 2> /dev/null
}
trap cleanup EXIT
mountpoint -q "$BICTL" || mount -t fusectl none "$BICTL" 2> /dev/null

ours() { fb_served_by ours "$1"; }
builtin() { fb_served_by builtin "$1"; }
refcnt() {
	cat "/sys/module/$FB_MODNAME/refcnt"
}
param() {
	cat "$P" 2> /dev/null || echo none
}
is_fuse() {
	case $(fb_fstype "$1") in
	fuse | fuse.*) true ;;
	*) false ;;
	esac
}
# hp_mount: passthrough_hp over DM_S/b on DM_M, passthrough being its
# default (it goes to the background once mounted)
hp_mount() {
	rm -rf "$DM_S/b"
	mkdir -p "$DM_S/b"
	dm_bk=$DM_S/b
	timeout 60 "$HP" "$DM_S/b" "$DM_M" > "$S/hp.out" 2>&1
}
hp_gone() {
	fb_wait_while 100 pgrep -f "^$HP .*$DM_S/" > /dev/null
}

# 1-3. the userspace
dv=$(cat /etc/debian_version 2> /dev/null)
tap_check "$(case $dv in 13.*) echo 0 ;; *) echo 1 ;; esac)" \
	"the guest's root is Debian 13: /etc/debian_version ${dv:-missing}, kernel $(uname -r)"
fv=$(fusermount3 --version 2>&1 | head -n 1)
tap_check "$(case $fv in *" 3.17."*) echo 0 ;; *) echo 1 ;; esac)" \
	"fusermount3 is 3.17 ($fv; libfuse3-4 $(dm_version libfuse3-4))"
lf=$(ldd "$HP" 2> /dev/null | awk '$1 ~ /^libfuse3/ { print $3 }')
tap_check "$([ -x "$HP" ] && grep -q unmodified "$HP.source" && [ "$(readlink -f "$lf")" = "$(readlink -f /usr/lib/x86_64-linux-gnu/libfuse3.so.4)" ] &&
	"$HP" --help 2>&1 | grep -q -- '--nopassthrough.*Do not use pass-through'; echo $?)" \
	"passthrough_hp: $(head -n 1 "$HP.source" 2> /dev/null), on Debian's ${lf:-libfuse3 (not linked)}, passthrough by default (--nopassthrough)"

# 4. the takeover on
if [ "${FB_TAKEOVER_RED:-}" = off ]; then
	tap_diag "FB_TAKEOVER_RED=off: the takeover is not turned on (parameter $(param)): a red run"
else
	echo 1 > "$P" 2> "$S/on.err"
fi
tap_check "$([ "$(param)" = 1 ]; echo $?)" "takeover on: parameter $(param) $(head -n 1 "$S/on.err" 2> /dev/null)"

# 5-10. passthrough_hp, in passthrough mode
r0=$(refcnt)
hp_mount
rc=$?
tap_check "$([ $rc = 0 ] && is_fuse "$DM_M" && ours "$DM_M" && [ "$(refcnt)" -gt "$r0" ] && timeout -k 2 30 ls "$DM_M" > /dev/null; echo $?)" \
	"passthrough_hp: -t $(fb_fstype "$DM_M") on /dev/fuse, served by ours (refcount $r0 -> $(refcnt)) (exit $rc $(head -n 1 "$S/hp.out"))"
if fb_mounted "$DM_M"; then
	fb_passthrough_live "$DM_M/pt" "$DM_S/b/pt"
	tap_check $? "passthrough_hp: passthrough in effect: 64 KiB rewritten as b in the backing file directly are read through the mount at once ($fb_pl_got; a FUSE page cache would give a)"
	dm_check_big passthrough_hp
	tap_check $? "passthrough_hp: 3 MB written and read back byte for byte (cold cache), the same bytes in the backing store"
	dm_check_parallel
	tap_check $? "passthrough_hp: 4 parallel writers on one file: every writer's bytes in place (mount and backing store)"
	timeout 300 fio --name=fb --filename="$DM_M/fio" --rw=randwrite --bs=4k --direct=1 --ioengine=psync \
		--numjobs=4 --size=1M --offset_increment=1M --verify=crc32c --do_verify=1 --group_reporting \
		> "$S/fio.out" 2>&1
	frc=$?
	tap_check "$([ $frc = 0 ] && [ "$(stat -c %s "$DM_S/b/fio")" = 4194304 ] && ! grep -qi 'verify: bad' "$S/fio.out"; echo $?)" \
		"passthrough_hp: fio $(fio --version) randwrite 4k direct, 4 jobs on one file, each verifying its own 1 MiB (exit $frc $(grep -m1 -o 'IOPS=[^,]*' "$S/fio.out"))"
	rm -f "$DM_M/fio"
	dm_check_unlink && dm_umount "$HP" && hp_gone
	tap_check $? "passthrough_hp: unlink, unmount, the daemon exits"
else
	tap_check 1 "passthrough_hp: passthrough in effect (not mounted)"
	tap_check 1 "passthrough_hp: 3 MB (not mounted)"
	tap_check 1 "passthrough_hp: 4 writers (not mounted)"
	tap_check 1 "passthrough_hp: fio (not mounted)"
	tap_check 1 "passthrough_hp: unmount (not mounted)"
fi
cleanup_mnt() {
	while fb_mounted "$DM_M"; do
		umount -l "$DM_M" 2> /dev/null || break
	done
}
cleanup_mnt

# 11-16. Debian 13's mergerfs and fuse-overlayfs, their own mounts
for d in mergerfs fuse-overlayfs; do
	ver=$(dm_version "$d")
	dm_cmd "$d"
	r0=$(refcnt)
	# shellcheck disable=SC2086 # the daemon's words
	timeout 60 $dm_cmdline > "$S/dm.out" 2>&1
	rc=$?
	tap_check "$([ $rc = 0 ] && is_fuse "$DM_M" && ours "$DM_M" && [ "$(refcnt)" -gt "$r0" ] && timeout -k 2 30 ls "$DM_M" > /dev/null; echo $?)" \
		"$d $ver, its own mount: -t $(fb_fstype "$DM_M"), served by ours (refcount $r0 -> $(refcnt)) (exit $rc $(head -n 1 "$S/dm.out"))"
	if fb_mounted "$DM_M"; then
		dm_check_big "$d" && dm_check_parallel
		tap_check $? "$d: 3 MB (cold cache) and 4 parallel writers on one file, byte for byte in the mount and the backing store"
		dm_check_unlink && dm_umount "$d"
		tap_check $? "$d: unlink, unmount, the daemon exits"
	else
		tap_check 1 "$d: I/O (not mounted)"
		tap_check 1 "$d: unmount (not mounted)"
	fi
	cleanup_mnt
done

# 17-18. the takeover off: the same daemon's mount is the built-in's
echo 0 > "$P" 2> "$S/off.err"
hp_mount
rc=$?
tap_check "$([ "$(param)" = 0 ] && [ $rc = 0 ] && is_fuse "$DM_M" && builtin "$DM_M" && timeout -k 2 30 ls "$DM_M" > /dev/null; echo $?)" \
	"takeover off (parameter $(param)): passthrough_hp's mount is the built-in's, not ours (exit $rc $(head -n 1 "$S/hp.out"))"
dm_umount "$HP" && hp_gone
tap_check $? "takeover off: unmount, passthrough_hp exits"
cleanup_mnt
tap_done
