# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# fuse-backport: what the package lifecycle tests share. Sourced first thing,
# with $top (the checkout) and $tap_suite set: it sets -u, goes to $top,
# sources tests/lib/tap.sh, tests/lib/served.sh (fb_must_serve) and
# dev/pkg-common.sh (pkg_bases, pkg_tree,
# pkg_comp, pkg_modver: every base as the package builds see them; call
# them in $(...), they set variables of their own) and sets $name (the DKMS
# module name).
#
#   pt_init NAME        root and tools check (else everything is a skip),
#                       the host lock, a scratch directory $pt_tmp, cleanup
#                       through pt_cleanup (the test defines it) on exit
#   pt_version          the product version (PACKAGE_VERSION of dkms.conf)
#   pt_modver KVER [KDIR]  the module version of the base serving KVER
#                       ("<upstream>+fb<N>" of its pin; empty outside every base)
#   pt_prev_commit      the commit before the one that set today's
#                       PACKAGE_VERSION (FB_PKG_PREV overrides): what the
#                       previous package is built from
#   pt_build_prev DIR [EPOCH]  build the .debs of pt_prev_commit into DIR/pkg
#                       from a scratch copy in DIR/src (debian/changelog's top
#                       entry given EPOCH: when set); sets pt_prev_ver (its
#                       PACKAGE_VERSION) and pt_prev_deb, pt_prev_tools
#   pt_dev DIR NAME     the developer tool NAME of the tree DIR: DIR/dev/NAME,
#                       or DIR/scripts/NAME in a revision from before dev/
#   pt_log FILE         the last lines of FILE as TAP diagnostics
#   pt_mok_cn           CN of the DKMS MOK certificate (the signer DKMS uses)
#   pt_cn CERT          CN of a certificate (DER or PEM)
#   pt_deb_state PKG    dpkg's status of PKG ("not-installed" when unknown)
#   pt_dkms_remove_all  every version of ours out of DKMS ($pt_dkms: how dkms
#                       is run, default "dkms"; e.g. "chroot ROOT dkms");
#                       /usr/src trees stay (the caller knows whose they are)
#   pt_tree_missing LIST SRC   the generated DKMS tree, every base's
#                       (pkg_bases: src/upstream-6.12, src/upstream-7.2,
#                       src/upstream-7.3), is in LIST (a path a line) under
#                       SRC; what is not goes to $pt_missing
#   pt_trees            every base's generated tree, "src/<tree>", on one line
#   pt_trees_lacking DIR FILE  those under DIR without FILE, each after a space
#   pt_tree_clean LIST SRC     nothing built or foreign (developer tooling:
#                       dev/) under SRC in LIST
#   pt_hardened BIN     what BIN lacks of bind-now, pie, relro,
#                       stack-protector and fortify (readelf, nm), or nothing
#   pt_fake_headers_deb KVER DIR [ROOT [GLOB [whole]]]   build
#                       DIR/linux-headers-KVER.deb: the headers of an
#                       installed Debian kernel (of ROOT, default /; the first
#                       /usr/src/linux-headers-GLOB, default 6.1.*-amd64, not
#                       rt, cloud or -fbfusem; its -common package stays the
#                       real one) under another name, whose autoconf.h hides
#                       <linux/miscdevice.h> (but with "whole"), so the
#                       required probe HAVE_MISC_DYNAMIC_MINOR fails (with
#                       "unexport:SYM" instead: whole, but SYM is not in
#                       its Module.symvers, which no probe sees); its
#                       postinst runs /etc/kernel/header_postinst.d as
#                       Debian's does (with "fusem" instead: whole, with
#                       FUSE, CUSE and VIRTIO_FS made modules by
#                       tests/build/fusem.sh --copy; with "ahead:X.Y.Z":
#                       whole, its own Makefile saying Linux X.Y.Z). Sets
#                       pt_fake_real (the kernel copied); fails when no such
#                       kernel is installed
#   pt_fake_image_deb KVER DIR   build DIR/linux-image-KVER.deb: the
#                       kernel's own fuse, cuse and virtiofs of a drop-in
#                       kernel, in /lib/modules/KVER/kernel/fs/fuse/ as
#                       .ko.xz (the modules of a kernel of this host that has
#                       them, compressed as Debian 13's kernels do), and
#                       modules.order, with their md5sums (dpkg --verify);
#                       its postinst runs depmod, its postrm
#                       takes depmod's files away, as Debian's do. Sets
#                       pt_fake_stock (the host kernel they come from);
#                       fails when no kernel here has them
#   pt_boot_load WHAT [ROOT]  the package's load of the renamed module at
#                       boot (scripts/load-renamed.sh) on this host: its
#                       files (ROOT: an unpacked package; none: the installed
#                       one) are those of scripts/, and systemd-modules-load
#                       with its modules-load.d file exits 0, says in one
#                       line that this kernel has no fusebp, loads nothing;
#                       with the helper gone (an initramfs that copied the
#                       configuration alone) it exits 0 and says nothing.
#                       Three TAP lines, WHAT names the package

