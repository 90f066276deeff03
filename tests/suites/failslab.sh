#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Slab allocation failures in FUSE's mount, open, passthrough-open and write
# paths (guest; a kernel with CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS:
# the debug kernel of `make check-debug`, dev/debug-kernel.config). TAP.
#
# Each path's one system call (mount(2) by fbtestd --fail-nth, open(2) and
# pwrite+fsync by tests/bin/fbfailnth) runs with the n-th fault-injection
# point of the calling thread failed (/proc/thread-self/fail-nth; failslab
# with ignore-gfp-wait N, so that GFP_KERNEL allocations fail too; verbose 0,
# so that the kernel log does not fill), for n = 1, 2, ... until a run does
# not reach the n-th point. The kernel has no other fault capability, so the
# points are slab allocations, kmemleak's own metadata among them (those it
# takes from its pool: the call goes on).
# Per path (fixed tests, whatever n it took):
#   - every run succeeded or failed with a clean errno: ENOMEM; EIO too for
#     passthrough open (fuse_file_io_open: a backing-file open that fails
#     is EIO) and for write (writeback errors); a short write; a failed mount
#     left nothing mounted, a mount that came up unmounts; the last run
#     (nothing injected) succeeded; the daemon still serves;
#     for mount also "noinit": mount(2) returned 0 but no INIT reached the
#     daemon (fbtestd --init-timeout, exit 3), clean only when it is the
#     connection fuse_send_init() leaves when INIT's request cannot be
#     allocated (process_init_reply(-ENOTCONN): conn_error, the same code in
#     stock): nothing waiting on it in the control fs, the first access
#     (ls) refused at once with ECONNREFUSED, a plain umount takes it off,
#     the waiting daemon exits and the control fs drops the connection;
#   - the kernel log over the path's runs has no hit (tests/lib/klog.sh);
#   - the mount comes off and its daemon exits.
# tests/vm/guest/suites.sh then unloads the module and, with kmemleak,
# fails on an unreferenced object whose backtrace names FUSE.
#
# Environment (set by the caller): FB_TOP, FB_TARGET, FB_DEV, FB_FSTYPE,
# FB_SCRATCH. FB_FAILSLAB_MAX: the largest n per path (default 1000; a path
# still failing there fails). FB_FAILSLAB_FROM: the first n per path
# (default 1; to rerun one point, e.g. 148, without the ones before it).
# FB_FAILSLAB_INIT_WAIT: fbtestd's --init-timeout for the mount path
# (default 20 s; INIT is answered in well under a second on the debug
# kernel). FB_FAILSLAB_RED=1 (the red run): no errno is
# clean, so that every injected failure fails its path, and a WARNING line
# goes to the kernel log inside the mount path's window.
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/lib/tap.sh
. "$FB_TOP/tests/lib/tap.sh"
# shellcheck source=tests/lib/fuse.sh
. "$FB_TOP/tests/lib/fuse.sh"
LC_ALL=C
export LC_ALL
failnth=$FB_TOP/tests/bin/fbfailnth
max=${FB_FAILSLAB_MAX:-1000}
from=${FB_FAILSLAB_FROM:-1}
init_wait=${FB_FAILSLAB_INIT_WAIT:-20}
for v in "FB_FAILSLAB_MAX=$max" "FB_FAILSLAB_FROM=$from" "FB_FAILSLAB_INIT_WAIT=$init_wait"; do
	case ${v#*=} in
	'' | *[!0-9]* | 0*) echo "failslab: $v is not a whole number above 0" >&2; exit 2 ;;
	esac
done
fs=/sys/kernel/debug/failslab
mkdir -p "$FB_SCRATCH" "$FB_MNT" "$FB_BACK"

restore() {
	# failslab's defaults: GFP_KERNEL allocations are not failed
	[ -d "$fs" ] || return 0
	echo Y > "$fs/ignore-gfp-wait" 2> /dev/null
	echo 2 > "$fs/verbose" 2> /dev/null
	echo N > "$fs/task-filter" 2> /dev/null
}
trap 'fb_cleanup; restore' EXIT
trap 'fb_cleanup; restore; exit 1' INT TERM HUP

# The paths: NAME MODE OP ALLOWED (results besides ok)
paths='
mount             cached       mount  ENOMEM,noinit
open-cached       cached       open   ENOMEM
open-passthrough  passthrough  open   ENOMEM,EIO
write-cached      cached       write  ENOMEM,EIO,short
write-direct      direct       write  ENOMEM,EIO,short
write-passthrough passthrough  write  ENOMEM,EIO,short
'

# Setup: what the kernel must have.
why=""
if [ ! -d "$fs" ] && [ -d /sys/kernel/debug ]; then
	mount -t debugfs none /sys/kernel/debug 2> /dev/null
fi
if [ ! -w /proc/thread-self/fail-nth ]; then
	why="no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)"
elif [ ! -d "$fs" ]; then
	why="no $fs (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
