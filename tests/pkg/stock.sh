#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The kernel's own fuse.ko, cuse.ko and virtiofs.ko stay where the kernel's
# package put them while our drop-in is installed, and removal leaves them
# exactly as they were, under Debian 13's dkms (3.2.2: dkms 3.1 and later
# move a module of the same name into DKMS's original_module/ on install
# and back on removal) and under Debian 12's (3.0.10), in a trixie chroot
# (kept in FB_CACHE/stock-root for the next run; a copy of the build
# matrix's trixie root FB_CACHE/roots/trixie with dkms and openssl; each run
# purges every kernel headers package but the -common ones, and installs
# ours without its Recommends, so that DKMS builds for the fake kernel
# below alone).
#
# The drop-in kernel is a fake (Debian 13's kernels have FUSE built in): a
# headers .deb of trixie's 6.12 with FUSE, CUSE and VIRTIO_FS as modules
# (pt_fake_headers_deb fusem: tests/build/fusem.sh --copy), its postinst
# running DKMS's headers hook as Debian's does, and an image .deb owning
# /lib/modules/KVER/kernel/fs/fuse/{fuse,cuse,virtiofs}.ko.xz (a kernel of
# this host's own, pt_fake_image_deb), whose postinst runs depmod. For each
# dkms: sha256 of those three before; apt install of ours exits 0, DKMS
# builds and installs the drop-in flavor for that kernel; the three are
# where they were with the same sha256, dpkg --verify of the image package
# is clean, DKMS has no original_module/; modinfo -k KVER -n (modprobe's
# lookup) names ours, under updates/dkms, for each of the three; apt purge
# exits 0 and the three are exactly as before (sha256), dpkg --verify clean,
# modinfo names the kernel's own again. Under dkms 3.2.2 a second round
# installs a newer image package (other bytes in the three files) while ours
# is installed: after apt purge the three are the newer package's, not the
# older ones dkms had archived.
# The initramfs under dracut (tests/pkg/stock/dracut.sh):
# the root uses Debian's dracut (no initramfs-tools, so no
# update-initramfs), configured to put fuse in every image; in the first
# round, an image of the fake kernel made before ours holds the kernel's
# own kernel/fs/fuse/fuse.ko, after apt install ours (updates/dkms/fuse.ko)
# and after apt purge the kernel's own again, each read with lsinitrd, each
# change said in exactly one line by the package (scripts/initramfs.sh).
#
# usage: tests/pkg/stock.sh [DEB]   (default: make deb into a scratch directory)
#   The red run: DEB built from a tree without dkms.conf's POST_INSTALL
#   (scripts/keep-stock.sh): under dkms 3.2.2 the kernel's three modules
#   are then missing after apt install (dpkg --verify says so, DKMS's
#   original_module/ holds them) and purge puts dkms's older copies back.
# environment: FB_CACHE (default /var/cache/fuse-backport)
#   FB_STOCK_DKMS  which dkms: "root" (the root's: Debian 13's 3.2.2) and/or
#                  "host" (this Debian 12 host's candidate, 3.0.10, installed
#                  in the root from its .deb); default "root host"
tap_suite="pkg-stock"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"
# shellcheck source=tests/pkg/stock/dracut.sh
. "$top/tests/pkg/stock/dracut.sh"

pkg=fuse-backport-dkms
root=${FB_CACHE:-/var/cache/fuse-backport}/stock-root
kver=6.12.0-997-fbstock-amd64
mods="fuse cuse virtiofs"
stockdir=/lib/modules/$kver/kernel/fs/fuse

in_root() { sh "$top/dev/chroot.sh" run "$root" "$@"; }
pt_cleanup() {
	if [ -d "$root/var/lib/dpkg" ] && mountpoint -q "$root/proc" 2> /dev/null; then
		for p in $pkg "linux-headers-$kver" "linux-image-$kver"; do
			in_root dpkg --purge --force-all "$p" > /dev/null 2>&1
		done
		rm -rf "$root/var/lib/dkms/$name" "$root/lib/modules/$kver"
		dr_cleanup
		# the root's own dkms again, when a round installed another
		# shellcheck disable=SC2016 # a dpkg-query format
		[ -z "${root_dkms:-}" ] || [ "$(in_root dpkg-query -W -f '${Version}' dkms 2> /dev/null)" = "$root_dkms" ] ||
			in_root apt-get install -y -q --allow-downgrades "dkms=$root_dkms" > /dev/null 2>&1
	fi
	pt_root_umount "$root"
}

