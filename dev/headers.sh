#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernel headers, from the Debian suites reachable here: installed where a
# kernel's kbuild runs (the build matrix, the VM suites, the bench), or
# unpacked without installing anything (make demo).
#
# usage: dev/headers.sh list [full]     print "WHERE KVER" lines: the ABIs
#                                           the matrix builds (default: the
#                                           representative subset)
#        dev/headers.sh install WHERE KVER...
#        dev/headers.sh root WHERE      print the root directory of WHERE
#        dev/headers.sh where KVER      print the WHERE that KVER builds in
#        dev/headers.sh unpack KVER     print a KDIR for KVER: its installed
#                                           headers, else Debian's unpacked
#                                           (below)
#
# WHERE says where a kernel's kbuild runs, each a Debian root:
#   bookworm  Debian 12: bookworm, bookworm-security (6.1.0-N) and
#             bookworm-backports (6.12.*+deb12), the host's own apt sources
#             (a root too, so that the matrix never waits for the host's apt
#             lock nor installs anything on the host)
#   trixie    Debian 13: trixie (6.12.*+deb13) and trixie-backports
#             (7.x+deb13), whose kbuild binaries and gcc-14 need its glibc
#   sid       Debian unstable: sid (+deb14, gcc-16)
# A root is made once by dev/chroot.sh (debootstrap's minbase on the
# mirror this machine's apt uses, in ${FB_CACHE:-/var/cache/fuse-backport}/
# roots/WHERE), and keeps the .deb files apt fetched in its own cache: a
# second run downloads nothing.
# Headers are installed with apt in the root (dpkg knows them; no host file
# is touched). Needs root.
#   host      this machine (Debian 12) itself: a bookworm-family kernel whose
#             headers are installed here (make deps-test installs the
#             Makefile's MATRIX_HEADERS) builds here, without a root.
# The representative subset (the default) is the host's installed
# bookworm-family headers (generic and rt) and, per series of the trixie
# root, the newest generic ABI (its rt kernels and the older ABIs of a
# series: FB_CHECK_FULL=1); the bookworm and sid roots are made only
# for `list full` (FB_CHECK_FULL=1: every ABI), as each costs minutes of
# debootstrap and compilers on a fresh machine.
#
# unpack: installed headers (/lib/modules/KVER/build with its .config) are
# used as they are. Otherwise Debian's linux-headers-KVER (the candidate
# version) and the two packages it builds with (linux-headers-*-common*,
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
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "headers: $*" >&2; exit 1; }

root_of() {
	case $1 in
	host) echo / ;;
	bookworm | trixie | sid) sh "$top/dev/chroot.sh" path "$1" ;;
	*) die "unknown place '$1' (bookworm, trixie or sid)" ;;
	esac
}

# The Debian release family of a kernel, by its ABI name.
family_of() {
	case $1 in
	6.1.0-[0-9]*-* | *+deb12-*) echo bookworm ;;
	*+deb13-*) echo trixie ;;
	*+deb14-*) echo sid ;;
	*) return 1 ;;
	esac
}

# The place a kernel builds: its family's root, or the host for a
# bookworm-family kernel whose headers are installed here.
where_of() {
	f=$(family_of "$1") || return 1
	if [ "$f" = bookworm ] && [ -f "/usr/src/linux-headers-$1/.config" ]; then
		echo host
	else
		echo "$f"
	fi
}

in_root() { sh "$top/dev/chroot.sh" run "$@"; }

# The root of WHERE, made once and cached (dev/chroot.sh).
make_root() {
	sh "$top/dev/chroot.sh" make "$1" > /dev/null || exit 1
}

# Every amd64 headers ABI (generic, cloud, rt) WHERE's apt knows.
abis() {
	w=$1
	r=$(root_of "$w")
	if [ "$w" = host ]; then
		apt-cache pkgnames linux-headers- 2> /dev/null
	else
		[ -d "$r" ] || return 0
		in_root "$r" apt-cache pkgnames linux-headers- 2> /dev/null
	fi | sed -n 's/^linux-headers-\([0-9][^ ]*-amd64\)$/\1/p' |
	while read -r k; do
		[ "$(family_of "$k" || true)" = "$w" ] && echo "$k"
	done | sort -V
}

