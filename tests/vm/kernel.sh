#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Make Debian kernel KVER bootable by the VM runner and print its vmlinuz path.
#
# usage: tests/vm/kernel.sh KVER          e.g. 6.1.0-57-amd64
#
# A kernel counts as present when /boot/vmlinuz-KVER, /lib/modules/KVER/kernel
# and /lib/modules/KVER/modules.dep all exist. Otherwise Debian's image package
# (linux-image-KVER-unsigned, else linux-image-KVER) is fetched with
# `apt-get download` into ${FB_CACHE:-/var/cache/fuse-backport}/kernels (a
# cached one is used again only with the archive's checksum,
# tests/lib/debcache.sh) and unpacked with dpkg-deb -x; its vmlinuz, config and System.map are copied to
# /boot and its modules to /lib/modules/KVER, then depmod runs. Nothing is
# installed through dpkg: no maintainer scripts, no initramfs, no DKMS hooks,
# no other package touched. The files are unowned by dpkg; a later real
# install of the same package simply overwrites them. /lib/modules/KVER/
# .fuse-backport-unpacked names the package they came from.
#
# Why /boot and /lib/modules rather than the cache: vng (virtme-init) mounts a
# tmpfs over /var/cache in the guest, so modules kept under the cache would be
# invisible there; with /lib/modules vng takes the root's modules directly.
#
# Before fetching, dev/apt-suites.sh is run with the suites already
# configured (or $FB_APT_SUITES), so apt's lists are fresh and no suite is
# dropped. Needs root for a fetch. Exit 0 and the path on stdout, or one line
# on stderr and exit 1.
set -eu

die() { echo "kernel.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: kernel.sh KVER"
kver=$1
case $kver in
'' | *[!A-Za-z0-9.+_~-]*) die "bad kernel version '$kver'" ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/debcache.sh
. "$repo/tests/lib/debcache.sh"
moddir=/lib/modules/$kver
vmlinuz=/boot/vmlinuz-$kver

present() {
	[ -f "$vmlinuz" ] && [ -d "$moddir/kernel" ] && [ -f "$moddir/modules.dep" ]
}

if [ -f "$vmlinuz" ] && [ -d "$moddir/kernel" ]; then
	# An installed kernel whose modules.dep went missing: just regenerate.
	[ -f "$moddir/modules.dep" ] || depmod -a "$kver" >&2 ||
		die "depmod failed for $kver"
	echo "$vmlinuz"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "kernel $kver is not installed and fetching it needs root"
for t in apt-get apt-cache dpkg-deb depmod flock; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found"
done

cache=${FB_CACHE:-/var/cache/fuse-backport}/kernels
mkdir -p "$cache" || die "cannot create $cache"

# One fetch at a time per cache (parallel test jobs may ask for the same one).
exec 9>"$cache/.lock"
flock 9 || die "cannot lock $cache/.lock"
if present; then
	echo "$vmlinuz"
	exit 0
fi

if [ -x "$repo/dev/apt-suites.sh" ]; then
	suites=${FB_APT_SUITES:-$(sed -n 's/^Suites:[[:space:]]*//p' \
		/etc/apt/sources.list.d/fuse-backport-extra.sources 2>/dev/null || true)}
	# shellcheck disable=SC2086 # a list of suite names
	"$repo/dev/apt-suites.sh" $suites >&2 ||
		echo "kernel.sh: warning: dev/apt-suites.sh failed; using apt's lists as they are" >&2
fi

candidate() {
	apt-cache policy "$1" 2>/dev/null |
		sed -n 's/^[[:space:]]*Candidate:[[:space:]]*//p' | grep -v '^(none)$' || true
}
pkg=
for p in "linux-image-$kver-unsigned" "linux-image-$kver"; do
	if [ -n "$(candidate "$p")" ]; then
		pkg=$p
		break
	fi
done
[ -n "$pkg" ] ||
	die "no Debian package linux-image-$kver-unsigned or linux-image-$kver in the configured apt suites"
ver=$(candidate "$pkg")

tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

# fetch PKG VER: the path of PKG's .deb at VER in the cache, fetched with
# apt-get download unless one was fetched earlier for the same version.
fetch() {
	fd=
	for f in "$cache/${1}_$(printf '%s' "$2" | sed 's/:/%3a/')"_*.deb; do
		fb_deb_cached "$f" "$1" "$2" kernel.sh && fd=$f
	done
	if [ -z "$fd" ]; then
		echo "kernel.sh: fetching $1 $2" >&2
		(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$1=$2") >&2 ||
			die "apt-get download $1=$2 failed"
		for f in "$tmp"/*.deb; do
			[ -f "$f" ] || die "apt-get download $1 left no .deb"
			mv "$f" "$cache/" && fd=$cache/${f##*/}
		done
	fi
	echo "$fd"
}
deb=$(fetch "$pkg" "$ver") || exit 1

x=$tmp/root
dpkg-deb -x "$deb" "$x" || die "dpkg-deb -x $deb failed"

# Debian's 7.x kernels split the image package: linux-image-KVER only
# depends on linux-binary(-unsigned)-KVER (vmlinuz), linux-modules-KVER and
# linux-base-KVER (config, System.map). Fetch and unpack those too.
if [ ! -d "$x/lib/modules/$kver/kernel" ] && [ ! -d "$x/usr/lib/modules/$kver/kernel" ]; then
	for parts in "linux-binary-unsigned-$kver linux-binary-$kver" "linux-modules-$kver" "linux-base-$kver"; do
		part=
		for p in $parts; do
			if [ -n "$(candidate "$p")" ]; then
				part=$p
				break
			fi
		done
		[ -n "$part" ] || continue
		pdeb=$(fetch "$part" "$(candidate "$part")") || exit 1
		dpkg-deb -x "$pdeb" "$x" || die "dpkg-deb -x $pdeb failed"
	done
fi
src=
for d in "$x/lib/modules/$kver" "$x/usr/lib/modules/$kver"; do
	[ -d "$d/kernel" ] && src=$d && break
done
[ -n "$src" ] || die "$pkg has no modules for $kver"
img=
for f in "$x/boot/vmlinuz-$kver" "$src/vmlinuz" "$src/vmlinuz.unsigned"; do
	[ -f "$f" ] && img=$f && break
done
[ -n "$img" ] || die "$pkg has no vmlinuz for $kver"

if ! mkdir -p "$moddir" || ! cp -a "$src/." "$moddir/"; then
	die "cannot copy modules to $moddir"
fi
echo "$pkg $ver" >"$moddir/.fuse-backport-unpacked"
depmod -a "$kver" >&2 || die "depmod failed for $kver"
for f in config System.map; do
	if [ -f "$x/boot/$f-$kver" ] && [ ! -e "/boot/$f-$kver" ]; then
		cp -a "$x/boot/$f-$kver" "/boot/$f-$kver"
	fi
done
# The image last, atomically: it completes the "present" test above.
if ! cp "$img" "$vmlinuz.fbtmp" || ! mv "$vmlinuz.fbtmp" "$vmlinuz"; then
	die "cannot install $vmlinuz"
fi
present || die "kernel $kver still incomplete after unpacking $pkg"
echo "$vmlinuz"