pt_init "the kernel's own FUSE modules under dkms" debootstrap chroot dpkg-buildpackage xz
ver=$(pt_version)

pt_deb "${1:-}"
tap_diag "testing $deb"

# The root: a copy of the build matrix's trixie root with dkms and openssl
# (DKMS makes its MOK with it) from the mirror it already uses.
seed=$(sh dev/chroot.sh path trixie)
if [ ! -f "$root/.fb-stock-root" ]; then
	pt_cleanup
	sh dev/chroot.sh copy trixie "$root" dkms openssl xz-utils > "$pt_tmp/root.log" 2>&1
	rc=$?
	[ $rc = 0 ] && touch "$root/.fb-stock-root"
	tap_check $rc "a trixie root with dkms, no kernel headers but the fake ones (a copy of $seed)"
	if [ $rc != 0 ]; then
		pt_log "$pt_tmp/root.log"
		rm -rf --one-file-system "$root"
		tap_done
		exit
	fi
fi
sh dev/chroot.sh mount "$root" sys
# shellcheck disable=SC2016 # a dpkg-query format
root_dkms=$(in_root dpkg-query -W -f '${Version}' dkms)
# No kernel headers but -common ones (the seed's, or what a run before
# this one left): DKMS builds for the fake kernel alone.
# shellcheck disable=SC2016 # a dpkg-query format
hp=$(in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'linux-headers-*' 2> /dev/null |
	awk '$1 == "ii" && $2 !~ /-common(-rt)?$/ { print $2 }')
# shellcheck disable=SC2086 # a list of packages
[ -z "$hp" ] || in_root apt-get purge -y -q $hp > "$pt_tmp/purge.log" 2>&1
builds=$(cd "$root/lib/modules" && for d in *; do in_root test -e "/lib/modules/$d/build/include" && echo "$d"; done)
[ -z "$builds" ]
tap_check $? "the root has no kernel headers of its own (${builds:-none})"

# The fake drop-in kernel: the image with the kernel's own modules, then its
# headers (their postinst runs DKMS's hook; ours is not installed yet).
if ! pt_fake_headers_deb "$kver" "$pt_tmp/fake" "$seed" '6.12.*-amd64' fusem 2> "$pt_tmp/fake.log" ||
	! pt_fake_image_deb "$kver" "$pt_tmp/fake" 2>> "$pt_tmp/fake.log"; then
	tap_check 1 "fake drop-in kernel $kver ($(tail -n 1 "$pt_tmp/fake.log"))"
	tap_done
	exit
fi
tap_diag "fake drop-in kernel $kver: headers of $pt_fake_real with FUSE=m, the kernel's own modules of $pt_fake_stock"
cp "$pt_tmp/fake/linux-image-$kver.deb" "$pt_tmp/fake/linux-headers-$kver.deb" "$root/tmp/"
in_root apt-get install -y -q "/tmp/linux-image-$kver.deb" "/tmp/linux-headers-$kver.deb" > "$pt_tmp/kernel.log" 2>&1
rc=$?
grep -qx 'CONFIG_FUSE_FS=m' "$root/usr/src/linux-headers-$kver/.config" && [ -f "$root/lib/modules/$kver/modules.dep" ]
tap_check $((rc + $?)) "apt install the fake image and headers of $kver (CONFIG_FUSE_FS=m, modules.dep made)"
[ $rc = 0 ] || pt_log "$pt_tmp/kernel.log"

# A second image package of the same kernel, whose three files differ
# (compressed otherwise): the kernel's package writing them again.
mkdir -p "$pt_tmp/fake2"
cp -a "$pt_tmp/fake/image" "$pt_tmp/fake2/image"
for m in $mods; do
	f=$pt_tmp/fake2/image$stockdir/$m.ko.xz
	xz -dc "$f" | xz --check=crc32 -6 -c > "$f.new" && mv "$f.new" "$f"