elif ! { echo N > "$fs/ignore-gfp-wait" && echo 0 > "$fs/verbose" && echo Y > "$fs/task-filter"; }; then
	why="cannot set $fs/ignore-gfp-wait, verbose, task-filter"
elif [ ! -x "$failnth" ]; then
	why="$failnth not built (make -C tests bin)"
fi
tap_check "$([ -z "$why" ] && echo 0 || echo 1)" "failslab set up: fail-nth, ignore-gfp-wait N, verbose 0, task-filter Y${why:+ ($why)}"

# run_noinit: fbtestd's mount(2) returned 0, but no INIT came within
# $init_wait s (exit 3; the mount and the waiting daemon left in place).
# Sets res: noinit when it is the failed connection of fuse_send_init(),
# otherwise what differed. Leaves nothing mounted.
run_noinit() {
	ni_pid=$(fb_daemon_pid)
	ni_conn=$(fb_conn "$FB_MNT")
	ni_wait=$(cat "$FB_CTL/$ni_conn/waiting" 2> /dev/null)
	ni_ls=$(timeout -k 5 20 ls "$FB_MNT" 2>&1 > /dev/null)
	ni_lrc=$?
	if ! grep -q '^fbtestd: no INIT within' "$FB_SCRATCH/fs.err"; then
		res="exit 3 without fbtestd's no-INIT line"
	elif ! fb_mounted "$FB_MNT"; then
		res="no INIT, and nothing mounted"
	elif [ -z "$ni_pid" ] || ! fb_alive "$ni_pid"; then
		res="no INIT, and no daemon waiting (pid '${ni_pid}')"
	elif [ -z "$ni_conn" ] || [ "$ni_wait" != 0 ]; then
		# INIT queued but not read would be 1 here
		res="no INIT, but connection '${ni_conn}' has '${ni_wait}' requests waiting"
	elif [ $ni_lrc = 124 ] || [ $ni_lrc = 137 ]; then
		res="no INIT, and ls on the mount hung (20 s)"
	elif [ $ni_lrc = 0 ]; then
		res="no INIT, but ls on the mount succeeded"
	else
		case $ni_ls in
		*"Connection refused"*)
			if ! timeout -k 2 20 umount "$FB_MNT" 2> "$FB_SCRATCH/umount.err"; then
				res="no INIT, ECONNREFUSED, but umount failed: $(head -n 1 "$FB_SCRATCH/umount.err")"
			elif fb_mounted "$FB_MNT"; then
				res="no INIT, ECONNREFUSED, but still mounted after umount"
			elif ! fb_wait_while 100 fb_alive "$ni_pid"; then
				res="no INIT, ECONNREFUSED, unmounted, but the daemon did not exit (10 s)"
			elif [ -e "$FB_CTL/$ni_conn" ]; then
				res="no INIT, ECONNREFUSED, unmounted, but $FB_CTL/$ni_conn stays"
			else
				res=noinit
			fi
			;;
		*) res="no INIT, and ls failed otherwise: $(echo "$ni_ls" | head -n 1)" ;;
		esac
	fi
	fb_cleanup
}

# run_mount N: one mount by fbtestd with the n-th point failed. Sets inj
# (injected, not reached) and res (ok, an errno name, noinit, or what went
# wrong).
run_mount() {
	rm -f "$FB_PIDFILE"
	timeout -k 5 $((init_wait + 100)) "$FB_DAEMON" --fail-nth "$1" --init-timeout "$init_wait" \
		--dev "$FB_DEV" --fstype "$FB_FSTYPE" \
		--backing "$FB_BACK" --pidfile "$FB_PIDFILE" --mode cached "$FB_MNT" \
		> /dev/null 2> "$FB_SCRATCH/fs.err"
	rc=$?
	inj=$(sed -n 's/^fbtestd: fail-nth [0-9]*: //p' "$FB_SCRATCH/fs.err")
	if [ $rc = 3 ]; then
		run_noinit
	elif [ $rc = 0 ]; then
		if ! timeout -k 5 60 ls "$FB_MNT" > /dev/null 2>&1; then
			res="mounted, but ls fails"
		elif ! fb_umount || fb_mounted "$FB_MNT"; then
			res="mounted, but does not unmount or its daemon stays"
		else
			res=ok
		fi
		fb_cleanup
	elif [ $rc = 124 ] || [ $rc = 137 ]; then
		res="mount hung ($((init_wait + 100)) s)"
		fb_cleanup
	elif fb_mounted "$FB_MNT"; then
		res="failed, but left a mount: $(head -n 1 "$FB_SCRATCH/fs.err")"
		fb_cleanup
	elif grep -q '^fbtestd: mount -t .*: Cannot allocate memory$' "$FB_SCRATCH/fs.err"; then
		res=ENOMEM
	else
		res="$(grep -v '^fbtestd: fail-nth' "$FB_SCRATCH/fs.err" | head -n 1)"
	fi
}

