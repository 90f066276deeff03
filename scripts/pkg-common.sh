# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# fuse-backport: helpers for the package builds (scripts/pkg-deb.sh,
# scripts/pkg-rpm.sh, scripts/kmod-deb.sh). Sourced; $top is the checkout.
#
#   pkg_version             the DKMS module version (PACKAGE_VERSION of dkms.conf)
#   pkg_clean_tree DIR      the tracked files, as they are in the working tree,
#                           copied to DIR: nothing generated, nothing untracked
#   pkg_upstream DIR        print the path of the pinned kernel tarball:
#                           UPSTREAM_TARBALL if set, else the one in the pinned
#                           linux-source .deb (apt, cached like import.sh's),
#                           extracted into DIR

top=${top:?pkg-common.sh needs top set}

pkg_die() { echo "${pkg_prog:-pkg}: $*" >&2; exit 1; }

pkg_version() {
	kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" 2>/dev/null && echo "$PACKAGE_VERSION"' _ "$top"
}

pkg_clean_tree() {
	if ! command -v git > /dev/null || ! git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
		pkg_die "needs a git checkout (the package is made of the tracked files)"
	fi
	mkdir -p "$1"
	# Tracked files deleted in the working tree are left out.
	git -C "$top" ls-files | while IFS= read -r f; do
		[ -e "$top/$f" ] && printf '%s\n' "$f"
	done > "$1.list"
	tar -C "$top" -cf - -T "$1.list" | tar -C "$1" -xf -
	rm -f "$1.list"
}

pkg_upstream() {
	if [ -n "${UPSTREAM_TARBALL:-}" ]; then
		[ -f "$UPSTREAM_TARBALL" ] || pkg_die "UPSTREAM_TARBALL '$UPSTREAM_TARBALL' does not exist"
		echo "$UPSTREAM_TARBALL"
		return
	fi
	# shellcheck source=backports/6.12/pin
	. "$top/backports/6.12/pin"
	cache=${FB_CACHE:-/var/cache/fuse-backport}
	deb=$cache/${DEBIAN_PACKAGE}_$(echo "$DEBIAN_VERSION" | sed 's/:/%3a/')_all.deb
	if [ ! -f "$deb" ]; then
		mkdir -p "$cache" "$1/dl" || pkg_die "cannot create $cache (set FB_CACHE)"
		(cd "$1/dl" && apt-get download "$DEBIAN_PACKAGE=$DEBIAN_VERSION" > /dev/null 2>&1) ||
			pkg_die "cannot fetch $DEBIAN_PACKAGE $DEBIAN_VERSION with apt (run scripts/apt-suites.sh, or give UPSTREAM_TARBALL=)"
		mv "$1"/dl/*.deb "$deb"
		rmdir "$1/dl"
	fi
	mkdir -p "$1"
	dpkg-deb --fsys-tarfile "$deb" | tar -C "$1" -x "./$DEBIAN_TARBALL" ||
		pkg_die "$deb does not hold $DEBIAN_TARBALL"
	echo "$1/$DEBIAN_TARBALL"
}
