#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernel headers for the build matrix, from the Debian suites reachable here.
#
# usage: dev/headers.sh list [full]     print "WHERE KVER" lines: the ABIs
#                                           the matrix builds (default: the
#                                           representative subset)
#        dev/headers.sh install WHERE KVER...
#        dev/headers.sh root WHERE      print the root directory of WHERE
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
*)
	die "usage: headers.sh list [full] | install WHERE KVER... | root WHERE | where KVER"
	;;
esac
