# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Part of the takeover suite (sourced by tests/suites/takeover.sh, our
# module loaded and the takeover off): the swap is not atomic, and its
# window is what docs/design.md ("The swap window") states.
#   a. clone_fd: a libfuse daemon (tests/libfuse/fbbacking, fuse_main's
#      multi-threaded loop) with -o clone_fd mounted on the built-in FUSE
#      before `fuse-backport takeover on`; after it, 16 parallel writers
#      and readers through that mount still work: the daemon's new worker
#      opens /dev/fuse (ours now) for FUSE_DEV_IOC_CLONE, gets EINVAL and
#      libfuse goes on with its shared descriptor, as its stderr says.
#   b. uid 65534 mounts fbbacking through fusermount3 over and over while
#      `fuse-backport takeover on` and `off` run 20 times: each failed mount
#      says one of the stated errors (ENODEV from mount, EINVAL from mount,
#      ENOENT or ENODEV from the open, EACCES from the open) and overlaps
#      a toggle (timestamps of both), none is left half-made, both control
#      file systems have the connections they had, the kernel log is clean;
#      right after each toggle returns, /dev/fuse is 0666 root:root 10:229
#      again (the tool's wait for udev), udev being made a second slow for
#      that node (a rule running sleep 1).
# FB_TAKEOVER_RED=nowait (a red run): the tool runs in a mount namespace
# whose /run/udev is an empty tmpfs, so it sees no udev and does not wait:
# /dev/fuse right after a toggle must be found 0600, and the rootless
# mounts that begin after a toggle returned fail with EACCES.
# Uses the suite's S, P, BICTL, ours, builtin, umount_at, klog_mark,
# klog_since.
W=$S/win
rm -rf "$W"
mkdir -p "$W/b" "$W/m" "$W/cb" "$W/cm"
chown 65534:65534 "$W/b" "$W/m"
wtool=$FB_TOP/tools/fuse-backport
wfbb=$FB_TOP/tests/libfuse/fbbacking
wfbb_n=$(fb_copy_for 65534 "$wfbb") || wfbb_n=$wfbb
# the mode, owner and device udev's rules give /dev/fuse on Debian
# (50-udev-default.rules: KERNEL=="fuse", MODE="0666")
wnode="666 0 0 a:e5"
udevadm settle -t 10 2> /dev/null
w_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}
# w_tool on|off: the tool switches. A line in $W/toggles: its start and
# end (date +%s.%N), on|off, its exit status, /dev/fuse right after it
# returned (mode uid gid major:minor)
w_tool() {
	w_t0=$(date +%s.%N)
	if [ "${FB_TAKEOVER_RED:-}" = nowait ]; then
		# shellcheck disable=SC2016 # the inner shell's $1 $2
		unshare -m sh -c 'mount -t tmpfs fbnoudev /run/udev && exec "$1" takeover "$2"' w "$wtool" "$1" \
			>> "$W/tool.out" 2>&1
	else
		"$wtool" takeover "$1" >> "$W/tool.out" 2>&1
	fi
	w_rc=$?
	w_t1=$(date +%s.%N)
	echo "$w_t0 $w_t1 $1 $w_rc $(stat -c '%a %u %g %t:%T' /dev/fuse 2>&1)" >> "$W/toggles"
}
# w_conns: the connections of both control file systems
w_conns() {
	find "$FB_CTL" "$BICTL" -mindepth 1 -maxdepth 1 2> /dev/null | sort | tr '\n' ' '
}
w_unmounted() {
	! fb_mounted "$1"
}
w_has_daemon() {
	[ -n "$(w_daemon "$1")" ]
}
w_no_tries() {
	[ ! -s "$W/tries" ]
}
# w_threads PID: how many threads PID has
w_threads() {
	find "/proc/$1/task" -mindepth 1 -maxdepth 1 2> /dev/null | wc -l
}
# w_daemon DIR: the pids of fbbacking serving backing directory DIR
w_daemon() {
	pgrep -f "fbbacking $1 " | tr '\n' ' '
}
if [ "${FB_TAKEOVER_RED:-}" = nowait ]; then
	tap_diag "FB_TAKEOVER_RED=nowait: the tool sees no udev (an empty /run/udev) and does not wait: a red run"