# apt and DKMS on this host are shared with tests/dkms/run.sh and the other
# package tests: one at a time.
pt_lock=/var/lock/fuse-backport-dkms.lock
top=${top:?tests/pkg/lib.sh needs top set}
set -u
cd "$top" || exit 1
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=dev/pkg-common.sh
. "$top/dev/pkg-common.sh"
# fb_must_serve: the kernels a base serves, whose refusal is a failure
# shellcheck source=tests/lib/served.sh
. "$top/tests/lib/served.sh"
name=fuse-backport
# The stock kernel the package tests boot and take stock modules from: Debian
# 12's own 6.1, FUSE a module. pkg-fallback boots it, pkg-deb's drop-in VM
# and initramfs checks use it, pt_fake_image_deb copies its fuse, cuse and
# virtiofs. tests/vm/kernel.sh unpacks its image where a fresh host has none.
pt_stock_kver=6.1.0-57-amd64

pt_init() {
	pt_name=$1
	shift
	if [ "$(id -u)" != 0 ]; then
		tap_skip "$pt_name" "needs root (installs packages, runs dkms)"
		tap_done
		exit 0
	fi
	for t in "$@"; do
		if ! command -v "$t" > /dev/null; then
			tap_skip "$pt_name" "$t is not installed (sh dev/deps.sh pkg)"
			tap_done
			exit 0
		fi
	done
	exec 9>> "$pt_lock"
	flock 9
	pt_tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-pkg.XXXXXX")
	trap 'pt_cleanup; rm -rf "$pt_tmp"' EXIT
	trap 'exit 130' INT TERM
}

pt_version() {
	kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" 2>/dev/null && echo "$PACKAGE_VERSION"' _ "$top"
}

pt_modver() {
	pt_b=$(bash "$top/scripts/flavor.sh" --base "$1" "${2:-/lib/modules/$1/build}" 2> /dev/null) || return 0
	pt_b=${pt_b%% *}
	echo "$(sed -n 's/^UPSTREAM_VERSION=//p' "$top/backports/$pt_b/pin")+fb$(sed -n 's/^FB_RELEASE=//p' "$top/backports/$pt_b/pin")"
}

pt_prev_commit() {
	if [ -n "${FB_PKG_PREV:-}" ]; then
		git -C "$top" rev-parse "$FB_PKG_PREV"
		return
	fi
	pt_c=$(git -C "$top" log --format=%H -S"PACKAGE_VERSION=\"$(pt_version)\"" -- dkms.conf | tail -n 1)
	[ -n "$pt_c" ] && git -C "$top" rev-parse "$pt_c^"
}

pt_dev() {
	if [ -f "$1/dev/$2" ]; then echo "$1/dev/$2"; else echo "$1/scripts/$2"; fi
}