done
sed -i 's/^Version: 1$/Version: 2/' "$pt_tmp/fake2/image/DEBIAN/control"
(cd "$pt_tmp/fake2/image" && find lib -type f -exec md5sum {} +) > "$pt_tmp/fake2/image/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Znone --build "$pt_tmp/fake2/image" "$root/tmp/linux-image-$kver-2.deb" > /dev/null

# dracut in the root, and an image of the fake kernel with the kernel's own
# fuse.ko (tests/pkg/stock/dracut.sh)
dr_setup

sums() { # the sha256 of the kernel's own three, "name sum" each
	for m in $mods; do
		if [ -f "$root$stockdir/$m.ko.xz" ]; then
			echo "$m $(sha256sum < "$root$stockdir/$m.ko.xz" | cut -d' ' -f1)"
		else
			echo "$m missing"
		fi
	done
}
resolved() { # what modprobe's lookup (modules.dep) gives for each of the three
	for m in $mods; do
		echo "$m $(in_root modinfo -k "$kver" -n "$m" 2> /dev/null)"
	done
}
verify() { # dpkg --verify of the image package: nothing
	in_root dpkg --verify "linux-image-$kver" > "$pt_tmp/verify" 2>&1
	[ ! -s "$pt_tmp/verify" ]
}

# round [newer]: install ours, the checks, (newer: the image
# package again, other bytes), apt purge, the checks.
round() {
	# shellcheck disable=SC2016 # a dpkg-query format
	dv=$(in_root dpkg-query -W -f '${Version}' dkms 2> /dev/null)
	before=$(sums)
	cp "$deb" "$root/tmp/"
	# Without its Recommends (linux-headers-amd64: a real kernel DKMS would
	# build for too).
	in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$deb")" > "$pt_tmp/install.log" 2>&1
	rc=$?
	in_root dkms status -m $name -v "$ver" -k "$kver" 2> /dev/null | grep -q ': installed'
	tap_check $((rc + $?)) "dkms $dv: apt install $(basename "$deb") exits 0, DKMS installed $name/$ver for $kver"
	[ $rc = 0 ] || pt_log "$pt_tmp/install.log" 15
	grep -e 'original_module' -e 'archiving' -e 'Archiving' -e '^fuse-backport: ' "$pt_tmp/install.log" |
		head -n 8 | sed 's/^/# /'
	ours="" want=""
	for m in $mods; do
		f=$(find "$root/lib/modules/$kver/updates/dkms" -name "$m.ko*" 2> /dev/null | head -n 1)
		[ -n "$f" ] && [ "$(modinfo -F flavor "$f" 2> /dev/null)" = dropin ] && ours="$ours $m"
		want="$want${want:+
}$m ${f#"$root"}"
	done
	[ "$ours" = " fuse cuse virtiofs" ]
	tap_check $? "dkms $dv: our drop-in fuse, cuse, virtiofs in updates/dkms (got:${ours:- none})"
	after=$(sums)
	[ "$after" = "$before" ]
	tap_check $? "dkms $dv: installed, the kernel's own fuse, cuse, virtiofs stay in $stockdir, same sha256"
	[ "$after" = "$before" ] || { echo "$before" | sed 's/^/#   before: /'; echo "$after" | sed 's/^/#   after:  /'; }
	verify
	tap_check $? "dkms $dv: installed, dpkg --verify linux-image-$kver reports nothing"
	sed 's/^/#   /' "$pt_tmp/verify"
	a=$(find "$root/var/lib/dkms/$name/original_module" -type f 2> /dev/null)
	[ -z "$a" ]
	tap_check $? "dkms $dv: installed, nothing in DKMS's original_module/"
	echo "$a" | grep . | sed "s|^$root|#   |"
	r=$(resolved)
	[ "$r" = "$want" ]
	tap_check $? "dkms $dv: installed, modprobe's lookup (modinfo -k $kver -n) gives ours for fuse, cuse, virtiofs"
	[ "$r" = "$want" ] || echo "$r" | sed 's/^/#   /'
	# the first round: the initramfs under dracut (tests/pkg/stock/dracut.sh)
	dr_installed "$pt_tmp/install.log"
	if [ "${1:-}" = newer ]; then
		in_root apt-get install -y -q "/tmp/linux-image-$kver-2.deb" > "$pt_tmp/image2.log" 2>&1
		rc=$?
		before=$(sums)
		[ $rc = 0 ] && [ "$before" != "$after" ] && ! echo "$before" | grep -q missing
		tap_check $? "dkms $dv: ours installed, the image package again (version 2, other bytes in the three) exits 0"
		[ $rc = 0 ] || pt_log "$pt_tmp/image2.log"
	fi
	in_root apt-get purge -y -q $pkg > "$pt_tmp/remove.log" 2>&1
	rc=$?
	[ $rc = 0 ] && ! in_root dkms status -m $name 2> /dev/null | grep -q . &&
		[ -z "$(find "$root/lib/modules/$kver/updates" -name '*.ko*' 2> /dev/null)" ]
	tap_check $? "dkms $dv: apt purge $pkg exits 0, no DKMS entry, nothing of ours in updates/"
	[ $rc = 0 ] || pt_log "$pt_tmp/remove.log"
	grep -i -e 'restor' "$pt_tmp/remove.log" | head -n 4 | sed 's/^/# /'
	gone=$(sums)
	what="the install"
	[ "${1:-}" != newer ] || what="the newer image's install"
	[ "$gone" = "$before" ]
	tap_check $? "dkms $dv: removed, the kernel's own fuse, cuse, virtiofs exactly as before $what (sha256)"
	[ "$gone" = "$before" ] || { echo "$before" | sed 's/^/#   before: /'; echo "$gone" | sed 's/^/#   after:  /'; }
	verify
	tap_check $? "dkms $dv: removed, dpkg --verify linux-image-$kver reports nothing"
	sed 's/^/#   /' "$pt_tmp/verify"
	r=$(resolved)
	want=$(for m in $mods; do echo "$m $stockdir/$m.ko.xz"; done)
	[ "$r" = "$want" ] && [ ! -d "$root/var/lib/dkms/$name" ]
	tap_check $? "dkms $dv: removed, modprobe's lookup gives the kernel's own again, no DKMS tree of ours"
	[ "$r" = "$want" ] || echo "$r" | sed 's/^/#   /'
	dr_removed "$pt_tmp/remove.log"
	rm -f "$root/tmp/$(basename "$deb")"
	[ "${1:-}" != newer ] || in_root apt-get install -y -q --allow-downgrades "/tmp/linux-image-$kver.deb" > /dev/null 2>&1
}

