#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the Debian source package fuse-backport and the binary package
# fuse-backport-dkms from a clean tree (the tracked files; the import runs in
# the package build), then lintian them. Output in build/pkg/.
#
# usage: dev/pkg-deb.sh
# environment: UPSTREAM_TARBALL  base 6.12's pinned kernel tarball, or a
#                                kernel.org one at the pinned version
#                                (default: taken from its .deb, fetched by apt)
#              UPSTREAM_TARBALL_<base, dots as _>  the same for each other
#                                base (UPSTREAM_TARBALL_7_2, UPSTREAM_TARBALL_7_3)
#              OUT               output directory (default build/pkg)
#              LINTIAN=0         do not run lintian
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkg_prog=deb
# shellcheck source=dev/pkg-common.sh
. "$top/dev/pkg-common.sh"
out=${OUT:-$top/build/pkg}

for t in dpkg-buildpackage dh dh_dkms; do
	command -v $t > /dev/null || pkg_die "needs dpkg-dev, debhelper and dh-dkms (sh dev/deps.sh pkg)"
done
ver=$(pkg_version)
[ -n "$ver" ] || pkg_die "cannot read PACKAGE_VERSION from dkms.conf"
debver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
[ "${debver%-*}" = "$ver" ] ||
	pkg_die "debian/changelog is at $debver, dkms.conf at $ver: add a changelog entry for $ver-1"

work=$out/deb-work
rm -rf "$work"
mkdir -p "$work"
src=$work/fuse-backport-$ver
pkg_clean_tree "$src"

# The upstream tarball of this source package: everything but debian/.
(cd "$work" && tar --exclude="fuse-backport-$ver/debian" --sort=name --owner=0 --group=0 \
	--mtime="@$(dpkg-parsechangelog -l "$src/debian/changelog" -S Timestamp)" \
	-cJf "fuse-backport_$ver.orig.tar.xz" "fuse-backport-$ver")

# The kernel files the build imports, one component tarball per base
# (pkg_comp: orig-linux612 for 6.12, orig-linux72 for 7.2, orig-linux73 for
# 7.3, unpacked by dpkg-source into linux612/, linux72/ and linux73/): taken
# from the base's pinned tarball (UPSTREAM_TARBALL, UPSTREAM_TARBALL_7_2,
# UPSTREAM_TARBALL_7_3, else the one in the pinned linux-source .deb), only
# what import.sh reads. One tarball per base, not one with every tree: each
# is one pinned upstream release, checked by import.sh against its own pin,
# and a base comes or goes with its own.
mtime="@$(dpkg-parsechangelog -l "$src/debian/changelog" -S Timestamp)"
for b in $(pkg_bases); do
	comp=$(pkg_comp "$b")
	uv=$(sed -n 's/^UPSTREAM_VERSION=//p' "$top/backports/$b/pin")
	tarball=$(pkg_upstream "$work/upstream" "$b")
	ltop=$(tar -tf "$tarball" | head -n 1 | cut -d/ -f1)
	rm -rf "$work/linux-x"
	mkdir -p "$work/linux-x"
	# checkpatch and its data (copy-list's optional files, " ?") ride once,
	# with the default base: `make checkpatch` and the lint use that one.
	all=0
	[ "$b" = "$pkg_default_base" ] && all=1
	# shellcheck disable=SC2046 # one path a word (copy-list has no spaces)
	tar -C "$work/linux-x" -xf "$tarball" $(sed -e 's/#.*//' "$top/backports/copy-list" |
		awk -v all=$all -v top="$ltop" 'NF && (all || $2 != "?") { print top "/" $1 }') ||
		pkg_die "$tarball lacks the files the import of base $b needs (backports/copy-list)"
	mv "$work/linux-x/$ltop" "$work/linux-x/linux-$uv"
	(cd "$work/linux-x" && tar --sort=name --owner=0 --group=0 --mtime="$mtime" \
		-cJf "../fuse-backport_$ver.orig-$comp.tar.xz" "linux-$uv")
	mv "$work/linux-x/linux-$uv" "$src/$comp"
	echo "deb: base $b: Linux $uv kernel files from $tarball as orig-$comp"
done
rm -rf "$work/linux-x" "$work/upstream"
# debian/rules would take these over the component tarballs just made.
for b in $(pkg_bases); do
	unset "$(pkg_tarball_var "$b")"
done

echo "deb: building fuse-backport $debver"
(cd "$src" && dpkg-buildpackage -us -uc) > "$work/build.log" 2>&1 || {
	tail -n 30 "$work/build.log" >&2
	pkg_die "dpkg-buildpackage failed (log: $work/build.log)"
}
mkdir -p "$out"
for f in "$work"/*.deb "$work"/*.dsc "$work"/*.tar.* "$work"/*.changes "$work"/*.buildinfo; do
	[ -f "$f" ] && mv "$f" "$out/"
done
changes=$out/fuse-backport_${debver}_$(dpkg --print-architecture).changes
for f in "$out"/fuse-backport*"$debver"* "$out/fuse-backport_$ver".orig*.tar.xz; do
	echo "deb: $f"
done

if [ "${LINTIAN:-1}" != 0 ] && command -v lintian > /dev/null; then
	# Errors and warnings fail the build; overrides are commented where they are.
	if lintian --fail-on error,warning --info "$changes"; then
		echo "deb: lintian clean"
	else
		pkg_die "lintian found problems in $changes"
	fi
fi
