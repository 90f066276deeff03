#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the noarch RPM fuse-backport-dkms from a clean tree (the tracked
# files; the import runs in %build, on each base's pinned kernel tarball,
# given as Source1 and on) and the arch-dependent fuse-backport-tools from the
# same tarball, then rpmlint them. Output in build/pkg/.
#
# usage: dev/pkg-rpm.sh
# environment: UPSTREAM_TARBALL  base 6.12's pinned kernel tarball (default:
#                                from Debian's linux-source-6.12 .deb, by apt)
#              UPSTREAM_TARBALL_<base, dots as _>  each other base's
#                                (UPSTREAM_TARBALL_7_2: default
#                                linux-source-7.2's; UPSTREAM_TARBALL_7_3)
#              OUT               output directory (default build/pkg)
#              FB_RPM_DIST       the %{dist} of the Release (default .el10:
#                                the packages are for EL 10; Debian's rpm
#                                macros define none)
#              RPMLINT=0         do not run rpmlint
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkg_prog=rpm
# shellcheck source=dev/pkg-common.sh
. "$top/dev/pkg-common.sh"
out=${OUT:-$top/build/pkg}
spec=$top/rpm/fuse-backport-dkms.spec

command -v rpmbuild > /dev/null || pkg_die "needs rpmbuild (sh dev/deps.sh pkg)"
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
# One kernel tarball per base, each a Source of the spec (Source1: 6.12,
# Source2: 7.3, Source3: 7.2), named to rpmbuild by the define
# upstream_tarball (6.12) or upstream_tarball_<base without dots>
# (upstream_tarball_72); the spec's %build fails for a pin it has no Source
# for, this for a base the spec has no define for. The defines go to
# rpmbuild as "$@".
set --
names=""
for b in $(pkg_bases); do
	def=upstream_tarball
	[ "$b" = "$pkg_default_base" ] || def=upstream_tarball_$(echo "$b" | tr -d .)
	grep -q "%{$def}" "$spec" || pkg_die "rpm/fuse-backport-dkms.spec has no Source %{$def} for base $b"
	tb=$(pkg_upstream "$work/upstream" "$b")
	n=$(basename "$tb")
	case " $names " in *" $n "*) pkg_die "two bases' kernel tarballs have one name: $n (base $b)" ;; esac
	names="$names $n"
	ln -s "$tb" "$work/SOURCES/$n"
	set -- "$@" --define "$def $n"
	echo "rpm: base $b: kernel tarball $tb"
done

echo "rpm: building fuse-backport-dkms $ver"
# --nodeps: the build requirements are Debian packages here, not in an rpmdb.
dist=${FB_RPM_DIST-.el10}
rpmbuild -bb --nodeps --define "_topdir $work" --define "dist $dist" "$@" "$spec" > "$work/build.log" 2>&1 || {
	tail -n 30 "$work/build.log" >&2
	pkg_die "rpmbuild failed (log: $work/build.log)"
}
# The tools, arch-dependent, from the same source tarball.
tspec=$top/rpm/fuse-backport-tools.spec
[ "$(sed -n 's/^Version:[[:space:]]*//p' "$tspec")" = "$ver" ] ||
	pkg_die "rpm/fuse-backport-tools.spec is not at $ver: update Version and %changelog"
rpmbuild -bb --nodeps --define "_topdir $work" --define "dist $dist" "$tspec" > "$work/build-tools.log" 2>&1 || {
	tail -n 30 "$work/build-tools.log" >&2
	pkg_die "rpmbuild of the tools failed (log: $work/build-tools.log)"
}
rm -rf "$work/upstream" "$work/BUILD"
mkdir -p "$out"
rpm=""
trpm=""
for f in "$work"/RPMS/noarch/*.rpm "$work"/RPMS/*/fuse-backport-tools-[0-9]*.rpm; do
	[ -f "$f" ] || continue
	mv "$f" "$out/"
	case $f in */noarch/*) rpm=$out/$(basename "$f") ;; *) trpm=$out/$(basename "$f") ;; esac
	echo "rpm: $out/$(basename "$f")"
done
if [ -z "$rpm" ] || [ -z "$trpm" ]; then
	pkg_die "rpmbuild made no package (logs: $work/build*.log)"
fi

if [ "${RPMLINT:-1}" != 0 ] && command -v rpmlint > /dev/null; then
	# Filters, each with its reason: rpm/fuse-backport-dkms.rpmlintrc.
	# Warnings count too (rpmlint exits 0 on them).
	if rpmlint -r "$top/rpm/fuse-backport-dkms.rpmlintrc" "$spec" "$rpm" > "$work/lint.log" 2>&1 &&
		rpmlint -r "$top/rpm/fuse-backport-tools.rpmlintrc" "$tspec" "$trpm" >> "$work/lint.log" 2>&1 &&
		! grep -q ': [EW]: ' "$work/lint.log"; then
		grep -E 'checked;' "$work/lint.log"
		echo "rpm: rpmlint clean"
	else
		cat "$work/lint.log" >&2
		pkg_die "rpmlint found problems"
	fi
fi
