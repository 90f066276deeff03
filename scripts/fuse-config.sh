#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# How kernel KVER has FUSE: the one rule dkms.conf (and through it
# scripts/flavor.sh, the build and the build matrix) decides the flavor by,
# and `fuse-backport status` says (tools/fact_kernel.c reads the same files
# in the same order: the tools package has no copy of this script). The
# first of these config files that exists decides:
#   KDIR/.config               the headers the module is built against
#                              (KDIR: default /lib/modules/KVER/build)
#   /boot/config-KVER          the kernel image's
#   /lib/modules/KVER/config   the same, where Debian's 7.x kernels have it
# a line CONFIG_FUSE_FS=y (built in: the renamed flavor) or =m (a module:
# the drop-in flavor), the first such line; neither: n (not set). With
# none of them, the kernel's module lists: modules.builtin lists
# kernel/fs/fuse/fuse.ko: y; modules.order lists it: m; else ? (unknown).
#
# usage: scripts/fuse-config.sh KVER [KDIR]
# prints "VALUE EVIDENCE", VALUE one of y m n ?, on stdout; exit 0
set -u
kver=${1:?usage: fuse-config.sh KVER [KDIR]}
kdir=${2:-/lib/modules/$kver/build}
mods=/lib/modules/$kver
for f in "$kdir/.config" "/boot/config-$kver" "$mods/config"; do
	[ -f "$f" ] || continue
	v=$(sed -n 's/^CONFIG_FUSE_FS=\([ym]\)$/\1/p' "$f" 2> /dev/null | head -n 1)
	if [ -n "$v" ]; then
		echo "$v CONFIG_FUSE_FS=$v in $f"
	else
		echo "n CONFIG_FUSE_FS not set in $f"
	fi
	exit 0
done
# lists: lines "kernel/fs/fuse/fuse.ko" (modules.order's may have ":...")
lists() { cut -d: -f1 "$mods/$1" 2> /dev/null | grep -qx 'kernel/fs/fuse/fuse\.ko'; }
if lists modules.builtin; then
	echo "y modules.builtin lists fuse.ko"
elif lists modules.order; then
	echo "m modules.order lists fuse.ko"
else
	echo "? no config file, modules.builtin or modules.order says"
fi
