#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Secure Boot decision (scripts/secureboot.sh, and dkms.conf acting on it)
# with mokutil FAKED by a PATH stub: this machine has no Secure Boot, and
# what mokutil prints is all the decision reads. Shown: the answer and exit
# status for each state mokutil reports; dkms.conf, read as dkms reads it,
# leaves a drop-in kernel to the stock module when Secure Boot is on and the
# key is not enrolled (and says what to do), builds it when the key is
# enrolled, and leaves the renamed flavor alone; as root, `dkms build` of a
# drop-in kernel under that stub is a BUILD_EXCLUSIVE skip (status 77) with
# our line, nothing installed; the postinst's scripts/mok-key.sh makes
# DKMS's key once where Secure Boot is on and there is none, and nothing
# where it is off. Not shown: a real firmware, a real MOK
# enrolment, the EFI-variable path used without mokutil.
#
# usage: tests/pkg/secureboot.sh
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tap_suite="pkg-secureboot"
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-sb.XXXXXX")
dkms_added=""
cleanup() {
	if [ -n "$dkms_added" ]; then
		dkms remove -m fuse-backport -v "$dkms_added" --all > /dev/null 2>&1
		rm -rf "/usr/src/fuse-backport-$dkms_added"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The stub: what `mokutil --sb-state` and `--test-key` print comes from
# $FB_STUB_SB and $FB_STUB_KEY.
mkdir -p "$tmp/bin"
cat > "$tmp/bin/mokutil" << 'EOF'
#!/bin/sh
case $1 in
--sb-state) printf '%s\n' "$FB_STUB_SB"; [ "$FB_STUB_SB" = "SecureBoot enabled" ] || [ "$FB_STUB_SB" = "SecureBoot disabled" ] ;;
--test-key) printf '%s\n' "$FB_STUB_KEY" | sed "s|CERT|$2|" ;;
*) exit 1 ;;
esac
EOF
chmod 755 "$tmp/bin/mokutil"
cert=$tmp/mok.pub
: > "$cert"

# stubbed SB KEY CMD...: CMD under the stub (and FB_SB_CERT, when set).
stubbed() {
	sb_state=$1 sb_key=$2
	shift 2
	PATH="$tmp/bin:$PATH" FB_STUB_SB=$sb_state FB_STUB_KEY=$sb_key "$@"
}
# sb SB KEY CERT: run the decision under the stub; $out, $rc.
sb() {
	out=$(stubbed "$1" "$2" sh scripts/secureboot.sh "$3")
	rc=$?
}
# sb_case SB KEY CERT RC PATTERN DESC: the answer is RC and matches PATTERN.
sb_case() {
	sb "$1" "$2" "$3"
	# shellcheck disable=SC2254 # PATTERN is a pattern
	[ $rc = "$4" ] && case $out in $5) true ;; *) false ;; esac
	tap_check $? "$6"
}
on="SecureBoot enabled"
sb_case "SecureBoot disabled" "" "$cert" 0 'off:*' "SecureBoot disabled: off, exit 0"
tap_diag "$out"
sb_case "This system doesn't support Secure Boot" "" "$cert" 0 'off:*' "no Secure Boot support: off, exit 0"
sb_case "$on" "CERT is already enrolled" "$cert" 0 'enrolled:*' "enabled, key enrolled: enrolled, exit 0"
sb_case "$on" "CERT is not enrolled" "$cert" 1 "not-enrolled:*mokutil --import $cert*dpkg-reconfigure*" \
	"enabled, key not enrolled: not-enrolled, exit 1, says to import it and reconfigure"
tap_diag "$out"
sb_case "$on" "CERT is already in the enrollment request" "$cert" 1 'not-enrolled:*reboot*' \
	"enabled, enrolment pending: not-enrolled, exit 1, says reboot"
sb_case "$on" "" "$tmp/none.der" 1 'no-key:*' "enabled, no certificate yet: no-key, exit 1"
sb_case "EFI variables are not supported on this system" "" "$cert" 0 'off:*' "not an EFI machine: off, exit 0"
sb_case "Failed to read SecureBoot" "" "$cert" 2 'unknown:*' "mokutil cannot read the state: unknown, exit 2"
FB_SB_CERT=$cert sb "$on" "CERT is not enrolled" ""
case $out in *"$cert"*) r=0 ;; *) r=1 ;; esac
tap_check $r "FB_SB_CERT names the certificate"

