#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A prebuilt-module .deb for one kernel, for machines without a compiler,
# built from the base that serves the kernel's series (as DKMS would; the
# package's version is the product's, the module's its base's):
# fuse-backport-modules-KVER with the built modules, stripped, signed and
# compressed the way the kernel does its own, under
# /lib/modules/KVER/updates/fuse-backport/, depending on that kernel's image
# package and running depmod in postinst and postrm. Where the modules are
# signed it carries the signer's certificate (DER, the certificate only) as
# /usr/share/fuse-backport-modules-KVER/signer.der, and its postinst asks
# scripts/secureboot.sh whether Secure Boot lets them load (mokutil
# --test-key on that certificate): one line when it does not; the package
# is configured all the same. Its postinst and postrm (on remove) then make
# the kernel's initramfs again where it holds another fuse.ko than modprobe
# loads now (scripts/initramfs.sh), as fuse-backport-dkms does.
#
# usage: dev/kmod-deb.sh KVER [KDIR]       (make kmod-deb KVER=...)
# environment: SIGN_KEY, SIGN_CERT  the signing key (PEM or pkcs11: URI) and
#                                   its certificate (DER or PEM); default the
#                                   DKMS MOK pair /var/lib/dkms/mok.key, mok.pub
#              REVISION             Debian revision (default 1)
#              OUT                  output directory (default build/pkg)
#              SOURCE_DATE_EPOCH    the changelog's date and every file's
#                                   mtime (default: debian/changelog's date):
#                                   the same inputs make the same bytes
# Also fuse-backport-modules-FLAVOUR (e.g. -amd64, -cloud-amd64), the meta
# package that follows the kernel flavour as linux-image-FLAVOUR does: it
# depends on this kernel's modules package, and its version (the kernel
# headers package's, then ours) rises with a kernel upgrade, so that a
# repository carrying the new kernel's modules upgrades it and pulls them in.
# And fuse-backport-modules-common (all), which every modules package
# depends on: what one host needs once, whatever its kernels, from the
# files the DKMS package installs too (scripts/, not copies): modprobe's
# fallback to the kernel's own fuse, cuse and virtiofs where ours cannot
# load (scripts/fuse-backport.modprobe.conf, scripts/modprobe-stock.sh),
# scripts/secureboot.sh and scripts/initramfs.sh. One package, so that the
# modules packages of two kernels install side by side; it conflicts with
# fuse-backport-dkms, which ships the same fallback.
# Exit status 3: this kernel is not served (scripts/build.sh said why).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkg_prog=kmod-deb
# shellcheck source=dev/pkg-common.sh
. "$top/dev/pkg-common.sh"
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

SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$top/debian/changelog" -S Timestamp)}
export SOURCE_DATE_EPOCH

# The build directory stays between runs (kbuild redoes what changed).
work=$out/kmod-work/$kver
rm -rf "$work/root" "$work/meta" "$work/common" "$work/signer.der"
mkdir -p "$work/build"
rc=0
# The base that serves this kernel's series (dkms.conf decides, as for
# DKMS): build.sh builds from its generated tree (make import-all).
if bt=$(bash "$top/scripts/flavor.sh" --base "$kver" "$kdir" 2> /dev/null); then
	base=${bt%% *}
	modver=$(pkg_modver "$base")
	[ -f "$top/src/${bt#* }/.fb-import" ] ||
		pkg_die "no generated tree src/${bt#* } of base $base for $kver: run 'make import-all'"
fi
BUILD=$work/build sh "$top/scripts/build.sh" "$kver" "$kdir" > "$work/build.log" 2>&1 || rc=$?
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
	# What the package carries of it: the certificate alone, as DER (what
	# mokutil reads), whatever SIGN_CERT holds besides (the kernel's own
	# signing_key.pem has the private key in the same file).
	command -v openssl > /dev/null || pkg_die "needs openssl for the certificate (apt install openssl)"
	openssl x509 -inform DER -in "$cert" -outform DER -out "$work/signer.der" 2> /dev/null ||
		openssl x509 -inform PEM -in "$cert" -outform DER -out "$work/signer.der" 2> /dev/null ||
		pkg_die "$cert is no X.509 certificate (DER or PEM)"
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
# The certificate that signed them, for the postinst's mokutil --test-key
# (and the operator's mokutil --import).
signer=""
if [ -n "$key" ]; then
	signer=/usr/share/$name/signer.der
	install -D -m 644 "$work/signer.der" "$root$signer"
