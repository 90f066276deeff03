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
pb=$FB_TOP/tests/libfuse/fbperm
pbin=/usr/local/bin/fbperm
mkdir -p "$B" "$M"
chmod 755 "$S" "$B" "$M"

for f in "$tool" "$fbb"; do
	[ -x "$f" ] || {
		tap_skip "libfuse suite" "$f is not built (make -C tools; make -C tests libfuse)"
		tap_done
		exit
	}
done
# uid 65534 runs the tool and the daemon (setuid=nobody): copies it can
# reach (fb_copy_for); where none can be made, the checkout's, whose exec
# then fails the tests
tool=$(fb_copy_for 65534 "$tool") || tool=$FB_TOP/tools/fuse-backport
fbb=$(fb_copy_for 65534 "$fbb") || fbb=$FB_TOP/tests/libfuse/fbbacking

# pids of processes of this suite's daemon (and its supervisor)
daemon_pids() {
	pgrep -f "(fbbacking|fbperm|fbwrap.sh [a-z]*).$B" | tr '\n' ' '
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
source_of() {
	awk -v m="$1" '$5 == m { sub(/.* - /, ""); split($0, f, " "); s = f[2] } END { print s }' /proc/self/mountinfo
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
	[ -f "$S/child" ] && kill -9 "$(cat "$S/child")" 2> /dev/null
	[ -s "$S/nofd.pid" ] && kill -9 "$(cat "$S/nofd.pid")" 2> /dev/null
	while [ -n "$(fstype_of "$FB_DEV")" ]; do
		umount -l "$FB_DEV" 2> /dev/null || break
	done
	rm -f "$helper" "$inpath" "$pbin"
	# /etc/fstab may be a file mount point: rewrite it in place
	[ -f "$S/fstab" ] && cat "$S/fstab" > /etc/fstab
}
trap cleanup EXIT

# run [ARGS...]: fuse-backport run ARGS -- fbbacking $B $M; $rc, $S/run.err
run() {
	"$tool" run "$@" -- "$fbb" "$B" "$M" > "$S/run.out" 2> "$S/run.err"
	rc=$?
}

# kill_mounted SIG PID: $M is mounted and PID is there, and gets SIG: the
# precondition of a crash test, whose status the test keeps (a mount that
# never came up must not pass as "gone").
kill_mounted() {
	[ -n "$2" ] && fb_mounted "$M" && kill -"$1" "$2"
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
	cp "$S/run.err" "$S/run.nomod.err"
	# -o fallback: the kernel's own FUSE, one warning line, status degraded
	run -o fallback
	[ "$rc" = 0 ] && [ "$(fstype_of "$M")" = fuse.fbbacking ] && [ "$(wc -l < "$S/run.err")" = 1 ] &&
		grep -q 'fallback' "$S/run.err" && echo fb > "$M/fb" && [ "$(cat "$B/fb")" = fb ]
	tap_check $? "no fusebp module, run -o fallback: a fuse.fbbacking mount that serves, one warning (exit $rc: $(head -n 1 "$S/run.err"))"
	"$tool" status --no-probe > "$S/st.txt" 2> /dev/null
	r=$?
	[ "$r" = 1 ] && grep -q "fallback.*$M" "$S/st.txt"
	tap_check $? "status: exit $r, the fallback mount is reported as degraded ($(grep -m1 fallback "$S/st.txt"))"
	rm -f "$M/fb" "$B/fb"
	timeout 10 umount "$M"
	wait_gone && ! fb_mounted "$M"
	tap_check $? "the fallback mount: umount ends the daemon and its supervisor"
	# the reason is run's own refusal above, not a label of the suite's
	tap_skip "libfuse daemon on -t fusebp" "run: $(head -n 1 "$S/run.nomod.err")"
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
[ "$rc" = 0 ] && kill_mounted 9 "$d" && wait_unmounted "$M" && wait_gone && ls "$M" > /dev/null
tap_check $? "daemon killed (SIGKILL) while mounted: its mount is removed, $M usable (run exit $rc, daemon ${d:-none})"

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

# --- Mount options the daemon adds itself ---
# fbperm adds default_permissions and fsname=BACKING internally, as
# passthrough_hp does, and checks nothing itself: as a root daemon with
# allow_other, uid 65534 must be refused on a 0600 root file, whichever way
# it is mounted.
printf 'secret\n' > "$B/secret" && chown 0:0 "$B/secret" && chmod 600 "$B/secret"
printf 'public\n' > "$B/public" && chmod 644 "$B/public"
# perm_refused LABEL: 65534 reads the 0644 file (allow_other works) but not
# the 0600 one (the kernel checks permissions)
perm_refused() {
	[ "$($nobody cat "$M/public" 2> /dev/null)" = public ] &&
		! $nobody cat "$M/secret" > /dev/null 2>&1 &&
		! $nobody sh -c "echo x >> '$M/secret'" 2> /dev/null
	tap_check $? "$1: root daemon, allow_other: uid 65534 reads a 0644 file, is refused on a 0600 root file ($(opts_of "$M"), source $(source_of "$M"))"
}
# The daemon's own mount on the kernel's FUSE, for comparison.
own_opts="" own_src=""
if ! grep -qw fuse /proc/filesystems; then
	for k in /lib/modules/"$(uname -r)"/kernel/fs/fuse/fuse.ko*; do
		[ -f "$k" ] && insmod "$k" 2> /dev/null
	done
fi
if grep -qw fuse /proc/filesystems && "$pb" "$B" "$M" -o allow_other 2> "$S/own.err"; then
	own_opts=$(opts_of "$M") own_src=$(source_of "$M")
	tap_diag "fbperm mounting itself on the kernel's FUSE: $(fstype_of "$M") $own_src $own_opts"
	umount "$M" && wait_gone
fi
"$tool" run -o allow_other -- "$pb" "$B" "$M" > /dev/null 2> "$S/run.err"
rc=$?
tap_diag "fuse-backport run -o allow_other -- fbperm: $(fstype_of "$M") $(source_of "$M") $(opts_of "$M")"
[ "$rc" = 0 ]
tap_check $? "run -o allow_other -- fbperm BACKING MNT: mounted (exit $rc $(head -n 1 "$S/run.err"))"
perm_refused "run"
[ "$(source_of "$M")" = "$B" ]
tap_check $? "run: fsname is the daemon's source argument ($(source_of "$M")${own_src:+; its own mount: $own_src})"
timeout 10 umount "$M"; wait_gone
run -o allow_other,no_default_permissions
case ,$(opts_of "$M"), in
*,default_permissions,*) r=1 ;;
*) [ "$rc" = 0 ] && fb_mounted "$M"; r=$? ;;
esac
tap_check $r "run -o no_default_permissions: the documented opt-out mounts without it ($(opts_of "$M"))"
timeout 10 umount "$M"; wait_gone
ln -sf "$pb" "$pbin"
ln -sf "$tool" "$helper"
mount -t fusebp.fbperm "$B" "$M" -o allow_other > /dev/null 2> "$S/mount.err"
rc=$?
[ "$rc" = 0 ]
tap_check $? "mount -t fusebp.fbperm BACKING MNT -o allow_other (exit $rc $(head -n 1 "$S/mount.err"))"
perm_refused "mount -t fusebp.fbperm"
timeout 10 umount "$M"; wait_gone
cp /etc/fstab "$S/fstab"
echo "$B $M fusebp.fbperm noauto,allow_other 0 0 # fuse-backport libfuse suite" >> /etc/fstab
mount "$M" > /dev/null 2> "$S/mount.err"
rc=$?
[ "$rc" = 0 ]
tap_check $? "fstab 'BACKING MNT fusebp.fbperm noauto,allow_other': mount MNT (exit $rc $(head -n 1 "$S/mount.err"))"
perm_refused "fstab"
timeout 10 umount "$M"; wait_gone
cat "$S/fstab" > /etc/fstab
rm -f "$B/secret" "$B/public"

