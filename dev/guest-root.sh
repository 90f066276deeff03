#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Debian 13 root a VM guest boots on (tests/vm/boot.sh --root): made
# once, then checked and reused, never fetched again.
#
# usage: dev/guest-root.sh make     make it (once; complete it when a step is
#                                   missing), check it, print its path
#        dev/guest-root.sh check    check it; exit 1 with one line if it fails
#        dev/guest-root.sh path     print its path
#
# The root is ${FB_CACHE:-/var/cache/fuse-backport}/roots/trixie-guest, a
# copy of the build matrix's trixie root (dev/chroot.sh copy trixie:
# debootstrap's minbase on the mirror this machine's apt uses, with
# trixie-backports), which is left as it is. In the copy, from the same
# mirror (a deb-src line is derived from the root's own deb line):
#   - Debian 13's fuse3 and libfuse3-4 (3.17.x), mergerfs (2.40),
#     fuse-overlayfs, fio, and what the guest scripts and virtme-init use:
#     bash, udev, systemd-sysv (poweroff), kmod, procps, util-linux,
#     iproute2, xfsprogs (the suites' XFS scratch), busybox-static;
#   - libfuse's example passthrough_hp, built unmodified from trixie's own
#     fuse3 source package (apt-get source fuse3 in the root, meson and
#     ninja, the example target alone), its build RUNPATH removed so that it
#     runs on Debian's libfuse3.so.4, installed as $bin with
#     $bin.source (the source package's version, the sha256 of
#     example/passthrough_hp.cc).
# The build tree stays in the root (/usr/src/fb-fuse3); nothing of it is
# committed. The check: every package above installed, fusermount3 says
# 3.17, passthrough_hp links the root's libfuse3.so.4 and answers --help,
# /etc/debian_version is 13.x; the stamp .fb-guest-root holds the versions.
# The guest's kernel modules are not in it: tests/vm/boot.sh --root links
# the booted kernel's /lib/modules/KVER in at each boot. One maker at a time
# (roots/.trixie-guest.lock). Needs root. Logs: roots/trixie-guest.log.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FB_CACHE:-/var/cache/fuse-backport}
r=$cache/roots/trixie-guest
log=$cache/roots/trixie-guest.log
bin=/usr/local/libexec/fuse-backport-test/passthrough_hp
pkgs="fuse3 libfuse3-4 mergerfs fuse-overlayfs fio bash udev systemd-sysv kmod procps util-linux iproute2 xfsprogs busybox-static"
build_pkgs="dpkg-dev meson ninja-build g++ pkgconf patchelf"
die() { echo "guest-root: $*" >&2; exit 1; }

in_root() { sh "$top/dev/chroot.sh" run "$r" LC_ALL=C.UTF-8 "$@"; }

# check: one line on stderr and false when the root is not complete
check() {
	[ -f "$r/.fb-guest-root" ] || { echo "guest-root: $r is not made (dev/guest-root.sh make)" >&2; return 1; }
	# shellcheck disable=SC2086,SC2016 # a list of packages; a dpkg-query format
	miss=$(in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' $pkgs 2>&1 |
		awk '$1 != "ii" { print $NF }' | tr '\n' ' ')
	[ -z "$miss" ] || { echo "guest-root: not installed in $r: $miss" >&2; return 1; }
	case $(cat "$r/etc/debian_version" 2> /dev/null) in
	13.*) ;;
	*) echo "guest-root: $r/etc/debian_version is not 13.x" >&2; return 1 ;;
	esac
	v=$(in_root fusermount3 --version 2>&1) || true
	case $v in
	*" 3.17."*) ;;
	*) echo "guest-root: fusermount3 in $r is not 3.17 ($v)" >&2; return 1 ;;
	esac
	if [ ! -x "$r$bin" ] || [ ! -s "$r$bin.source" ]; then
		echo "guest-root: no $bin in $r" >&2
		return 1
	fi
	l=$(in_root ldd "$bin" 2>&1 | awk '$1 ~ /^libfuse3/ { print $3 }')
	case $l in
	/usr/lib/x86_64-linux-gnu/libfuse3.so.4 | /lib/x86_64-linux-gnu/libfuse3.so.4) ;;
	*) echo "guest-root: $bin does not link Debian's libfuse3.so.4 (${l:-none})" >&2; return 1 ;;
	esac
	in_root "$bin" --help > /dev/null 2>&1 || { echo "guest-root: $bin --help failed in $r" >&2; return 1; }
}

