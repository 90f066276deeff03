#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Takeover suite (guest, renamed flavor): with the module parameter takeover
# on, our module serves fuse, fuseblk and /dev/fuse (10:229) in place of the
# built-in FUSE. The test daemon and bindfs (Debian's, if installed) mount
# -t fuse on /dev/fuse and reach ours; a built-in mount made before keeps
# serving; a built-in /dev/fuse descriptor opened before is refused at mount
# with one log line; disable with our mount alive; unload; 10 cycles; cuse;
# bad requests (each one line, nothing changes); the tool (takeover
# on/off/boot, TAKEOVER= in /etc/fuse-backport/fuse-backport.conf) and
# status in each state. Unmodified userspace on the takeover (Debian's
# daemons with the daemons suite's I/O checks, fusermount3 as a user, a user
# namespace, gocryptfs and rclone through fusermount3, a v1 device cgroup
# and a cgroup v2 device program, AppArmor): tests/suites/takeover/userspace.sh.
# A built-in mount whose daemon hangs in its unmount neither hangs takeover
# on nor leaves no FUSE at rmmod: tests/suites/takeover/hang.sh, last.
# A swap step that fails (tests/kmod/fbfail.ko): each name still served by
# one side, said by the parameter, the tool, status and the kernel log, and
# undone or finished by the next off or on: tests/suites/takeover/restore.sh.
# The swap's window (a libfuse -o clone_fd daemon of the built-in across
# takeover on; rootless fusermount3 mounts while the tool toggles 20 times):
# tests/suites/takeover/window.sh.
# FB_TAKEOVER_ONLY=hang, =restore or =window runs only that file's tests (to iterate
# on them; the suite's count then differs from tests/tiers/*.counts).
# Who serves a mount: its connection (mountinfo's device) is in our control
# fs ($FB_CTL) or in the built-in's (/sys/fs/fuse/connections).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
S=$FB_SCRATCH
P=/sys/module/$FB_MODNAME/parameters/takeover
BICTL=/sys/fs/fuse/connections
mkdir -p "$S/bi" "$S/m" "$S/b" "$S/bm" "$S/x" "$S/st" "$S/back2"

if [ "$FB_FSTYPE" = fuse ]; then
	tap_skip "takeover suite" "target $FB_TARGET is fs type fuse itself (stock or drop-in): nothing to take over"
	tap_done
	exit
fi

cleanup() {
	[ -n "${hang_dpid:-}" ] && kill -CONT "$hang_dpid" 2> /dev/null
	for mp in "$S/bm" "$S/m" "$S/st" "$S/bi" "$S/dm/m" "$S/nr/m" "$S/cgm" "$S/cg2m" "$S/gc/m" "$S/rc/m" "$S/aam" "$S/aab" "$S/hb" "$S/win/m" "$S/win/cm"; do
		while fb_mounted "$mp"; do
			umount -l "$mp" 2> /dev/null || break
		done
	done
	[ -f "$S/dm/sshd.pid" ] && kill "$(cat "$S/dm/sshd.pid")" 2> /dev/null
	rmmod fbfail 2> /dev/null
	rm -f /etc/udev/rules.d/49-fb-slow-fuse.rules
	[ -w "$P" ] && echo 0 > "$P" 2> /dev/null
	[ -n "${hang_lo:-}" ] && losetup -d "$hang_lo" 2> /dev/null
}
trap cleanup EXIT

mountpoint -q "$BICTL" || mount -t fusectl none "$BICTL" 2> /dev/null