for which in ${FB_STOCK_DKMS:-root host}; do
	case $which in
	root)
		round
		round newer
		;;
	host)
		# This host's dkms (Debian 12's), from its own apt, in the root.
		rm -rf "$pt_tmp/dkms" && mkdir -p "$pt_tmp/dkms"
		(cd "$pt_tmp/dkms" && apt-get download dkms > "$pt_tmp/dkms.log" 2>&1)
		hd=$(find "$pt_tmp/dkms" -name 'dkms_*_all.deb' | head -n 1)
		if [ -z "$hd" ]; then
			tap_check 1 "this host's dkms .deb (apt-get download dkms)"
			pt_log "$pt_tmp/dkms.log"
			continue
		fi
		cp "$hd" "$root/tmp/"
		in_root apt-get install -y -q --allow-downgrades "/tmp/${hd##*/}" > "$pt_tmp/dkms.log" 2>&1
		tap_check $? "this host's dkms ${hd##*/} installed in the root"
		round
		in_root apt-get install -y -q --allow-downgrades "dkms=$root_dkms" > "$pt_tmp/dkms.log" 2>&1
		tap_check $? "the root's dkms $root_dkms installed again"
		rm -f "$root/tmp/${hd##*/}"
		;;
	*)
		tap_check 1 "FB_STOCK_DKMS: '$which' is neither root nor host"
		;;
	esac
done

in_root apt-get purge -y -q "linux-headers-$kver" "linux-image-$kver" > "$pt_tmp/kernel.log" 2>&1
rc=$?
[ $rc = 0 ] && [ -z "$(find "$root/lib/modules/$kver" -type f 2> /dev/null)" ]
tap_check $? "apt purge the fake kernel: no file left in /lib/modules/$kver"
[ $rc = 0 ] || pt_log "$pt_tmp/kernel.log"
rm -f "$root/tmp/linux-image-$kver.deb" "$root/tmp/linux-image-$kver-2.deb" "$root/tmp/linux-headers-$kver.deb"

tap_done
