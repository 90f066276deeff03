# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Part of the takeover suite (sourced by tests/suites/takeover.sh, last; or
# alone with FB_TAKEOVER_ONLY=hang): a built-in mount whose daemon hangs
# neither hangs the takeover nor leaves the names without a FUSE at unload.
# A built-in fuseblk mount (the test daemon over a loop device, made on the
# built-in's /dev/fuse before the takeover; fuseblk sends DESTROY at
# unmount) is unmounted with its daemon stopped (SIGSTOP): the unmount waits
# in DESTROY holding the superblock's s_umount for write. Then
#   - `fuse-backport takeover on` is done within 10 s, the unmount still
#     waiting (anything that took that s_umount under the takeover's lock,
#     a walk of the built-in's superblocks, would wait as long as the
#     daemon is stopped, in D state, the parameter's lock held too);
#   - rmmod of our module, while fbopenloop opens /dev/fuse and fsopen()s
#     fuse (the type's lookup of mount -t fuse) every millisecond, is done
#     within 10 s, and neither call failed for longer than rmmod took (an
#     rmmod waiting for that lock leaves the module GOING with our fuse and
#     10:229 registered: both fail with ENODEV until the daemon is freed);
#   - SIGCONT: the unmount ends, the daemon exits, no task of the test is
#     left, none in D state in FUSE or on a superblock, the kernel log clean.
tool=$FB_TOP/tools/fuse-backport
HB=$S/hb
mkdir -p "$HB"
# ms: the clock in milliseconds
ms() {
	echo $(($(date +%s%N) / 1000000))
}
# stack_fuse PID: the FUSE and super block functions PID waits in
stack_fuse() {
	grep -oE '(fuse|super|fb_to|takeover)[a-z_]*' "/proc/$1/stack" 2> /dev/null | tr '\n' ' '
}
# ends_within MS PID: PID has ended within MS ms
ends_within() {
	ew_t=$(ms)
	while fb_alive "$2"; do
		[ $(($(ms) - ew_t)) -lt "$1" ] || return 1
		sleep 0.1
	done
}
not_in_destroy() {
	! grep -qE 'fuse_(conn|send)_destroy|fuse_kill_sb_blk' "/proc/$1/stack" 2> /dev/null
}
# lp OP KEY: a figure of fbopenloop's line for OP (open, fsopen)
lp() {
	awk -v op="$1" -v k="$2" '$1 == op { for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }' \
		"$S/hang.loop"
}
# loop_ok OP MS: OP never failed but with ENODEV or ENOENT, for MS ms at
# most, and succeeded at the end
loop_ok() {
	[ "$(lp "$1" ok)" -gt 0 ] && [ "$(lp "$1" other)" = 0 ] && [ "$(lp "$1" last)" = ok ] &&
		[ "$(lp "$1" longest_ms)" -le "$2" ]
} 2> /dev/null

# a. the built-in mount and its unmount in DESTROY
[ -d "/sys/module/$FB_MODNAME" ] || insmod "$FB_MODDIR/$FB_MODNAME.ko" 2> "$S/hang.insmod"
[ "$(param)" = 0 ] || setp 0
modprobe loop 2> "$S/hang.lo"
fb_wait_while 50 [ ! -c /dev/loop-control ]
hang_lo=""
truncate -s 16M "$S/hang.img" && hang_lo=$(losetup -f --show "$S/hang.img" 2>> "$S/hang.lo")
# attributes valid for an hour: umount's look at the mount point asks nothing of the stopped daemon
[ -n "$hang_lo" ] && mount_on "$HB" /dev/fuse fuseblk --source "$hang_lo" --attr-timeout 3600 2> "$S/hb.err"
hang_dpid=$(cat "$S/hb.pid" 2> /dev/null)
tap_check "$([ -n "$hang_dpid" ] && [ "$(fb_fstype "$HB")" = fuseblk ] && builtin "$HB" && io "$HB"; echo $?)" \
	"hang: a built-in fuseblk mount over ${hang_lo:-no loop device ($(head -n 1 "$S/hang.lo"))}, made before the takeover $(head -n 1 "$S/hb.err")"
hang_upid=""
if [ -n "$hang_dpid" ]; then
	kill -STOP "$hang_dpid"
	umount -c -i "$HB" 2> "$S/hb.umount" &
	hang_upid=$!
fi
tap_check "$([ -n "$hang_upid" ] && fb_wait_while 100 not_in_destroy "$hang_upid" && fb_alive "$hang_upid" &&
	! fb_mounted "$HB"; echo $?)" \
	"hang: its umount, the daemon stopped, waits in DESTROY holding s_umount ($(stack_fuse "${hang_upid:-none}"))"

