#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# An upgrade never takes away a module it cannot build again.
#
# On an upgrade the old package's prerm (dh_dkms's part; rpm's %preun)
# runs `dkms remove --all`, and the new one builds only for kernels with
# headers. A host that purged its headers after the build (a golden image)
# lost our module for every such kernel, and booted on the stock FUSE. So:
#   stash    (the prerm on upgrade, the %preun on upgrade, before the
#            dkms remove): the modules of ours DKMS installed for each kernel
#            without headers are copied to FB_KEEPDIR/KVER;
#   restore  (the postinst after its builds, rpm's %posttrans): for a kernel
#            that got this release's build, nothing (and an older kept copy
#            goes); for one that did not, the copies go to
#            /lib/modules/KVER/updates/fuse-backport-kept/ (not DKMS's tree:
#            dkms never removes them), depmod, and one line saying so and
#            what builds this release's there;
#   drop KVER (the kernel hook and the postinst, once this release is
#            installed for KVER): the kept copy of KVER goes;
#   forget   (removal): every kept copy goes.
# The package ships this in /usr/src/fuse-backport-<ver>/scripts/.
#
# usage: scripts/keep-modules.sh TAG stash|restore|forget
#        scripts/keep-modules.sh TAG drop KVER
# environment (tests): FB_MODROOT (default /lib/modules), FB_KEEPDIR
#   (default /var/lib/fuse-backport/kept), FB_DEPMOD (default depmod)
# exit: 0; one line on stderr for what it could not do
set -u

tag=${1:?usage: keep-modules.sh TAG stash|restore|forget|drop KVER}
what=${2:?usage: keep-modules.sh TAG stash|restore|forget|drop KVER}
modroot=${FB_MODROOT:-/lib/modules}
keep=${FB_KEEPDIR:-/var/lib/fuse-backport/kept}
depmod=${FB_DEPMOD:-depmod}
kept=updates/fuse-backport-kept
rn=$(sh "$(dirname "$0")/prefix.sh" 2> /dev/null) || rn=fusebp

# ours KDIR: the modules of ours DKMS installed in KDIR (/lib/modules/KVER):
# updates/dkms on Debian, extra on Fedora and EL (their version says +fbN)
ours() {
	for f in "$1"/updates/dkms/fuse.ko* "$1"/updates/dkms/cuse.ko* "$1"/updates/dkms/virtiofs.ko* "$1/updates/dkms/$rn".ko* \
		"$1"/extra/fuse.ko* "$1"/extra/cuse.ko* "$1"/extra/virtiofs.ko* "$1/extra/$rn".ko*; do
		[ -f "$f" ] || continue
		case $(modinfo -F version "$f" 2> /dev/null) in
		*+fb[0-9]*) echo "$f" ;;
		esac
	done
}

# drop_kept KVER: the kept copy of KVER goes (and depmod, where it was there)
drop_kept() {
	[ -d "$modroot/$1/$kept" ] || return 0
	rm -rf "${modroot:?}/$1/$kept"
	"$depmod" -a "$1" > /dev/null 2>&1 || :
}

case $what in
stash)
	rm -rf "$keep"
	for d in "$modroot"/*; do
		k=${d##*/}
		[ -e "$d/build/include" ] && continue
		files=$(ours "$d")
		[ -n "$files" ] || continue
		# shellcheck disable=SC2086 # module file names have no blanks
		if ! { mkdir -p "$keep/$k" && cp -p $files "$keep/$k/"; }; then
			echo "$tag: $k has no headers and its module of ours could not be kept ($keep/$k)" >&2
			rm -rf "${keep:?}/$k"
		fi
	done
	;;
restore)
	for d in "$keep"/*; do
		[ -d "$d" ] || continue
		k=${d##*/}
		if [ ! -d "$modroot/$k" ]; then
			continue
		fi
		if [ -n "$(ours "$modroot/$k")" ]; then
			# this release's build is there: no older copy beside it
			drop_kept "$k"
			continue
		fi
		rm -rf "${modroot:?}/$k/$kept"
		if mkdir -p "$modroot/$k/$kept" && cp -p "$d"/* "$modroot/$k/$kept/" &&
			"$depmod" -a "$k" > /dev/null 2>&1; then
			v=$(for f in "$modroot/$k/$kept"/*; do modinfo -F version "$f"; break; done 2> /dev/null)
			echo "$tag: $k has no headers: its module of ours ($v) is kept in $modroot/$k/$kept; install linux-headers-$k (kernel-devel-$k) to build this release's"
		else
			echo "$tag: $k has no headers and its module of ours could not be put back ($modroot/$k/$kept): the stock FUSE serves it" >&2
		fi
	done
	rm -rf "$keep"
	# an older kept copy beside a build of this release goes too
	for d in "$modroot"/*/"$kept"; do
		[ -d "$d" ] || continue
		k=${d%/"$kept"}
		k=${k##*/}
		[ -z "$(ours "$modroot/$k")" ] || drop_kept "$k"
	done
	;;
drop)
	drop_kept "${3:?usage: keep-modules.sh TAG drop KVER}"
	;;
forget)
	rm -rf "$keep"
	for d in "$modroot"/*; do
		drop_kept "${d##*/}"
	done
	;;
*)
	echo "usage: keep-modules.sh TAG stash|restore|forget|drop KVER" >&2
	exit 2
	;;
esac
exit 0
