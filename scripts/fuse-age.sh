#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# How a kernel's own FUSE compares in age with a base's fs/fuse, from
# version numbers only. One line, "CLASS: why", CLASS one of
#   current       the kernel's series is the base's and its release is no
#                 newer than the newest one checked to carry our fs/fuse
#                 (FUSE_CURRENT_TO of the pin, make follow)
#   ahead         the kernel is newer than that (or of a newer series): its
#                 FUSE may have upstream changes ours lacks
#   older-series  a series older than the base's, served through its
#                 compat layer (6.1 on base 6.12): its FUSE is older
#   unknown       a distribution kernel whose version says nothing about
#                 its fs/fuse (sublevel 0, as RHEL's 6.12.0-55.el10 and
#                 Ubuntu's 6.8.0-N keep while taking stable fixes; any
#                 .elN release): never current
#
# usage: scripts/fuse-age.sh KVER VERSION PIN
#        scripts/fuse-age.sh --headers KDIR   prints KDIR's own VERSION
#   KVER: the kernel release (uname -r); VERSION: its VERSION.PATCHLEVEL.
#   SUBLEVEL, from its headers' top Makefile; PIN: backports/<base>/pin
set -eu

die() { echo "fuse-age: $*" >&2; exit 2; }

# The headers' top Makefile, or the one it includes (Debian's flavour
# directories include the -common one).
if [ "${1:-}" = --headers ]; then
	[ $# = 2 ] || die "usage: fuse-age.sh --headers KDIR"
	mk=$2/Makefile
	[ -f "$mk" ] || die "$2 has no Makefile"
	grep -q '^VERSION = ' "$mk" || mk=$(sed -n 's/^include[[:space:]]\{1,\}\(.*\/Makefile\)$/\1/p' "$mk" | head -n 1)
	{ [ -n "$mk" ] && [ -f "$mk" ]; } || die "no VERSION in $2/Makefile"
	v=$(sed -n -e 's/^VERSION = //p' -e 's/^PATCHLEVEL = //p' -e 's/^SUBLEVEL = //p' "$mk" | head -n 3 | paste -sd. -)
	echo "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' || die "no VERSION.PATCHLEVEL.SUBLEVEL in $mk"
	echo "$v"
	exit 0
fi

[ $# = 3 ] || die "usage: fuse-age.sh KVER VERSION PIN"
kver=$1 v=$2 pin=$3
echo "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' || die "'$v' is not VERSION.PATCHLEVEL.SUBLEVEL"
[ -f "$pin" ] || die "no pin $pin"
pin_get() { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$pin" | head -n 1; }
up=$(pin_get UPSTREAM_VERSION)
checked=$(pin_get FUSE_CURRENT_TO)
checked=${checked:-$up}
[ -n "$up" ] || die "$pin has no UPSTREAM_VERSION"
# vgt A B: version A is newer than B
vgt() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1)" = "$1" ]; }
! vgt "$up" "$checked" || die "$pin: FUSE_CURRENT_TO=$checked is older than its own UPSTREAM_VERSION=$up"
series=${v%.*}
bseries=${up%.*}

case $kver in
*.el[0-9]*) echo "unknown: $kver is a distribution build whose version says nothing about its fs/fuse" ;;
*)
	if [ "${v##*.}" = 0 ]; then
		echo "unknown: $kver (Linux $v) carries sublevel 0, which says nothing about its fs/fuse"
	elif vgt "$bseries" "$series"; then
		echo "older-series: $kver (Linux $v) is of series $series, older than base $bseries, served through its compat layer"
	elif vgt "$v" "$checked"; then
		echo "ahead: $kver (Linux $v) is newer than $checked, the newest release checked to carry our fs/fuse (base $bseries: $up)"
	else
		echo "current: $kver (Linux $v) is no newer than $checked, which carries our fs/fuse (base $bseries: $up)"
	fi
	;;
esac
