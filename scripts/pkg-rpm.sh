#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the noarch RPM fuse-backport-dkms from a clean tree (the tracked
# files; the import runs in %build, on the pinned kernel tarball given as
# Source1), then rpmlint it. Output in build/pkg/.
#
# usage: scripts/pkg-rpm.sh
# environment: UPSTREAM_TARBALL  the pinned kernel tarball (default: taken
#                                from Debian's linux-source-6.12 .deb, by apt)
#              OUT               output directory (default build/pkg)
#              RPMLINT=0         do not run rpmlint
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkg_prog=rpm
# shellcheck source=scripts/pkg-common.sh
. "$top/scripts/pkg-common.sh"
out=${OUT:-$top/build/pkg}
spec=$top/rpm/fuse-backport-dkms.spec

command -v rpmbuild > /dev/null || pkg_die "needs rpmbuild (sh scripts/deps.sh pkg)"
ver=$(pkg_version)
[ -n "$ver" ] || pkg_die "cannot read PACKAGE_VERSION from dkms.conf"
specver=$(sed -n 's/^Version:[[:space:]]*//p' "$spec")
[ "$specver" = "$ver" ] || pkg_die "rpm/fuse-backport-dkms.spec is at $specver, dkms.conf at $ver: update Version and %changelog"

work=$out/rpm-work
rm -rf "$work"
mkdir -p "$work/SOURCES" "$work/tree"
pkg_clean_tree "$work/tree/fuse-backport-$ver"
tar -C "$work/tree" --sort=name --owner=0 --group=0 \
	-cJf "$work/SOURCES/fuse-backport-$ver.tar.xz" "fuse-backport-$ver"
rm -rf "$work/tree"
tarball=$(pkg_upstream "$work/upstream")
ln -s "$tarball" "$work/SOURCES/$(basename "$tarball")"

echo "rpm: building fuse-backport-dkms $ver (kernel tarball $tarball)"
# --nodeps: the build requirements are Debian packages here, not in an rpmdb.
rpmbuild -bb --nodeps --define "_topdir $work" \
	--define "upstream_tarball $(basename "$tarball")" "$spec" > "$work/build.log" 2>&1 || {
	tail -n 30 "$work/build.log" >&2
	pkg_die "rpmbuild failed (log: $work/build.log)"
}
rm -rf "$work/upstream" "$work/BUILD"
mkdir -p "$out"
rpm=""
for f in "$work"/RPMS/noarch/*.rpm; do
	mv "$f" "$out/"
	rpm=$out/$(basename "$f")
	echo "rpm: $rpm"
done
[ -n "$rpm" ] || pkg_die "rpmbuild made no package (log: $work/build.log)"

if [ "${RPMLINT:-1}" != 0 ] && command -v rpmlint > /dev/null; then
	# Filters, each with its reason: rpm/fuse-backport-dkms.rpmlintrc.
	if rpmlint -r "$top/rpm/fuse-backport-dkms.rpmlintrc" "$spec" "$rpm"; then
		echo "rpm: rpmlint clean"
	else
		pkg_die "rpmlint found problems"
	fi
fi
