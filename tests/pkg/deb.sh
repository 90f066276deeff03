#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Lifecycle of fuse-backport-dkms on this Debian host: build it from a clean
# tree (lintian clean, every base's kernel files in the source package,
# every base's generated tree in the .deb: pkg_bases, 6.12, 7.2 and 7.3),
# and the previous package from the commit before today's PACKAGE_VERSION
# (pt_prev_commit: 2026.12.0-1); apt
# install of the previous one (DKMS builds for every installed kernel with
# headers, a kernel that cannot have the module gets one line, apt
# succeeds), then apt upgrade to today's product version: DKMS rebuilds, the
# old DKMS tree and /usr/src tree are gone, every module has its base's
# MODULE_VERSION; the modules are signed and, in a VM, load; its
# modules-load.d file makes systemd-modules-load load fusebp on the renamed
# kernel (in a VM) and exit 0 with one line where there is no fusebp (the
# drop-in kernel in a VM, this host's kernel); the drop-in
# kernel's initramfs (made with fuse3's hook) keeps the kernel's own fuse.ko
# under the previous package, holds ours after the upgrade and the kernel's
# own again after apt remove; a 6.1 kernel's
# headers package installed again after ours is built for by DKMS's own
# hook; a kernel without headers and one outside every base (faked:
# 7.4.0-fake) are skipped with our message at the upgrade, and so is a kernel whose headers make a required
# probe fail (a fake headers .deb installed with apt: apt exits 0, on dkms
# 3.0.10 too), and so is one whose build fails where no probe looks (its
# Module.symvers lacks a symbol we use: our kernel hook says so in one line,
# apt exits 0, the kernel is left to the stock module), and so is a 6.12
# kernel ahead of our fs/fuse under WHEN_AHEAD=stock (fake headers whose
# Makefile says a newer release; apt exits 0); with a drop-in kernel's headers gone, apt remove still takes
# fuse, cuse and virtiofs away; FB_PREFIX=acmefs in
# /etc/fuse-backport/fuse-backport.conf alone makes our kernel hook's DKMS
# build acmefs.ko for the renamed kernel, and apt remove takes it away;
# apt remove and purge leave nothing, and the
# stock fuse.ko loads again in a VM. The host is restored at the end,
# whatever happened.
#
# Without the tier's pkg-deb-upgrade (the default tier), today's package is
# installed on a host without any, and the previous package is neither built
# nor installed: a NOTE says so.
#
# usage: tests/pkg/deb.sh      environment: FB_PKG_VM=0  no VM checks
#   FB_PKG_PREV=COMMIT  the previous package's commit (default pt_prev_commit)
#   FB_PKG_RED=1        the red run: the previous package gets the epoch 1:
#                       (the new one has none), so the version order and the
#                       upgrade checks must fail; DKMS builds nothing in it
#                       (/etc/dkms/no-autoinstall, made and removed by the
#                       test, which our postinst honours), and the test stops
#                       after the upgrade checks
tap_suite="pkg-deb"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"

pkg=fuse-backport-dkms
# The previous package and the upgrade from it: the tier's pkg-deb-upgrade
# (yes in the full tier), or asked for by FB_PKG_PREV or FB_PKG_RED.
FB_TOP=$top
# shellcheck source=tests/lib/tier.sh
. "$top/tests/lib/tier.sh"
upgrade=$(tier_get pkg-deb-upgrade)
[ -n "${FB_PKG_PREV:-}" ] || [ "${FB_PKG_RED:-0}" = 1 ] && upgrade=yes
fake7=7.4.0-fake
nohdr=6.12.0-fbnohdr-amd64
gatek=6.1.0-999-fbgate-amd64
failk=6.1.0-998-fbfail-amd64
vm_kver=6.12.95+deb12-amd64

remove_fakes() {
	rm -rf "/usr/src/linux-headers-$fake7" "/lib/modules/$fake7" "/lib/modules/$nohdr"
	for fk in $gatek $failk ${aheadk:-}; do
		[ "$(pt_deb_state "linux-headers-$fk")" = not-installed ] ||
			dpkg --purge --force-all "linux-headers-$fk" > /dev/null 2>&1
	done
	rm -f "/var/lib/fuse-backport/build-failed/$failk"
}

pt_cleanup() {
	[ -z "${red_noauto:-}" ] || rm -f /etc/dkms/no-autoinstall
	[ -z "${irk_made:-}" ] || rm -f "/boot/initrd.img-$irk"
	remove_fakes
	# the headers the autoinstall test took away come back
	if [ -n "${hdr_k:-}" ] && [ "$(pt_deb_state "linux-headers-$hdr_k")" != installed ]; then
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$hdr_deb" > /dev/null 2>&1 ||
			echo "# WARNING: could not reinstall linux-headers-$hdr_k from $hdr_deb" >&2
	fi
	for p in $pkg fuse-backport-tools; do
		if [ "$(pt_deb_state "$p")" != not-installed ]; then
			DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 purge -y -q "$p" > /dev/null 2>&1 ||
				dpkg --purge --force-all "$p" > /dev/null 2>&1
		fi
	done
	pt_dkms_remove_all
	rm -rf /usr/src/$name-[0-9]*
}

pt_init "$pkg lifecycle" dpkg-buildpackage dh_dkms lintian dkms apt-get
ver=$(pt_version)
mok=$(pt_mok_cn)

# What was here before us goes: a tree from dev/dkms-local.sh, a package.
if [ "$(pt_deb_state $pkg)" != not-installed ] || dkms status -m $name 2> /dev/null | grep -q .; then
	tap_diag "removing an earlier $name from this host"
	pt_cleanup
fi
# The drop-in kernel of the initramfs and VM checks needs its image, which a
# fresh host has none of before the VM sections unpack it. It stays after
# the test, as theirs do: the host's own packages are not touched.
if ! sh tests/vm/kernel.sh "$pt_stock_kver" > "$pt_tmp/kernel.log" 2>&1; then
	tap_check 1 "$pt_stock_kver's image for the drop-in checks ($(tail -n 1 "$pt_tmp/kernel.log"))"
fi
# The kernels of this host, before anything of ours is faked.
kernels=$(cd /lib/modules && for d in *; do [ -d "$d" ] && echo "$d"; done)

# The parts, by concern, in the order they run (one TAP stream).
# shellcheck source=tests/pkg/deb/lib.sh
. "$top/tests/pkg/deb/lib.sh"
# shellcheck source=tests/pkg/deb/build.sh
. "$top/tests/pkg/deb/build.sh"
# shellcheck source=tests/pkg/deb/upgrade.sh
. "$top/tests/pkg/deb/upgrade.sh"
# shellcheck source=tests/pkg/deb/new-headers.sh
. "$top/tests/pkg/deb/new-headers.sh"
# shellcheck source=tests/pkg/deb/failed-build.sh
. "$top/tests/pkg/deb/failed-build.sh"
# shellcheck source=tests/pkg/deb/ahead.sh
. "$top/tests/pkg/deb/ahead.sh"
# shellcheck source=tests/pkg/deb/vm.sh
. "$top/tests/pkg/deb/vm.sh"
# shellcheck source=tests/pkg/deb/gone-headers.sh
. "$top/tests/pkg/deb/gone-headers.sh"
# shellcheck source=tests/pkg/deb/prefix.sh
. "$top/tests/pkg/deb/prefix.sh"
# shellcheck source=tests/pkg/deb/remove.sh
. "$top/tests/pkg/deb/remove.sh"

tap_done