# mount_on MNT DEV FSTYPE [ARGS]: the test daemon on MNT over $S/back2
mount_on() {
	fb_mp=$1 fb_dv=$2 fb_ty=$3
	shift 3
	FB_MNT=$fb_mp FB_DEV=$fb_dv FB_FSTYPE=$fb_ty FB_BACK=$S/back2 \
		FB_PIDFILE=$S/$(basename "$fb_mp").pid FB_STATS=$S/$(basename "$fb_mp").stats \
		fb_mount "$@"
}
umount_at() {
	timeout -k 2 20 umount "$1" 2> /dev/null || umount -l "$1" 2> /dev/null
}
# ours MNT / builtin MNT: whose control fs has the mount's connection
ours() { fb_served_by ours "$1"; }
builtin() { fb_served_by builtin "$1"; }
# io MNT: a file written and read back through the mount
io() {
	echo "takeover $1" > "$1/f.$$" && [ "$(cat "$1/f.$$")" = "takeover $1" ] && rm -f "$1/f.$$"
}
refcnt() {
	cat "/sys/module/$FB_MODNAME/refcnt"
}
# setp VALUE: write the parameter; the write's status
setp() {
	echo "$1" > "$P"
}
param() {
	cat "$P" 2> /dev/null || echo none
}
# klog_since MARK: the kernel log after the marker line
klog_mark() {
	echo "fuse-backport: takeover mark $1" > /dev/kmsg
}
klog_since() {
	dmesg | sed -n "/fuse-backport: takeover mark $1\$/,\$p" | sed 1d
}
# exactly one line of ours in the log since MARK, matching RE
one_line() {
	klog_since "$1" > "$S/klog.$1"
	[ "$(grep -c "$FB_MODNAME: takeover: " "$S/klog.$1")" = 1 ] && grep -q "$2" "$S/klog.$1"
}
fs_listed() {
	[ "$(grep -cE "^nodev[[:space:]]+fuse\$" /proc/filesystems)" = 1 ] &&
		[ "$(grep -cE "^[[:space:]]+fuseblk\$" /proc/filesystems)" = 1 ]
}
misc_dev() {
	[ "$(cat /sys/class/misc/fuse/dev 2> /dev/null)" = 10:229 ] && [ -c /dev/fuse ] &&
		[ "$(stat -c '%t:%T' /dev/fuse)" = a:e5 ]
}
# dev_is_ours: opening /dev/fuse takes a reference on our module
dev_is_ours() {
	r0=$(refcnt)
	exec 8<> /dev/fuse || return 1
	r1=$(refcnt)
	exec 8>&-
	[ "$r1" = $((r0 + 1)) ]
}

case ${FB_TAKEOVER_ONLY:-} in
hang | restore | window)
	# shellcheck source=/dev/null
	. "$FB_TOP/tests/suites/takeover/$FB_TAKEOVER_ONLY.sh"
	tap_done
	exit
	;;
esac

# 1. the parameter
tap_check "$([ "$(param)" = 0 ]; echo $?)" "parameter takeover exists, off by default (is: $(param))"

# 2. before the takeover: a built-in mount, and a built-in /dev/fuse descriptor
mount_on "$S/bi" /dev/fuse fuse 2> "$S/bi.err"
exec 7<> /dev/fuse
tap_check "$(builtin "$S/bi" && io "$S/bi"; echo $?)" "before: a -t fuse mount is the built-in's"

# 3. enable
klog_mark on
setp 1 2> "$S/on.err"
on=$?
active=1
[ $on = 0 ] && [ "$(param)" = 1 ] || active=0
tap_check "$([ $active = 1 ] && one_line on 'fuse, fuseblk and /dev/fuse (10:229) are served by .*; mounts made before stay on the built-in FUSE$'; echo $?)" \
	"enable: parameter 1, one log line ($(param); $(tail -n 1 "$S/klog.on" 2> /dev/null))"
tap_check "$([ $active = 1 ] && fs_listed && misc_dev && dev_is_ours; echo $?)" \
	"enable: /proc/filesystems has fuse and fuseblk once, /sys/class/misc/fuse and /dev/fuse are 10:229, /dev/fuse is ours"

