# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/kmod.sh, the initramfs: the prebuilt drop-in
# modules package makes the kernel's initramfs again as fuse-backport-dkms
# does. Sourced by kmod.sh, in its shell and its TAP count, after its other
# checks (its variables: ver, common, pt_tmp, mok).
# shellcheck shell=sh disable=SC2154
#
# A drop-in kernel of its own with a package of its image, 6.1.0-996-fbkmod-amd64
# (Debian 12's 6.1 has FUSE=m; the kmod package depends on the image
# package, which no real 6.1 kernel here has): the image package
# (pt_fake_image_deb: the kernel's own fuse, cuse, virtiofs of a kernel here,
# depmod) and the headers package (pt_fake_headers_deb whole: the headers
# of this host's first Debian 6.1 kernel under the fake name), both with
# apt. Its initramfs is made with mkinitramfs as a kernel's install makes
# it, fuse3's hook putting fuse.ko in; each check lists it with lsinitramfs:
# before: the kernel's own kernel/fs/fuse/fuse.ko; after apt install of
# make kmod-deb's packages for it: the image holds ours,
# updates/fuse-backport/fuse.ko, and its own modules.dep loads it (an image
# may hold the kernel's own too), and exactly one line of the postinst said so; after apt purge: the kernel's
# own again, one line of the postrm.

fkv=6.1.0-996-fbkmod-amd64
fpkg=fuse-backport-modules-$fkv
fimg=/boot/initrd.img-$fkv

# ir_fuse: the fuse.ko files lsinitramfs lists in $fimg, as paths under
# lib/modules/KVER/ without a compression suffix, sorted, on one line
ir_fuse() {
	lsinitramfs "$fimg" 2> /dev/null | pt_image_fuse "$fkv"
}

# ir_dep: the fuse.ko that $fimg's own modules.dep names (what modprobe in
# the image loads: depmod keeps one file a module, updates/ first), as a
# path under lib/modules/KVER/ without a compression suffix; empty: none
ir_dep() {
	rm -rf "$pt_tmp/irx"
	unmkinitramfs "$fimg" "$pt_tmp/irx" 2> /dev/null || return 0
	dep=$(find "$pt_tmp/irx" -path "*/lib/modules/$fkv/modules.dep" | head -n 1)
	[ -n "$dep" ] || return 0
	pt_dep_fuse < "$dep"
}

# ir_cleanup: every package and file of the fake kernel (kmod.sh's
# pt_cleanup calls it too)
ir_cleanup() {
	for p in "$fpkg" "fuse-backport-modules-fbkmod-amd64" "linux-headers-$fkv" "linux-image-$fkv"; do
		if [ "$(pt_deb_state "$p")" != not-installed ]; then
			DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$p" > /dev/null 2>&1 ||
				dpkg --purge --force-all "$p" > /dev/null 2>&1
		fi
	done
	rm -rf "/lib/modules/$fkv" "/usr/src/linux-headers-$fkv" "/var/lib/initramfs-tools/$fkv"
	rm -f "$fimg" "$fimg.bak" "$fimg.dpkg-bak" "$fimg.new" "/boot/config-$fkv"
}

