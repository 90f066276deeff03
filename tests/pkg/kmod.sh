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
# Secure Boot: the package carries the certificate that signed
# its modules (DER, nothing else) and depends on fuse-backport-modules-common,
# which ships modprobe's fallback, scripts/secureboot.sh, initramfs.sh and
# the renamed module's load at boot as the DKMS package does (the same
# files; the load run by systemd-modules-load here, pt_boot_load); with mokutil faked on PATH
# (tests/pkg/fixtures/mokutil.sh: mokutil's own words and exit statuses),
# the postinst says in one line that ours will not load where Secure Boot
# is on and the signer is not enrolled (or only pending), apt still exits
# 0, and it stays silent where the signer is enrolled or Secure Boot is
# off; every module of the drop-in flavor has the fallback to the kernel's
# own. Not shown: a real firmware, the module refused at load time (the
# fallback's loading is pkg-fallback's, with the DKMS package).
# The initramfs (tests/pkg/kmod/initramfs.sh): on a fake
# drop-in kernel whose image and headers are packages, an initramfs made
# with fuse3's hook holds the kernel's own fuse.ko; after apt install of the
# drop-in kmod package for it, ours (lsinitramfs), one line of its postinst
# saying so; after apt purge, the kernel's own again, one line of its
# postrm.
#
# usage: tests/pkg/kmod.sh [KVER]      (default 6.12.95+deb12-amd64)
tap_suite="pkg-kmod"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"

kver=${1:-6.12.95+deb12-amd64}
pkg=fuse-backport-modules-$kver

common=fuse-backport-modules-common
# shellcheck source=tests/pkg/kmod/initramfs.sh
. "$top/tests/pkg/kmod/initramfs.sh"