pt_build_prev() {
	pt_prev_ver="" pt_prev_deb="" pt_prev_tools=""
	pt_c=$(pt_prev_commit) || return 1
	[ -n "$pt_c" ] || return 1
	mkdir -p "$1/src"
	git -C "$top" archive "$pt_c" | tar -C "$1/src" -xf - || return 1
	# shellcheck disable=SC2034 # for the caller
	pt_prev_ver=$(kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" 2>/dev/null && echo "$PACKAGE_VERSION"' _ "$1/src")
	(
		cd "$1/src" || exit 1
		if [ -n "${2:-}" ]; then
			sed -i "1s/(\([^)]*\))/($2:\1)/" debian/changelog
			# its make deb compares the changelog's version, epoch and all,
			# with dkms.conf's
			# shellcheck disable=SC2016 # a script's text
			sed -i 's/"${debver%-\*}"/"$(echo "${debver%-*}" | cut -d: -f2-)"/' "$(pt_dev . pkg-deb.sh)"
		fi
		git init -q && git add -A && git -c user.name=t -c user.email=t@t.invalid commit -q -m prev
	) || return 1
	OUT=$1/pkg LINTIAN=0 sh "$(pt_dev "$1/src" pkg-deb.sh)" > "$1/build.log" 2>&1 || return 1
	for pt_f in "$1/pkg/fuse-backport-dkms_"*"_all.deb"; do [ -f "$pt_f" ] && pt_prev_deb=$pt_f; done
	# shellcheck disable=SC2034 # for the caller
	for pt_f in "$1/pkg/fuse-backport-tools_"*"_amd64.deb"; do [ -f "$pt_f" ] && pt_prev_tools=$pt_f; done
	[ -n "$pt_prev_deb" ]
}

# pt_root_umount ROOT: lazily unmounts what a chroot section mounted in ROOT
# (dev/pts, dev, proc, sys: dev/chroot.sh umount).
pt_root_umount() {
	sh "$top/dev/chroot.sh" umount "$1"
}

# pt_deb [DEB]: sets deb to DEB, or, without one, to the fuse-backport-dkms
# .deb of this tree's version (pt_version) that make deb (dev/pkg-deb.sh)
# builds now into $pt_tmp/out; when there is none, a failed test and the
# end of the section.
pt_deb() {
	deb=${1:-}
	if [ -z "$deb" ]; then
		OUT=$pt_tmp/out LINTIAN=0 sh dev/pkg-deb.sh > "$pt_tmp/build.log" 2>&1 || pt_log "$pt_tmp/build.log" 15
		for pt_f in "$pt_tmp/out/fuse-backport-dkms_$(pt_version)"-*_all.deb; do
			[ -f "$pt_f" ] && deb=$pt_f
		done
	fi
	if [ ! -f "$deb" ]; then
		tap_check 1 "a fuse-backport-dkms .deb to test"
		tap_done
		exit
	fi
}

# pt_image_fuse KVER: of the paths an initramfs listing gives on stdin, the
# fuse.ko files under lib/modules/KVER/, as paths under it without a
# compression suffix, sorted, on one line
pt_image_fuse() {
	sed -n "s|^.*lib/modules/$1/\(.*/fuse\.ko\)\(\.[a-z0-9]*\)\{0,1\}\$|\1|p" | sort | tr '\n' ' ' |
		sed 's/ $//'
}

# pt_dep_fuse: of a modules.dep on stdin, the fuse.ko it names (depmod
# keeps one file a module, updates/ first: what modprobe loads), without a
# compression suffix; empty: none
pt_dep_fuse() {
	sed -n 's|^\([^:]*/fuse\.ko\)\(\.[a-z0-9]*\)\{0,1\}:.*|\1|p' | head -n 1
}

# pt_crlf LOG: LOG without the CR that apt puts before the newline of
# the lines a package's scripts print (a test compares whole lines)
pt_crlf() {
	tr -d '\r' < "$1" > "$1.lf" && mv "$1.lf" "$1"
}

pt_log() {
	tail -n "${2:-8}" "$1" 2> /dev/null | sed 's/^/#   /'
}

pt_cn() {
	{ openssl x509 -inform DER -in "$1" -noout -subject 2> /dev/null ||
		openssl x509 -in "$1" -noout -subject 2> /dev/null; } |
		sed -n 's/.*CN *= *\([^,/]*\).*/\1/p'
}

pt_mok_cn() {
	pt_cn /var/lib/dkms/mok.pub
}

pt_deb_state() {
	s=$(dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2> /dev/null) || s=""
	case $s in
	ii*) echo installed ;;
	rc*) echo config-files ;;
	'' | un* | pn*) echo not-installed ;;
	*) echo "broken ($s)" ;;
	esac
}