# The bookworm-family headers installed on this host.
host_abis() {
	for c in /usr/src/linux-headers-*-amd64/.config; do
		[ -f "$c" ] || continue
		k=${c%/.config}
		k=${k#/usr/src/linux-headers-}
		[ "$(where_of "$k" || true)" = host ] && echo "host $k"
	done | sort -k2V
}

# The representative subset: per series (major.minor and Debian tag) and
# flavour (generic, rt), the newest ABI.
subset() {
	awk '{
		k = $2
		if (k ~ /-cloud-amd64$/) next
		fl = (k ~ /-rt-amd64$/) ? "rt" : "generic"
		split(k, v, /[.-]/)
		tag = (k ~ /\+deb[0-9]+-/) ? k : ""
		sub(/^[^+]*\+/, "", tag)
		sub(/-.*/, "", tag)
		key = $1 " " v[1] "." v[2] " " tag " " fl
		if (!(key in last))
			order[++n] = key
		last[key] = k
	} END {
		for (i = 1; i <= n; i++) {
			split(order[i], w, " ")
			print w[1], last[order[i]]
		}
	}'
}

# unpack KVER: KDIR of KVER's headers on stdout (installed, or unpacked
# into the cache); one line on stderr and exit 1 when it cannot
unpack() {
	# shellcheck source=tests/lib/debcache.sh
	. "$top/tests/lib/debcache.sh"
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
		fb_deb_cached "$1" "$p" "$ver" headers || want="$want $p=$ver"
	done
	if [ -n "$want" ]; then
		echo "headers: fetching$want" >&2
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
}

case ${1:-} in
list)
	if [ "${2:-}" = full ]; then
		for w in bookworm trixie sid; do
			make_root "$w"
			abis "$w" | while read -r k; do
				echo "$(where_of "$k") $k"
			done
		done
	else
		host_abis
		make_root trixie
		abis trixie | grep -v -- '-rt-amd64$' | sed 's/^/trixie /' | subset
	fi
	;;
install)
	[ $# -ge 3 ] || die "usage: headers.sh install WHERE KVER..."
	w=$2
	shift 2
	r=$(root_of "$w")
	# One installer a place at a time, and "installed" is dpkg's word, not
	# a file of the package: a build beside an install (a developer's
	# section run beside make check) must neither find the root's dpkg
	# locked nor take a half-unpacked tree for installed.
	if [ "$w" != host ]; then
		make_root "$w"
		exec 7> "$r.install.lock"
		flock 7 || die "cannot lock $r.install.lock"
	fi
	pkgs=""
	for k in "$@"; do
		# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
		# (dpkg-query fails for a package dpkg never heard of: a fresh root)
		st=$(in_root "$r" dpkg-query -W -f '${Status}' "linux-headers-$k" 2> /dev/null) || st=""
		[ "$st" = "install ok installed" ] || pkgs="$pkgs linux-headers-$k"
	done
	[ -n "$pkgs" ] || exit 0
	if [ "$w" = host ]; then
		# Another apt may hold the lock: wait for it, as deps.sh does.
		# shellcheck disable=SC2086 # a list of package names
		apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 $pkgs > /dev/null ||
			die "apt-get install$pkgs failed"
	else
		# shellcheck disable=SC2086 # a list of package names
		in_root "$r" apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 $pkgs > /dev/null ||
			die "apt-get install$pkgs failed in the $w root"
	fi
	;;
root)
	root_of "${2:?usage: headers.sh root WHERE}"
	;;
where)
	where_of "${2:?usage: headers.sh where KVER}" || die "no Debian suite here carries $2"
	;;
unpack)
	[ $# = 2 ] || die "usage: headers.sh unpack KVER"
	unpack "$2"
	;;
*)
	die "usage: headers.sh list [full] | install WHERE KVER... | root WHERE | where KVER | unpack KVER"
	;;
esac