# 4. the test daemon on /dev/fuse, -t fuse
r0=$(refcnt)
mount_on "$S/m" /dev/fuse fuse 2> "$S/m.err"
tap_check "$([ $active = 1 ] && [ "$(fb_fstype "$S/m")" = fuse ] && ours "$S/m" && [ "$(refcnt)" -gt "$r0" ] && io "$S/m"; echo $?)" \
	"fbtestd on /dev/fuse -t fuse: served by ours (our connection, refcount $r0 -> $(refcnt)), I/O works"

# 5. bindfs as Debian ships it
if command -v bindfs > /dev/null; then
	echo data > "$S/b/file"
	bindfs "$S/b" "$S/bm" 2> "$S/bm.err"
	tap_check "$([ $active = 1 ] && ours "$S/bm" && [ "$(cat "$S/bm/file")" = data ] && io "$S/bm"; echo $?)" \
		"bindfs (unmodified): served by ours ($(fb_fstype "$S/bm"))"
	umount_at "$S/bm"
else
	tap_skip "bindfs (unmodified): served by ours" "bindfs is not installed (dev/deps.sh test)"
fi

# 6. the built-in mount made before keeps serving, and unmounts
tap_check "$([ $active = 1 ] && builtin "$S/bi" && io "$S/bi" && umount_at "$S/bi" && ! fb_mounted "$S/bi"; echo $?)" \
	"the built-in mount made before the takeover keeps serving and unmounts"

# 7. the built-in descriptor opened before: EINVAL at mount, one log line
klog_mark fd
mount -i -t fuse -o fd=7,rootmode=40000,user_id=0,group_id=0 fbtakeover "$S/x" 2> "$S/x.err"
xrc=$?
klog_since fd > "$S/klog.fd"
tap_check "$([ $active = 1 ] && [ $xrc != 0 ] && ! fb_mounted "$S/x" &&
	[ "$(grep -c "descriptor is the built-in FUSE's /dev/fuse" "$S/klog.fd")" = 1 ]; echo $?)" \
	"a built-in /dev/fuse descriptor opened before: mount refused with one log line ($(head -n 1 "$S/x.err"))"
exec 7>&-

# 8. bad input: enable twice, a value that is no boolean
klog_mark twice
setp 1 2> /dev/null
trc=$?
tap_check "$([ $active = 1 ] && [ $trc != 0 ] && [ "$(param)" = 1 ] && one_line twice 'refused: already active' &&
	ours "$S/m" && dev_is_ours; echo $?)" \
	"enable twice: refused with one line, nothing changes"
klog_mark bad
setp maybe 2> /dev/null
brc=$?
tap_check "$([ $active = 1 ] && [ $brc != 0 ] && [ "$(param)" = 1 ] && one_line bad 'refused: not 0 or 1'; echo $?)" \
	"a value that is not 0 or 1: refused with one line, nothing changes"

# 9. cuse loads during the takeover, on the built-in core
cuse_loaded=0
grep -q '^cuse ' /proc/modules && cuse_loaded=1
modprobe cuse 2> "$S/cuse.err"
tap_check "$([ $active = 1 ] && fb_wait_while 50 [ ! -c /dev/cuse ] && exec 9<> /dev/cuse && [ "$(param)" = 1 ]; echo $?)" \
	"cuse loads during the takeover and /dev/cuse opens ($(head -n 1 "$S/cuse.err"))"
[ $cuse_loaded = 1 ] || rmmod cuse 2> /dev/null
# virtiofs (built in on Debian's kernels) stays registered, on the built-in core.
# The kernel's config as the status suite finds it: in the guest, Debian
# 13's kernels have no /lib/modules/KVER/build (their headers are in a
# Debian 13 root), so /boot/config-KVER or /lib/modules/KVER/config first
kcfg=/lib/modules/$(uname -r)/build/.config
[ -f "/lib/modules/$(uname -r)/config" ] && kcfg=/lib/modules/$(uname -r)/config
[ -f "/boot/config-$(uname -r)" ] && kcfg=/boot/config-$(uname -r)
if grep -qE '^CONFIG_VIRTIO_FS=y$' "$kcfg" 2> /dev/null; then
	tap_check "$([ $active = 1 ] && [ "$(grep -cE "^nodev[[:space:]]+virtiofs\$" /proc/filesystems)" = 1 ] &&
		[ ! -e /sys/module/virtiofs/refcnt ]; echo $?)" \
		"virtiofs (built in) stays registered during the takeover, the built-in's"
