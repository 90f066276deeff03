#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prebuilt-module packages (make kmod-deb): for the renamed flavor on
# 6.12.95+deb12 a lintian-clean .deb with the signed, compressed fusebp.ko in
# /lib/modules/KVER/updates/fuse-backport/, depending on that kernel's image;
# apt install runs depmod (modinfo -k finds it, signed by the DKMS MOK),
# apt remove takes it away again. The administrator's own key
# (SIGN_KEY/SIGN_CERT) signs instead when given, and is in no package; the
# drop-in flavor on a 6.1 kernel; a kernel we do not serve stops with one
# line and exit status 3.
# The meta package fuse-backport-modules-FLAVOUR depends on the kernel's
# modules package; packaging is reproducible (SOURCE_DATE_EPOCH), shown by
# packaging again from the same build (the compile itself is not repeated).
#
# usage: tests/pkg/kmod.sh [KVER]      (default 6.12.95+deb12-amd64)
tap_suite="pkg-kmod"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"

kver=${1:-6.12.95+deb12-amd64}
pkg=fuse-backport-modules-$kver

pt_cleanup() {
	if [ "$(pt_deb_state "$pkg")" != not-installed ]; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$pkg" > /dev/null 2>&1 ||
			dpkg --purge --force-all "$pkg" > /dev/null 2>&1
	fi
}

pt_init "$pkg" dpkg-deb apt-get openssl
ver=$(pt_version)
if [ ! -f "/lib/modules/$kver/build/.config" ]; then
	tap_skip "$pkg" "no headers for $kver (linux-headers-$kver)"
	tap_done
	exit
fi
if [ "$(pt_deb_state fuse-backport-dkms)" != not-installed ]; then
	tap_skip "$pkg" "fuse-backport-dkms is installed here (the two conflict)"
	tap_done
	exit
fi
make -s import > "$pt_tmp/import.log" 2>&1 || pt_log "$pt_tmp/import.log"

# Modules of a .deb, unpacked: "path path..."
unpack() {
	rm -rf "$pt_tmp/x"
	dpkg-deb -x "$1" "$pt_tmp/x"
	find "$pt_tmp/x/lib/modules" -name '*.ko*' | sort | tr '\n' ' '
}

OUT=$pt_tmp/out sh dev/kmod-deb.sh "$kver" > "$pt_tmp/build.log" 2>&1
rc=$?
deb=$pt_tmp/out/${pkg}_$ver-1_$(dpkg --print-architecture).deb
[ $rc = 0 ] && [ -f "$deb" ]
tap_check $? "make kmod-deb KVER=$kver: $(basename "$deb")"
[ $rc = 0 ] || pt_log "$pt_tmp/build.log" 15
if [ ! -f "$deb" ]; then
	tap_done
	exit
fi
if command -v lintian > /dev/null; then
	lintian --fail-on error,warning "$deb" > "$pt_tmp/lintian.log" 2>&1
	rc=$?
	tap_check $rc "lintian clean"
	[ $rc = 0 ] || pt_log "$pt_tmp/lintian.log"
else
	tap_skip "lintian clean" "no lintian"
fi
deps=$(dpkg-deb -f "$deb" Depends)
echo "$deps" | grep -q "^linux-image-$kver\( \|$\)"
tap_check $? "depends on the image of that kernel: $deps"
dpkg-deb -I "$deb" postinst | grep -q "depmod -a $kver" && dpkg-deb -I "$deb" postrm | grep -q "depmod -a $kver"
tap_check $? "postinst and postrm run depmod for $kver"
mods=$(unpack "$deb")
rel=/lib/modules/$kver/updates/fuse-backport/fusebp.ko
case $mods in
*"$rel"*) rc=0 ;;
*) rc=1 ;;
esac
tap_check $rc "ships $(echo "${mods:-nothing}" | sed "s|$pt_tmp/x||g")"
comp=""
grep -qx 'CONFIG_MODULE_COMPRESS_XZ=y' "/lib/modules/$kver/build/.config" && comp=.xz
[ -f "$pt_tmp/x$rel$comp" ]
tap_check $? "compressed as the kernel does its own (fusebp.ko$comp)"

# The flavour's meta package, and the same bytes again from the same inputs.
flavour=$(echo "$kver" | sed 's/^[0-9][^-]*-\([0-9][0-9]*-\)\{0,1\}//')
meta=""
for f in "$pt_tmp/out/fuse-backport-modules-${flavour}_"*.deb; do
	[ -f "$f" ] && meta=$f
done
[ -n "$meta" ] && [ "$(dpkg-deb -f "$meta" Depends)" = "$pkg (= $ver-1)" ] &&
	dpkg-deb -f "$deb" Provides | grep -q '^fuse-backport-modules (= ' &&
	lintian --fail-on error,warning "$meta" > "$pt_tmp/lintian-meta.log" 2>&1
tap_check $? "meta package fuse-backport-modules-$flavour $(dpkg-deb -f "$meta" Version 2> /dev/null): Depends $pkg (= $ver-1), lintian clean; $pkg Provides fuse-backport-modules"
mkdir -p "$pt_tmp/first"
cp "$pt_tmp"/out/*.deb "$pt_tmp/first/"
sleep 1
OUT=$pt_tmp/out sh dev/kmod-deb.sh "$kver" > "$pt_tmp/build2.log" 2>&1
same=0
for f in "$pt_tmp"/first/*.deb; do
	cmp -s "$f" "$pt_tmp/out/${f##*/}" || same=1
done
dpkg-deb --fsys-tarfile "$deb" | tar -tvf - | grep -q -v "$(LC_ALL=C date -u -d "@$(dpkg-parsechangelog -S Timestamp)" '+%Y-%m-%d')" && same=1
tap_check $same "reproducible packaging: a second make kmod-deb (kbuild had nothing to redo) gives the same bytes; every mtime is SOURCE_DATE_EPOCH (debian/changelog's date)"

DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" > "$pt_tmp/install.log" 2>&1
rc=$?
tap_check $rc "apt install exits 0"
[ $rc = 0 ] || pt_log "$pt_tmp/install.log"
f=$(modinfo -k "$kver" -F filename fusebp 2> /dev/null)
mv=$(pt_modver "$kver")
[ "$f" = "$rel$comp" ] && [ "$(modinfo -F version "$f" 2> /dev/null)" = "$mv" ]
tap_check $? "depmod ran: modinfo -k $kver fusebp is ours, version $mv of package $ver (${f:-not found})"
if grep -qx 'CONFIG_MODULE_SIG=y' "/lib/modules/$kver/build/.config"; then
	s=$(modinfo -F signer "$rel$comp" 2> /dev/null)
	[ -n "$s" ] && [ "$s" = "$(pt_mok_cn)" ]
	tap_check $? "signed by the DKMS MOK (signer: ${s:-none})"
fi
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$pkg" > "$pt_tmp/remove.log" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -e "$rel$comp" ] && ! modinfo -k "$kver" fusebp > /dev/null 2>&1 &&
	[ "$(pt_deb_state "$pkg")" = not-installed ]
tap_check $? "apt purge: the module is gone and depmod forgot it"

# The administrator's key.
openssl req -new -x509 -nodes -days 2 -subj "/CN=fuse-backport test signing key" \
	-newkey rsa:2048 -keyout "$pt_tmp/key.pem" -outform DER -out "$pt_tmp/cert.der" > /dev/null 2>&1
OUT=$pt_tmp/own SIGN_KEY=$pt_tmp/key.pem SIGN_CERT=$pt_tmp/cert.der \
	sh dev/kmod-deb.sh "$kver" > "$pt_tmp/own.log" 2>&1
rc=$?
s=""
[ $rc = 0 ] && for m in $(unpack "$pt_tmp/own/${pkg}_$ver-1_$(dpkg --print-architecture).deb"); do
	s=$(modinfo -F signer "$m" 2> /dev/null)
done
[ "$s" = "fuse-backport test signing key" ]
tap_check $? "SIGN_KEY/SIGN_CERT: signed with the given key (signer: ${s:-none})"
[ $rc = 0 ] || pt_log "$pt_tmp/own.log"
# The key stays where the packages are built: no file of either package
# holds it (or any PEM private key), nor is one named like a key.
leak=""
for f in "$pt_tmp"/own/*.deb; do
	[ -f "$f" ] || continue
	dpkg-deb --fsys-tarfile "$f" | tar -xOf - | grep -a -q -e 'PRIVATE KEY-----' -e "$(sed -n 2p "$pt_tmp/key.pem")" &&
		leak="$leak ${f##*/}"
	dpkg-deb -c "$f" | grep -E -q '\.(key|pem|priv|p8|p12)$' && leak="$leak ${f##*/}(name)"
done
[ $rc = 0 ] && [ -z "$leak" ]
tap_check $? "no private key in the packages built with SIGN_KEY${leak:+:$leak}"

# The drop-in flavor: the first 6.1 kernel with headers.
k61=""
for d in /lib/modules/6.1.*; do
	[ -f "$d/build/.config" ] && k61=${d##*/} && break
done
if [ -n "$k61" ]; then
	OUT=$pt_tmp/k61 sh dev/kmod-deb.sh "$k61" > "$pt_tmp/k61.log" 2>&1
	rc=$?
	if [ $rc = 3 ]; then
		tap_skip "$k61: drop-in kmod .deb" "$(grep '^fuse-backport:' "$pt_tmp/k61.log" | tail -n 1)"
	else
		mods=$(unpack "$pt_tmp/k61/fuse-backport-modules-${k61}_$ver-1_$(dpkg --print-architecture).deb" 2> /dev/null)
		signed=0
		for m in $mods; do
			if [ "$(modinfo -F flavor "$m" 2> /dev/null)" != dropin ] ||
			   [ "$(modinfo -F signer "$m" 2> /dev/null)" != "$(pt_mok_cn)" ]; then
				signed=1
			fi
		done
		case $mods in
		*/updates/fuse-backport/fuse.ko*) ;;
		*) signed=1 ;;
		esac
		tap_check $((rc + signed)) "$k61: drop-in kmod .deb with signed $(echo "$mods" | sed 's|[^ ]*/||g')"
		[ $rc = 0 ] || pt_log "$pt_tmp/k61.log"
	fi
else
	tap_skip "drop-in kmod .deb" "no 6.1 headers here"
fi

# A kernel we do not serve: fake headers of 7.4 (outside every base), in the scratch directory only.
mkdir -p "$pt_tmp/h7/include"
printf 'VERSION = 7\nPATCHLEVEL = 4\n' > "$pt_tmp/h7/Makefile"
printf 'CONFIG_FUSE_FS=y\n' > "$pt_tmp/h7/.config"
OUT=$pt_tmp/h7out sh dev/kmod-deb.sh 7.4.0-fake "$pt_tmp/h7" > "$pt_tmp/h7.log" 2>&1
rc=$?
debs=$(find "$pt_tmp/h7out" -name '*.deb' 2> /dev/null)
[ $rc = 3 ] && [ "$(wc -l < "$pt_tmp/h7.log")" = 1 ] && grep -q 'outside every base' "$pt_tmp/h7.log" && [ -z "$debs" ]
tap_check $? "7.4.0-fake: exit $rc, one line: $(head -n 1 "$pt_tmp/h7.log")"

tap_done
