#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# An initramfs holds the fuse.ko that modprobe loads now. fuse3's
# initramfs hook (Debian) and dracut's fuse module put fuse.ko in the
# image: one made before our drop-in was installed keeps the kernel's own
# module, and a FUSE or virtiofs root then keeps it even across a reboot;
# one made while ours was installed keeps ours after its removal. For each
# kernel whose initramfs holds a fuse.ko that is not the one modprobe
# resolves now (ours under updates/, or the kernel's own; at the same path,
# another build: srcversion, or bytes), the image is made again:
# update-initramfs on Debian, dracut elsewhere; one line each.
# The package runs it after its builds (postinst, %post) and after DKMS
# removed its modules (prerm, %preun). Kernels whose image holds no
# fuse.ko, or the right one, are left alone.
#
# usage: scripts/initramfs.sh TAG [KVER...]   (default: every kernel with an
#        initramfs in /boot)
# exit: 0; an image that could not be made again is one line on stderr
set -u

tag=${1:?usage: initramfs.sh TAG [KVER...]}
shift
boot=/boot

image_of() {
	for img in "$boot/initrd.img-$1" "$boot/initramfs-$1.img"; do
		[ -f "$img" ] && echo "$img" && return 0
	done
	return 1
}

# fuse_ko KVER: of the paths on stdin, the fuse.ko under lib/modules/KVER/
# that modprobe loads, as a path under it (kernel/fs/fuse or updates/dkms),
# without a compression suffix; nothing: none. An image may hold both (a
# non-hostonly dracut image, mkinitramfs with MODULES=most): depmod's
# search order puts updates/ first, so one there wins, else the first.
fuse_ko() {
	sed -n "s|^.*lib/modules/$1/\(.*/fuse\.ko\)\(\.[a-z0-9]*\)\{0,1\}\$|\1|p" |
		awk 'NR == 1 { first = $0 } /^updates\// { print; found = 1; exit }
			END { if (!found && first != "") print first }'
}

# the fuse.ko in IMG for KVER; empty: none
held() {
	if command -v lsinitramfs > /dev/null; then
		lsinitramfs "$1" 2> /dev/null
	elif command -v lsinitrd > /dev/null; then
		lsinitrd "$1" 2> /dev/null | awk '{ print $NF }'
	fi | fuse_ko "$2"
}

# the fuse.ko modprobe loads for KVER; empty: none (built in)
resolves() {
	modinfo -k "$1" -F filename fuse 2> /dev/null | fuse_ko "$1"
}

# same_build IMG KVER REL FILE: is the module at lib/modules/KVER/REL (no
# suffix) in IMG the same build as FILE, the one modprobe loads? By their
# srcversion (ours always has one): both alike, yes; different, or only
# one has one, no; neither (a kernel's own, which changes only with its
# package, which makes the image again): exit 2, cannot tell. Not by
# bytes: an image may hold a module decompressed. Debian's image unpacked
# whole (unmkinitramfs: early and main archives), dracut's file printed by
# lsinitrd.
same_build() {
	t=$(mktemp -d "${TMPDIR:-/tmp}/fb-initramfs.XXXXXX") || return 2
	f=""
	if command -v unmkinitramfs > /dev/null; then
		unmkinitramfs "$1" "$t/x" > /dev/null 2>&1
		f=$(find "$t/x" -path "*/lib/modules/$2/$3*" -name 'fuse.ko*' 2> /dev/null | head -n 1)
	elif command -v lsinitrd > /dev/null; then
		p=$(lsinitrd "$1" 2> /dev/null | awk '{ print $NF }' | grep "lib/modules/$2/$3" | head -n 1)
		f=$t/${p##*/}
		[ -z "$p" ] || lsinitrd -f "$p" "$1" > "$f" 2> /dev/null || f=""
	fi
	r=2
	if [ -n "$f" ] && [ -f "$f" ]; then
		hv=$(modinfo -F srcversion "$f" 2> /dev/null)
		sv=$(modinfo -F srcversion "$4" 2> /dev/null)
		if [ -n "$hv" ] && [ -n "$sv" ]; then
			[ "$hv" = "$sv" ] && r=0 || r=1
		elif [ -n "$hv$sv" ]; then
			r=1
		fi
	fi
	rm -rf "$t"
	return $r
}

remake() {
	if command -v update-initramfs > /dev/null; then
		update-initramfs -u -k "$1"
	elif command -v dracut > /dev/null; then
		dracut -f --kver "$1"
	else
		echo "no update-initramfs or dracut" >&2
		return 1
	fi
}

if [ $# = 0 ]; then
	set --
	for img in "$boot"/initrd.img-* "$boot"/initramfs-*.img; do
		[ -f "$img" ] || continue
		k=${img#"$boot"/initrd.img-}
		k=${k#"$boot"/initramfs-}
		set -- "$@" "${k%.img}"
	done
fi
for k in "$@"; do
	img=$(image_of "$k") || continue
	have=$(held "$img" "$k")
	want=$(resolves "$k")
	if [ -z "$have" ] || [ -z "$want" ]; then
		continue
	fi
	# The same path: the same build? An upgrade or a rollback leaves ours
	# at the same path with other code.
	if [ "$have" = "$want" ]; then
		same_build "$img" "$k" "$have" "$(modinfo -k "$k" -F filename fuse 2> /dev/null)"
		[ $? = 1 ] || continue
		have="$have of another build"
	fi
	case $want in
	updates/*) who="ours" ;;
	*) who="the kernel's own" ;;
	esac
	if out=$(remake "$k" 2>&1 > /dev/null); then
		echo "$tag: the initramfs of $k held $have; made again with $who ($want)"
	else
		echo "$tag: the initramfs of $k holds $have, not $who $want, and could not be made again: $(echo "$out" | tail -n 1)" >&2
	fi
done
exit 0