else
	tap_check "$([ $active = 1 ] && { ! grep -qE "^nodev[[:space:]]+virtiofs\$" /proc/filesystems || [ -e /sys/module/virtiofs/refcnt ]; }; echo $?)" \
		"virtiofs (a module here) is not touched by the takeover"
fi

# unmodified userspace on the takeover
# shellcheck source=tests/suites/takeover/userspace.sh
. "$FB_TOP/tests/suites/takeover/userspace.sh"

# 10. disable with our mount alive
klog_mark off
setp 0
orc=$?
tap_check "$([ $active = 1 ] && [ $orc = 0 ] && [ "$(param)" = 0 ] && one_line off 'ended' && ours "$S/m" && io "$S/m"; echo $?)" \
	"disable with our mount alive: one log line, ours keeps serving"
mount_on "$S/st" /dev/fuse fuse 2> "$S/st.err"
tap_check "$([ $active = 1 ] && builtin "$S/st" && io "$S/st" && fs_listed && misc_dev && ! dev_is_ours; echo $?)" \
	"after disable: a new -t fuse mount is the built-in's, /dev/fuse is not ours"
umount_at "$S/st"
umount_at "$S/m"

# 11. 10 enable/disable cycles, a clean kernel log
klog_mark cycles
n=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
	setp 1 && [ "$(param)" = 1 ] && setp 0 && [ "$(param)" = 0 ] && n=$((n + 1))
done
klog_since cycles > "$S/klog.cycles"
tap_check "$([ $n = 10 ] && ! grep -E "$FB_KLOG_RE|duplicate|sysfs: cannot create" "$S/klog.cycles" &&
	[ "$(grep -c 'takeover: ended' "$S/klog.cycles")" = 10 ] && fs_listed && misc_dev && ! dev_is_ours; echo $?)" \
	"10 enable/disable cycles ($n done): a clean kernel log, the built-in's again"

# 12. the tool and status in each state (the module loaded, takeover off;
# the guest's /etc is a throw-away overlay)
tool=$FB_TOP/tools/fuse-backport
conf=/etc/fuse-backport/fuse-backport.conf
mkdir -p /etc/fuse-backport
echo TAKEOVER=no > "$conf"
"$tool" takeover boot > "$S/boot.no" 2>&1
b=$?
tap_check "$([ $b = 0 ] && grep -q '^takeover: not configured (TAKEOVER=no in ' "$S/boot.no" && [ "$(param)" = 0 ]; echo $?)" \
	"takeover boot, TAKEOVER=no: nothing changes ($(cat "$S/boot.no"))"
echo TAKEOVER=maybe > "$conf"
"$tool" takeover boot > "$S/boot.bad" 2>&1
b=$?
tap_check "$([ $b = 1 ] && [ "$(wc -l < "$S/boot.bad")" = 1 ] && grep -q 'TAKEOVER=maybe is not yes or no' "$S/boot.bad" &&
	[ "$(param)" = 0 ]; echo $?)" "takeover boot, TAKEOVER=maybe: one line, exit 1, nothing changes ($(cat "$S/boot.bad"))"
echo TAKEOVER=yes > "$conf"
mount_on "$S/bi" /dev/fuse fuse 2> "$S/bi.err"
"$tool" status --no-probe > "$S/st0.txt" 2>&1
tap_check "$(builtin "$S/bi" &&
	grep -q "^takeover: configured yes (TAKEOVER=yes in $conf), active no: new -t fuse mounts are served by the built-in FUSE\$" "$S/st0.txt" &&
	grep -q " on $S/bi (source .*), served by built-in\$" "$S/st0.txt"; echo $?)" \
	"status, configured, not active: $(grep '^takeover:' "$S/st0.txt")"