pt_cleanup() {
	ir_cleanup
	for p in "$pkg" "$common"; do
		if [ "$(pt_deb_state "$p")" != not-installed ]; then
			DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$p" > /dev/null 2>&1 ||
				dpkg --purge --force-all "$p" > /dev/null 2>&1
		fi
	done
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

# The certificate that signed the modules, for mokutil --test-key: exactly
# the DKMS MOK's certificate, as DER (no key can hide in it), whose CN the
# signature names.
sigd=0
grep -qx 'CONFIG_MODULE_SIG=y' "/lib/modules/$kver/build/.config" && sigd=1
crt=/usr/share/$pkg/signer.der
if [ $sigd = 1 ]; then
	openssl x509 -inform DER -in /var/lib/dkms/mok.pub -outform DER 2> /dev/null | cmp -s - "$pt_tmp/x$crt" &&
		[ "$(pt_cn "$pt_tmp/x$crt")" = "$(modinfo -F signer "$pt_tmp/x$rel$comp" 2> /dev/null)" ]
	tap_check $? "ships the certificate that signed its modules, DER and nothing else: $crt (CN $(pt_cn "$pt_tmp/x$crt" 2> /dev/null))"
else
	tap_skip "ships the signer's certificate" "CONFIG_MODULE_SIG is not set for $kver: nothing signed"
fi

# fuse-backport-modules-common: the DKMS package's files (scripts/), the
# same bytes; every modules package depends on it.
cdeb=$pt_tmp/out/${common}_$ver-1_all.deb
rc=1
if [ -f "$cdeb" ]; then
	rm -rf "$pt_tmp/c"
	dpkg-deb -x "$cdeb" "$pt_tmp/c"
	cmp -s scripts/fuse-backport.modprobe.conf "$pt_tmp/c/usr/lib/modprobe.d/fuse-backport.conf" &&
		cmp -s scripts/modprobe-stock.sh "$pt_tmp/c/usr/libexec/fuse-backport/modprobe-stock" &&
		cmp -s scripts/secureboot.sh "$pt_tmp/c/usr/libexec/fuse-backport/secureboot" &&
		cmp -s scripts/initramfs.sh "$pt_tmp/c/usr/libexec/fuse-backport/initramfs" &&
		[ -x "$pt_tmp/c/usr/libexec/fuse-backport/modprobe-stock" ] && [ -x "$pt_tmp/c/usr/libexec/fuse-backport/secureboot" ] &&
		[ -x "$pt_tmp/c/usr/libexec/fuse-backport/initramfs" ] &&
		dpkg-deb -f "$deb" Depends | grep -q "$common (>= $ver-1)" &&
		{ ! command -v lintian > /dev/null || lintian --fail-on error,warning "$cdeb" > "$pt_tmp/lintian-common.log" 2>&1; }
	rc=$?
fi
tap_check $rc "$common: modprobe's fallback (fuse, cuse, virtiofs), secureboot and initramfs, the files of scripts/ the DKMS package installs; lintian clean; $pkg depends on it"
[ $rc = 0 ] || pt_log "$pt_tmp/lintian-common.log"
# The renamed module's load at boot, as the DKMS
# package ships it: the same files, run by systemd-modules-load here.
if [ -f "$cdeb" ]; then
	pt_boot_load "$common" "$pt_tmp/c"
else
	tap_check 1 "$common: the renamed module's load at boot (no $cdeb)"
fi

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

# The install runs under the faked mokutil: Secure Boot on, the signer not
# enrolled, the exit statuses of Debian's mokutil.
mkdir -p "$pt_tmp/bin"
cp tests/pkg/fixtures/mokutil.sh "$pt_tmp/bin/mokutil"
chmod 755 "$pt_tmp/bin/mokutil"
# mok SB KEY EXIT CMD...: CMD with that mokutil first on PATH
mok() {
	mok_sb=$1 mok_key=$2 mok_exit=$3
	shift 3
	PATH="$pt_tmp/bin:$PATH" FB_MOKUTIL_SB=$mok_sb FB_MOKUTIL_KEY=$mok_key FB_MOKUTIL_EXIT=$mok_exit \
		FB_MOKUTIL_LOG=$pt_tmp/mokutil.log "$@"
}
debs=$deb
[ -f "$cdeb" ] && debs="$cdeb $deb"
# apt gives dpkg, and so the maintainer scripts, a PATH of its own
# (DPkg::Path, default /usr/sbin:/usr/bin:/sbin:/bin): the fake goes first
# in that one.
# shellcheck disable=SC2086 # the .debs
mok enabled not-enrolled debian env DEBIAN_FRONTEND=noninteractive \
	apt-get -o "DPkg::Path=$pt_tmp/bin:/usr/sbin:/usr/bin:/sbin:/bin" install -y -q $debs > "$pt_tmp/install.log" 2>&1
rc=$?
tap_check $rc "apt install exits 0"
[ $rc = 0 ] || pt_log "$pt_tmp/install.log"
# The postinst's line: exactly one, that ours will not load and why.
# nolines OUT: how many lines of OUT are the postinst's ($pkg: ...)
nolines() {
	printf '%s\n' "$1" | grep -c "^$pkg: "
}
if [ $sigd = 1 ]; then
	out=$(grep "^$pkg: " "$pt_tmp/install.log")
	[ $rc = 0 ] && [ "$(nolines "$out")" = 1 ] &&
		case $out in
		"$pkg: "*" will not load on $kver, "*"Secure Boot is on and $crt is not enrolled: mokutil --import $crt, reboot"*) true ;;
		*) false ;;
		esac &&
		grep -q -x -F -e "--test-key $crt" "$pt_tmp/mokutil.log"
	tap_check $? "Secure Boot on, the signer not enrolled (mokutil faked, Debian's exit statuses): the postinst says in one line that ours will not load and what to do; apt exits 0"
	tap_diag "${out:-no line from the postinst}"
else
	tap_skip "the postinst's Secure Boot line" "CONFIG_MODULE_SIG is not set for $kver"