fi

cp "$top/debian/copyright" "$root/usr/share/doc/$name/copyright"
maint=$(sed -n 's/^Maintainer: //p' "$top/debian/control")
{
	echo "$name ($ver-$rev) unstable; urgency=medium"
	echo
	echo "fuse-backport $ver built for Linux $kver (base $base, module version $modver; $flavor flavor: $modules), by make kmod-deb." |
		fold -s -w 72 | sed -e 's/ *$//' -e '1s/^/  * /' -e '2,$s/^/    /'
	echo
	echo " -- $maint  $(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%a, %d %b %Y %H:%M:%S +0000')"
} > "$work/changelog"
gzip -n -9 -c "$work/changelog" > "$root/usr/share/doc/$name/changelog.Debian.gz"

{
	echo "Package: $name"
	echo "Source: fuse-backport"
	echo "Version: $ver-$rev"
	echo "Architecture: $arch"
	echo "Maintainer: $maint"
	echo "Installed-Size: $(du -sk "$root" | cut -f1)"
	echo "Depends: linux-image-$kver | linux-image-$kver-unsigned, fuse-backport-modules-common (>= $ver-$rev)"
	echo "Recommends: fuse-backport-tools"
	echo "Conflicts: fuse-backport-dkms"
	echo "Provides: fuse-backport-modules (= $ver)"
	echo "Section: kernel"
	echo "Priority: optional"
	echo "Description: patched Linux FUSE module, prebuilt for Linux $kver"
	echo "fuse-backport $ver (base $base, module version $modver; $flavor flavor: $modules) built for the kernel $kver," \
		"for machines that have no compiler or kernel headers. The modules are in" \
		"/lib/modules/$kver/updates/fuse-backport/${signer:+; the certificate that signed them is $signer}. Use this package or" \
		"fuse-backport-dkms on a machine, not both." | fold -s -w 78 | sed -e 's/ *$//' -e 's/^/ /'
} > "$root/DEBIAN/control"
# Not a package for the Debian archive: there is no ITP bug to close.
mkdir -p "$root/usr/share/lintian/overrides"
echo "$name: initial-upload-closes-no-bugs" > "$root/usr/share/lintian/overrides/$name"
# One kernel's module set: depmod for that kernel only, while it is there.
# Signed modules: the postinst asks scripts/secureboot.sh (of
# fuse-backport-modules-common) whether Secure Boot trusts their signer,
# and where it does not, says in one line what happens and what to do.
# What does happen: the drop-in's modules have the kernel's own as twins,
# which modprobe's fallback (fuse-backport-modules-common) loads instead;
# the renamed flavor's have none.
if [ "$flavor" = dropin ]; then
	what="our $(echo "$modules" | sed 's/ /, /g')"
	instead="modprobe then loads the kernel's own"
else
	what=$modules
	instead="the kernel's built-in FUSE then serves alone"
fi
# The initramfs: after depmod, in postinst and postrm, an
# image of this kernel whose fuse.ko is not the one modprobe loads now is
# made again (scripts/initramfs.sh, of fuse-backport-modules-common), as
# fuse-backport-dkms does; one line each. The postrm runs it only while the
# common package is still there (it is removed after this one).
cat > "$root/DEBIAN/postinst" << EOF
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
	if [ -d /lib/modules/$kver/kernel ]; then
		depmod -a $kver
		sh /usr/libexec/fuse-backport/initramfs $name $kver || true
	fi