ir_run() {
	# the headers of this host's first Debian 6.1 kernel (no rt, cloud, fake)
	src61=""
	for d in /usr/src/linux-headers-6.1.0-*-amd64; do
		case ${d##*/linux-headers-} in
		6.1.0-*-*-amd64 | 6.1.0-*[!0-9]*-amd64) continue ;;
		esac
		[ -f "$d/.config" ] && grep -qx 'CONFIG_FUSE_FS=m' "$d/.config" && src61=${d##*/linux-headers-} && break
	done
	if [ -z "$src61" ] || ! command -v mkinitramfs > /dev/null || ! command -v lsinitramfs > /dev/null ||
		[ ! -f /usr/share/initramfs-tools/hooks/fuse ]; then
		tap_skip "the drop-in kmod package's initramfs" "needs a Debian 6.1 kernel's headers (FUSE=m), initramfs-tools and fuse3's hook"
		return
	fi
	if dkms status -m "$name" 2> /dev/null | grep -q .; then
		# its headers' DKMS hook would build ours into updates/dkms/
		tap_skip "the drop-in kmod package's initramfs" "$name is in DKMS here ($(dkms status -m "$name" | head -n 1))"
		return
	fi
	ir_cleanup
	if ! pt_fake_image_deb "$fkv" "$pt_tmp/fk" 2> "$pt_tmp/fk.log" ||
		! pt_fake_headers_deb "$fkv" "$pt_tmp/fk" "" "$src61" whole 2>> "$pt_tmp/fk.log"; then
		tap_check 1 "fake drop-in kernel $fkv ($(tail -n 1 "$pt_tmp/fk.log"))"
		return
	fi
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q \
		"$pt_tmp/fk/linux-image-$fkv.deb" "$pt_tmp/fk/linux-headers-$fkv.deb" > "$pt_tmp/fk-install.log" 2>&1
	rc=$?
	# mkinitramfs reads the kernel's /boot/config-KVER (which compressions
	# it can unpack), which a Debian image package ships and the fake one
	# does not: the headers' .config, as a real host has it.
	cp "/usr/src/linux-headers-$src61/.config" "/boot/config-$fkv"
	mkinitramfs -o "$fimg" "$fkv" > "$pt_tmp/mkinitramfs.log" 2>&1
	rc2=$?
	have=$(ir_fuse)
	[ $rc = 0 ] && [ $rc2 = 0 ] && [ "$have" = kernel/fs/fuse/fuse.ko ]
	tap_check $? "$fkv (a fake drop-in kernel: headers of $src61, the kernel's own modules of $pt_fake_stock, installed with apt): mkinitramfs made $fimg with the kernel's own fuse.ko alone (${have:-none})"
	[ $rc = 0 ] || pt_log "$pt_tmp/fk-install.log"
	[ $rc2 = 0 ] || pt_log "$pt_tmp/mkinitramfs.log"
	[ $rc = 0 ] && [ $rc2 = 0 ] && [ -n "$have" ] || return

	OUT=$pt_tmp/fkout sh dev/kmod-deb.sh "$fkv" > "$pt_tmp/fkbuild.log" 2>&1
	rc=$?
	fdeb=$pt_tmp/fkout/${fpkg}_$ver-1_$(dpkg --print-architecture).deb
	fcdeb=$pt_tmp/fkout/${common}_$ver-1_all.deb
	if [ $rc != 0 ] || [ ! -f "$fdeb" ] || [ ! -f "$fcdeb" ]; then
		tap_check 1 "make kmod-deb KVER=$fkv (exit $rc)"
		pt_log "$pt_tmp/fkbuild.log"
		return
	fi
	# Secure Boot off (mokutil faked): the postinst's only line is then
	# the initramfs's.
	mok disabled not-enrolled debian env DEBIAN_FRONTEND=noninteractive \
		apt-get -o "DPkg::Path=$pt_tmp/bin:/usr/sbin:/usr/bin:/sbin:/bin" -o DPkg::Lock::Timeout=1200 \
		install -y -q "$fcdeb" "$fdeb" > "$pt_tmp/fk-kmod.log" 2>&1
	rc=$?
	# apt ends the lines of a package's scripts with CR LF here
	pt_crlf "$pt_tmp/fk-kmod.log"
	have=$(ir_fuse)
	want="$fpkg: the initramfs of $fkv held kernel/fs/fuse/fuse.ko; made again with ours (updates/fuse-backport/fuse.ko)"
	n=$(grep -c -F "the initramfs of " "$pt_tmp/fk-kmod.log")
	dep=$(ir_dep)
	case " $have " in
	*" updates/fuse-backport/fuse.ko "*)
		[ $rc = 0 ] && [ "$dep" = updates/fuse-backport/fuse.ko ] && [ "$n" = 1 ] &&
			grep -qxF "$want" "$pt_tmp/fk-kmod.log"
		;;
	*) false ;;
	esac
	tap_check $? "$fkv: apt install $fpkg exits 0; $fimg holds our fuse.ko (lsinitramfs: ${have:-none}) and its modules.dep loads ours (${dep:-none}); one line said so ($n lines)"
	[ $rc = 0 ] || pt_log "$pt_tmp/fk-kmod.log"
	grep -F "the initramfs of " "$pt_tmp/fk-kmod.log" | head -n 4 | sed 's/^/#   /'
	if [ "$dep" != updates/fuse-backport/fuse.ko ]; then
		# For the removal's check: an image made while ours is installed.
		update-initramfs -u -k "$fkv" > "$pt_tmp/fk-update.log" 2>&1
		tap_diag "$fimg made again by the test, with ours installed, for the removal's check ($(ir_fuse))"
	fi

	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 purge -y -q "$fpkg" "$common" \
		> "$pt_tmp/fk-purge.log" 2>&1
	rc=$?
	# apt ends the lines of a package's scripts with CR LF here
	pt_crlf "$pt_tmp/fk-purge.log"
	have=$(ir_fuse)
	want="$fpkg: the initramfs of $fkv held updates/fuse-backport/fuse.ko; made again with the kernel's own (kernel/fs/fuse/fuse.ko)"
	n=$(grep -c -F "the initramfs of " "$pt_tmp/fk-purge.log")
	dep=$(ir_dep)
	[ $rc = 0 ] && [ "$have" = kernel/fs/fuse/fuse.ko ] && [ "$dep" = kernel/fs/fuse/fuse.ko ] && [ "$n" = 1 ] &&
		grep -qxF "$want" "$pt_tmp/fk-purge.log"
	tap_check $? "$fkv: apt purge $fpkg $common exits 0; lsinitramfs lists the kernel's own fuse.ko alone in $fimg again (${have:-none}; modules.dep: ${dep:-none}); one line said so ($n lines)"
	[ $rc = 0 ] || pt_log "$pt_tmp/fk-purge.log"
	grep -F "the initramfs of " "$pt_tmp/fk-purge.log" | head -n 4 | sed 's/^/#   /'
	ir_cleanup
}
