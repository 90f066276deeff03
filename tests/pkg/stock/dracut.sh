# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/stock.sh, the initramfs under dracut: what
# scripts/initramfs.sh does through the package's postinst and prerm on a
# host whose initramfs tool is dracut. Sourced by stock.sh, in its shell and
# its TAP count: functions only, called by it with its root ($root), fake
# drop-in kernel ($kver), in_root and $pt_tmp.
# shellcheck shell=sh disable=SC2154
#
# The root is made a Debian host that uses dracut: Debian's `dracut`
# package (without its Recommends) conflicts with initramfs-tools, so apt
# takes that away, update-initramfs with it, and scripts/initramfs.sh takes
# its dracut branch (`dracut -f --kver KVER`); lsinitrd is dracut-core's.
# dracut's own modules put fuse.ko in no image of a host without a FUSE
# root; /etc/dracut.conf.d/90-fuse-backport-test.conf says what a host with
# a FUSE or virtiofs root has: add_drivers+=" fuse ", hostonly="no" (a
# chroot has no root device of its own for hostonly to look at).
# The first image of the fake kernel is made as its package's kernel hook
# would (the fake image package runs depmod, no hooks): dracut's
# /etc/kernel/postinst.d/dracut KVER, INITRD unset, which writes
# /boot/initrd.img-KVER (Debian's dracut names it so, with or without a
# /boot/vmlinuz-KVER; the fake kernel has none, and dracut needs none: it
# reads /lib/modules/KVER and the modules.dep the image package's depmod
# made). Each check lists the image with lsinitrd, not the script's words:
#   dr_setup          dracut in the root, no update-initramfs; the image
#                     made before ours holds the kernel's own fuse.ko
#   dr_installed LOG  after apt install: the image holds ours and its own
#                     modules.dep loads ours (a non-hostonly image holds the
#                     kernel's own too), and LOG has exactly one line about
#                     it, the one saying so
#   dr_removed LOG    after apt purge: the image holds the kernel's own
#                     again, and LOG has exactly one line about it
# dr_img is the image while the checks go on, empty before and after (the
# other rounds run with no image of the fake kernel: initramfs.sh then
# leaves them alone).

dr_conf=/etc/dracut.conf.d/90-fuse-backport-test.conf
dr_img=""

# dr_fuse: the fuse.ko files lsinitrd lists in the image, as paths under
# lib/modules/KVER/ without a compression suffix, sorted, on one line
dr_fuse() {
	in_root lsinitrd "$dr_img" 2> "$pt_tmp/lsinitrd.err" | awk '{ print $NF }' | pt_image_fuse "$kver"
}

# dr_dep: the fuse.ko the image's own modules.dep names (what modprobe in
# the image loads: depmod keeps one file a module, updates/ first), as a
# path under lib/modules/KVER/ without a compression suffix; empty: none
dr_dep() {
	dep=$(in_root lsinitrd "$dr_img" 2> /dev/null | awk '{ print $NF }' |
		grep -m 1 "lib/modules/$kver/modules\.dep\$")
	[ -n "$dep" ] || return 0
	in_root lsinitrd -f "$dep" "$dr_img" 2> /dev/null | pt_dep_fuse
}

# dr_lines LOG: the lines of LOG about an initramfs of ours (stdout and
# stderr of initramfs.sh both say "the initramfs of KVER")
dr_lines() {
	grep -F "the initramfs of " "$1"
}

dr_cleanup() {
	rm -f "$root/boot/initrd.img-$kver" "$root$dr_conf"
	dr_img=""
}