EOF
[ -z "$signer" ] || cat >> "$root/DEBIAN/postinst" << EOF
	fb_rc=0
	fb_sb=\$(sh /usr/libexec/fuse-backport/secureboot $signer "they load from that boot on") || fb_rc=\$?
	case \$fb_rc in
	0) ;;
	1) echo "$name: $what will not load on $kver, $instead: \${fb_sb#*: }" ;;
	*) echo "$name: $what may not load on $kver, $instead: \${fb_sb#*: }" ;;
	esac
EOF
echo 'fi' >> "$root/DEBIAN/postinst"
cat > "$root/DEBIAN/postrm" << EOF
#!/bin/sh
set -e
if [ "\$1" = remove ]; then
	if [ -d /lib/modules/$kver/kernel ]; then
		depmod -a $kver
		if [ -f /usr/libexec/fuse-backport/initramfs ]; then
			sh /usr/libexec/fuse-backport/initramfs $name $kver || true
		fi
	fi
elif [ "\$1" = purge ]; then
	if [ -d /lib/modules/$kver/kernel ]; then
		depmod -a $kver
	fi
fi
EOF
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/postrm"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort |
	xargs md5sum) > "$work/md5sums"
mv "$work/md5sums" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb=$out/${name}_$ver-${rev}_$arch.deb
# Every mtime is SOURCE_DATE_EPOCH: dpkg-deb only clamps the later ones, so
# a changelog dated after the build would leave the build's own times.
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" > /dev/null
echo "kmod-deb: $deb:$files"

# fuse-backport-modules-common: the same bytes whatever the kernel (nothing
# of it comes from KVER), so that a repository takes it from any kernel's
# build. The files are those debian/rules installs in fuse-backport-dkms.
cname=fuse-backport-modules-common
croot=$work/common
mkdir -p "$croot/DEBIAN" "$croot/usr/share/doc/$cname" "$croot/usr/share/lintian/overrides"
install -D -m 644 "$top/scripts/fuse-backport.modprobe.conf" "$croot/usr/lib/modprobe.d/fuse-backport.conf"
install -D -m 755 "$top/scripts/modprobe-stock.sh" "$croot/usr/libexec/fuse-backport/modprobe-stock"
install -D -m 755 "$top/scripts/when-ahead.sh" "$croot/usr/libexec/fuse-backport/when-ahead"
install -D -m 755 "$top/scripts/secureboot.sh" "$croot/usr/libexec/fuse-backport/secureboot"
install -D -m 755 "$top/scripts/initramfs.sh" "$croot/usr/libexec/fuse-backport/initramfs"
install -D -m 644 "$top/scripts/fuse-backport.modules-load.conf" "$croot/usr/lib/modules-load.d/fuse-backport.conf"
install -D -m 644 "$top/scripts/fuse-backport-boot.modprobe.conf" "$croot/usr/lib/modprobe.d/fuse-backport-boot.conf"
install -D -m 755 "$top/scripts/load-renamed.sh" "$croot/usr/libexec/fuse-backport/load-renamed"
install -D -m 755 "$top/scripts/prefix.sh" "$croot/usr/libexec/fuse-backport/prefix"
cp "$top/debian/copyright" "$croot/usr/share/doc/$cname/copyright"
{
	echo "$cname ($ver-$rev) unstable; urgency=medium"
	echo
	echo "fuse-backport $ver: modprobe's fallback to the kernel's own FUSE modules and the Secure Boot check of the prebuilt modules, by make kmod-deb." |
		fold -s -w 72 | sed -e 's/ *$//' -e '1s/^/  * /' -e '2,$s/^/    /'
	echo
	echo " -- $maint  $(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%a, %d %b %Y %H:%M:%S +0000')"
} | gzip -n -9 > "$croot/usr/share/doc/$cname/changelog.Debian.gz"
echo "$cname: initial-upload-closes-no-bugs" > "$croot/usr/share/lintian/overrides/$cname"
{
	echo "Package: $cname"
	echo "Source: fuse-backport"
	echo "Version: $ver-$rev"
	echo "Architecture: all"
	echo "Maintainer: $maint"
	echo "Installed-Size: $(du -sk "$croot" | cut -f1)"
	echo "Depends: kmod"
	echo "Suggests: mokutil"
	echo "Conflicts: fuse-backport-dkms"
	echo "Section: kernel"
	echo "Priority: optional"
	echo "Description: patched Linux FUSE module, prebuilt: what every kernel's package shares"
	echo "The part of the fuse-backport-modules-KVER packages that a host needs once," \
		"whatever its kernels: where our fuse, cuse or virtiofs cannot load (a" \
		"signature the kernel rejects: Secure Boot, lockdown, module.sig_enforce)," \
		"modprobe loads the kernel's own module instead and says so in the kernel log" \
		"(/usr/lib/modprobe.d/fuse-backport.conf); the Secure Boot check their" \
		"postinst runs (mokutil --test-key on the certificate that signed them);" \
		"and the initramfs check their postinst and postrm run (an image holding" \
		"another fuse.ko than modprobe loads is made again); and the renamed" \
		"module's load at boot (fusebp, where FUSE is built into the kernel:" \
		"/usr/lib/modules-load.d/fuse-backport.conf)." |
		fold -s -w 78 | sed -e 's/ *$//' -e 's/^/ /'
} > "$croot/DEBIAN/control"
(cd "$croot" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort |
	xargs md5sum) > "$work/md5sums"