# the built-in's module parameter, set apart from ours, goes with the takeover
BIP=/sys/module/fuse/parameters/max_user_bgreq
OURP=/sys/module/$FB_MODNAME/parameters/max_user_bgreq
bgreq0=$(cat "$BIP" 2> /dev/null)
echo 4321 > "$BIP" 2> /dev/null
# and its sysctls (/proc/sys/fs/fuse, 6.14 on; on 7.x max_pages_limit,
# default_request_timeout, max_request_timeout): each set on the built-in,
# before the takeover, to a value that is neither its own nor ours. Words
# NAME:BEFORE:SET:OURS-BEFORE (SET "bad": not a number, or not written)
BIS=/proc/sys/fs/fuse
OURS=/proc/sys/fs/$FB_MODNAME
sysctls=""
for f in "$BIS"/*; do
	[ -f "$f" ] || continue
	v=$(cat "$f")
	o=$(cat "$OURS/${f##*/}" 2> /dev/null)
	case $v in
	'' | *[!0-9]*) w=bad ;;
	*)
		w=$((v + 17))
		[ "$v" -gt 100 ] && w=$((v - 17))
		[ "$w" = "$o" ] && w=$((w + 1))
		echo "$w" > "$f" || w=bad
		;;
	esac
	sysctls="$sysctls ${f##*/}:$v:$w:$o"
done
# sx WORD FIELD: a field of such a word (1 name, 2 before, 3 set, 4 ours before)
sx() {
	echo "$1" | cut -d: -f"$2"
}
"$tool" takeover boot > "$S/boot.yes" 2>&1
b=$?
tap_check "$([ $b = 0 ] && [ "$(param)" = 1 ] && dev_is_ours && [ "$(cat "$BIP")" = 4321 ] && [ "$(cat "$OURP")" = 4321 ] &&
	grep -q '^takeover: the built-in.s values carried over: .*max_user_bgreq=4321' "$S/boot.yes"; echo $?)" \
	"takeover boot, TAKEOVER=yes: active, the built-in's max_user_bgreq carried over ($(tr '\n' ' ' < "$S/boot.yes"))"
# sysctl_carried: every sysctl of the built-in was set, ours has its value
# now (and had another before), the built-in keeps it, the tool names it
sysctl_carried() {
	[ -n "$sysctls" ] || return 1
	for e in $sysctls; do
		n=$(sx "$e" 1) w=$(sx "$e" 3)
		[ "$w" != bad ] && [ "$(sx "$e" 4)" != "$w" ] && [ "$(cat "$BIS/$n")" = "$w" ] &&
			[ "$(cat "$OURS/$n" 2> /dev/null)" = "$w" ] &&
			grep -qE "^takeover: the built-in.s values carried over: (.* )?$n=$w( |\$)" "$S/boot.yes" || return 1
	done
}
# each sysctl: NAME BEFORE->SET (ours: BEFORE->NOW)
sysctl_now() {
	for e in $sysctls; do
		printf ' %s %s->%s (ours %s->%s)' "$(sx "$e" 1)" "$(sx "$e" 2)" "$(sx "$e" 3)" "$(sx "$e" 4)" \
			"$(cat "$OURS/$(sx "$e" 1)" 2> /dev/null || echo none)"
	done
}
if [ -d "$BIS" ]; then
	tap_check "$([ $b = 0 ] && [ "$(param)" = 1 ] && sysctl_carried; echo $?)" \
		"takeover boot: the built-in's sysctls set before it are ours after, the built-in keeps them ($BIS -> $OURS:$(sysctl_now))"
else
	tap_skip "takeover boot: the built-in's sysctls set before it are ours after" "$(ls -d "$BIS" 2>&1)"