pt_dkms_remove_all() {
	for v in $(${pt_dkms:-dkms} status -m $name 2> /dev/null | sed -n "s|^$name/\([^,:]*\).*|\1|p" | sort -u); do
		${pt_dkms:-dkms} remove -m $name -v "$v" --all > /dev/null 2>&1
	done
}

pt_trees() {
	pt_l=""
	for pt_b in $(pkg_bases); do
		pt_l="$pt_l${pt_l:+ }src/$(pkg_tree "$pt_b")"
	done
	echo "$pt_l"
}

pt_trees_lacking() {
	for pt_t in $(pt_trees); do
		[ -f "$1/$pt_t/$2" ] || printf ' %s' "$pt_t"
	done
}

pt_tree_missing() {
	pt_missing=""
	pt_want="dkms.conf LICENSE scripts/build.sh scripts/flavor.sh src/Kbuild"
	for pt_b in $(pkg_bases); do
		pt_t=src/$(pkg_tree "$pt_b")
		pt_want="$pt_want backports/$pt_b/pin $pt_t/.fb-import $pt_t/fs/fuse/file.c"
		pt_want="$pt_want $pt_t/fs/fuse/passthrough.c $pt_t/include/uapi/linux/fuse.h"
	done
	for f in $pt_want; do
		grep -qx "$2/$f" "$1" || pt_missing="$pt_missing $f"
	done
	[ -z "$pt_missing" ]
}

pt_tree_clean() {
	! grep -E -q "^$2/(build/|tests/|debian/|rpm/|dev/)|\.(o|ko|cmd)$" "$1"
}

pt_hardened() {
	pt_h=""
	readelf -d "$1" 2> /dev/null | grep -q 'BIND_NOW' || pt_h="$pt_h bind-now"
	readelf -d "$1" 2> /dev/null | grep -q 'FLAGS_1.*PIE' || pt_h="$pt_h pie"
	readelf -lW "$1" 2> /dev/null | grep -q 'GNU_RELRO' || pt_h="$pt_h relro"
	nm -D "$1" 2> /dev/null | grep -q ' __stack_chk_fail' || pt_h="$pt_h stack-protector"
	nm -D "$1" 2> /dev/null | grep -q ' __[a-z]*_chk' || pt_h="$pt_h fortify"
	echo "${pt_h# }"
}

