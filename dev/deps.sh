#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what the build (and, with "test", the test suites) need on a
# Debian machine. Idempotent; installs only what is missing.
#
# usage: dev/deps.sh build|test [PACKAGE...]   (e.g. kernel headers)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:?usage: deps.sh build|pkg|test|demo [PACKAGE...]}
shift

die() { echo "deps: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (installs Debian packages)"
command -v apt-get >/dev/null || die "needs a Debian system with apt"

sh "$top/dev/apt-suites.sh"

pkgs="build-essential bc kmod patch xz-utils dkms $*"
# Packaging: debian/ (dh_dkms is in dh-dkms on bookworm), rpm/ (rpmbuild);
# debootstrap for the Debian 13 root of tests/pkg/trixie.sh; openssl: make
# kmod-deb writes the signing certificate into the package as DER; fuse3
# (its initramfs hook) and initramfs-tools: pkg-deb's initramfs checks.
pkgtools="debhelper dh-dkms dpkg-dev fakeroot lintian rpm rpmlint cpio debootstrap aptly createrepo-c dnf dnf-plugins-core gnupg openssl fuse3 initramfs-tools"
case $what in
build) ;;
pkg) pkgs="$pkgs $pkgtools" ;;
test)
	# qemu and friends from the host release; virtme-ng from trixie. The
	# real daemons of tests/suites/daemons.sh (and of the takeover suite)
	# from bookworm: trixie's newer ones need trixie's libc. apparmor: the
	# takeover suite loads a profile with its apparmor_parser; gocryptfs
	# and rclone: it mounts them through fusermount3 as a non-root user.
	pkgs="$pkgs qemu-system-x86 udev busybox-static cpio zstd fio libaio-dev libfuse3-dev pkg-config jq \
xfsprogs attr libcap2-bin shellcheck gnuplot-nox virtme-ng/trixie $pkgtools \
mergerfs bindfs fuse-overlayfs sshfs openssh-server apparmor gocryptfs rclone"
	# man-db (and groff): the tools section's man --warnings on man/
	pkgs="$pkgs man-db"
	# building the lockdep/KASAN kernel of dev/debug-kernel.sh
	pkgs="$pkgs flex bison libelf-dev"
	;;
demo)
	# `make demo` only (dev/demo.sh): build one module and boot one
	# kernel whose image and headers tests/vm/kernel.sh and headers.sh
	# unpack into the cache (installing the headers package would pull in
	# the image package and its initramfs build). pahole: kbuild makes
	# the module's BTF; xfsprogs and fio: the guest's parallel-write
	# figure; bindfs: the unmodified daemon on the takeover. No dkms, no
	# packaging tools.
	pkgs="build-essential kmod patch xz-utils pahole qemu-system-x86 udev busybox-static \
virtme-ng/trixie fio xfsprogs bindfs $*"
	;;
*) die "unknown set '$what' (build, pkg, test or demo)" ;;
esac

# Kernel headers come and go from the archive: one that is gone is skipped
# loudly (the build matrix then has one kernel less), not a failure. The
# list goes to build/deps-skipped too, for the summary of tests/check.sh.
mkdir -p "$top/build"
skipped=$top/build/deps-skipped
: > "$skipped"
avail=""
for p in $pkgs; do
	case $p in
	linux-headers-*)
		if ! apt-cache show "$p" > /dev/null 2>&1; then
			echo "SKIPPED: deps: $p is not in the archive any more" >&2
			echo "$p is not in the archive any more (not installed, not in the build matrix)" >> "$skipped"
			continue
		fi
		;;
	esac
	avail="$avail $p"
done
pkgs=$avail

need=""
for p in $pkgs; do
	name=${p%/*}
	dpkg-query -W -f='${Status}\n' "$name" 2>/dev/null | grep -q 'ok installed' || need="$need $p"
done
if [ -n "$need" ]; then
	echo "deps: installing$need"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >/dev/null ||
		die "apt-get install failed for:$need"
fi