fi
# modprobe's fallback is there with it, owned by the common package.
sc=$(modprobe --showconfig 2> /dev/null | grep -c "^install \(fuse\|cuse\|virtiofs\) /bin/sh -c 'test ! -e /usr/libexec/fuse-backport/modprobe-stock || exec /bin/sh /usr/libexec/fuse-backport/modprobe-stock \"\$0\" \"\$@\"; exec modprobe --ignore-install \"\$0\" \"\$@\"' \(fuse\|cuse\|virtiofs\) ")
[ "$sc" = 3 ] && [ -x /usr/libexec/fuse-backport/modprobe-stock ] &&
	[ "$(dpkg-query -S /usr/lib/modprobe.d/fuse-backport.conf 2> /dev/null | cut -d: -f1)" = "$common" ]
tap_check $? "installed with it ($common): modprobe --showconfig sends fuse, cuse and virtiofs through modprobe-stock ($sc of 3)"
# The other answers mokutil gives, to the installed postinst as dpkg runs it.
pi=/var/lib/dpkg/info/$pkg.postinst
if [ $sigd = 1 ] && [ -f "$pi" ]; then
	r1=0 r2=0
	o1=$(mok enabled not-enrolled upstream sh "$pi" configure "$ver-1" 2>&1) || r1=1
	o2=$(mok enabled pending debian sh "$pi" configure "$ver-1" 2>&1) || r2=1
	[ $((r1 + r2)) = 0 ] && [ "$(nolines "$o1")" = 1 ] && [ "$(nolines "$o2")" = 1 ] &&
		case $o1 in *" will not load on $kver, "*"$crt is not enrolled: mokutil --import $crt"*) true ;; *) false ;; esac &&
		case $o2 in *" will not load on $kver, "*"$crt awaits enrolment: reboot"*) true ;; *) false ;; esac
	tap_check $? "the postinst, Secure Boot on: not enrolled under upstream's exit statuses (reversed in 2025), the same line; enrolment pending, one line: reboot and confirm"
	tap_diag "$o2"
	: > "$pt_tmp/mokutil.log"
	r3=0 r4=0 r5=0
	o3=$(mok enabled enrolled debian sh "$pi" configure "$ver-1" 2>&1) || r3=1
	asked=$(grep -c -x -F -e "--test-key $crt" "$pt_tmp/mokutil.log")
	o4=$(mok disabled not-enrolled debian sh "$pi" configure "$ver-1" 2>&1) || r4=1
	o5=$(mok no-efi not-enrolled debian sh "$pi" configure "$ver-1" 2>&1) || r5=1
	[ $((r3 + r4 + r5)) = 0 ] && [ "$asked" = 1 ] && [ -z "$o3$o4$o5" ]
	tap_check $? "the postinst asks mokutil --test-key about $crt and says nothing where it is enrolled, where Secure Boot is off, where there is no EFI"
	[ -z "$o3$o4$o5" ] || tap_diag "$o3$o4$o5"
elif [ $sigd = 1 ]; then
	tap_check 1 "the postinst under mokutil's other answers: no $pi"
	tap_check 1 "the postinst asks mokutil --test-key about $crt: no $pi"
else
	tap_skip "the postinst under mokutil's other answers" "CONFIG_MODULE_SIG is not set for $kver"
	tap_skip "the postinst asks mokutil --test-key" "CONFIG_MODULE_SIG is not set for $kver"
fi
f=$(modinfo -k "$kver" -F filename fusebp 2> /dev/null)
mv=$(pt_modver "$kver")
[ "$f" = "$rel$comp" ] && [ "$(modinfo -F version "$f" 2> /dev/null)" = "$mv" ]
tap_check $? "depmod ran: modinfo -k $kver fusebp is ours, version $mv of package $ver (${f:-not found})"
if grep -qx 'CONFIG_MODULE_SIG=y' "/lib/modules/$kver/build/.config"; then
	s=$(modinfo -F signer "$rel$comp" 2> /dev/null)
	[ -n "$s" ] && [ "$s" = "$(pt_mok_cn)" ]
	tap_check $? "signed by the DKMS MOK (signer: ${s:-none})"
