#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Import fs/fuse and the uapi fuse.h of a pinned upstream base (the files of
# backports/copy-list), verify them against the pin, apply our patches and
# write the generated tree atomically.
#
# usage: dev/import.sh [BASE]
# environment:
#   UPSTREAM_TARBALL  a kernel source tarball to take the files from instead of
#                     Debian's linux-source package
#   SERIES            "all" (default): infra patches, then the series;
#                     "none": infra patches only (the unpatched base)
#   OUT               generated tree (default: src/upstream-BASE)
#   FB_CACHE          where downloaded packages are kept
#   FB_TARBALL_TO     only fetch and verify the pinned tarball (both sha256
#                     checks and the version, as for an import) and write it
#                     to this path; nothing is imported (the debug kernel,
#                     dev/debug-kernel.sh, is built from it)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-${BASE:-6.12}}
series_mode=${SERIES:-all}
out=${OUT:-$top/src/upstream-$base}
cache=${FB_CACHE:-/var/cache/fuse-backport}
bp=$top/backports/$base

die() { echo "import: $*" >&2; exit 1; }

[ -f "$bp/pin" ] || die "unknown base '$base' (no backports/$base/pin)"
case $series_mode in all|none) ;; *) die "SERIES must be 'all' or 'none', not '$series_mode'" ;; esac
# shellcheck source=/dev/null
. "$bp/pin"

sha256() { sha256sum "$1" | cut -d' ' -f1; }

# The files to take (backports/copy-list): all, or the required ones.
copy_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$top/backports/copy-list" | while read -r f opt; do
		[ -n "$f" ] || continue
		[ "$1" = required ] && [ "$opt" = "?" ] && continue
		echo "$f"
	done
}

