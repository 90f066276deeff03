#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# dkms's POST_INSTALL (dkms.conf): the kernel's own fuse.ko, cuse.ko and
# virtiofs.ko go back where the kernel's package put them.
#
# dkms 3.1 and later (Debian 13's 3.2.2, EPEL's, Fedora's), on the first
# install of a module for a kernel, move any file of the same name they find
# under /lib/modules/KVER (first extra/, updates/, the destination, else the
# one anywhere in the tree: kernel/fs/fuse/fuse.ko.xz on a drop-in kernel)
# into DKMS_TREE/<module>/original_module/KVER/ARCH/, with NAME.origin
# holding where it was, and move it back on removal. No dkms.conf setting
# turns that off. Then dpkg --verify, debsums and rpm -V report the
# kernel's files missing, modprobe's fallback (modprobe-stock) finds no
# module of the kernel's own, and a removal after the kernel package wrote
# that file again puts the archived copy over the newer one. Debian's dkms
# 3.0.10 archives nothing (a Debian change); this then finds nothing to do.
#
# Ours wins without it: DKMS installs ours under updates/ (Debian) or extra/
# (EL), which depmod searches before the kernel's own tree. So each file
# dkms recorded (NAME.origin) goes back to that place, when nothing is there
# now, and leaves dkms's archive, so that removal has nothing to restore.
# One recorded where something now is (ours, or another package's) stays
# archived for dkms's removal to restore, as dkms meant. Archives without a
# record (older dkms on other distributions) are left to dkms.
#
# usage: keep-stock.sh KVER MODULE_DIR
#   MODULE_DIR: DKMS's directory of this module, DKMS_TREE/fuse-backport
set -u
k=${1:?usage: keep-stock.sh KVER MODULE_DIR}
d=${2:?usage: keep-stock.sh KVER MODULE_DIR}/original_module/$k
[ -d "$d" ] || exit 0
kept=""
for o in "$d"/*/*.origin; do
	[ -f "$o" ] || continue
	f=${o%.origin}
	[ -f "$f" ] || continue
	to=$(head -n 1 "$o")
	case $to in
	/*/"$k"/*) ;;
	*) continue ;;
	esac
	[ -e "$to" ] && continue
	if mkdir -p "${to%/*}" && mv -f "$f" "$to"; then
		rm -f "$o"
		kept="$kept ${to##*/}"
	fi
done
# dkms's empty directories go, original_module itself when nothing is left.
find "$d" -depth -type d -empty -delete 2> /dev/null
rmdir "${d%/*}" 2> /dev/null
[ -z "$kept" ] ||
	echo "fuse-backport: $k: the kernel's own$kept stay in place (dkms had moved them to $d)"
exit 0