fi

# a. a libfuse daemon with -o clone_fd on the built-in, then the takeover
"$wfbb" "$W/cb" "$W/cm" -f -o clone_fd > "$W/clone.err" 2>&1 &
cpid=$!
fb_wait_while 300 w_unmounted "$W/cm"
cthr0=$(w_threads "$cpid")
echo before > "$W/cm/before" 2> /dev/null
cbi=$(builtin "$W/cm" && [ "$(cat "$W/cm/before" 2> /dev/null)" = before ]; echo $?)
"$wtool" takeover on > "$W/clone.on" 2>&1
con=$?
cthr1=$(w_threads "$cpid")
# 16 writers, each its own 512 KiB file, then 16 readers with a cold cache
cio_ok=1
if [ "$cbi" = 0 ]; then
	for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		head -c 524288 /dev/urandom > "$W/model.$k"
	done
	# wait for these only: the daemon is a child of this shell too
	wpids=""
	for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		timeout -k 2 120 cp "$W/model.$k" "$W/cm/f.$k" &
		wpids="$wpids $!"
	done
	# shellcheck disable=SC2086 # the pids' words
	wait $wpids
	fb_drop_caches
	wpids=""
	for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		{ timeout -k 2 120 cmp -s "$W/model.$k" "$W/cm/f.$k" || echo "f.$k" >> "$W/clone.bad"; } &
		wpids="$wpids $!"
	done
	# shellcheck disable=SC2086 # the pids' words
	wait $wpids
	for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		cmp -s "$W/model.$k" "$W/cb/f.$k" || echo "backing f.$k" >> "$W/clone.bad"
	done
	[ ! -s "$W/clone.bad" ] && cio_ok=0
fi
cthr2=$(w_threads "$cpid")
tap_check "$([ "$cbi" = 0 ] && [ $con = 0 ] && [ "$(param)" = 1 ] && [ $cio_ok = 0 ] && builtin "$W/cm" && fb_alive "$cpid"; echo $?)" \
	"a libfuse daemon with -o clone_fd on the built-in before takeover on: 16 parallel writers and cold readers through it after, byte for byte (mount and backing dir), still the built-in's ($(tr '\n' ' ' < "$W/clone.bad" 2> /dev/null)$(head -n 1 "$W/clone.on"))"
# libfuse's lib/fuse_loop_mt.c: a new worker opens /dev/fuse and clones
# the session's descriptor into it; the ioctl's errno is in its message
cclone=$(grep -c '^fuse: failed to clone device fd: Invalid argument$' "$W/clone.err")
cback=$(grep -c '^fuse: trying to continue without -o clone_fd\.$' "$W/clone.err")
# (libfuse 3.14's fuse_main() also says "Ignoring invalid max threads
# value 4294967295 > max (100000)." at start, for its own default: not an
# error, later releases keep quiet)
cother=$(grep -v -e '^fuse: failed to clone device fd: Invalid argument$' -e '^fuse: trying to continue without -o clone_fd\.$' \
	-e '^Ignoring invalid max threads value 4294967295 > max (100000)\.$' "$W/clone.err" | head -n 1)
tap_check "$([ "$cclone" = 1 ] && [ "$cback" = 1 ] && [ -z "$cother" ] && [ "$cthr2" -gt "$cthr1" ]; echo $?)" \
	"its new worker's FUSE_DEV_IOC_CLONE on /dev/fuse (ours) gets EINVAL once and libfuse falls back to its shared descriptor (threads $cthr0 before, $cthr1 after takeover on, $cthr2 after the I/O; stderr: $(tr '\n' '|' < "$W/clone.err"))"