# build: passthrough_hp from trixie's fuse3 source package, unmodified
# shellcheck disable=SC2016 # scripts for the root's shell
build() {
	in_root sh -ec '
		rm -rf /usr/src/fb-fuse3
		mkdir -p /usr/src/fb-fuse3
		cd /usr/src/fb-fuse3
		apt-get source -q -o APT::Sandbox::User=root fuse3
		cd fuse3-*/
		meson setup -Dutils=false -Dexamples=true -Dtests=false build
		ninja -C build example/passthrough_hp
	' >> "$log" 2>&1 || die "building passthrough_hp from fuse3's source failed (see $log)"
	in_root sh -ec '
		cd /usr/src/fb-fuse3
		dsc=$(ls fuse3_*.dsc)
		v=${dsc#fuse3_}
		v=${v%.dsc}
		s=$(ls -d fuse3-*/)
		install -D -m 0755 "$s/build/example/passthrough_hp" "$1"
		patchelf --remove-rpath "$1"
		{
			echo "source: fuse3 $v (apt-get source fuse3, Debian 13), unmodified"
			echo "built: meson setup -Dutils=false -Dexamples=true -Dtests=false build; ninja -C build example/passthrough_hp"
			echo "example/passthrough_hp.cc sha256 $(sha256sum "$s/example/passthrough_hp.cc" | cut -d" " -f1)"
		} > "$1.source"
	' sh "$bin" >> "$log" 2>&1 || die "installing passthrough_hp failed (see $log)"
}

make_root() {
	if [ ! -d "$r" ]; then
		echo "guest-root: making $r (a copy of the build matrix's trixie root)" >&2
		rm -rf --one-file-system "$r.tmp"
		sh "$top/dev/chroot.sh" copy trixie "$r.tmp" > "$log" 2>&1 ||
			die "copying the trixie root failed (see $log)"
		rm -f "$r.tmp/.fb-guest-root"
		mv "$r.tmp" "$r"
	fi
	rm -f "$r/.fb-guest-root"
	trap 'sh "$top/dev/chroot.sh" umount "$r"' EXIT
	trap 'exit 1' INT TERM HUP
	# a run stopped halfway (its time limit) may have left these
	sh "$top/dev/chroot.sh" umount "$r"
	sh "$top/dev/chroot.sh" mount "$r"
	# The root's own mirror line, as a deb-src line (apt-get source).
	src=$(sed -n 's/^deb \([^ ]*\) trixie main$/deb-src \1 trixie main/p' "$r/etc/apt/sources.list" | head -n 1)
	[ -n "$src" ] || die "no 'deb MIRROR trixie main' line in $r/etc/apt/sources.list"
	echo "$src" > "$r/etc/apt/sources.list.d/fb-guest-src.list"
	# shellcheck disable=SC2086 # lists of packages
	in_root sh -c "dpkg --configure -a && apt-get update -q && apt-get install -y -q --no-install-recommends $pkgs $build_pkgs && apt-get clean" \
		>> "$log" 2>&1 || die "apt-get install in $r failed (see $log)"
	if [ ! -x "$r$bin" ] || [ ! -s "$r$bin.source" ]; then
		build
	fi
	sh "$top/dev/chroot.sh" umount "$r"
	trap - EXIT INT TERM HUP
	# shellcheck disable=SC2086,SC2016 # a list of packages; a dpkg-query format
	in_root dpkg-query -W -f '${Package} ${Version}\n' $pkgs > "$r/.fb-guest-root.tmp"
	cat "$r$bin.source" >> "$r/.fb-guest-root.tmp"
	mv "$r/.fb-guest-root.tmp" "$r/.fb-guest-root"
}

[ $# = 1 ] || die "usage: guest-root.sh make|check|path"
case $1 in
path) echo "$r" ;;
check) check && echo "$r" ;;
make)
	if ! check 2> /dev/null; then
		[ "$(id -u)" = 0 ] || die "making $r needs root"
		mkdir -p "$cache/roots" || die "cannot create $cache/roots"
		exec 7> "$cache/roots/.trixie-guest.lock"
		flock 7 || die "cannot lock $cache/roots/.trixie-guest.lock"
		check 2> /dev/null || make_root
		check || exit 1
	fi
	echo "$r"
	;;
*) die "usage: guest-root.sh make|check|path" ;;
esac
