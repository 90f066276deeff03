#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A fake daemon that does not understand /dev/fd/N as its mountpoint, as a
# libfuse 2 daemon (bindfs) or one with a bundled libfuse (mergerfs) does:
# it resolves the mountpoint it was given (/dev/fd/N -> /dev/fusebp, or
# /dev/fuse), opens /dev/fuse and mounts the kernel's -t fuse.fbnofd there
# itself (nosuid,nodev, as libfuse 2 does), then goes to the background (a
# `sleep` holding both descriptors, serving nothing) and exits 0. With -f
# it stays in the foreground. For `fuse-backport run`, which must notice
# and refuse.
#
# usage: fbnofd.sh SOURCE MOUNTPOINT [-f]
# environment: FBNOFD_PIDFILE gets the background process's pid
src=$1 mp=$(readlink -f "$2")
fg=0
[ "${3:-}" = -f ] && fg=1
if [ -d "$mp" ]; then
	rootmode=40000
elif [ -c "$mp" ]; then
	rootmode=20000
else
	rootmode=100000
fi
exec 9<> /dev/fuse || exit 1
mount -i -t fuse.fbnofd -o "nosuid,nodev,fd=9,rootmode=$rootmode,user_id=0,group_id=0" "$src" "$mp" || exit 1
if [ $fg = 1 ]; then
	echo $$ > "${FBNOFD_PIDFILE:-/dev/null}"
	exec sleep 600
fi
sleep 600 > /dev/null 2>&1 &
echo $! > "${FBNOFD_PIDFILE:-/dev/null}"
exit 0