# run_file OP N: fbfailnth on $FB_MNT/f.
run_file() {
	out=$(timeout -k 5 120 "$failnth" "$2" "$1" "$FB_MNT/f" 2> "$FB_SCRATCH/fs.err")
	rc=$?
	inj="" res=""
	case $rc/$out in
	0/injected=*)
		inj=${out#injected=}
		inj=${inj%% *}
		[ "$inj" = yes ] && inj=injected || inj="not reached"
		res=${out#* result=}
		res=${res%% *}
		case $res in short:*) res=short ;; esac
		;;
	124/* | 137/*) res="$1 hung (120 s)" ;;
	*) res="fbfailnth exit $rc: $(head -n 1 "$FB_SCRATCH/fs.err")" ;;
	esac
}

while read -r name mode op allowed <&3; do
	case $name in '' | '#'*) continue ;; esac
	if [ -n "$why" ]; then
		tap_check 1 "$name: every n failed cleanly or succeeded (not run: $why)"
		tap_check 1 "$name: kernel log clean (not run)"
		[ "$op" = mount ] || tap_check 1 "$name: unmount (not run)"
		continue
	fi
	rm -rf "${FB_BACK:?}"/* 2> /dev/null
	bad=""
	if [ "$op" != mount ]; then
		# shellcheck disable=SC2046 # the mode's options
		if ! fb_mount $(fb_mode_args "$mode") 2> "$FB_SCRATCH/mount.err" ||
		   ! : > "$FB_MNT/f"; then
			bad="mount --mode $mode for the runs: $(head -n 1 "$FB_SCRATCH/mount.err")"
		fi
	fi
	fb_klog_mark "failslab.$name"
	if [ "${FB_FAILSLAB_RED:-0}" = 1 ]; then
		allowed=none
		[ "$op" = mount ] && echo "<4>WARNING: CPU: 0 PID: $$ at injected by FB_FAILSLAB_RED" > /dev/kmsg
	fi
	n=$((from - 1)) ninj=0 last="" seen="" byn="" noinit_at=""
	while [ -z "$bad" ]; do
		n=$((n + 1))
		if [ "$n" -gt "$max" ]; then
			bad="n=$max still reached a fault point (FB_FAILSLAB_MAX)"
			break
		fi
		if [ "$op" = mount ]; then
			run_mount "$n"
		else
			run_file "$op" "$n"
		fi
		case $res in
		ok) ;;
		*)
			case ",$allowed," in
			*",$res,"*) ;;
			*) bad="n=$n: $res"; break ;;
			esac
			;;
		esac
		case " $seen " in *" $res "*) ;; *) seen="$seen $res" ;; esac
		# each n's result, one letter: ENOMEM E, EIO I, ok o, short s,
		# noinit N, anything else X (the failure line says what)
		case $res in
		ENOMEM) byn=${byn}E ;; EIO) byn=${byn}I ;; ok) byn=${byn}o ;;
		short) byn=${byn}s ;; noinit) byn=${byn}N noinit_at="$noinit_at $n" ;;
		*) byn=${byn}X ;;
		esac
		case $inj in
		injected) ninj=$((ninj + 1)) ;;
		"not reached")
			[ "$res" = ok ] || bad="n=$n: nothing injected, but $res"
			last=$n
			break
			;;
		*) bad="n=$n: no fail-nth verdict ($res)"; break ;;
		esac
	done
	if [ -z "$bad" ] && [ "$op" = write ]; then
		# the last run wrote all 64 KiB
		[ "$(head -c 65536 "$FB_BACK/f" | tr -d f | wc -c)" = 0 ] &&
			[ "$(stat -c %s "$FB_BACK/f")" -ge 65536 ] ||
			bad="the last write's 64 KiB are not in the backing file"
	fi
	if [ -z "$bad" ] && [ "$op" != mount ] && ! timeout -k 5 60 ls "$FB_MNT" > /dev/null 2>&1; then
		bad="the mount does not serve ls after the runs"
	fi
	tap_diag "$name: each n's result from n=$from (E ENOMEM, I EIO, o ok, s short, N no INIT, X other): $byn"
	if [ -z "$bad" ]; then
		tap_check 0 "$name: $([ "$last" -gt "$from" ] && echo "n=$from..$((last - 1)) each failed cleanly or succeeded (results:$seen; $ninj injected${noinit_at:+; no INIT at n=${noinit_at# }}), ")n=$last reached no fault point and succeeded"
	else
		tap_check 1 "$name: every run fails cleanly or succeeds, until one reaches no fault point: $bad (results before:${seen:- none})"
	fi
	fb_klog_clean "failslab.$name"
	tap_check $? "$name: kernel log clean over the runs$(head -n 1 "$FB_SCRATCH/klog.hits" | sed 's/^./: &/' | cut -c1-200)"
	if [ "$op" != mount ]; then
		fb_umount && ! fb_mounted "$FB_MNT"
		tap_check $? "$name: unmount, daemon gone"
	fi
	fb_cleanup
done 3<< EOF
$paths
EOF
tap_done
