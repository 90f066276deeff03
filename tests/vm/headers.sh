#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernel headers of Debian kernel KVER to build modules against, without
# installing them; print their build directory (a KDIR for `make modules`).
#
# usage: tests/vm/headers.sh KVER          e.g. 6.12.95+deb12-amd64
#
# Installed headers (/lib/modules/KVER/build with its .config) are used as
# they are. Otherwise Debian's linux-headers-KVER (the candidate version)
# and the two packages it builds with (linux-headers-*-common*,
# linux-kbuild-*, as its Depends name them; the same source, so the same
# version) are fetched with `apt-get download` into
# ${FB_CACHE:-/var/cache/fuse-backport}/kernels, beside the images of
# tests/vm/kernel.sh (a cached one is used again only with the archive's
# checksum, tests/lib/debcache.sh), and unpacked with dpkg-deb -x into
# ${FB_CACHE:-/var/cache/fuse-backport}/headers/KVER; the top Makefile, which
# includes the -common tree by its absolute /usr/src path, is pointed at the
# unpacked one. Nothing is installed through dpkg and no file outside the
# cache is touched: installing linux-headers-KVER would pull in
# linux-image-KVER, whose postinst builds an initramfs (two minutes on the
# 2-core CI machine) and runs the DKMS hooks, none of which the VM uses.
# The compiler (gcc-N of build-essential) and pahole come from the host.
#
# Exit 0 and the directory on stdout, or one line on stderr and exit 1.
set -eu

die() { echo "headers.sh: $*" >&2; exit 1; }
# shellcheck source=tests/lib/debcache.sh
. "$(cd "$(dirname "$0")/../.." && pwd)/tests/lib/debcache.sh"

[ $# -eq 1 ] || die "usage: headers.sh KVER"
kver=$1
case $kver in
'' | *[!A-Za-z0-9.+_~-]*) die "bad kernel version '$kver'" ;;
esac

if [ -f "/lib/modules/$kver/build/.config" ]; then
	echo "/lib/modules/$kver/build"
	exit 0
fi

cache=${FB_CACHE:-/var/cache/fuse-backport}
root=$cache/headers/$kver
kdir=$root/usr/src/linux-headers-$kver
if [ -f "$kdir/.config" ] && [ -f "$root/.fuse-backport-unpacked" ]; then
	echo "$kdir"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "no headers for $kver installed, and fetching them needs root"
for t in apt-get apt-cache dpkg-deb flock; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found"
done
debs=$cache/kernels
mkdir -p "$debs" "$cache/headers" || die "cannot create $debs"
# One unpacking at a time per cache (its own lock: `make demo` fetches the
# kernel image with tests/vm/kernel.sh meanwhile).
exec 9>"$cache/headers/.lock"
flock 9 || die "cannot lock $cache/headers/.lock"
if [ -f "$kdir/.config" ] && [ -f "$root/.fuse-backport-unpacked" ]; then
	echo "$kdir"
	exit 0
fi

tmp=$(mktemp -d "$cache/headers/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

# The candidate's record (one apt call): its version, and its Depends
# "linux-headers-X-common (= V)" and "linux-kbuild-Y", both built from the
# same source, so of the same version.
pkg=linux-headers-$kver
rec=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null) || rec=
ver=$(printf '%s\n' "$rec" | sed -n 's/^Version: //p')
[ -n "$ver" ] ||
	die "no Debian package $pkg in the configured apt suites (dev/apt-suites.sh adds bookworm-backports)"
deps=$(printf '%s\n' "$rec" | sed -n 's/^Depends: //p' | tr ',|' '\n' | sed 's/^[[:space:]]*//; s/[[:space:](].*//')
pkgs=$pkg
for pat in 'linux-headers-.*-common.*' 'linux-kbuild-.*'; do
	p=$(printf '%s\n' "$deps" | grep -m 1 -x "$pat" || true)
	[ -n "$p" ] || die "$pkg $ver depends on no package like $pat"
	pkgs="$pkgs $p"
done

# The .deb of each at $ver, from the cache or fetched (one apt call).
want=
for p in $pkgs; do
	set -- "$debs/${p}_$(printf '%s' "$ver" | sed 's/:/%3a/')"_*.deb
	fb_deb_cached "$1" "$p" "$ver" headers.sh || want="$want $p=$ver"
done
if [ -n "$want" ]; then
	echo "headers.sh: fetching$want" >&2
	mkdir "$tmp/dl"
	# shellcheck disable=SC2086 # a list of PKG=VER
	(cd "$tmp/dl" && apt-get download -qq -o APT::Sandbox::User=root $want) >&2 ||
		die "apt-get download$want failed"
	mv "$tmp"/dl/*.deb "$debs/" || die "cannot move the fetched packages to $debs"
fi
x=$tmp/root
for p in $pkgs; do
	set -- "$debs/${p}_$(printf '%s' "$ver" | sed 's/:/%3a/')"_*.deb
	[ -f "$1" ] || die "apt-get download $p=$ver left no .deb"
	dpkg-deb -x "$1" "$x" || die "dpkg-deb -x $1 failed"
done

mk=$x/usr/src/linux-headers-$kver/Makefile
if [ ! -f "$x/usr/src/linux-headers-$kver/.config" ] || [ ! -f "$mk" ]; then
	die "$pkg has no usr/src/linux-headers-$kver/.config and Makefile"
fi
grep -q '^include /usr/src/' "$mk" || die "$mk includes no /usr/src tree: $(head -n 1 "$mk")"
if ! sed "s|^include /usr/src/|include $root/usr/src/|" "$mk" >"$mk.new" || ! mv "$mk.new" "$mk"; then
	die "cannot rewrite $mk"
fi
inc=$(sed -n 's/^include //p' "$mk")
[ -f "$x${inc#"$root"}" ] || die "$pkg includes $inc, which the unpacked packages lack"
echo "$pkg $ver" >"$x/.fuse-backport-unpacked"

rm -rf "$root"
mv "$x" "$root" || die "cannot move the unpacked headers to $root"
echo "$kdir"
