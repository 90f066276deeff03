#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build for one kernel wherever its kbuild runs: against headers on this
# host (/lib/modules/KVER/build, or FB_KDIR), else in the Debian root that
# carries them (dev/headers.sh installs them there, dev/build-in.sh
# builds in a chroot). What the VM suites and the bench build.
#
# usage: dev/build-for.sh KVER all|none    our module (none: the
#                                               unpatched base) -> build/KVER[-unpatched]/
#        dev/build-for.sh KVER kmod DIR    an out-of-tree module in DIR
# Exit status as scripts/build.sh's (3: the kernel is not served).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
k=${1:?usage: build-for.sh KVER all|none|kmod [DIR]}
what=${2:?usage: build-for.sh KVER all|none|kmod [DIR]}
kdir=${FB_KDIR:-/lib/modules/$k/build}
cd "$top" || exit 1

if [ -n "${FB_KDIR:-}" ] || [ -f "$kdir/.config" ] ||
	! w=$(sh dev/headers.sh where "$k" 2> /dev/null) || [ "$w" = host ]; then
	case $what in
	kmod) exec make -s -C "$kdir" M="${3:?usage: build-for.sh KVER kmod DIR}" modules ;;
	esac
	# What `make modules` runs, without make: its exit status is 2 for
	# any failure, and callers test scripts/build.sh's own (3: not served).
	make -s import SERIES="$what" KVER="$k" KDIR="$kdir" || exit 1
	# (SRC and BUILD left to scripts/build.sh, whatever the environment says)
	exec env SRC='' BUILD='' FB_SERIES="$what" sh scripts/build.sh "$k" "$kdir"
fi
sh dev/headers.sh install "$w" "$k" || exit 1
case $what in
kmod) exec sh dev/build-in.sh "$k" kmod "${3:?usage: build-for.sh KVER kmod DIR}" ;;
*) make -s import SERIES="$what" KVER="$k" && exec sh dev/build-in.sh "$k" "$what" ;;
esac