# --- The supervisor never hangs a mount ---
wrap=$FB_TOP/tests/libfuse/fbwrap.sh
# reset: whatever a failed check left: processes, mounts, loop devices
reset() {
	# A supervisor stuck in umount (a FUSE_DESTROY nobody reads) moves only
	# once the connection is aborted: abort whatever is left of ours.
	for a in "$FB_CTL"/*/abort; do
		[ -f "$a" ] && echo 1 > "$a" 2> /dev/null
	done
	for p in $(daemon_pids) $(cat "$S/child" 2> /dev/null); do
		kill -9 "$p" 2> /dev/null
	done
	rm -f "$S/child"
	wait_gone
	while fb_mounted "$M"; do
		timeout -k 2 10 umount -l "$M" 2> /dev/null || break
	done
}
# daemon_down: no fbbacking serves $B (yet)
daemon_down() {
	! pgrep -f "^$fbb $B /dev/fd/[0-9]" > /dev/null
}
# gone_within LABEL: within 10 s nothing is mounted on $M and the
# supervisor is gone; extra checks follow in the caller
gone_within() {
	wait_unmounted "$M" && timeout 5 ls "$M" > /dev/null && wait_gone
}
modprobe loop 2> "$S/loop.err"
fb_wait_while 50 [ ! -c /dev/loop-control ]
lo=""
truncate -s 16M "$S/blk.img" && lo=$(losetup -f --show "$S/blk.img" 2>> "$S/loop.err")
for sig in KILL INT; do
	if [ -z "$lo" ]; then
		tap_skip "fusebpblk daemon killed by SIG$sig" "no loop device: $(head -n 1 "$S/loop.err")"
		continue
	fi
	run -o blkdev,blksize=4096,fsname="$lo"
	d=$(pgrep -f "^$fbb $B /dev/fd/[0-9]")
	[ "$rc" = 0 ] && kill_mounted "$sig" "$d" && gone_within && wipefs -a "$lo" > /dev/null 2>&1
	tap_check $? "fusebpblk daemon killed by SIG$sig while mounted: within 10 s the mount is gone, the supervisor exits, $lo is not claimed (run exit $rc, daemon ${d:-none})"
	reset
done
# A daemon that leaves a child not holding the device: the daemon's end is
# the connection's end, whatever else the supervisor still has to reap.
FBWRAP_PIDFILE=$S/child FBWRAP_DAEMON=$fbb "$tool" run -- "$wrap" close "$B" "$M" > /dev/null 2> "$S/run.err"
rc=$?
d=$(pgrep -f "^$fbb $B /dev/fd/[0-9]")
[ "$rc" = 0 ] && kill_mounted 9 "$d" && gone_within
tap_check $? "a daemon killed while mounted that left a child not holding the device: mount gone within 10 s (exit $rc, daemon ${d:-none})"
reset
# A foreground fusebpblk daemon whose child holds the device: killed, run
# returns within seconds with its status, nothing mounted or claimed.
if [ -n "$lo" ]; then
	FBWRAP_PIDFILE=$S/child FBWRAP_DAEMON=$fbb timeout -k 2 60 "$tool" run -o blkdev,blksize=4096,fsname="$lo" -- \
		"$wrap" keep "$B" "$M" -f > /dev/null 2> "$S/run.err" &
	r=$!
	fb_wait_while 100 daemon_down
	d=$(pgrep -f "^$fbb $B /dev/fd/[0-9]")
	t0=$(date +%s)
	[ -n "$d" ] && kill -9 "$d"
	wait "$r"
	rc=$?
	t=$(($(date +%s) - t0))
	[ "$rc" = 137 ] && [ "$t" -le 10 ] && gone_within && wipefs -a "$lo" > /dev/null 2>&1
	tap_check $? "foreground fusebpblk daemon killed, its child holds the device: run returns in ${t}s (exit $rc), mount gone, $lo not claimed"
	reset
	losetup -d "$lo"
else
	tap_skip "fusebpblk with a child holding the device" "no loop device"
fi
# Descriptors 0-2 closed: the device must not land on them.
"$tool" run -- "$fbb" "$B" "$M" <&- >&- 2>&-
rc=$?
[ "$rc" = 0 ] && echo fds > "$M/fds" && [ "$(cat "$B/fds")" = fds ]
tap_check $? "run with stdin, stdout and stderr closed: mounts and serves (exit $rc)"
rm -f "$M/fds" "$B/fds"
reset
# Detached like a daemon: cwd /, own session; SIGTERM honoured; nohup kept.
(cd "$S" && "$tool" run -- "$fbb" "$B" "$M" > /dev/null 2> "$S/run.err")
d=$(pgrep -f "^$fbb $B /dev/fd/[0-9]")
sup=$(pgrep -f "fuse-backport run -- $fbb $B")
[ -n "$sup" ] && [ "$(readlink "/proc/$sup/cwd")" = / ] && [ "$(cut -d' ' -f6 "/proc/$sup/stat")" = "$sup" ]
tap_check $? "the supervisor ($sup) is in / and leads its own session"
kill_mounted TERM "$sup" && gone_within
tap_check $? "SIGTERM to the supervisor while mounted: the mount goes within 10 s (supervisor ${sup:-none})"
reset
nohup "$tool" run -- "$fbb" "$B" "$M" > /dev/null 2> /dev/null
d=$(pgrep -f "^$fbb $B /dev/fd/[0-9]")
[ -n "$d" ] && kill -HUP "$d"
sleep 1
[ -n "$d" ] && kill -0 "$d" 2> /dev/null && echo hup > "$M/hup" && [ "$(cat "$B/hup")" = hup ]
tap_check $? "under nohup the daemon keeps SIGHUP ignored: it survives a SIGHUP and serves"
rm -f "$M/hup" "$B/hup"
reset

# --- No option injection ---
run -o 'max_read=4096\,fd=0'
[ "$rc" = 125 ] && grep -q 'comma' "$S/run.err" && ! fb_mounted "$M"
tap_check $? "run -o 'max_read=4096\\,fd=0': refused, no second fd= for the kernel (exit $rc: $(head -n 1 "$S/run.err"))"
reset
run -o 'subtype=x\,allow_other'
[ "$rc" = 125 ] && ! fb_mounted "$M"
tap_check $? "run -o 'subtype=x\\,allow_other': refused, no allow_other smuggled in (exit $rc, $(opts_of "$M"))"
reset
"$tool" run -t 'fusebp.x,allow_other' -- "$fbb" "$B" "$M" > /dev/null 2> "$S/run.err"
rc=$?
[ "$rc" = 125 ] && ! fb_mounted "$M"
tap_check $? "run -t 'fusebp.x,allow_other': refused (exit $rc, $(opts_of "$M"))"
reset
ln -sf "$fbb" "$S/fbb,allow_other"
"$tool" run -- "$S/fbb,allow_other" "$B" "$M" > /dev/null 2> "$S/run.err"
rc=$?
case ,$(opts_of "$M"), in
*,allow_other,*) false ;;
*) [ "$rc" = 125 ] || [ "$(fstype_of "$M")" = fusebp ] ;;
esac
tap_check $? "a daemon named 'fbb,allow_other': no allow_other from its name (exit $rc, $(fstype_of "$M") $(opts_of "$M"))"
reset
ln -sf "$pb" "$pbin"
mount -t fusebp.fbperm "$B" "$M" -o 'note=a\,b' > /dev/null 2> "$S/mount.err"
rc=$?
[ "$rc" = 0 ] && [ "$(cat "$B/.fbperm-note" 2> /dev/null)" = "a,b" ]
tap_check $? "mount.fusebp -o 'note=a\\,b': the daemon gets note=a,b as one option (exit $rc, got '$(cat "$B/.fbperm-note" 2> /dev/null)')"
reset
rm -f "$B/.fbperm-note"

# --- The mountpoint among the daemon's arguments ---
"$tool" run -- "$pb" "$B" "$M" -p 2222 > /dev/null 2> "$S/run.err"
rc=$?
[ "$rc" = 0 ] && [ "$(source_of "$M")" = "$B" ] && echo p > "$M/p" && [ "$(cat "$B/p")" = p ]
tap_check $? "run -- fbperm BACKING MNT -p 2222 (an option with a value after the mountpoint): mounts MNT (exit $rc $(head -n 1 "$S/run.err"))"
rm -f "$M/p" "$B/p"
reset

# errno saved before the message: /dev/fusebp missing, and
# stderr on /dev/full so that printing fails: still exit 32 (mount failed),
# not 1 (permission).
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m sh -c 'mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/full c 1 7 &&
	exec "$1" mount "$2#$3" "$4" 2> /dev/full' sh "$tool" "$fbb" "$B" "$M"
rc=$?
[ "$rc" = 32 ] && ! fb_mounted "$M"
tap_check $? "mount.fusebp with /dev/fusebp missing and stderr failing: exit $rc (want 32: the open's errno, not the message's)"
reset

# --- status with hostile fsnames ---
evil=$(printf 'ev\033[2Jil\nFUSE mounts: spoofed\377\376')
"$tool" run -o "fsname=$evil" -- "$fbb" "$B" "$M" > /dev/null 2> "$S/run.err"
rc=$?
"$tool" status --no-probe > "$S/st.txt" 2> /dev/null
"$tool" status --no-probe --json > "$S/st.json" 2> /dev/null
[ "$rc" = 0 ] && ! grep -q "$(printf '\033')" "$S/st.txt" && ! grep -q '^FUSE mounts: spoofed' "$S/st.txt"
tap_check $? "status (text) with an fsname holding ESC, a newline and invalid UTF-8: no control bytes, no spoofed line (run exit $rc)"
jq -e '.' "$S/st.json" > /dev/null 2>&1 && iconv -f UTF-8 -t UTF-8 "$S/st.json" > /dev/null 2>&1
tap_check $? "status --json with that fsname: valid JSON and valid UTF-8"
reset

# --- A daemon that does not understand /dev/fd/N ---
# fbnofd.sh does what bindfs (libfuse 2) and mergerfs (its own libfuse) do
# with /dev/fd/N: mounts the kernel's -t fuse on that path, the device node,
# itself. run must refuse it with one line and leave nothing mounted or
# running: before, it exited 0 with its own mount never served and
# $FB_DEV covered (no later run could open it).
nofd=$FB_TOP/tests/libfuse/fbnofd.sh
for fg in "" -f; do
	FBNOFD_PIDFILE=$S/nofd.pid timeout -k 2 30 "$tool" run -- "$nofd" nofd "$M" $fg > /dev/null 2> "$S/run.err"
	rc=$?
	stray=$(fstype_of "$FB_DEV") ours=$(fstype_of "$M")
	[ "$rc" = 125 ] && [ "$(wc -l < "$S/run.err")" = 1 ] && grep -q 'libfuse >= 3.3' "$S/run.err" &&
		[ -z "$stray" ] && [ -z "$ours" ] && ! kill -0 "$(cat "$S/nofd.pid" 2> /dev/null)" 2> /dev/null &&
		(true 8<> "$FB_DEV") 2> /dev/null
	tap_check $? "run${fg:+ (-f)} with a daemon that mounts fuse on $FB_DEV itself: refused (exit $rc: $(head -n 1 "$S/run.err")); left on $FB_DEV: ${stray:-nothing}, on $M: ${ours:-nothing}; $FB_DEV opens again"
	[ -s "$S/nofd.pid" ] && kill -9 "$(cat "$S/nofd.pid")" 2> /dev/null
	rm -f "$S/nofd.pid"
	while [ -n "$(fstype_of "$FB_DEV")" ]; do umount -l "$FB_DEV" || break; done
	reset
done

! fb_mounted "$M" && [ -z "$(daemon_pids)" ]
tap_check $? "nothing left mounted or running"
tap_done