dr_setup() {
	dr_img=""
	# shellcheck disable=SC2016 # a dpkg-query format
	if ! in_root dpkg-query -W -f '${db:Status-Abbrev}' dracut 2> /dev/null | grep -q '^ii'; then
		{ in_root apt-get update -q && in_root apt-get install -y -q --no-install-recommends dracut; } \
			> "$pt_tmp/dracut.log" 2>&1
	fi
	# shellcheck disable=SC2016 # a dpkg-query format
	dv=$(in_root dpkg-query -W -f '${Version}' dracut 2> /dev/null)
	uir=$(in_root sh -c 'command -v update-initramfs')
	[ -n "$dv" ] && [ -z "$uir" ] && in_root sh -c 'command -v dracut && command -v lsinitrd' > /dev/null
	rc=$?
	tap_check $rc "dracut: the root uses dracut ${dv:-(not installed)}, no update-initramfs (${uir:-none}): initramfs.sh's dracut branch"
	if [ $rc != 0 ]; then
		pt_log "$pt_tmp/dracut.log"
		return
	fi
	mkdir -p "$root/etc/dracut.conf.d"
	printf '%s\n' '# fuse-backport test (tests/pkg/stock/dracut.sh): a FUSE or virtiofs root' \
		'add_drivers+=" fuse "' 'hostonly="no"' > "$root$dr_conf"
	rm -f "$root/boot/initrd.img-$kver"
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		/etc/kernel/postinst.d/dracut "$kver" > "$pt_tmp/dracut-hook.log" 2>&1
	rc=$?
	dr_img=/boot/initrd.img-$kver
	have=$(dr_fuse)
	[ $rc = 0 ] && [ "$have" = kernel/fs/fuse/fuse.ko ]
	tap_check $? "dracut: before ours, dracut's kernel hook made $dr_img; lsinitrd lists the kernel's own fuse.ko alone (${have:-none})"
	if [ $rc != 0 ] || [ -z "$have" ]; then
		pt_log "$pt_tmp/dracut-hook.log"
		pt_log "$pt_tmp/lsinitrd.err" 4
		dr_cleanup
	fi
}

dr_installed() {
	[ -n "$dr_img" ] || return 0
	pt_crlf "$1"
	have=$(dr_fuse)
	want="fuse-backport-dkms: the initramfs of $kver held kernel/fs/fuse/fuse.ko; made again with ours (updates/dkms/fuse.ko)"
	n=$(dr_lines "$1" | wc -l)
	dep=$(dr_dep)
	case " $have " in
	*" updates/dkms/fuse.ko "*) [ "$dep" = updates/dkms/fuse.ko ] && [ "$n" = 1 ] && grep -qxF "$want" "$1" ;;
	*) false ;;
	esac
	tap_check $? "dracut: after apt install, $dr_img holds our fuse.ko (lsinitrd: ${have:-none}) and its modules.dep loads ours (${dep:-none}); one line said so ($n lines)"
	dr_lines "$1" | head -n 4 | sed 's/^/#   /'
	if [ "$dep" != updates/dkms/fuse.ko ]; then
		# For the removal's check: an image made while ours is installed,
		# as a host has whose image was made again by hand or by a kernel
		# hook since.
		in_root dracut -q -f "$dr_img" "$kver" > "$pt_tmp/dracut-ours.log" 2>&1
		tap_diag "dracut: $dr_img made again by the test, with ours installed, for the removal's check ($(dr_fuse))"
	fi
}

dr_removed() {
	[ -n "$dr_img" ] || return 0
	pt_crlf "$1"
	have=$(dr_fuse)
	want="fuse-backport-dkms: the initramfs of $kver held updates/dkms/fuse.ko; made again with the kernel's own (kernel/fs/fuse/fuse.ko)"
	n=$(dr_lines "$1" | wc -l)
	dep=$(dr_dep)
	[ "$have" = kernel/fs/fuse/fuse.ko ] && [ "$dep" = kernel/fs/fuse/fuse.ko ] && [ "$n" = 1 ] &&
		grep -qxF "$want" "$1"
	tap_check $? "dracut: after apt purge, lsinitrd lists the kernel's own fuse.ko alone in $dr_img again (${have:-none}; modules.dep: ${dep:-none}); one line said so ($n lines)"
	dr_lines "$1" | head -n 4 | sed 's/^/#   /'
	dr_cleanup
}
