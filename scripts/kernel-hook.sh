#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fuse-backport-dkms's kernel hook, installed as
# /etc/kernel/header_postinst.d/00-fuse-backport and
# /etc/kernel/postinst.d/00-fuse-backport. A new kernel's packages run
# these directories with run-parts --exit-on-error, ours before dkms's own
# hook ("dkms" sorts after "00-"). A dkms autoinstall that fails there fails
# the kernel's packages: apt exits 100, the kernel gets no initramfs, dpkg
# is left half-configured. So our module is built here first, and this
# never fails:
#   built: installed, and dkms's hook finds nothing left to do;
#   excluded by dkms.conf (dkms status 77): dkms's hook skips it and says why;
#   any other failure (an API the gate does not probe, a full disk, a
#   compiler): one line, and the kernel is excluded for this version, in
#   /var/lib/fuse-backport/build-failed/KVER (read by dkms.conf, shown by
#   `fuse-backport status`), so dkms's hook right after ours skips it.
# The record only stops dkms's hook from failing the same kernel's packages
# again: every run of this hook for the kernel (its headers or image
# configured again) tries the build again first, and so does every
# configure of the package (dpkg-reconfigure fuse-backport-dkms, an
# upgrade, dnf reinstall), which removes every record. A transient failure
# (a full disk, an OOM-killed compiler, Ctrl-C) is not kept for good.
# The running kernel is not touched.
#
# On RPM systems the same script is /usr/lib/kernel/install.d/
# 39-fuse-backport.install, before dkms's 40-dkms.install.
#
# usage: 00-fuse-backport KVER                   (run-parts, Debian)
#        39-fuse-backport.install add KVER ...   (kernel-install)
case ${1:-} in
add) k=${2:-} ;;
remove) exit 0 ;;
*) k=${1:-} ;;
esac
name=fuse-backport
tag=fuse-backport-dkms
[ -n "$k" ] || exit 0
command -v dkms > /dev/null 2>&1 || exit 0
[ -f /etc/dkms/no-autoinstall ] && exit 0
# The image's hook comes before its headers: theirs builds then.
[ -e "/lib/modules/$k/build/include" ] || exit 0
# The newest version DKMS has, as dkms autoinstall picks.
v=$(for d in "/var/lib/dkms/$name"/*/source; do
	[ -e "$d" ] && basename "$(dirname "$d")"
done | sort -V | tail -n 1)
[ -n "$v" ] || exit 0
dkms status -m $name -v "$v" -k "$k" 2> /dev/null | grep -q ': installed' && exit 0
state=/var/lib/fuse-backport/build-failed
# a new attempt: dkms.conf would exclude the kernel for the old record
rm -f "$state/$k"
rc=0
err=$(dkms install -m $name -v "$v" -k "$k" 2>&1 > /dev/null) || rc=$?
case $rc in
0)
	echo "$tag: built and installed for $k"
	# a copy an upgrade kept while the kernel had no headers goes
	sh "/usr/src/$name-$v/scripts/keep-modules.sh" "$tag" drop "$k" 2> /dev/null
	exit 0
	;;
77) exit 0 ;;
esac
# scripts/build.sh's last line names the first error (scripts/kbuild-error.sh).
why=$(grep '^fuse-backport: ' "/var/lib/dkms/$name/$v/build/make.log" 2> /dev/null | tail -n 1)
why=${why#fuse-backport: }
why=${why#"$k: "}
why=${why#"the build failed: "}
[ -n "$why" ] || why="dkms install exit $rc ($(echo "$err" | grep . | tail -n 1))"
if mkdir -p "$state" 2> /dev/null && printf '%s\t%s\n' "$v" "$why" > "$state/$k.tmp" 2> /dev/null; then
	mv "$state/$k.tmp" "$state/$k"
fi
echo "$tag: not installed for $k: the build failed: $why; the stock FUSE stays in use on $k until the next try (dpkg-reconfigure $tag or dnf reinstall $tag; $state/$k)" >&2
exit 0
