#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The DKMS source set of dkms.files, the one definition debian/rules, the
# spec and dev/dkms-local.sh use: print it, or copy it into a directory.
#
# usage: dev/dkms-files.sh [--imported] list        the paths, one a line
#        dev/dkms-files.sh [--imported] copy DEST   copied to DEST/ (made)
# --imported: only the bases with a generated tree (src/upstream-<base>/
# .fb-import; a local install of a tree that imported only some). Without
# it a base that was not imported is an error.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "dkms-files: $*" >&2; exit 1; }
imported=0
if [ "${1:-}" = --imported ]; then
	imported=1
	shift
fi
what=${1:-}
case $what in
list) [ $# = 1 ] || die "usage: dkms-files.sh [--imported] list|copy DEST" ;;
copy) [ $# = 2 ] || die "usage: dkms-files.sh [--imported] list|copy DEST" ;;
*) die "usage: dkms-files.sh [--imported] list|copy DEST" ;;
esac

bases=""
for p in "$top"/backports/*/pin; do
	[ -f "$p" ] || continue
	b=${p%/pin}
	b=${b##*/}
	if [ $imported = 1 ] && [ ! -f "$top/src/upstream-$b/.fb-import" ]; then
		continue
	fi
	bases="$bases $b"
done
[ -n "$bases" ] || die "no base has a generated tree: run 'make import' first"

# every path of dkms.files, <base> expanded; a missing one (not marked " ?")
# stops here, before anything is copied
paths() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$top/dkms.files" | while read -r f opt; do
		[ -n "$f" ] || continue
		case $f in
		*"<base>"*)
			for b in $bases; do
				echo "$f" | sed "s|<base>|$b|g"
			done | while read -r g; do
				if [ -e "$top/$g" ]; then
					echo "$g"
				elif [ "$opt" != "?" ]; then
					echo "dkms-files: no $g (make import-all)" >&2
					echo "!"
				fi
			done
			;;
		*)
			if [ -e "$top/$f" ]; then
				echo "$f"
			else
				echo "dkms-files: no $f" >&2
				echo "!"
			fi
			;;
		esac
	done
}
list=$(paths)
case $list in *"!"*) exit 1 ;; esac

if [ "$what" = list ]; then
	echo "$list"
	exit 0
fi
dst=$2
mkdir -p "$dst" || die "cannot create $dst"
# shellcheck disable=SC2086 # one path a word (dkms.files has no spaces)
(cd "$top" && cp -R --parents $list "$dst/") || die "cannot copy the DKMS source set to $dst"
