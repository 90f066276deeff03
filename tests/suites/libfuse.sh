#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# An unmodified libfuse 3 daemon on the renamed module (guest):
# tests/libfuse/fbbacking mounted with `fuse-backport run` and with
# mount.fusebp through mount(8) and fstab, on /dev/fd/N. Smoke I/O byte for
# byte; mount options; and no stale mount whatever the daemon does (exits,
# dies, fails to start, cannot be found). The helper refuses clearly without
# the module, with a bad mountpoint and without privilege.
# On stock (and on the drop-in flavor) there is no -t fusebp: the suite
# checks the refusal and skips the rest, loudly.
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
tool=$FB_TOP/tools/fuse-backport
fbb=$FB_TOP/tests/libfuse/fbbacking
S=$FB_SCRATCH
B=$S/lb
M=$S/lm
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
helper=/usr/sbin/mount.fusebp
# mount(8) runs helpers with a fixed PATH: the daemon must be found there.
inpath=/usr/local/bin/fbbacking
mkdir -p "$B" "$M"
chmod 755 "$S" "$B" "$M"

for f in "$tool" "$fbb"; do
	[ -x "$f" ] || {
		tap_skip "libfuse suite" "$f is not built (make -C tools; make -C tests/libfuse)"
		tap_done
		exit
	}
done
# uid 65534 runs the tool and the daemon (setuid=nobody): from a checkout
# it cannot reach (a clone under /root, mode 0700), copies in $S are run.
if ! $nobody test -x "$fbb" || ! $nobody test -x "$tool"; then
	cp "$tool" "$fbb" "$S/" && tool=$S/fuse-backport fbb=$S/fbbacking
fi

# pids of processes of this suite's daemon (and its supervisor)
daemon_pids() {
	pgrep -f "fbbacking.$B" | tr '\n' ' '
}
daemons_left() {
	[ -n "$(daemon_pids)" ]
}
# wait_gone: the daemon and its supervisor exit within 10 s
wait_gone() {
	fb_wait_while 100 daemons_left
}
# wait_unmounted DIR: nothing mounted there within 10 s
wait_unmounted() {
	fb_wait_while 100 fb_mounted "$1"
}
fstype_of() {
	awk -v m="$1" '$5 == m { sub(/.* - /, ""); split($0, f, " "); t = f[1] } END { print t }' /proc/self/mountinfo
}
opts_of() {
	awk -v m="$1" '$5 == m { o = $6; sub(/.* - /, ""); split($0, f, " "); print o "," f[3] }' /proc/self/mountinfo | tail -n 1
}
cleanup() {
	while fb_mounted "$M"; do
		umount -l "$M" 2> /dev/null || break
	done
	for p in $(daemon_pids); do
		kill -9 "$p" 2> /dev/null
	done
	rm -f "$helper" "$inpath"
	# /etc/fstab may be a file mount point: rewrite it in place
	[ -f "$S/fstab" ] && cat "$S/fstab" > /etc/fstab
}
trap cleanup EXIT

# run [ARGS...]: fuse-backport run ARGS -- fbbacking $B $M; $rc, $S/run.err
run() {
	"$tool" run "$@" -- "$fbb" "$B" "$M" > "$S/run.out" 2> "$S/run.err"
	rc=$?
}

# smoke LABEL: I/O through the mount on $M over $B
smoke() {
	echo "hello $1" > "$M/a" && [ "$(cat "$M/a")" = "hello $1" ] && [ "$(cat "$B/a")" = "hello $1" ]
	tap_check $? "$1: create, write, read back; the backing file has the bytes"
	head -c 3000000 /dev/urandom > "$S/ref"
	cp "$S/ref" "$M/big" && cmp -s "$S/ref" "$B/big" && fb_drop_caches && cmp -s "$S/ref" "$M/big" &&
		[ "$(stat -c %s "$M/big")" = 3000000 ]
	tap_check $? "$1: 3 MB written and read back byte for byte (cold cache too)"
	head -c 5000 /dev/urandom > "$S/patch"
	dd if="$S/patch" of="$M/big" bs=5000 seek=100 conv=notrunc status=none &&
		dd if="$S/patch" of="$S/ref" bs=5000 seek=100 conv=notrunc status=none &&
		fb_drop_caches && cmp -s "$S/ref" "$M/big" && cmp -s "$S/ref" "$B/big"
	tap_check $? "$1: overwrite in the middle, byte for byte"
	mv "$M/a" "$M/renamed" && [ ! -e "$M/a" ] && [ -f "$B/renamed" ] && [ "$(cat "$M/renamed")" = "hello $1" ]
	tap_check $? "$1: rename"
	rm "$M/renamed" && [ ! -e "$M/renamed" ] && [ ! -e "$B/renamed" ]
	tap_check $? "$1: unlink"
	mkdir "$M/d" && touch "$M/d/x" "$M/d/y" &&
		[ "$(find "$M/d" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')" = "x y " ] &&
		[ "$(find "$M" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)" = "$(find "$B" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)" ] &&
		rm "$M/d/x" "$M/d/y" && rmdir "$M/d" && [ ! -e "$B/d" ]
	tap_check $? "$1: mkdir, readdir, rmdir"
	truncate -s 4000 "$M/big" && [ "$(stat -c %s "$M/big")" = 4000 ] && [ "$(stat -c %s "$B/big")" = 4000 ] &&
		head -c 4000 "$S/ref" | cmp -s - "$M/big" && truncate -s 9000 "$M/big" &&
		[ "$(stat -c %s "$B/big")" = 9000 ] && [ "$(tail -c 5000 "$M/big" | tr -d '\0' | wc -c)" = 0 ]
	tap_check $? "$1: truncate smaller keeps the head, larger reads zeros"
	rm -f "$M/big"
}