# DKMS's key made by the postinst (scripts/mok-key.sh) where Secure Boot is
# on and there is none: in a directory of the test's (FB_MOK_DIR), with a
# dkms stub that has no generate_mok (Debian 12's 3.0.10), and openssl.
# mk SB DIR: the script run under the stub; $out, $rc.
mkdir -p "$tmp/dbin"
printf '#!/bin/sh\nexit 0\n' > "$tmp/dbin/dkms"
chmod 755 "$tmp/dbin/dkms"
mk() {
	out=$(PATH="$tmp/dbin:$PATH" FB_MOK_DIR=$2 stubbed "$1" "" sh scripts/mok-key.sh fuse-backport-dkms 2>&1)
	rc=$?
}
if cat /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf 2> /dev/null |
	grep -q '^[[:space:]]*mok_\(certificate\|signing_key\)='; then
	tap_skip "mok-key: DKMS's key made under Secure Boot" "this host's /etc/dkms/framework.conf names its own key"
elif ! command -v openssl > /dev/null; then
	tap_skip "mok-key: DKMS's key made under Secure Boot" "no openssl"
else
	mk "$on" "$tmp/mok"
	subj=$(openssl x509 -inform DER -noout -subject -in "$tmp/mok/mok.pub" 2> /dev/null)
	bits=$(openssl rsa -noout -text -in "$tmp/mok/mok.key" 2> /dev/null | sed -n 's/.*Private-Key: (\([0-9]*\) bit.*/\1/p')
	[ $rc = 0 ] && [ "$(echo "$out" | grep -c .)" = 1 ] &&
		case $out in *"made $tmp/mok/mok.key and $tmp/mok/mok.pub; enrol it: mokutil --import $tmp/mok/mok.pub"*) true ;; *) false ;; esac &&
		case $subj in *"CN = DKMS module signing key"* | *"CN=DKMS module signing key"*) true ;; *) false ;; esac &&
		[ "$bits" = 2048 ] && [ "$(stat -c %a "$tmp/mok/mok.key")" = 600 ]
	tap_check $? "Secure Boot on, no key: mok.key (RSA $bits, mode $(stat -c %a "$tmp/mok/mok.key" 2> /dev/null)) and mok.pub (DER, $subj) made as dkms makes them, one line saying how to enrol"
	tap_diag "$out"
	sum=$(md5sum "$tmp/mok/mok.key" "$tmp/mok/mok.pub")
	mk "$on" "$tmp/mok"
	[ $rc = 0 ] && [ -z "$out" ] && [ "$(md5sum "$tmp/mok/mok.key" "$tmp/mok/mok.pub")" = "$sum" ]
	tap_check $? "a second configure: the key is kept, nothing said"
	mk "SecureBoot disabled" "$tmp/mok-off"
	[ $rc = 0 ] && [ -z "$out" ] && [ ! -e "$tmp/mok-off/mok.key" ]
	tap_check $? "Secure Boot off: no key made, nothing said"
fi