fi
purge=$pkg
[ "$(pt_deb_state "$common")" = not-installed ] || purge="$purge $common"
# shellcheck disable=SC2086 # the packages
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $purge > "$pt_tmp/remove.log" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -e "$rel$comp" ] && ! modinfo -k "$kver" fusebp > /dev/null 2>&1 &&
	[ "$(pt_deb_state "$pkg")" = not-installed ] && [ ! -e /usr/lib/modprobe.d/fuse-backport.conf ] &&
	[ ! -e "$crt" ]
tap_check $? "apt purge $purge: the module is gone and depmod forgot it; no certificate, no fallback left"

# The administrator's key. SIGN_CERT is a PEM file that holds the private
# key too, as the kernel's own certs/signing_key.pem does: the package gets
# the certificate alone.
openssl req -new -x509 -nodes -days 2 -subj "/CN=fuse-backport test signing key" \
	-newkey rsa:2048 -keyout "$pt_tmp/key.pem" -out "$pt_tmp/cert.pem" > /dev/null 2>&1
cat "$pt_tmp/key.pem" "$pt_tmp/cert.pem" > "$pt_tmp/signing_key.pem"
OUT=$pt_tmp/own SIGN_KEY=$pt_tmp/key.pem SIGN_CERT=$pt_tmp/signing_key.pem \
	sh dev/kmod-deb.sh "$kver" > "$pt_tmp/own.log" 2>&1
rc=$?
s=""
[ $rc = 0 ] && for m in $(unpack "$pt_tmp/own/${pkg}_$ver-1_$(dpkg --print-architecture).deb"); do
	s=$(modinfo -F signer "$m" 2> /dev/null)
done
[ "$s" = "fuse-backport test signing key" ]
tap_check $? "SIGN_KEY/SIGN_CERT (a PEM holding the key too): signed with the given key (signer: ${s:-none})"
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
		# Each drop-in module has a twin of the kernel's own, which
		# modprobe's fallback loads where ours cannot load: the common
		# package's file names every one, the package depends on it, and
		# the postinst's line names them.
		d61=$pt_tmp/k61/fuse-backport-modules-${k61}_$ver-1_$(dpkg --print-architecture).deb
		c61=$pt_tmp/k61/${common}_$ver-1_all.deb
		fb=1
		names=""
		if [ $rc = 0 ] && [ -f "$c61" ]; then
			rm -rf "$pt_tmp/c61"
			dpkg-deb -x "$c61" "$pt_tmp/c61"
			pl=$(dpkg-deb -I "$d61" postinst | grep "will not load on $k61, modprobe then loads the kernel's own")
			fb=0
			for m in $mods; do
				n=${m##*/}
				n=${n%%.ko*}
				names="$names $n"
				grep -q "^install $n /bin/sh -c '.*/usr/libexec/fuse-backport/modprobe-stock .*' $n " \
					"$pt_tmp/c61/usr/lib/modprobe.d/fuse-backport.conf" || fb=1
				case $pl in *" $n,"* | *" $n will not load"*) ;; *) fb=1 ;; esac
			done
			dpkg-deb -f "$d61" Depends | grep -q "$common (>= $ver-1)" || fb=1
		fi
		tap_check $fb "$k61 (drop-in): modprobe's fallback to the kernel's own for each of${names:- its modules} ($common, a dependency); the postinst's Secure Boot line names them"
	fi
else
	tap_skip "drop-in kmod .deb" "no 6.1 headers here"
fi

# The initramfs of a drop-in kernel under the kmod package
# (tests/pkg/kmod/initramfs.sh).
ir_run

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