fi
[ -n "$bgreq0" ] && echo "$bgreq0" > "$BIP" && echo "$bgreq0" > "$OURP"
for e in $sysctls; do
	n=$(sx "$e" 1) v=$(sx "$e" 2) o=$(sx "$e" 4)
	echo "$v" > "$BIS/$n"
	[ -n "$o" ] && echo "$o" > "$OURS/$n"
done
mount_on "$S/m" /dev/fuse fuse 2> "$S/m.err"
"$tool" status --no-probe > "$S/st1.txt" 2>&1
"$tool" status --no-probe --json > "$S/st1.json" 2> /dev/null
tap_check "$(ours "$S/m" &&
	grep -q "^takeover: configured yes (TAKEOVER=yes in $conf), active yes: new -t fuse mounts are served by $FB_MODNAME (ours)\$" "$S/st1.txt" &&
	grep -q "^-t fuse: .*(module $FB_MODNAME, loaded, takeover active)\$" "$S/st1.txt" &&
	grep -q " on $S/m (source .*), served by $FB_MODNAME\$" "$S/st1.txt" &&
	grep -q " on $S/bi (source .*), served by built-in\$" "$S/st1.txt" &&
	[ "$(jq -r .takeover.active "$S/st1.json")" = true ] &&
	[ "$(jq -r ".mounts[] | select(.mountpoint == \"$S/m\") | .served_by" "$S/st1.json")" = "$FB_MODNAME" ] &&
	[ "$(jq -r ".mounts[] | select(.mountpoint == \"$S/bi\") | .served_by" "$S/st1.json")" = built-in ]; echo $?)" \
	"status, active: -t fuse is ours, each mount's FUSE named ($(grep -c 'served by' "$S/st1.txt") mounts)"
"$tool" takeover off > "$S/off.out" 2>&1
b=$?
tap_check "$([ $b = 0 ] && [ "$(param)" = 0 ] && ours "$S/m" && io "$S/m" && builtin "$S/bi" && io "$S/bi" &&
	"$tool" takeover | grep -q ', active no$'; echo $?)" \
	"takeover off (the tool): ours keeps serving its mount, the built-in its own ($(cat "$S/off.out"))"
umount_at "$S/m"
umount_at "$S/bi"
rm -f "$conf"

# a swap step that fails
# shellcheck source=tests/suites/takeover/restore.sh
. "$FB_TOP/tests/suites/takeover/restore.sh"

# the swap's window, through the tool (the module loaded, the takeover off)
# shellcheck source=tests/suites/takeover/window.sh
. "$FB_TOP/tests/suites/takeover/window.sh"

# 13. loaded with takeover=1, then unloaded: the built-in's again, a stock mount works
fb_unload_ours > "$S/unload.err" 2>&1
insmod "$FB_MODDIR/$FB_MODNAME.ko" takeover=1 2> "$S/insmod.err"
loaded=$([ "$(param)" = 1 ] && dev_is_ours && fs_listed; echo $?)
tap_check "$loaded" "insmod takeover=1: active at load ($(param))"
klog_mark unload
rmmod "$FB_MODNAME" 2> "$S/rmmod.err"
urc=$?
mount_on "$S/st" /dev/fuse fuse 2> "$S/st.err"
tap_check "$([ "$loaded" = 0 ] && [ $urc = 0 ] && klog_since unload | grep -q 'takeover: ended' &&
	fs_listed && misc_dev && [ ! -d "/sys/module/$FB_MODNAME" ] && builtin "$S/st" && io "$S/st"; echo $?)" \
	"unload: fuse, fuseblk, /sys/class/misc/fuse and 10:229 are the built-in's again, a stock mount works"
umount_at "$S/st"

# 14. a built-in mount whose daemon hangs in its unmount
# shellcheck source=tests/suites/takeover/hang.sh
. "$FB_TOP/tests/suites/takeover/hang.sh"

tap_done
