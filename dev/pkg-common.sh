# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# fuse-backport: helpers for the package builds (dev/pkg-deb.sh,
# dev/pkg-rpm.sh, dev/kmod-deb.sh). Sourced; $top is the checkout.
#
#   pkg_version             the product version (PACKAGE_VERSION of dkms.conf)
#   pkg_bases               every base (backports/<base>/pin), default first
#   pkg_tree BASE           its generated tree under src/: upstream-<base>
#   pkg_comp BASE           its component tarball in the Debian source
#                           package: linux<base without dots> (6.12:
#                           linux612), unpacked by dpkg-source there
#   pkg_tarball_var BASE    the variable that gives its pinned kernel tarball:
#                           UPSTREAM_TARBALL (6.12), UPSTREAM_TARBALL_<base,
#                           dots as _> (7.2: UPSTREAM_TARBALL_7_2)
#   pkg_modver BASE         its module version "<upstream>+fb<N>" (the pin)
#   pkg_clean_tree DIR      the tracked files, as they are in the working tree,
#                           copied to DIR: nothing generated, nothing untracked
#   pkg_upstream DIR [BASE] print the path of the base's pinned kernel tarball
#                           (default base 6.12): its pkg_tarball_var if set,
#                           else the one in the pinned linux-source .deb
#                           (apt, cached like import.sh's), extracted into DIR

top=${top:?pkg-common.sh needs top set}

pkg_die() { echo "${pkg_prog:-pkg}: $*" >&2; exit 1; }

pkg_version() {
	kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" 2>/dev/null && echo "$PACKAGE_VERSION"' _ "$top"
}

pkg_default_base=6.12

pkg_bases() {
	echo "$pkg_default_base"
	for p in "$top"/backports/*/pin; do
		b=${p%/pin}
		b=${b##*/}
		[ "$b" = "$pkg_default_base" ] || echo "$b"
	done
}

pkg_tree() {
	echo "upstream-$1"
}

pkg_comp() {
	echo "linux$(echo "$1" | tr -d .)"
}

pkg_tarball_var() {
	if [ "$1" = "$pkg_default_base" ]; then echo UPSTREAM_TARBALL; else echo "UPSTREAM_TARBALL_$(echo "$1" | tr . _)"; fi
}

pkg_modver() {
	echo "$(sed -n 's/^UPSTREAM_VERSION=//p' "$top/backports/$1/pin")+fb$(sed -n 's/^FB_RELEASE=//p' "$top/backports/$1/pin")"
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
	pkg_b=${2:-$pkg_default_base}
	pkg_var=$(pkg_tarball_var "$pkg_b")
	pkg_given=$(eval "echo \"\${$pkg_var:-}\"")
	if [ -n "$pkg_given" ]; then
		[ -f "$pkg_given" ] || pkg_die "$pkg_var '$pkg_given' does not exist"
		echo "$pkg_given"
		return
	fi
	# shellcheck source=backports/6.12/pin
	. "$top/backports/$pkg_b/pin"
	cache=${FB_CACHE:-/var/cache/fuse-backport}
	deb=$cache/${DEBIAN_PACKAGE}_$(echo "$DEBIAN_VERSION" | sed 's/:/%3a/')_all.deb
	if [ ! -f "$deb" ]; then
		mkdir -p "$cache" "$1/dl" || pkg_die "cannot create $cache (set FB_CACHE)"
		(cd "$1/dl" && apt-get download "$DEBIAN_PACKAGE=$DEBIAN_VERSION" > /dev/null 2>&1) ||
			pkg_die "cannot fetch $DEBIAN_PACKAGE $DEBIAN_VERSION with apt (run dev/apt-suites.sh, or give $pkg_var=)"
		mv "$1"/dl/*.deb "$deb"
		rmdir "$1/dl"
	fi
	mkdir -p "$1"
	dpkg-deb --fsys-tarfile "$deb" | tar -C "$1" -x "./$DEBIAN_TARBALL" ||
		pkg_die "$deb does not hold $DEBIAN_TARBALL"
	echo "$1/$DEBIAN_TARBALL"
}
