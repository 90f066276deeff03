#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Secure Boot: can a module signed by DKMS's key load on this machine?
# The package ships this in /usr/src/fuse-backport-<ver>/scripts/; dkms.conf
# asks it before it makes our fuse.ko the one modprobe picks (drop-in
# flavor), and `fuse-backport status` or an operator can ask it too.
#
# The prebuilt-module packages (dev/kmod-deb.sh) ship it too, as
# /usr/libexec/fuse-backport/secureboot in fuse-backport-modules-common:
# their postinst asks it about the certificate that signed their modules.
#
# usage: scripts/secureboot.sh [CERT [THEN]]
#   CERT: the signing certificate (DER or PEM); default: FB_SB_CERT, else
#   mok_certificate of /etc/dkms/framework.conf(.d), else /var/lib/dkms/mok.pub
#   THEN: what the operator does once CERT is enrolled, in the advice;
#   default: dpkg-reconfigure fuse-backport-dkms (DKMS builds afresh)
# prints one line, "STATE: explanation", and exits:
#   0 off          Secure Boot is off (or not an EFI machine): any module loads
#   0 enrolled     on, and CERT is enrolled (mokutil --test-key)
#   1 not-enrolled on, CERT is not enrolled (or only pending: reboot to enrol)
#   1 no-key       on, and there is no CERT yet
#   2 unknown      on, but it cannot tell (no mokutil): treat as not loadable
# Decided by `mokutil --sb-state` and `mokutil --test-key CERT`; without
# mokutil, the SecureBoot EFI variable says whether it is on.
set -u

cert=${1:-${FB_SB_CERT:-}}
if [ -z "$cert" ]; then
	cert=$(cat /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf 2> /dev/null |
		sed -n 's/^[[:space:]]*mok_certificate=["'\'']\{0,1\}\([^"'\'']*\).*/\1/p' | tail -n 1)
	cert=${cert:-/var/lib/dkms/mok.pub}
fi
then=${2:-dpkg-reconfigure fuse-backport-dkms (rpm: dnf reinstall fuse-backport-dkms)}
enrol="mokutil --import $cert, reboot and confirm the enrolment in the firmware's MOK manager, then $then"

if command -v mokutil > /dev/null 2>&1; then
	sb=$(mokutil --sb-state 2>&1)
	case $sb in
	*"SecureBoot enabled"*) ;;
	*"SecureBoot disabled"* | *"doesn't support Secure Boot"* | *"not supported"*)
		echo "off: $(echo "$sb" | head -n 1)"
		exit 0
		;;
	*)
		echo "unknown: mokutil --sb-state said: $(echo "$sb" | head -n 1)"
		exit 2
		;;
	esac
else
	v=""
	for f in /sys/firmware/efi/efivars/SecureBoot-*; do
		[ -f "$f" ] && v=$f
	done
	if [ ! -d /sys/firmware/efi ] || [ -z "$v" ]; then
		echo "off: not booted with EFI Secure Boot"
		exit 0
	fi
	# 4 bytes of attributes, then the value.
	if [ "$(od -An -t u1 -j 4 -N 1 "$v" 2> /dev/null | tr -d ' ')" != 1 ]; then
		echo "off: SecureBoot disabled (EFI variable)"
		exit 0
	fi
	echo "unknown: Secure Boot is on and mokutil is not installed: cannot tell whether $cert is enrolled (apt install mokutil)"
	exit 2
fi

if [ ! -f "$cert" ]; then
	echo "no-key: Secure Boot is on and there is no signing certificate $cert yet: create DKMS's key (dkms generate_mok on dkms >= 3.1, or build any DKMS module), then $enrol"
	exit 1
fi
t=$(mokutil --test-key "$cert" 2>&1)
case $t in
*"is already enrolled"*)
	echo "enrolled: Secure Boot is on and $cert is enrolled"
	exit 0
	;;
*"already in the enrollment request"*)
	echo "not-enrolled: Secure Boot is on and $cert awaits enrolment: reboot and confirm it in the firmware's MOK manager, then $then"
	exit 1
	;;
*"is not enrolled"*)
	echo "not-enrolled: Secure Boot is on and $cert is not enrolled: $enrol"
	exit 1
	;;
esac
echo "unknown: mokutil --test-key $cert said: $(echo "$t" | head -n 1)"
exit 2
