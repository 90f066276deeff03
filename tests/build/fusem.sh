#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Headers of a kernel with FUSE as a module, made from a Debian kernel that
# has it built in, so the build matrix compiles the drop-in flavor of a base
# no Debian kernel gives FUSE=m (base 7.3: Debian's 6.13+ kernels all have
# CONFIG_FUSE_FS=y; Fedora's and EL's have =m). A copy of the kernel's
# arch headers directory in the same place (its root, or the host) as
# KVER's, named like KVER with "-fbfusem" before the flavour, with
# its Makefile's KBUILD_OUTPUT pointing at the copy, and CONFIG_FUSE_FS,
# CONFIG_CUSE and CONFIG_VIRTIO_FS set to m in .config,
# include/config/auto.conf and include/generated/autoconf.h, and what
# fs/fuse exports dropped from Module.symvers (vmlinux exported it; a
# module exporting it again is an error of modpost). Compile-only: no such
# kernel boots here.
#
# usage: tests/build/fusem.sh KVER    prints the variant's KVER
#        tests/build/fusem.sh --copy KVER SRC DST VKVER
#            the same edits on a copy DST of KVER's headers directory SRC
#            (anywhere; its Makefile names /usr/src/linux-headers-VKVER):
#            the package tests' fake FUSE=m headers (tests/pkg/lib.sh)
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "fusem: $*" >&2; exit 1; }

if [ "${1:-}" = --copy ]; then
	k=${2:?usage: fusem.sh --copy KVER SRC DST VKVER}
	src=${3:?usage: fusem.sh --copy KVER SRC DST VKVER}
	dst=${4:?usage: fusem.sh --copy KVER SRC DST VKVER}
	v=${5:?usage: fusem.sh --copy KVER SRC DST VKVER}
	w=$src
else
	k=${1:?usage: fusem.sh KVER}
	w=$(sh "$top/dev/headers.sh" where "$k")
	r=$(sh "$top/dev/headers.sh" root "$w")
	src=$r/usr/src/linux-headers-$k
	v=$(echo "$k" | sed 's/-\([a-z]*-\)\{0,1\}amd64$/-fbfusem-&/; s/-fbfusem--/-fbfusem-/')
	dst=$r/usr/src/linux-headers-$v
fi
[ -f "$src/.config" ] || die "no headers for $k in $w"
grep -qx 'CONFIG_FUSE_FS=y' "$src/.config" || die "$k does not have FUSE built in"
base=$(bash "$top/scripts/flavor.sh" --base "$k" "$src" 2> /dev/null | cut -d' ' -f2) ||
	die "$k is outside every base"
tree=$top/src/$base
[ -d "$tree/fs/fuse" ] || die "no generated tree $tree (make import-all)"

rm -rf "$dst.tmp"
cp -a "$src" "$dst.tmp" || die "cannot copy $src"
# Debian's 7.x headers Makefile names its own directory as the kbuild
# output: the copy's must name the copy (else kbuild builds against the
# original). Debian 13's 6.12 one only includes the -common Makefile, whose
# output directory is the one make runs in: the copy as it is.
if grep -q '^KBUILD_OUTPUT=' "$dst.tmp/Makefile"; then
	sed -i "s|^KBUILD_OUTPUT=.*|KBUILD_OUTPUT=/usr/src/linux-headers-$v|" "$dst.tmp/Makefile"
elif ! grep -qx 'include /usr/src/linux-headers-[^ ]*-common/Makefile' "$dst.tmp/Makefile"; then
	die "$src/Makefile neither sets KBUILD_OUTPUT nor includes a -common Makefile"
fi
for f in .config include/config/auto.conf; do
	sed -i -e 's/^CONFIG_FUSE_FS=y$/CONFIG_FUSE_FS=m/' -e 's/^CONFIG_CUSE=y$/CONFIG_CUSE=m/' \
		-e 's/^CONFIG_VIRTIO_FS=y$/CONFIG_VIRTIO_FS=m/' "$dst.tmp/$f" || die "cannot edit $f"
done
sed -i -e 's/^#define CONFIG_FUSE_FS 1$/#define CONFIG_FUSE_FS_MODULE 1/' \
	-e 's/^#define CONFIG_CUSE 1$/#define CONFIG_CUSE_MODULE 1/' \
	-e 's/^#define CONFIG_VIRTIO_FS 1$/#define CONFIG_VIRTIO_FS_MODULE 1/' \
	"$dst.tmp/include/generated/autoconf.h" || die "cannot edit autoconf.h"
grep -qx '#define CONFIG_FUSE_FS_MODULE 1' "$dst.tmp/include/generated/autoconf.h" ||
	die "autoconf.h of $k does not say CONFIG_FUSE_FS"
# The symbols fs/fuse exports, as its sources name them.
grep -ho 'EXPORT_SYMBOL[A-Z_]*([a-z_0-9]*' "$tree"/fs/fuse/*.c | sed 's/.*(//' | sort -u > "$dst.tmp/.fb-fuse-exports"
awk 'NR == FNR { drop[$1] = 1; next } !($2 in drop && $3 == "vmlinux")' \
	"$dst.tmp/.fb-fuse-exports" "$src/Module.symvers" > "$dst.tmp/Module.symvers" ||
	die "cannot filter Module.symvers"
rm -f "$dst.tmp/.fb-fuse-exports"
rm -rf "$dst"
mv "$dst.tmp" "$dst"
echo "$v"
