#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A prebuilt-module .deb for one kernel, for machines without a compiler:
# fuse-backport-modules-KVER with the built modules, stripped, signed and
# compressed the way the kernel does its own, under
# /lib/modules/KVER/updates/fuse-backport/, depending on that kernel's image
# package and running depmod in postinst and postrm.
#
# usage: scripts/kmod-deb.sh KVER [KDIR]       (make kmod-deb KVER=...)
# environment: SIGN_KEY, SIGN_CERT  the signing key (PEM or pkcs11: URI) and
#                                   its certificate (DER or PEM); default the
#                                   DKMS MOK pair /var/lib/dkms/mok.key, mok.pub
#              REVISION             Debian revision (default 1)
#              OUT                  output directory (default build/pkg)
# Exit status 3: this kernel is not served (scripts/build.sh said why).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkg_prog=kmod-deb
# shellcheck source=scripts/pkg-common.sh
. "$top/scripts/pkg-common.sh"
kver=${1:?usage: kmod-deb.sh KVER [KDIR]}
kdir=${2:-/lib/modules/$kver/build}
out=${OUT:-$top/build/pkg}
rev=${REVISION:-1}

ver=$(pkg_version)
[ -n "$ver" ] || pkg_die "cannot read PACKAGE_VERSION from dkms.conf"
[ -f "$kdir/.config" ] || pkg_die "no kernel headers for $kver at $kdir (install linux-headers-$kver)"
name=fuse-backport-modules-$kver
case $name in *[!a-z0-9.+-]*) pkg_die "'$kver' does not make a valid package name" ;; esac
arch=$(dpkg --print-architecture)

work=$out/kmod-work/$kver
rm -rf "$work"
mkdir -p "$work/build"
rc=0
SRC=$top/src/upstream BUILD=$work/build sh "$top/scripts/build.sh" "$kver" "$kdir" > "$work/build.log" 2>&1 || rc=$?
if [ $rc != 0 ]; then
	grep '^fuse-backport:' "$work/build.log" | tail -n 1 >&2 || tail -n 20 "$work/build.log" >&2
	[ $rc = 3 ] && exit 3
	pkg_die "the build for $kver failed (log: $work/build.log)"
fi
fl=$(bash "$top/scripts/flavor.sh" "$kver" "$kdir")
flavor=${fl%% *}
modules=${fl#* }

# Signing, as the kernel's modules_install does it: where the kernel checks
# signatures, with the administrator's key or the DKMS MOK.
conf=$kdir/.config
if grep -qx 'CONFIG_MODULE_SIG=y' "$conf"; then
	key=${SIGN_KEY:-/var/lib/dkms/mok.key}
	cert=${SIGN_CERT:-/var/lib/dkms/mok.pub}
	case $key in pkcs11:*) ;; *) [ -f "$key" ] || pkg_die "no signing key $key (give SIGN_KEY=, or let DKMS create its MOK by building once)" ;; esac
	[ -f "$cert" ] || pkg_die "no certificate $cert (give SIGN_CERT=)"
	signfile=$kdir/scripts/sign-file
	[ -x "$signfile" ] || pkg_die "no $signfile in the headers of $kver"
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$conf")
else
	key=""
fi
compress=""
for c in XZ ZSTD GZIP; do
	grep -qx "CONFIG_MODULE_COMPRESS_$c=y" "$conf" && compress=$c && break
done

root=$work/root
dest=$root/lib/modules/$kver/updates/fuse-backport
mkdir -p "$dest" "$root/DEBIAN" "$root/usr/share/doc/$name"
files=""
for m in $modules; do
	ko=$dest/$m.ko
	cp "$work/build/$m.ko" "$ko"
	strip --strip-debug "$ko"
	[ -n "$key" ] && "$signfile" "${hash:-sha512}" "$key" "$cert" "$ko"
	case $compress in
	XZ) xz --check=crc32 --lzma2=dict=1MiB -f "$ko"; ko=$ko.xz ;;
	ZSTD) zstd -q -T0 --rm -f "$ko"; ko=$ko.zst ;;
	GZIP) gzip -n -9 -f "$ko"; ko=$ko.gz ;;
	esac
	files="$files ${ko#"$root"}"
done

cp "$top/debian/copyright" "$root/usr/share/doc/$name/copyright"
maint=$(sed -n 's/^Maintainer: //p' "$top/debian/control")
{
	echo "$name ($ver-$rev) unstable; urgency=medium"
	echo
	echo "fuse-backport $ver built for Linux $kver ($flavor flavor: $modules), by make kmod-deb." |
		fold -s -w 72 | sed -e 's/ *$//' -e '1s/^/  * /' -e '2,$s/^/    /'
	echo
	echo " -- $maint  $(date -R)"
} > "$work/changelog"
gzip -n -9 -c "$work/changelog" > "$root/usr/share/doc/$name/changelog.Debian.gz"

{
	echo "Package: $name"
	echo "Source: fuse-backport"
	echo "Version: $ver-$rev"
	echo "Architecture: $arch"
	echo "Maintainer: $maint"
	echo "Installed-Size: $(du -sk "$root" | cut -f1)"
	echo "Depends: linux-image-$kver | linux-image-$kver-unsigned"
	echo "Conflicts: fuse-backport-dkms"
	echo "Section: kernel"
	echo "Priority: optional"
	echo "Description: patched Linux FUSE module, prebuilt for Linux $kver"
	echo "fuse-backport $ver ($flavor flavor: $modules) built for the kernel $kver," \
		"for machines that have no compiler or kernel headers. The modules are in" \
		"/lib/modules/$kver/updates/fuse-backport/. Use this package or" \
		"fuse-backport-dkms on a machine, not both." | fold -s -w 78 | sed -e 's/ *$//' -e 's/^/ /'
} > "$root/DEBIAN/control"
# Not a package for the Debian archive: there is no ITP bug to close.
mkdir -p "$root/usr/share/lintian/overrides"
echo "$name: initial-upload-closes-no-bugs" > "$root/usr/share/lintian/overrides/$name"
# One kernel's module set: depmod for that kernel only, while it is there.
for s in postinst postrm; do
	{
		echo '#!/bin/sh'
		echo 'set -e'
		# shellcheck disable=SC2016 # $1 is the maintainer script's
		if [ $s = postinst ]; then
			echo 'if [ "$1" = configure ]; then'
		else
			echo 'if [ "$1" = remove ] || [ "$1" = purge ]; then'
		fi
		echo "	if [ -d /lib/modules/$kver/kernel ]; then"
		echo "		depmod -a $kver"
		echo '	fi'
		echo 'fi'
	} > "$root/DEBIAN/$s"
	chmod 755 "$root/DEBIAN/$s"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort |
	xargs md5sum) > "$work/md5sums"
mv "$work/md5sums" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb=$out/${name}_$ver-${rev}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" > /dev/null
echo "kmod-deb: $deb:$files"