pt_fake_headers_deb() {
	pt_fake_real=""
	froot=${3:-}
	for d in "$froot"/usr/src/linux-headers-${4:-6.1.*-amd64}; do
		# not rt, cloud, nor the build matrix's FUSE=m copies (no package)
		case $d in *-rt-* | *-cloud-* | *-fbfusem-*) continue ;; esac
		[ -f "$d/.config" ] && pt_fake_real=${d#"$froot"/usr/src/linux-headers-}
	done
	[ -n "$pt_fake_real" ] || return 1
	pt_common=$(dpkg-query --admindir="$froot/var/lib/dpkg" -S "/usr/src/linux-headers-$pt_fake_real" 2> /dev/null |
		sed -n 's/:.*//p' | head -n 1)
	pt_hdeps=$(dpkg-query --admindir="$froot/var/lib/dpkg" -W -f '${Depends}' "$pt_common" 2> /dev/null | tr ',' '\n')
	pt_common=$(echo "$pt_hdeps" | sed -n 's/^ *\(linux-headers-[^ ]*-common\).*/\1/p' | head -n 1)
	# kbuild's programs (fixdep, modpost): the real headers depend on them,
	# a fresh root has them only through that dependency
	pt_kbuild=$(echo "$pt_hdeps" | sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' | head -n 1)
	r=$2/root
	rm -rf "$r"
	mkdir -p "$r/DEBIAN" "$r/usr/src" "$r/lib/modules/$1"
	if [ "${5:-}" = fusem ]; then
		sh "$top/tests/build/fusem.sh" --copy "$pt_fake_real" "$froot/usr/src/linux-headers-$pt_fake_real" \
			"$r/usr/src/linux-headers-$1" "$1" > /dev/null || return 1
	else
		cp -a "$froot/usr/src/linux-headers-$pt_fake_real" "$r/usr/src/linux-headers-$1" || return 1
	fi
	h=$r/usr/src/linux-headers-$1/include
	sed -i "s/$pt_fake_real/$1/" "$h/config/kernel.release" "$h/generated/utsrelease.h"
	fdesc="the headers of $pt_fake_real under another name (fuse-backport test)"
	case ${5:-} in
	whole) ;;
	fusem) fdesc="the headers of $pt_fake_real with FUSE as a module (fuse-backport test)" ;;
	ahead:*)
		# its own Makefile says VERSION.PATCHLEVEL.SUBLEVEL before the
		# include (scripts/fuse-age.sh --headers reads the first file
		# that has them): a release of the same series, newer
		mk=$r/usr/src/linux-headers-$1/Makefile
		{ echo "${5#ahead:}" | awk -F. '{ printf "VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\n", $1, $2, $3 }'; cat "$mk"; } > "$2/mk" &&
			mv "$2/mk" "$mk" || return 1
		fdesc="the headers of $pt_fake_real as Linux ${5#ahead:} (fuse-backport test)"
		;;
	unexport:*)
		awk -v s="${5#unexport:}" '$2 != s' "$r/usr/src/linux-headers-$1/Module.symvers" > "$2/symvers" &&
			mv "$2/symvers" "$r/usr/src/linux-headers-$1/Module.symvers" || return 1
		fdesc="fake headers whose kernel does not export ${5#unexport:} (fuse-backport test)"
		;;
	*)
		cat "$top/tests/pkg/fixtures/fake-headers-deb/autoconf-no-miscdevice.h" >> "$h/generated/autoconf.h"
		fdesc="fake headers whose probe HAVE_MISC_DYNAMIC_MINOR fails (fuse-backport test)"
		;;
	esac
	ln -s "/usr/src/linux-headers-$1" "$r/lib/modules/$1/build"
	# the package's control file and postinst: tests/pkg/fixtures/fake-headers-deb
	sed -e "s|@KVER@|$1|g" -e "s|@DEPENDS@|${pt_common:-linux-headers-$pt_fake_real}${pt_kbuild:+, $pt_kbuild}|" \
		-e "s|@DESC@|$fdesc|" -e "s|@REAL@|$pt_fake_real|" \
		"$top/tests/pkg/fixtures/fake-headers-deb/control.in" > "$r/DEBIAN/control"
	sed "s|@KVER@|$1|g" "$top/tests/pkg/fixtures/fake-headers-deb/postinst.in" > "$r/DEBIAN/postinst"
	chmod 755 "$r/DEBIAN/postinst"
	dpkg-deb --root-owner-group -Znone --build "$r" "$2/linux-headers-$1.deb" > /dev/null
}

