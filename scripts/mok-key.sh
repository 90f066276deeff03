#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Secure Boot on and no DKMS signing key: make DKMS's key, once.
#
# dkms 3.0.10 (Debian 12) makes /var/lib/dkms/mok.key and mok.pub only
# while it signs a module, and has no generate_mok. dkms.conf builds no
# drop-in while Secure Boot is on and DKMS's certificate is not enrolled
# (scripts/secureboot.sh), so on a host with no other DKMS module nothing
# was ever signed, the key never came, and the enrolment our lines ask for
# (mokutil --import /var/lib/dkms/mok.pub) named a missing file.
# The package's postinst runs this before its builds (shipped in
# /usr/src/fuse-backport-<ver>/scripts/): where Secure Boot is on and the
# certificate DKMS signs with is its default one and missing, it makes the
# pair as dkms does (`dkms generate_mok` where dkms has it, else dkms
# 3.0.10's own command: openssl, RSA 2048, 36500 days, CN=DKMS module
# signing key) and says in one line how to enrol it. A certificate named in
# /etc/dkms/framework.conf(.d) is the admin's: never made here.
#
# usage: scripts/mok-key.sh TAG
# environment (tests): FB_MOK_DIR (default /var/lib/dkms)
# exit: 0 (made, or nothing to do); 1 it could not be made (one line)
set -u

tag=${1:?usage: mok-key.sh TAG}
dir=${FB_MOK_DIR:-/var/lib/dkms}
key=$dir/mok.key
cert=$dir/mok.pub

conf=$(cat /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf 2> /dev/null |
	sed -n 's/^[[:space:]]*mok_\(certificate\|signing_key\)=.*/x/p')
[ -z "$conf" ] || exit 0
[ -f "$cert" ] && [ -f "$key" ] && exit 0
sb=$(sh "$(dirname "$0")/secureboot.sh" "$cert" 2> /dev/null)
case $sb in
no-key:*) ;;
*) exit 0 ;;
esac
# dkms generate_mok (dkms >= 3.1) makes the default pair in /var/lib/dkms
if [ "$dir" = /var/lib/dkms ] && grep -q 'generate_mok' "$(command -v dkms 2> /dev/null || echo /nonexistent)" 2> /dev/null; then
	dkms generate_mok > /dev/null 2>&1
else
	mkdir -p "$dir" &&
		(umask 077 && openssl req -new -x509 -nodes -days 36500 -subj "/CN=DKMS module signing key" \
			-newkey rsa:2048 -keyout "$key" -outform DER -out "$cert") > /dev/null 2>&1
fi
if [ ! -s "$key" ] || [ ! -s "$cert" ]; then
	echo "$tag: Secure Boot is on and DKMS has no signing key; making one ($key) failed: our modules cannot be signed (is openssl installed?)" >&2
	exit 1
fi
chmod 644 "$cert"
echo "$tag: Secure Boot is on and DKMS had no signing key: made $key and $cert; enrol it: mokutil --import $cert, reboot and confirm the enrolment in the firmware's MOK manager, then dpkg-reconfigure $tag (rpm: dnf reinstall $tag)"
exit 0