# b. takeover on (the tool) within 10 s; the parameter is read only once it
# is done (a set in progress holds the parameter's lock, a read waits)
klog_mark hang
t0=$(ms)
"$tool" takeover on > "$S/hang.on" 2>&1 &
hang_tpid=$!
ends_within 10000 "$hang_tpid"
on_done=$?
on_ms=$(($(ms) - t0))
on_rc=none on_p=unread
if [ $on_done = 0 ]; then
	wait "$hang_tpid"
	on_rc=$?
	on_p=$(param)
fi
tap_check "$([ $on_done = 0 ] && [ $on_ms -le 10000 ] && [ "$on_rc" = 0 ] && [ "$on_p" = 1 ] && dev_is_ours && fb_alive "$hang_upid" &&
	one_line hang 'fuse, fuseblk and /dev/fuse (10:229) are served by'; echo $?)" \
	"hang: takeover on with that umount waiting: done within 10 s ($on_ms ms, exit $on_rc, parameter $on_p), the umount still waiting $([ $on_done = 0 ] || stack_fuse "$hang_tpid")"

# c. rmmod within 10 s, /dev/fuse and fsopen(fuse) failing no longer than it
# took. Our control fs (mounted by the suite's loader) holds the module: it
# goes first. rmmod is retried, 0.1 s apart for 10 s at most, where it found
# the module in use: fbopenloop holds it for an instant at each call.
umount -a -t "${FB_MODNAME}ctl" 2> /dev/null
"$FB_TOP/tests/bin/fbopenloop" /dev/fuse fuse > "$S/hang.loop" 2>&1 &
hang_lpid=$!
sleep 1
(
	i=0 t=$(ms)
	while :; do
		i=$((i + 1))
		s=$(ms)
		rmmod "$FB_MODNAME" 2> "$S/hang.rmmod.err"
		rc=$?
		e=$(ms)
		if [ $rc = 0 ] || [ $((e - t)) -ge 10000 ] || [ ! -d "/sys/module/$FB_MODNAME" ]; then
			break
		fi
		sleep 0.1
	done
	echo "$rc $((e - s)) $i" > "$S/hang.rmmod"
) &
hang_rpid=$!
ends_within 12000 "$hang_rpid"
rm_done=$?
sleep 0.5
kill -TERM "$hang_lpid"
wait "$hang_lpid"
rm_rc=none rm_ms=none rm_n=none
[ $rm_done = 0 ] && read -r rm_rc rm_ms rm_n < "$S/hang.rmmod"
tap_check "$([ $rm_done = 0 ] && [ "$rm_rc" = 0 ] && [ "$rm_ms" -le 10000 ] && loop_ok open "$rm_ms" && loop_ok fsopen "$rm_ms" &&
	[ ! -d "/sys/module/$FB_MODNAME" ] && fs_listed && misc_dev && fb_alive "$hang_upid"; echo $?)" \
	"hang: rmmod, the umount still waiting: done within 10 s (${rm_ms} ms, exit $rm_rc, try $rm_n $(head -n 1 "$S/hang.rmmod.err")); open /dev/fuse and fsopen fuse failed no longer ($(tr '\n' ' ' < "$S/hang.loop"))"

# d. SIGCONT: everything ends, nothing left
[ -n "$hang_dpid" ] && kill -CONT "$hang_dpid"
hang_left=""
for p in $hang_upid $hang_tpid $hang_rpid $hang_dpid; do
	ends_within 20000 "$p" || hang_left="$hang_left $p:$(cat "/proc/$p/comm" 2> /dev/null):$(stack_fuse "$p")"
done
hang_d=""
for f in /proc/[0-9]*/stat; do
	read -r p _ st _ < "$f" 2> /dev/null || continue
	[ "$st" = D ] && [ -n "$(stack_fuse "$p")" ] && hang_d="$hang_d $p:$(cat "/proc/$p/comm" 2> /dev/null):$(stack_fuse "$p")"
done
lo_listed() {
	losetup -j "$S/hang.img" | grep -q .
}
[ -n "$hang_lo" ] && losetup -d "$hang_lo" 2>> "$S/hang.lo" && fb_wait_while 50 lo_listed
klog_since hang > "$S/klog.hang"
grep -E "$FB_KLOG_RE" "$S/klog.hang" > "$S/klog.hang.hits"
tap_check "$([ -z "$hang_left" ] && [ -z "$hang_d" ] && ! fb_mounted "$HB" && ! lo_listed && [ ! -s "$S/klog.hang.hits" ] &&
	[ "$(grep -c 'takeover: ended' "$S/klog.hang")" = 1 ]; echo $?)" \
	"hang: SIGCONT: the umount, the tool, rmmod and the daemon end, no task in D state in FUSE, the mount and the loop device gone, one 'ended', a clean kernel log (left:${hang_left:- none}; D:${hang_d:- none}; loop: $(losetup -j "$S/hang.img"); ended: $(grep -c 'takeover: ended' "$S/klog.hang"); log: $(head -n 1 "$S/klog.hang.hits"))"
hang_dpid=""
