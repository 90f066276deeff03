#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Debian roots, made once and cached, and the one way into them: the build
# matrix's roots (dev/headers.sh, dev/build-in.sh), the VM guest's root
# (dev/guest-root.sh) and the package tests' (tests/pkg/stock.sh,
# tests/pkg/trixie.sh, tests/pkg/repo.sh), which take a copy to install into.
#
# usage: dev/chroot.sh make SUITE      make the SUITE root (once), print its path
#        dev/chroot.sh path SUITE      print its path
#        dev/chroot.sh copy SUITE DIR [--no-recommends] [PKG...]
#                                      DIR becomes a copy of the SUITE root
#                                      (made first when need be); with PKGs,
#                                      apt installs them in DIR (mounted
#                                      meanwhile) and cleans its cache
#        dev/chroot.sh mount DIR [sys] proc and dev (and sys) in DIR, those
#                                      not mounted yet
#        dev/chroot.sh umount DIR      lazily unmounts dev/pts, dev, proc
#                                      and sys in DIR
#        dev/chroot.sh run DIR [VAR=VALUE...] CMD [ARG...]
#                                      CMD in the root DIR, in a clean
#                                      environment: PATH=/usr/sbin:/usr/bin:
#                                      /sbin:/bin, HOME=/root,
#                                      DEBIAN_FRONTEND=noninteractive,
#                                      INITRD=No, then the VAR=VALUEs given
#                                      (a later one wins)
# SUITE: bookworm  Debian 12, the host's own apt sources (its security
#                  archive too) and bookworm-backports
#        trixie    Debian 13 and trixie-backports
#        sid       Debian unstable
# A SUITE root is debootstrap's minbase on the mirror this machine's apt
# uses (dev/apt-suites.sh), with make and binutils, in
# ${FB_CACHE:-/var/cache/fuse-backport}/roots/SUITE; its log is SUITE.log
# beside it. One maker at a time (roots/.SUITE.lock, held by copy too).
# INITRD=No: Debian 13's 6.12 headers depend on their kernel image, whose
# postinst would build an initramfs for it (initramfs-tools' kernel hook
# honours INITRD=No); no root here boots. Needs root.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FB_CACHE:-/var/cache/fuse-backport}
die() { echo "chroot: $*" >&2; exit 1; }
usage="usage: chroot.sh make|path SUITE | copy SUITE DIR [--no-recommends] [PKG...] | mount DIR [sys] | umount DIR | run DIR CMD..."

run() {
	ir=$1
	shift
	chroot "$ir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEBIAN_FRONTEND=noninteractive INITRD=No "$@"
}

mounts() {
	mountpoint -q "$1/proc" || mount -t proc proc "$1/proc" || die "cannot mount proc in $1"
	mountpoint -q "$1/dev" || mount --bind /dev "$1/dev" || die "cannot bind /dev in $1"
	[ "${2:-}" != sys ] || mountpoint -q "$1/sys" || mount --bind /sys "$1/sys" || die "cannot bind /sys in $1"
}

umounts() {
	for m in dev/pts dev proc sys; do
		! mountpoint -q "$1/$m" 2> /dev/null || umount -l "$1/$m" || true
	done
}

suite() {
	w=${1:-}
	case $w in
	bookworm | trixie | sid) ;;
	"") die "$usage" ;;
	*) die "unknown suite '$w' (bookworm, trixie or sid)" ;;
	esac
	r=$cache/roots/$w
}

made() { [ -x "$r/usr/bin/make" ] && [ -x "$r/usr/bin/as" ]; }

# make_root: under the lock (fd 8), whoever waited finds the root made.
make_root() {
	made && return 0
	command -v debootstrap > /dev/null || die "debootstrap is not installed (make deps-test)"
	m=$(sh "$top/dev/apt-suites.sh" --print-mirror) || die "cannot find this machine's Debian mirror"
	echo "chroot: making the $w root in $r (debootstrap)" >&2
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
	run "$r.tmp" sh -c 'apt-get update -qq && apt-get install -y -q --no-install-recommends make binutils' \
		>> "$cache/roots/$w.log" 2>&1 || die "cannot install make in the $w root (see $cache/roots/$w.log)"
	mv "$r.tmp" "$r"
}

lock() {
	mkdir -p "$cache/roots" || die "cannot create $cache/roots (set FB_CACHE)"
	exec 8> "$cache/roots/.$w.lock"
	flock 8 || die "cannot lock $cache/roots/.$w.lock"
}

# copy DIR [--no-recommends] [PKG...]: DIR a copy of the root, PKGs
# installed in it
copy() {
	d=$1
	shift
	rec=""
	[ "${1:-}" != --no-recommends ] || { rec=--no-install-recommends; shift; }
	lock
	make_root
	rm -rf --one-file-system "$d"
	mkdir -p "$d" || die "cannot create $d"
	cp -a "$r/." "$d/" || die "cannot copy $r to $d"
	[ $# -gt 0 ] || return 0
	# The host's own suite: its apt cache, hard-linked in, saves downloads.
	[ "$w" != bookworm ] || cp -al /var/cache/apt/archives/*.deb "$d/var/cache/apt/archives/" 2> /dev/null || true
	trap 'umounts "$d"' EXIT
	trap 'exit 1' INT TERM HUP
	mounts "$d" sys
	# shellcheck disable=SC2016 # the root's shell expands them
	run "$d" sh -c 'r=$1; shift; apt-get update -q && apt-get install -y -q $r "$@"; s=$?; apt-get clean; exit $s' \
		sh "$rec" "$@" || die "apt-get install $* failed in $d"
	umounts "$d"
	trap - EXIT INT TERM HUP
}

what=${1:-}
[ $# -ge 2 ] || die "$usage"
shift
case $what in
path)
	suite "$1"
	echo "$r"
	;;
make)
	suite "$1"
	if ! made; then
		lock
		make_root
	fi
	echo "$r"
	;;
copy)
	suite "$1"
	[ $# -ge 2 ] || die "$usage"
	shift
	copy "$@"
	;;
mount)
	[ -d "$1/etc" ] || die "$1 is no root"
	mounts "$@"
	;;
umount)
	umounts "$1"
	;;
run)
	[ -d "$1/etc" ] || die "$1 is no root"
	run "$@"
	;;
*)
	die "$usage"
	;;
esac