# The patches to apply, in order: infra/series first, then series.
patch_list() {
	for s in infra/series series; do
		[ "$s" = series ] && [ "$series_mode" = none ] && continue
		[ -f "$bp/$s" ] || continue
		dir=$bp/$(dirname "$s")/patches
		[ "$s" = series ] && dir=$bp/patches
		# A name with a slash is another base's patch, from backports/
		# (a base that takes a newer base's series as it is).
		sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$bp/$s" | while read -r p; do
			case $p in
			"") ;;
			*/*) echo "$top/backports/$p" ;;
			*) echo "$dir/$p" ;;
			esac
		done
	done
}

# Fingerprint of everything that decides the generated tree.
fingerprint() {
	{
		echo "base=$base version=$UPSTREAM_VERSION release=$FB_RELEASE tree=$TREE_SHA256 series=$series_mode"
		for p in $(patch_list); do
			echo "${p#"$top"/} $(sha256 "$p")"
		done
	} | sha256sum | cut -d' ' -f1
}

# Every patch the series files name must exist (checked here, in this shell).
for p in $(patch_list); do
	[ -f "$p" ] || die "series names a missing patch: ${p#"$top"/}"
done
fp=$(fingerprint)
stamp=$out/.fb-import
if [ -z "${FB_TARBALL_TO:-}" ] && [ -f "$stamp" ] && grep -qx "fingerprint=$fp" "$stamp"; then
	echo "import: $(basename "$out") is up to date (base $base, $UPSTREAM_VERSION, series=$series_mode)"
	exit 0
fi

# Find the tarball.
tmpin=$(dirname "$out")
[ -n "${FB_TARBALL_TO:-}" ] && tmpin=$(dirname "$FB_TARBALL_TO")
tmp=$(mktemp -d "$tmpin/.import.XXXXXX") || die "cannot create a temporary directory in $tmpin"
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ -n "${UPSTREAM_TARBALL:-}" ]; then
	tarball=$UPSTREAM_TARBALL
	[ -f "$tarball" ] || die "UPSTREAM_TARBALL '$tarball' does not exist"
	origin="$tarball"
else
	deb=$cache/${DEBIAN_PACKAGE}_$(echo "$DEBIAN_VERSION" | sed 's/:/%3a/')_all.deb
	if [ ! -f "$deb" ]; then
		mkdir -p "$cache" || die "cannot create $cache (set FB_CACHE)"
		(cd "$tmp" && apt-get download "$DEBIAN_PACKAGE=$DEBIAN_VERSION" >/dev/null 2>&1) ||
			die "cannot fetch $DEBIAN_PACKAGE $DEBIAN_VERSION with apt (run dev/apt-suites.sh, or give UPSTREAM_TARBALL=linux-$UPSTREAM_VERSION.tar.xz)"
		mv "$tmp"/*.deb "$deb"
	fi
	dpkg-deb --fsys-tarfile "$deb" | tar -C "$tmp" -x "./$DEBIAN_TARBALL" 2>/dev/null ||
		die "$deb does not contain $DEBIAN_TARBALL"
	tarball=$tmp/$DEBIAN_TARBALL
	origin="$DEBIAN_PACKAGE $DEBIAN_VERSION"
fi

# Verify before using anything: a pinned tarball, or (kernel.org tarballs
# whose hash is not pinned) the pinned file set, checked before it is used.
tsum=$(sha256 "$tarball")
tarball_pinned=no
for s in $TARBALL_SHA256; do
	[ "$s" = "$tsum" ] && tarball_pinned=yes
done
if [ $tarball_pinned = no ] && [ -z "${UPSTREAM_TARBALL:-}" ]; then
	die "sha256 mismatch for $origin: got $tsum, pinned $TARBALL_SHA256"
fi

topdir=$(tar -tf "$tarball" 2>/dev/null | head -n 1 | cut -d/ -f1) || true
[ -n "$topdir" ] || die "cannot read $origin as a tar archive (sha256 $tsum)"
mkdir "$tmp/x"
# The optional files (checkpatch and its data) are welcome: one pass over
# the whole list, then a check of the required ones.
# shellcheck disable=SC2046 # one path a word (copy-list has no spaces)
tar -C "$tmp/x" -xf "$tarball" $(copy_list all | sed "s|^|$topdir/|") 2>"$tmp/tar.err" || true
src=$tmp/x/$topdir
for f in $(copy_list required) fs/fuse/inode.c; do
	[ -e "$src/$f" ] ||
		die "$origin lacks $f ($(grep -v checkpatch "$tmp/tar.err" | grep -v spelling | head -n 1))"
done

got=$(cd "$src" && find fs/fuse include/uapi/linux/fuse.h -type f | LC_ALL=C sort |
	xargs sha256sum | sha256sum | cut -d' ' -f1)
if [ "$got" != "$TREE_SHA256" ]; then
	if [ $tarball_pinned = no ]; then
		die "sha256 mismatch for $origin: tarball $tsum is not pinned and its fs/fuse hashes to $got, pinned $TREE_SHA256"
	fi
	die "pinned tarball $origin holds an fs/fuse that hashes to $got, pin says $TREE_SHA256 (fix the pin)"
fi
v=$(sed -n -e 's/^VERSION = //p' -e 's/^PATCHLEVEL = //p' -e 's/^SUBLEVEL = //p' "$src/Makefile" | paste -sd. -)
[ "$v" = "$UPSTREAM_VERSION" ] || die "$origin is Linux $v, the pin wants $UPSTREAM_VERSION"

if [ -n "${FB_TARBALL_TO:-}" ]; then
	if [ -n "${UPSTREAM_TARBALL:-}" ]; then
		cp "$tarball" "$tmp/verified.tar"
	else
		mv "$tarball" "$tmp/verified.tar"
	fi
	mv "$tmp/verified.tar" "$FB_TARBALL_TO" || die "cannot write $FB_TARBALL_TO"
	echo "import: $origin (Linux $UPSTREAM_VERSION, sha256 $tsum) verified, written to $FB_TARBALL_TO"
	exit 0
fi

# Lay out the generated tree.
g=$tmp/tree
mkdir -p "$g"
for f in $(copy_list all); do
	[ "$f" = Makefile ] && continue # read for the version above, not built
	[ -e "$src/$f" ] || continue
	mkdir -p "$g/$(dirname "$f")"
	mv "$src/$f" "$g/$f"
done

patch_list > "$tmp/patches"
while read -r p; do
	name=${p#"$top"/}
	# Not silent: patch names the file and hunk that fail.
	if ! patch -d "$g" -p1 -N --dry-run -F0 < "$p" > "$tmp/patch.out" 2>&1; then
		f=$(awk '/^checking file / { f = $3 } /FAILED/ { print f; exit }' "$tmp/patch.out")
		h=$(grep -m1 -i -e 'hunk #.* fail' -e fail -e reject -e malformed "$tmp/patch.out" || head -n 1 "$tmp/patch.out")
		die "patch $name does not apply: ${f:+$f: }$h"
	fi
	patch -d "$g" -p1 -s -N -F0 --no-backup-if-mismatch < "$p" > /dev/null
done < "$tmp/patches"

{
	echo "fingerprint=$fp"
	echo "base=$base"
	echo "upstream_version=$UPSTREAM_VERSION"
	echo "fb_release=$FB_RELEASE"
	echo "origin=$origin"
	echo "tarball_sha256=$tsum"
	echo "tree_sha256=$got"
	echo "series=$series_mode"
	sed "s|^$top/||" "$tmp/patches" | sed 's/^/patch=/'
} > "$g/.fb-import"

# Atomic as far as POSIX goes: the new tree is complete before it is renamed
# into place; an older tree is moved aside first and removed after.
old=""
if [ -e "$out" ]; then
	old=$tmp/old
	mv "$out" "$old"
fi
mv "$g" "$out"
echo "import: $(basename "$out"): Linux $UPSTREAM_VERSION fs/fuse from $origin, $(wc -l < "$tmp/patches") patch(es)"