# dkms.conf, read as dkms reads it ($dkms_tree set, $kernelver and
# $kernel_source_dir of the kernel): a drop-in and a renamed kernel.
conf() { # KVER SB KEY -> "FLAVOR|SKIP|BUILD_EXCLUSIVE_KERNEL"
	# shellcheck disable=SC2016 # expanded by that bash
	FB_SB_CERT=$cert dkms_tree=/var/lib/dkms kernelver=$1 kernel_source_dir=/lib/modules/$1/build \
		stubbed "$2" "$3" bash -c \
		'. ./dkms.conf 2> /dev/null; echo "$FB_FLAVOR|$FB_SKIP|${BUILD_EXCLUSIVE_KERNEL:-}"'
}
dropk="" renk=""
for d in /lib/modules/*/build/.config; do
	[ -f "$d" ] || continue
	k=${d#/lib/modules/}
	k=${k%%/*}
	case $(bash scripts/flavor.sh "$k" "/lib/modules/$k/build" 2> /dev/null) in
	dropin*) [ -n "$dropk" ] || dropk=$k ;;
	renamed*) [ -n "$renk" ] || renk=$k ;;
	esac
done
if [ -z "$dropk" ]; then
	tap_skip "dkms.conf: drop-in kernel under Secure Boot" "no drop-in kernel's headers installed"
else
	r=$(conf "$dropk" "$on" "CERT is not enrolled")
	case $r in "|the stock fuse module stays in use: "*"mokutil --import"*"|^fuse-backport-unsupported$") s=0 ;; *) s=1 ;; esac
	tap_check $s "dkms.conf, $dropk (drop-in), Secure Boot on, key not enrolled: excluded, the stock module stays"
	tap_diag "${r%|*}"
	r=$(conf "$dropk" "$on" "CERT is already enrolled")
	case $r in dropin\|\|) s=0 ;; *) s=1 ;; esac
	tap_check $s "dkms.conf, $dropk, key enrolled: drop-in flavor built ($r)"
	r=$(conf "$dropk" "SecureBoot disabled" "")
	case $r in dropin\|\|) s=0 ;; *) s=1 ;; esac
	tap_check $s "dkms.conf, $dropk, Secure Boot off: drop-in flavor built"
fi
if [ -z "$renk" ]; then
	tap_skip "dkms.conf: renamed kernel under Secure Boot" "no renamed-flavor kernel's headers installed"
else
	r=$(conf "$renk" "$on" "CERT is not enrolled")
	case $r in renamed\|\|) s=0 ;; *) s=1 ;; esac
	tap_check $s "dkms.conf, $renk (renamed: fusebp hides nothing), key not enrolled: still built"
fi

# dkms itself, as root: a drop-in kernel under the stub is skipped (77).
if [ "$(id -u)" != 0 ] || ! command -v dkms > /dev/null || [ -z "$dropk" ] || [ ! -f src/upstream-6.12/.fb-import ]; then
	tap_skip "dkms build under Secure Boot without the key" "needs root, dkms, a drop-in kernel's headers and make import"
else
	exec 9>> /var/lock/fuse-backport-dkms.lock
	flock 9
	ver=$(kernelver="" kernel_source_dir="" bash -c '. ./dkms.conf 2> /dev/null && echo "$PACKAGE_VERSION"')
	if dkms status -m fuse-backport 2> /dev/null | grep -q . || [ -e "/usr/src/fuse-backport-$ver" ]; then
		tap_skip "dkms build under Secure Boot without the key" "fuse-backport is in DKMS already: not touching it"
	else
		dst=/usr/src/fuse-backport-$ver
		sh dev/dkms-files.sh --imported copy "$dst"
		dkms_added=$ver
		dkms add -m fuse-backport -v "$ver" > /dev/null 2>&1
		before=$(modinfo -k "$dropk" -F filename fuse 2> /dev/null)
		out=$(FB_SB_CERT=$cert stubbed "$on" "CERT is not enrolled" \
			dkms build -m fuse-backport -v "$ver" -k "$dropk" 2>&1)
		rc=$?
		after=$(modinfo -k "$dropk" -F filename fuse 2> /dev/null)
		[ $rc = 77 ] && echo "$out" | grep -q "not building for this kernel: the stock fuse module stays in use: Secure Boot is on" &&
			[ "$before" = "$after" ] && [ ! -e "/var/lib/dkms/fuse-backport/$ver/$dropk" ]
		tap_check $? "dkms build -k $dropk, Secure Boot on, key not enrolled: skipped (status $rc), nothing built, modprobe still finds ${after:-nothing}"
		echo "$out" | grep 'fuse-backport:' | head -n 1 | sed 's/^/# /'
		# What a kernel's headers hook runs (dkms 3.0.10's autoinstall fails
		# on an excluded kernel unless dkms.conf takes us out of it).
		out=$(FB_SB_CERT=$cert stubbed "$on" "CERT is not enrolled" \
			dkms autoinstall --kernelver "$dropk" 2>&1)
		rc=$?
		[ $rc = 0 ] && echo "$out" | grep -q "not building for .*stock fuse module stays in use" &&
			[ ! -e "/var/lib/dkms/fuse-backport/$ver/$dropk" ]
		tap_check $? "dkms autoinstall --kernelver $dropk, same state: exit $rc, our line, nothing built (dkms $(dkms --version 2> /dev/null))"
		[ $rc = 0 ] || echo "$out" | tail -n 4 | sed 's/^/#   /'
	fi
fi
tap_done