# Without the module: a clear refusal, nothing mounted.
if [ "$FB_FSTYPE" != fusebp ]; then
	run
	[ "$rc" = 125 ] && grep -q 'modprobe fusebp' "$S/run.err" && ! fb_mounted "$M" && [ -z "$(daemon_pids)" ]
	tap_check $? "no fusebp module: run refuses (exit $rc: $(head -n 1 "$S/run.err"))"
	tap_skip "libfuse daemon on -t fusebp" "target $FB_TARGET has no renamed module ($FB_FSTYPE on $FB_DEV)"
	tap_done
	exit
fi

# fuse-backport run, the daemon in the background (libfuse's default).
rm -rf "${B:?}"/*
run
[ "$rc" = 0 ] && fb_mounted "$M" && [ "$(fstype_of "$M")" = fusebp.fbbacking ]
tap_check $? "run: exit $rc, $M mounted as $(fstype_of "$M") ($(cat "$S/run.err"))"
pgrep -f "fbbacking $B /dev/fd/[0-9]" > /dev/null
tap_check $? "the unmodified daemon serves it through /dev/fd/N ($(pgrep -af "fbbacking $B /dev/fd" | cut -d' ' -f2-))"
smoke run
umount "$M" && wait_gone && ! fb_mounted "$M"
tap_check $? "run: umount; the daemon and its supervisor exit"

# Foreground: run returns when the daemon does.
"$tool" run -- "$fbb" "$B" "$M" -f > /dev/null 2> "$S/fg.err" &
fg=$!
i=0
while ! fb_mounted "$M" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
echo fg > "$M/fg" && [ "$(cat "$B/fg")" = fg ] && kill -0 "$fg"
tap_check $? "run with -f: serves while run stays in the foreground"
umount "$M"
wait "$fg"
r=$?
[ $r = 0 ] && wait_gone && ! fb_mounted "$M"
tap_check $? "run with -f: umount ends the daemon and run (exit $r)"

# The daemon dies: the mount goes with it (not a stale ENOTCONN mount).
run
d=$(pgrep -f "fbbacking $B /dev/fd/[0-9]")
[ -n "$d" ] && kill -9 "$d"
wait_unmounted "$M" && wait_gone && ls "$M" > /dev/null
tap_check $? "daemon killed (SIGKILL): its mount is removed, $M usable"

# The daemon fails to start / cannot be run / bad mountpoint / no privilege.
"$tool" run -- "$fbb" "$S/no-such-dir" "$M" > /dev/null 2> "$S/run.err"
rc=$?
[ "$rc" = 1 ] && ! fb_mounted "$M" && grep -q 'exited with status 1' "$S/run.err"
tap_check $? "a daemon that fails to start: its status ($rc), nothing mounted"
"$tool" run -- "$S/no-such-daemon" "$B" "$M" > /dev/null 2> "$S/run.err"
rc=$?
[ "$rc" = 127 ] && ! fb_mounted "$M"
tap_check $? "a daemon that does not exist: exit 127, nothing mounted"
"$tool" run -- "$fbb" "$B" "$S/no-such-mountpoint" > /dev/null 2> "$S/run.err"
rc=$?
[ "$rc" = 125 ] && grep -q 'mountpoint' "$S/run.err"
tap_check $? "a mountpoint that does not exist: exit 125 ($(head -n 1 "$S/run.err"))"
$nobody "$tool" run -- "$fbb" "$B" "$M" > /dev/null 2> "$S/run.err"
rc=$?
[ "$rc" = 125 ] && grep -q 'needs root' "$S/run.err" && ! fb_mounted "$M"
tap_check $? "as uid 65534: refused, exit 125 ($(head -n 1 "$S/run.err"))"

# Mount options, from run -o and from the daemon's own -o.
run -o ro,allow_other,default_permissions,max_read=65536
o=$(opts_of "$M")
case ,$o, in
*,ro,*allow_other*) r=0 ;;
*) r=1 ;;
esac
[ $r = 0 ] && (echo x > "$M/ro") 2> /dev/null && r=1
[ $r = 0 ] && case ,$o, in *,default_permissions,*max_read=65536*) true ;; *) false ;; esac
tap_check $? "run -o ro,allow_other,default_permissions,max_read: in effect ($o)"
echo other > "$B/o"
[ "$($nobody cat "$M/o")" = other ]
tap_check $? "allow_other: uid 65534 reads through the mount"
umount "$M" && wait_gone
"$tool" run -- "$fbb" "$B" "$M" -o allow_other,fsname=fbsource > /dev/null 2> "$S/run.err"
[ "$($nobody cat "$M/o" 2> /dev/null)" = other ] &&
	awk -v m="$M" '$5 == m { sub(/.* - /, ""); print $2 }' /proc/self/mountinfo | grep -qx fbsource
tap_check $? "the daemon's own -o allow_other,fsname= apply to the mount"
umount "$M" && wait_gone
run
! $nobody cat "$M/o" > /dev/null 2>&1
tap_check $? "without allow_other uid 65534 is refused"
umount "$M" && wait_gone
run -o setuid=nobody,allow_other
o=$(opts_of "$M")
d=$(pgrep -f "fbbacking $B /dev/fd/[0-9]")
[ "$(stat -c %u "/proc/$d" 2> /dev/null)" = 65534 ] && case ,$o, in *,user_id=65534,*) true ;; *) false ;; esac &&
	[ "$(cat "$M/o")" = other ]
tap_check $? "setuid=nobody: the daemon runs as 65534, user_id=65534 ($o)"
umount "$M" && wait_gone
rm -f "$B/o"
run -o fd=3
[ "$rc" = 125 ] && ! fb_mounted "$M"
tap_check $? "run -o fd=...: refused (exit $rc)"

# fusebpblk over a block device.
modprobe loop 2> "$S/loop.err"
fb_wait_while 50 [ ! -c /dev/loop-control ]
if truncate -s 16M "$S/blk.img" && lo=$(losetup -f --show "$S/blk.img" 2>> "$S/loop.err"); then
	run -o blkdev,blksize=4096,fsname="$lo"
	[ "$rc" = 0 ] && [ "$(fstype_of "$M")" = fusebpblk.fbbacking ] && echo blk > "$M/b" && [ "$(cat "$B/b")" = blk ]
	tap_check $? "blkdev,blksize=4096: a fusebpblk mount over $lo works ($(fstype_of "$M"), exit $rc $(head -n 1 "$S/run.err"))"
	umount "$M"
	wait_gone && ! fb_mounted "$M"
	tap_check $? "fusebpblk: umount ends the daemon"
	losetup -d "$lo"
	rm -f "$B/b"
else
	tap_skip "fusebpblk" "no loop device: $(head -n 1 "$S/loop.err")"
fi

# mount(8) with the helper: mount.fusebp in /sbin (the guest's overlay).
ln -sf "$tool" "$helper"
mount -t fusebp "$fbb#$B" "$M" -o allow_other > "$S/mount.out" 2> "$S/mount.err"
rc=$?
[ "$rc" = 0 ] && [ "$(fstype_of "$M")" = fusebp.fbbacking ] && case ,$(opts_of "$M"), in *,allow_other,*) true ;; *) false ;; esac
tap_check $? "mount -t fusebp 'fbbacking#BACKING' MNT -o allow_other (exit $rc $(head -n 1 "$S/mount.err"))"
smoke mount.fusebp
umount "$M" && wait_gone
tap_check $? "mount.fusebp: umount; the daemon exits"
ln -sf "$fbb" "$inpath"
mount -t fusebp.fbbacking "$B" "$M" -o ro > /dev/null 2> "$S/mount.err"
rc=$?
[ "$rc" = 0 ] && [ "$(fstype_of "$M")" = fusebp.fbbacking ] && case ,$(opts_of "$M"), in *,ro,*) true ;; *) false ;; esac
tap_check $? "mount -t fusebp.fbbacking BACKING MNT -o ro (exit $rc $(head -n 1 "$S/mount.err"))"
umount "$M" && wait_gone
cp /etc/fstab "$S/fstab"
echo "$fbb#$B $M fusebp noauto,nofail,default_permissions,x-systemd.automount 0 0 # fuse-backport libfuse suite" >> /etc/fstab
mount "$M" 2> "$S/mount.err"
rc=$?
[ "$rc" = 0 ] && [ "$(fstype_of "$M")" = fusebp.fbbacking ] && echo fstab > "$M/f" && [ "$(cat "$B/f")" = fstab ]
tap_check $? "fstab entry 'fbbacking#BACKING MNT fusebp noauto,...': mount MNT (exit $rc $(head -n 1 "$S/mount.err"))"
rm -f "$M/f"
umount "$M" && wait_gone
cat "$S/fstab" > /etc/fstab
mount -t fusebp "$fbb#$S/no-such-dir" "$M" > /dev/null 2> "$S/mount.err"
rc=$?
[ "$rc" = 32 ] && ! fb_mounted "$M" && [ -z "$(daemon_pids)" ]
tap_check $? "mount.fusebp: a daemon that fails leaves nothing mounted (exit $rc)"
mount -t fusebp "$B" "$M" > /dev/null 2> "$S/mount.err"
rc=$?
[ "$rc" = 1 ] && grep -q 'which daemon' "$S/mount.err"
tap_check $? "mount.fusebp without a daemon type: usage error (exit $rc: $(head -n 1 "$S/mount.err"))"

! fb_mounted "$M" && [ -z "$(daemon_pids)" ]
tap_check $? "nothing left mounted or running"
tap_done