# pt_stock_fuse_kernel: the last kernel in /lib/modules with its own fuse,
# cuse and virtiofs modules, or nothing
pt_stock_fuse_kernel() {
	pt_k=""
	for pt_d in /lib/modules/*/kernel/fs/fuse; do
		for pt_m in fuse cuse virtiofs; do
			[ -n "$(find "$pt_d" -maxdepth 1 -name "$pt_m.ko*" 2> /dev/null)" ] || continue 2
		done
		pt_k=${pt_d%/kernel/fs/fuse}
	done
	[ -z "$pt_k" ] || echo "${pt_k##*/}"
}

pt_fake_image_deb() {
	pt_fake_stock=$(pt_stock_fuse_kernel)
	if [ -z "$pt_fake_stock" ]; then
		# a fresh host has no kernel image unpacked before the VM
		# sections
		sh "$top/tests/vm/kernel.sh" "$pt_stock_kver" > /dev/null || return 1
		pt_fake_stock=$(pt_stock_fuse_kernel)
	fi
	[ -n "$pt_fake_stock" ] || return 1
	pt_r=$2/image
	rm -rf "$pt_r"
	mkdir -p "$pt_r/DEBIAN" "$pt_r/lib/modules/$1/kernel/fs/fuse"
	for pt_m in fuse cuse virtiofs; do
		pt_f=$(find "/lib/modules/$pt_fake_stock/kernel/fs/fuse" -maxdepth 1 -name "$pt_m.ko*" | head -n 1)
		case $pt_f in
		*.ko) xz --check=crc32 --lzma2=dict=1MiB -c "$pt_f" ;;
		*.ko.xz) cat "$pt_f" ;;
		*) return 1 ;;
		esac > "$pt_r/lib/modules/$1/kernel/fs/fuse/$pt_m.ko.xz" || return 1
		echo "kernel/fs/fuse/$pt_m.ko" >> "$pt_r/lib/modules/$1/modules.order"
	done
	: > "$pt_r/lib/modules/$1/modules.builtin"
	(cd "$pt_r" && find lib -type f -exec md5sum {} +) > "$pt_r/DEBIAN/md5sums" || return 1
	sed -e "s|@KVER@|$1|g" -e "s|@REAL@|$pt_fake_stock|" \
		"$top/tests/pkg/fixtures/fake-image-deb/control.in" > "$pt_r/DEBIAN/control"
	for pt_s in postinst postrm; do
		sed "s|@KVER@|$1|g" "$top/tests/pkg/fixtures/fake-image-deb/$pt_s.in" > "$pt_r/DEBIAN/$pt_s"
		chmod 755 "$pt_r/DEBIAN/$pt_s"
	done
	dpkg-deb --root-owner-group -Znone --build "$pt_r" "$2/linux-image-$1.deb" > /dev/null
}

# The files of the renamed module's load at boot, as the packages install
# them (debian/rules, the spec): "SOURCE PATH" a line.
pt_boot_files="scripts/fuse-backport.modules-load.conf /usr/lib/modules-load.d/fuse-backport.conf
scripts/fuse-backport-boot.modprobe.conf /usr/lib/modprobe.d/fuse-backport-boot.conf
scripts/load-renamed.sh /usr/libexec/fuse-backport/load-renamed
scripts/prefix.sh /usr/libexec/fuse-backport/prefix"