umount_at "$W/cm"
fb_wait_while 100 fb_alive "$cpid"
cdown=$?
[ $cdown = 0 ] || kill -9 "$cpid" 2> /dev/null
wait "$cpid"
crc=$?
"$wtool" takeover off > "$W/clone.off" 2>&1
coff=$?
tap_check "$([ $cdown = 0 ] && [ $crc = 0 ] && ! fb_mounted "$W/cm" && [ $coff = 0 ] && [ "$(param)" = 0 ]; echo $?)" \
	"that mount unmounts and its daemon exits 0 (exit $crc); takeover off ($(head -n 1 "$W/clone.off"))"

# b. mounts as uid 65534 through fusermount3 while the tool toggles. udev
# made slow on purpose, as on a busy boot: a rule runs `sleep 1` for the
# fuse node's add event before udev applies the mode (PROGRAM runs while
# the rules are read, the mode is applied after them), so for a second
# after each swap /dev/fuse is devtmpfs's 0600 and the mounts hit the
# window; without the tool's wait that second comes after it returned
conns0=$(w_conns)
mkdir -p /etc/udev/rules.d
echo 'ACTION=="add", KERNEL=="fuse", PROGRAM="/bin/sleep 1"' > /etc/udev/rules.d/49-fb-slow-fuse.rules
udevadm control --reload-rules 2> /dev/null
# w_loop: mount, check, unmount until $W/stop exists. A line in $W/tries
# per mount: its number, start, end, exit status, what came of it
# (ours|built-in|failed, and "halfmade" or "left" for a mount left over),
# its stderr on one line
w_loop() {
	wi=0
	while [ ! -e "$W/stop" ]; do
		wi=$((wi + 1))
		wa0=$(date +%s.%N)
		w_nobody timeout 60 "$wfbb_n" "$W/b" "$W/m" > "$W/try.err" 2>&1
		wrc=$?
		wa1=$(date +%s.%N)
		if [ $wrc = 0 ]; then
			wst=none
			ours "$W/m" && wst=ours
			builtin "$W/m" && wst=built-in
			[ -n "$(w_daemon "$W/b")" ] || wst="$wst nodaemon"
			w_nobody fusermount3 -u "$W/m" >> "$W/try.err" 2>&1 || wst="$wst umount-failed"
			fb_wait_while 100 w_has_daemon "$W/b" || wst="$wst daemon-left"
			fb_mounted "$W/m" && wst="$wst left"
		else
			wst=failed
			fb_mounted "$W/m" && wst="failed halfmade"
		fi
		echo "$wi $wa0 $wa1 $wrc $wst | $(tr '\n' '|' < "$W/try.err")" >> "$W/tries"
		while fb_mounted "$W/m"; do
			umount -l "$W/m" 2> /dev/null || break
		done
	done
}
: > "$W/tries"
: > "$W/toggles"
klog_mark window
w_loop &
wlpid=$!
fb_wait_while 300 w_no_tries
for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	case $k in
	*[13579]) w_tool on ;;
	*) w_tool off ;;
	esac
	# 1 to 1.4 s between toggles: mounts land on both sides
	sleep "1.$((k % 5))"
done
touch "$W/stop"
wait "$wlpid"
rm -f /etc/udev/rules.d/49-fb-slow-fuse.rules
udevadm control --reload-rules 2> /dev/null
klog_since window > "$S/klog.window"
conns1=$(w_conns)

# the toggles: each exit 0, /dev/fuse udev's right after it returned
wbad=$(awk -v want="$wnode" '{ n = $5 " " $6 " " $7 " " $8 } $4 != 0 || n != want { printf "%s %s: exit %s, /dev/fuse %s; ", NR, $3, $4, n }' "$W/toggles")
tap_check "$([ "$(wc -l < "$W/toggles")" = 20 ] && [ -z "$wbad" ] && [ "$(param)" = 0 ]; echo $?)" \
	"fuse-backport takeover on/off 20 times: each exit 0, and right after it returned /dev/fuse is mode 0666 root:root 10:229 again (${wbad:-all $wnode}$(grep -m 1 warning "$W/tool.out"))"
