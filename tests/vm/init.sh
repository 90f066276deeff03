#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs INSIDE the guest, started by vng (virtme-init) on behalf of run.sh.
#
# usage: sh tests/vm/init.sh RUNDIR
#
# RUNDIR is the run's directory under $FB_OUT, which the host shares read-write.
# run.sh leaves there: env (variables to export) and cmd (sets "$@" to CMD).
# This script leaves there, for run.sh: started, uptime (guest uptime when CMD
# starts), dmesg (the full guest kernel log after CMD) and status (CMD's exit
# status). Its stdout and stderr both go to the runner's stdout.
rundir=$1
exec 2>&1

# Notes go to the kernel log (so to the run's log), not to CMD's output.
note() { echo "<4>fb-vm: $*" >/dev/kmsg; }

# shellcheck disable=SC1091 # written by run.sh for each run
. "$rundir/env"
: >"$rundir/started"

# /tmp becomes a real tmpfs (virtme gives an overlay of the host's /tmp). If
# the shared results directory lives under /tmp, it is bind-mounted aside and
# moved back, so that it stays visible at the same path as on the host (with
# --rw it is no mount of its own, just a directory of the root).
case $FB_OUT/ in
/tmp/?*) under_tmp=1 ;;
*) under_tmp=0 ;;
esac
if [ $under_tmp = 1 ]; then
	if ! mkdir -p /run/fb-out || ! mount --bind "$FB_OUT" /run/fb-out; then
		note "cannot move $FB_OUT aside"
	fi
fi
mount -t tmpfs -o mode=1777 tmpfs /tmp || note "cannot mount a tmpfs on /tmp"
if [ $under_tmp = 1 ]; then
	if ! mkdir -p "$FB_OUT" || ! mount --move /run/fb-out "$FB_OUT"; then
		note "cannot put $FB_OUT back"
	fi
fi

# vng's initramfs loads virtiofs, and with it fuse where FUSE is a module,
# although the root is on 9p. Unload both, so that the guest starts without
# FUSE loaded and a test can load its own fuse.ko (or modprobe the stock one).
for m in virtiofs fuse; do
	if grep -q "^$m " /proc/modules; then
		rmmod "$m" || note "cannot unload the $m module"
	fi
done

# A writable HOME: the host's /root is visible read-only.
HOME=/tmp/fb-home
mkdir -p "$HOME"

FB_KVER=$(uname -r)
printf '%s\n' "$FB_KVER" >/run/fb-kver
FB_VM=1
FB_RUNDIR=$rundir
export HOME FB_KVER FB_VM FB_RUNDIR

if ! cd "$FB_CWD" 2>/dev/null; then
	note "$FB_CWD is not visible in the guest; running CMD in /"
	cd /
fi

# shellcheck disable=SC1091 # sets "$@" to the command line
. "$rundir/cmd"
cut -d' ' -f1 /proc/uptime >"$rundir/uptime"
# A subshell, so that a builtin such as `exit 3` gives its status too.
("$@")
rc=$?

dmesg >"$rundir/dmesg" 2>&1
echo "$rc" >"$rundir/status"
sync
exit "$rc"