# pt_modules_load ROOT HIDE: systemd-modules-load with ROOT's (empty: the
# installed) modules-load.d file, in a mount namespace of its own: ROOT's
# modprobe.d file in /run/modprobe.d and its /usr/libexec/fuse-backport in
# place (tmpfs over /run and /usr/libexec); HIDE=1: that directory hidden.
# Prints rc=N, then its output, then "fusebp: loaded|absent".
pt_modules_load() {
	# shellcheck disable=SC2016
	unshare -m sh -c '
		mount --make-rprivate / || exit 99
		r=$1
		if [ -n "$r" ]; then
			mount -t tmpfs fb-run /run && mkdir /run/modprobe.d &&
				cp "$r/usr/lib/modprobe.d/fuse-backport-boot.conf" /run/modprobe.d/ &&
				mount -t tmpfs fb-libexec /usr/libexec && mkdir /usr/libexec/fuse-backport &&
				cp -p "$r"/usr/libexec/fuse-backport/* /usr/libexec/fuse-backport/ || exit 99
		fi
		[ "$2" = 0 ] || mount -t tmpfs fb-hide /usr/libexec/fuse-backport || exit 99
		sml=/lib/systemd/systemd-modules-load
		[ -x "$sml" ] || sml=/usr/lib/systemd/systemd-modules-load
		out=$("$sml" "$r/usr/lib/modules-load.d/fuse-backport.conf" 2>&1)
		echo "rc=$?"
		[ -z "$out" ] || echo "$out"
		if [ -d /sys/module/fusebp ]; then echo "fusebp: loaded"; else echo "fusebp: absent"; fi' _ "$1" "$2"
}

pt_boot_load() {
	pb_bad=""
	pb_root=${2:-}
	while read -r pb_src pb_dst; do
		cmp -s "$pb_src" "$pb_root$pb_dst" || pb_bad="$pb_bad $pb_dst"
		case $pb_dst in
		*/libexec/*) [ -x "$pb_root$pb_dst" ] || pb_bad="$pb_bad $pb_dst(mode)" ;;
		esac
	done << EOF
$pt_boot_files
EOF
	grep -qx fuse-backport-boot "$pb_root/usr/lib/modules-load.d/fuse-backport.conf" 2> /dev/null &&
		grep -q "^install fuse-backport-boot /bin/sh -c .* /usr/libexec/fuse-backport/load-renamed'\$" \
			"$pb_root/usr/lib/modprobe.d/fuse-backport-boot.conf" 2> /dev/null && [ -z "$pb_bad" ]
	tap_check $? "$1: /usr/lib/modules-load.d/fuse-backport.conf names fuse-backport-boot, /usr/lib/modprobe.d/fuse-backport-boot.conf's install command runs /usr/libexec/fuse-backport/load-renamed (prefix beside it), the files of scripts/${pb_bad:+ (wrong or missing:$pb_bad)}"
	pb_k=$(uname -r)
	if modinfo -k "$pb_k" fusebp > /dev/null 2>&1; then
		tap_skip "$1: systemd-modules-load on a kernel without fusebp" "$pb_k has a fusebp module"
		tap_skip "$1: systemd-modules-load without the helper" "$pb_k has a fusebp module"
		return
	fi
	pb_out=$(pt_modules_load "$pb_root" 0 2>&1)
	echo "$pb_out" | sed 's/^/#   /'
	echo "$pb_out" | grep -qx 'rc=0' && echo "$pb_out" | grep -qx 'fusebp: absent' &&
		[ "$(echo "$pb_out" | grep -c "^fuse-backport: $pb_k has no fusebp module .*: nothing to load\$")" = 1 ] &&
		! echo "$pb_out" | grep -q '^Failed'
	tap_check $? "$1: systemd-modules-load with it on this host ($pb_k, no fusebp module): exit 0, one line of ours, no error, fusebp not loaded"
	pb_out=$(pt_modules_load "$pb_root" 1 2>&1)
	echo "$pb_out" | sed 's/^/#   /'
	echo "$pb_out" | grep -qx 'rc=0' && ! echo "$pb_out" | grep -q '^fuse-backport:' &&
		! echo "$pb_out" | grep -q '^Failed'
	tap_check $? "$1: the same without /usr/libexec/fuse-backport (an initramfs with the configuration alone): exit 0, nothing said, no error"
}
