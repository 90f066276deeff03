#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build for a Debian kernel where its kbuild runs (dev/headers.sh): on
# this host, or in a chroot of the Debian root its headers are installed in
# (dev/chroot.sh), with this tree bind-mounted at the same path (paths in
# logs stay ours). The build is scripts/build.sh's.
#
# usage: dev/build-in.sh KVER [SERIES]   (SERIES: all (default) or none)
#        dev/build-in.sh KVER kmod DIR   (an out-of-tree module in DIR,
#                                             e.g. the test modules)
# The generated tree must exist (make import-all, SERIES=none: make import
# SERIES=none BASE=...). Exit status as scripts/build.sh's (3: not served).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
k=${1:?usage: build-in.sh KVER [SERIES]}
series=${2:-all}
die() { echo "build-in: $*" >&2; exit 1; }

w=$(sh "$top/dev/headers.sh" where "$k") || exit 1
r=$(sh "$top/dev/headers.sh" root "$w")
kd=/usr/src/linux-headers-$k
[ -f "$r$kd/.config" ] || die "no headers for $k in $w (dev/headers.sh install $w $k)"
env=""
cmd="sh $top/scripts/build.sh $k $kd"
if [ "$series" = kmod ]; then
	m=${3:?usage: build-in.sh KVER kmod DIR}
	case $m in "$top"/*) ;; *) die "$m is not inside $top (only this tree is shared with the root)" ;; esac
	cmd="make -s -C $kd M=$m modules"
elif [ "$series" = none ]; then
	env="FB_SERIES=none"
fi
if [ "$w" = host ]; then
	# shellcheck disable=SC2086 # assignments and a command line
	exec env $env $cmd
fi

cleanup() {
	# Another build still in this root holds its shared lock: leave the
	# mounts to it (it unmounts what it finds mounted, being the last).
	flock -x -n 7 || return 0
	for m in $mounted; do
		umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null || true
	done
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
# Several builds may share a root: the first mounts, the last unmounts.
mounted=""
exec 7> "$r/.fb-mount.lock"
flock -s 7
mounted="$r/proc $r$top"
if ! mountpoint -q "$r$top"; then
	mkdir -p "$r$top" || die "cannot create $r$top"
	mount --bind "$top" "$r$top" || die "cannot bind-mount $top into $r"
fi
if ! mountpoint -q "$r/proc"; then
	mount -t proc proc "$r/proc" || die "cannot mount proc in $r"
fi
# shellcheck disable=SC2086 # assignments and a command line
sh "$top/dev/chroot.sh" run "$r" FB_JOBS="${FB_JOBS:-2}" $env $cmd