# the mounts' failures, each classified by its message
# w_class STDERR: the failure's errno as the message says it, else "other"
w_class() {
	case $1 in
	*"mount failed: No such device"*) echo ENODEV-mount ;;
	*"mount failed: Invalid argument"*) echo EINVAL-mount ;;
	*"device not found, try 'modprobe fuse' first"*) echo ENOENT-or-ENODEV-open ;;
	*"failed to open /dev/fuse: Permission denied"*) echo EACCES-open ;;
	*) echo other ;;
	esac
}
while read -r wn wa0 wa1 wrc wrest; do
	[ "$wrc" = 0 ] || echo "$wn $wa0 $wa1 $(w_class "$wrest")"
done < "$W/tries" > "$W/classes"
wtries=$(wc -l < "$W/tries")
wours=$(grep -c '^[0-9]* [^ ]* [^ ]* 0 ours |' "$W/tries")
wbi=$(grep -c '^[0-9]* [^ ]* [^ ]* 0 built-in |' "$W/tries")
wfail=$(wc -l < "$W/classes")
wsum=$(awk '{ n[$4]++ } END { for (c in n) printf "%s %d, ", c, n[c] }' "$W/classes")
wother=$(awk '$4 == "other" { print $1 }' "$W/classes" | head -n 1)
tap_check "$([ "$wtries" -ge 10 ] && [ "$wours" -ge 1 ] && [ "$wbi" -ge 1 ] && [ -z "$wother" ] &&
	[ $((wours + wbi + wfail)) = "$wtries" ]; echo $?)" \
	"$wtries fusermount3 mounts by uid 65534 during the toggles: $wours on ours, $wbi on the built-in, $wfail failed, each with a stated error (${wsum:-none}${wother:+try $wother: $(sed -n "${wother}p" "$W/tries")})"
# each failure overlaps a toggle: it began before a toggle returned and
# ended after that toggle began
wlate=$(awk 'NR == FNR { t0[NR] = $1; t1[NR] = $2; n = NR; next }
	{ in_w = 0; for (i = 1; i <= n; i++) if ($2 <= t1[i] && $3 >= t0[i]) in_w = 1
	  if (!in_w) printf "try %s (%s-%s, %s) ", $1, $2, $3, $4 }' "$W/toggles" "$W/classes")
tap_check "$([ -s "$W/toggles" ] && [ -z "$wlate" ]; echo $?)" \
	"each of the $wfail failed mounts overlaps a toggle of the tool, none began after one returned and ended before the next (${wlate:-none outside})"
# no mount half-made: every mount that succeeded had a daemon and was
# unmounted, every failed one left nothing; nothing mounted now, no
# daemon left, the connections of both control fs as before
whalf=$(awk '{ s = ""; for (i = 5; i <= NF && $i != "|"; i++) s = s " " $i }
	s !~ /^ (ours|built-in|failed)$/ { print "try " $1 ":" s; exit }' "$W/tries")
tap_check "$([ -z "$whalf" ] && ! fb_mounted "$W/m" && [ -z "$(w_daemon "$W/b")" ] && [ "$conns1" = "$conns0" ]; echo $?)" \
	"no mount half-made: each made one had its daemon and unmounted, each failed one left nothing; the control fs connections as before (${whalf:-connections: ${conns1:-none}})"
tap_check "$(! grep -E "$FB_KLOG_RE|duplicate|sysfs: cannot create" "$S/klog.window" &&
	[ "$(grep -c 'takeover: ended' "$S/klog.window")" = 10 ]; echo $?)" \
	"the kernel log of the 20 toggles is clean, with 10 takeovers ended ($(grep -cE "$FB_KLOG_RE" "$S/klog.window") bad lines)"
tap_diag "the window's tries: $(tr '\n' ';' < "$W/classes")"
