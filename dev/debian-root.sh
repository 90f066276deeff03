#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Debian roots, made once and cached: the one maker behind the build
# matrix's roots (dev/headers.sh) and the package tests' (tests/pkg/trixie.sh,
# tests/pkg/repo.sh, which take a copy to install into).
#
# usage: dev/debian-root.sh make SUITE        make it (once) and print its path
#        dev/debian-root.sh path SUITE        print its path
#        dev/debian-root.sh copy SUITE DIR    DIR becomes a copy of it (made
#                                             first when need be)
# SUITE: bookworm  Debian 12, the host's own apt sources (its security
#                  archive too) and bookworm-backports
#        trixie    Debian 13 and trixie-backports
#        sid       Debian unstable
# A root is debootstrap's minbase on the mirror this machine's apt uses
# (dev/apt-suites.sh), with make and binutils, in
# ${FB_CACHE:-/var/cache/fuse-backport}/roots/SUITE; its log is SUITE.log
# beside it. One maker at a time (roots/.SUITE.lock, held by copy too).
# Needs root.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FB_CACHE:-/var/cache/fuse-backport}
die() { echo "debian-root: $*" >&2; exit 1; }
usage="usage: debian-root.sh make|path SUITE | copy SUITE DIR"

what=${1:-}
w=${2:-}
case $w in
bookworm | trixie | sid) ;;
"") die "$usage" ;;
*) die "unknown suite '$w' (bookworm, trixie or sid)" ;;
esac
r=$cache/roots/$w

# INITRD=No: Debian 13's 6.12 headers depend on their kernel image, whose
# postinst would build an initramfs for it (initramfs-tools' kernel hook
# honours INITRD=No); a root that only compiles needs none.
in_root() {
	ir=$1
	shift
	chroot "$ir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEBIAN_FRONTEND=noninteractive INITRD=No "$@"
}

made() { [ -x "$r/usr/bin/make" ] && [ -x "$r/usr/bin/as" ]; }

# make_root: under the lock (fd 8), whoever waited finds the root made.
make_root() {
	made && return 0
	command -v debootstrap > /dev/null || die "debootstrap is not installed (make deps-test)"
	m=$(sh "$top/dev/apt-suites.sh" --print-mirror) || die "cannot find this machine's Debian mirror"
	echo "debian-root: making the $w root in $r (debootstrap)" >&2
	rm -rf --one-file-system "$r.tmp"
	debootstrap --variant=minbase "$w" "$r.tmp" "$m" > "$cache/roots/$w.log" 2>&1 ||
		die "debootstrap $w failed (see $cache/roots/$w.log)"
	case $w in
	bookworm)
		# The host's Debian 12 sources (with its security archive), and
		# bookworm-backports.
		cat /etc/apt/sources.list.d/debian.sources > "$r.tmp/etc/apt/sources.list.d/debian.sources" 2> /dev/null ||
			cp /etc/apt/sources.list "$r.tmp/etc/apt/sources.list"
		echo "deb $m bookworm-backports main" >> "$r.tmp/etc/apt/sources.list"
		;;
	trixie)
		echo "deb $m trixie-backports main" >> "$r.tmp/etc/apt/sources.list"
		;;
	sid)
		# The mirror's sid Release can be older than its Valid-Until
		# here; its signature is still checked.
		echo 'Acquire::Check-Valid-Until "false";' > "$r.tmp/etc/apt/apt.conf.d/99fuse-backport"
		;;
	esac
	in_root "$r.tmp" sh -c 'apt-get update -qq && apt-get install -y -q --no-install-recommends make binutils' \
		>> "$cache/roots/$w.log" 2>&1 || die "cannot install make in the $w root (see $cache/roots/$w.log)"
	mv "$r.tmp" "$r"
}

lock() {
	mkdir -p "$cache/roots" || die "cannot create $cache/roots (set FB_CACHE)"
	exec 8> "$cache/roots/.$w.lock"
	flock 8 || die "cannot lock $cache/roots/.$w.lock"
}

case $what in
path)
	echo "$r"
	;;
make)
	if ! made; then
		lock
		make_root
	fi
	echo "$r"
	;;
copy)
	d=${3:?$usage}
	lock
	make_root
	rm -rf --one-file-system "$d"
	mkdir -p "$d" || die "cannot create $d"
	cp -a "$r/." "$d/" || die "cannot copy $r to $d"
	;;
*)
	die "$usage"
	;;
esac
