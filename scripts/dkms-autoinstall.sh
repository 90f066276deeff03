#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# For dkms.conf, on dkms < 3.0.11 only: is the dkms process PID an
# `autoinstall` for a kernel that dkms.conf excludes? That dkms fails the
# whole autoinstall (exit 11), and with it the headers or image package
# being configured, when a module's BUILD_EXCLUSIVE excludes the kernel
# (dkms-project/dkms#302, fixed in 3.0.11); its only way to pass a module by
# is AUTOINSTALL, which it reads from dkms.conf sourced for the kernels the
# module is already built for, not for the one being installed. So the
# kernel comes from the command line (`dkms autoinstall [-k|--kernelver K]`,
# else the running one, as dkms does) and is decided as dkms.conf decides
# any kernel (scripts/flavor.sh).
#
# usage: scripts/dkms-autoinstall.sh PID KVER   (KVER: the one dkms.conf is read for)
# exit:  0 skip the module in this autoinstall; the reason on stdout, once
#          per dkms process (empty the next times); 1 otherwise.
set -u

pid=${1:?usage: dkms-autoinstall.sh PID KVER}
read_for=${2-}
[ -r "/proc/$pid/cmdline" ] || exit 1
args=$(tr '\0' '\n' < "/proc/$pid/cmdline")
echo "$args" | grep -qx autoinstall || exit 1
case $(echo "$args" | head -n 2 | tr '\n' ' ') in
*dkms*) ;;
*) exit 1 ;;
esac

# dkms's own version.
v=$(dkms --version 2> /dev/null | sed -n 's/^dkms-\([0-9][0-9.]*\).*/\1/p' | head -n 1)
[ -n "$v" ] || exit 1
[ "$(printf '%s\n3.0.11\n' "$v" | sort -V | head -n 1)" = 3.0.11 ] && exit 1

target=""
prev=""
for a in $args; do
	case $prev in -k | --kernelver) target=${a%%/*} ;; esac
	case $a in --kernelver=*) target=${a#--kernelver=}; target=${target%%/*} ;; esac
	prev=$a
done
[ -n "$target" ] || target=$(uname -r)
[ "$target" = "$read_for" ] && exit 1

top=$(cd "$(dirname "$0")/.." && pwd)
# dkms_tree: as dkms sources it (dkms.conf's Secure Boot check is DKMS's).
why=$(FB_IN_AUTOINSTALL_CHECK=1 dkms_tree=${dkms_tree:-/var/lib/dkms} \
	bash "$top/scripts/flavor.sh" "$target" "/lib/modules/$target/build" 2>&1 > /dev/null)
[ $? = 3 ] || exit 1
said=/run/fuse-backport-dkms/said.$pid.$target
if [ ! -e "$said" ]; then
	echo "fuse-backport: not building for $target: $why"
	mkdir -p "${said%/*}" 2> /dev/null && : > "$said"
fi
exit 0