mv "$work/md5sums" "$croot/DEBIAN/md5sums"
cdeb=$out/${cname}_$ver-${rev}_all.deb
find "$croot" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Zxz --build "$croot" "$cdeb" > /dev/null
echo "kmod-deb: $cdeb"

# The meta package of the flavour: "6.1.0-57-cloud-amd64" -> cloud-amd64,
# "6.12.95+deb12-amd64" -> amd64.
flavour=$(echo "$kver" | sed 's/^[0-9][^-]*-\([0-9][0-9]*-\)\{0,1\}//')
kpv=$(dpkg-query -W -f '${Version}' "linux-headers-$kver" 2> /dev/null) ||
	kpv=$(echo "$kver" | sed 's/^\([0-9][0-9.]*\).*/\1/')
case $kpv in *-*) ;; *) kpv=$kpv-0 ;; esac
if [ -n "$flavour" ] && [ "$flavour" != "$kver" ]; then
	mname=fuse-backport-modules-$flavour
	mroot=$work/meta
	mkdir -p "$mroot/DEBIAN" "$mroot/usr/share/doc/$mname" "$mroot/usr/share/lintian/overrides"
	cp "$top/debian/copyright" "$mroot/usr/share/doc/$mname/copyright"
	sed "1s/^$name ($ver-$rev)/$mname ($kpv+$ver-$rev)/" "$work/changelog" |
		gzip -n -9 > "$mroot/usr/share/doc/$mname/changelog.Debian.gz"
	echo "$mname: initial-upload-closes-no-bugs" > "$mroot/usr/share/lintian/overrides/$mname"
	{
		echo "Package: $mname"
		echo "Source: fuse-backport"
		echo "Version: $kpv+$ver-$rev"
		echo "Architecture: $arch"
		echo "Maintainer: $maint"
		echo "Installed-Size: $(du -sk "$mroot" | cut -f1)"
		echo "Depends: $name (= $ver-$rev)"
		echo "Recommends: linux-image-$flavour"
		echo "Section: kernel"
		echo "Priority: optional"
		echo "Description: patched Linux FUSE module for the latest $flavour kernel (meta package)"
		echo "Depends on the fuse-backport modules built for the newest $flavour kernel," \
			"now $kver, and follows it on kernel upgrades as linux-image-$flavour" \
			"does." | fold -s -w 78 | sed -e 's/ *$//' -e 's/^/ /'
	} > "$mroot/DEBIAN/control"
	(cd "$mroot" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort |
		xargs md5sum) > "$work/md5sums"
	mv "$work/md5sums" "$mroot/DEBIAN/md5sums"
	mdeb=$out/${mname}_$kpv+$ver-${rev}_$arch.deb
	find "$mroot" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	dpkg-deb --root-owner-group -Zxz --build "$mroot" "$mdeb" > /dev/null
	echo "kmod-deb: $mdeb"
fi
