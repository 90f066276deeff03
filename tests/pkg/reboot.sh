#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The reboot-required note (scripts/reboot-required.sh, which the .deb's
# postinst runs) with a FAKE sysfs (FB_SYSFS: module/NAME/version and
# srcversion, as the kernel shows a loaded module) and modinfo FAKED by a
# PATH stub (what modprobe would load for the running kernel): this host
# cannot load our module. Shown: a loaded module older than the installed
# one writes /var/run/reboot-required and the package once in
# reboot-required.pkgs (a second run does not repeat it), with one line;
# newer (a rollback) and another build of the same version too; the
# stock fuse loaded (no version) where ours is installed (the drop-in's
# first install) too; the installed one loaded and nothing of ours installed
# write nothing; FUSE built in and our renamed module installed and not
# loaded (the first install) writes it; and the postinst, run for real in a private mount
# namespace, writes the note itself. The postinst writing it after an apt
# upgrade is tests/pkg/repo.sh's (FB_CHECK_FULL=1, in a chroot).
# Runs in about a second (root, or any user where user namespaces are on).
#
# usage: tests/pkg/reboot.sh
tap_suite="pkg-reboot"
top=$(cd "$(dirname "$0")/../.." && pwd)
set -u
cd "$top" || exit 1
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-reboot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp/bin"
# modinfo -k KVER -F FIELD MODULE: the installed module's fields from
# $FB_STUB_VERSION and $FB_STUB_SRCVERSION (empty: not found, status 1),
# for every MODULE, or only for $FB_STUB_NAME where that is set.
cat > "$tmp/bin/modinfo" << 'EOF'
#!/bin/sh
f="" k=""
while [ $# -gt 1 ]; do
	case $1 in -F) f=$2; shift ;; -k) k=$2; shift ;; esac
	shift
done
[ "$k" = "$FB_KVER" ] && [ -n "$FB_STUB_VERSION" ] || exit 1
[ -z "${FB_STUB_NAME:-}" ] || [ "$1" = "$FB_STUB_NAME" ] || exit 1
case $f in
version) echo "$FB_STUB_VERSION" ;;
srcversion) echo "$FB_STUB_SRCVERSION" ;;
esac
EOF
chmod 755 "$tmp/bin/modinfo"

# rr MODULE LOADED LSRC INSTALLED ISRC: a fresh sysfs and run directory,
# the script run against them; $out, $rc, $note (the note's files).
rr() {
	rm -rf "$tmp/sys" "$tmp/run"
	mkdir -p "$tmp/sys/module/$1" "$tmp/run"
	[ -z "$2" ] || echo "$2" > "$tmp/sys/module/$1/version"
	[ -z "$3" ] || echo "$3" > "$tmp/sys/module/$1/srcversion"
	again
}
again() {
	out=$(PATH="$tmp/bin:$PATH" FB_SYSFS=$tmp/sys FB_RUNDIR=$tmp/run FB_KVER=6.12.95+deb12-amd64 \
		FB_STUB_VERSION=$inst FB_STUB_SRCVERSION=$isrc sh scripts/reboot-required.sh fuse-backport-dkms 2>&1)
	rc=$?
	note=$(cat "$tmp/run/reboot-required" "$tmp/run/reboot-required.pkgs" 2> /dev/null | tr '\n' '|')
}
written='*** System restart required ***|fuse-backport-dkms|'

inst=6.12.117+fb3 isrc=B3
rr fusebp 6.12.117+fb2 B2
[ $rc = 0 ] && [ "$note" = "$written" ] && [ "$(echo "$out" | grep -c .)" = 1 ] &&
	case $out in *"loaded fusebp 6.12.117+fb2 is older than the installed 6.12.117+fb3"*) true ;; *) false ;; esac
tap_check $? "loaded fusebp older than the installed one: reboot-required and .pkgs written, one line"
tap_diag "$out"
again
[ $rc = 0 ] && [ "$note" = "$written" ]
tap_check $? "run again (another configure): fuse-backport-dkms once in reboot-required.pkgs"
rr fuse 6.12.117+fb10 B10
[ "$note" = "$written" ] && case $out in *"loaded fuse 6.12.117+fb10 is newer than the installed 6.12.117+fb3"*) true ;; *) false ;; esac
tap_check $? "loaded drop-in fuse newer (a rollback from fb10): note written, says newer"
rr fusebp 6.12.117+fb3 OTHER
[ "$note" = "$written" ] && case $out in *"another build of the installed 6.12.117+fb3"*) true ;; *) false ;; esac
tap_check $? "same version, another srcversion: note written"
rr fusebp 6.12.117+fb3 B3
[ $rc = 0 ] && [ -z "$note" ] && [ -z "$out" ]
tap_check $? "the installed one is loaded: nothing written, nothing said"
rr fuse "" ""
[ $rc = 0 ] && [ "$note" = "$written" ] && [ "$(echo "$out" | grep -c .)" = 1 ] &&
	case $out in *"loaded fuse (the kernel's own) is not the installed 6.12.117+fb3"*) true ;; *) false ;; esac
tap_check $? "the stock fuse loaded (no version in sysfs), ours installed (the drop-in's first install): note written, one line"
tap_diag "$out"
inst="" isrc=""
rr fusebp 6.12.117+fb2 B2
[ $rc = 0 ] && [ -z "$note" ] && [ -z "$out" ]
tap_check $? "nothing of ours installed for the running kernel: nothing written"
rr fuse "" ""
[ $rc = 0 ] && [ -z "$note" ] && [ -z "$out" ]
tap_check $? "the stock fuse loaded or built in, nothing of ours by its name for the running kernel: nothing written"
# The first install where FUSE is built in: the built-in fuse in sysfs (no
# version; modinfo knows no module fuse), our fusebp installed, not loaded.
inst=6.12.117+fb3 isrc=B3
FB_STUB_NAME=fusebp
export FB_STUB_NAME
rr fuse "" ""
[ $rc = 0 ] && [ "$note" = "$written" ] && [ "$(echo "$out" | grep -c .)" = 1 ] &&
	case $out in *"fusebp 6.12.117+fb3 is installed for the running kernel (FUSE built in) and not loaded: reboot to use it"*) true ;; *) false ;; esac
tap_check $? "FUSE built in, fusebp installed and not loaded (the first install): note written, one line"
tap_diag "$out"
FB_STUB_NAME=acmefs FB_PREFIX=acmefs
export FB_PREFIX
rr fuse "" ""
[ "$note" = "$written" ] && case $out in *"acmefs 6.12.117+fb3 is installed for the running kernel"*) true ;; *) false ;; esac
tap_check $? "the same with FB_PREFIX=acmefs: the line names acmefs"
unset FB_STUB_NAME FB_PREFIX
rr fusebp 6.12.117+fb2 B2
out=$(PATH="$tmp/bin:$PATH" FB_SYSFS=$tmp/sys FB_RUNDIR=$tmp/run/reboot-required.pkgs FB_KVER=6.12.95+deb12-amd64 \
	FB_STUB_VERSION=$inst FB_STUB_SRCVERSION=$isrc sh scripts/reboot-required.sh fuse-backport-dkms 2>&1)
rc=$?
[ $rc = 1 ] && [ "$(echo "$out" | grep -c .)" = 1 ] && case $out in *"could not be written"*) true ;; *) false ;; esac
tap_check $? "a run directory it cannot write to (a file, even for root): exit 1, one line"

# The postinst (our dh_dkms autoscript, with dh_dkms's #MODULE_NAME# and
# #MODULE_VERSION# filled in) run for real, "configure", in a private mount
# namespace: /usr/src holds only the shipped scripts/ of this version (the
# tree ships scripts/ whole: dkms.files, copied by dev/dkms-files.sh),
# /lib/modules one kernel with headers, /etc/dkms nothing, dkms is a stub
# that succeeds, /var/lib a tmpfs with the kernel hook's record of a failed
# build of this version for the kernel; a loaded fusebp older than the
# installed one must get the note written by the postinst itself, and the
# record must be gone (a configure is a new try).
ver=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' dkms.conf | head -n 1)
sed -e 's/#MODULE_NAME#/fuse-backport/g' -e "s/#MODULE_VERSION#/$ver/g" \
	debian/autoscripts/postinst-dkms > "$tmp/postinst"
printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/dkms"
chmod 755 "$tmp/bin/dkms"
rm -rf "$tmp/sys" "$tmp/run"
mkdir -p "$tmp/sys/module/fusebp" "$tmp/run"
echo 6.12.117+fb2 > "$tmp/sys/module/fusebp/version"
echo B2 > "$tmp/sys/module/fusebp/srcversion"
ns=-m
[ "$(id -u)" = 0 ] || ns="-r -m"
# shellcheck disable=SC2016,SC2086 # expanded in the namespace's shell; the unshare options
out=$(PATH="$tmp/bin:$PATH" FB_SYSFS=$tmp/sys FB_RUNDIR=$tmp/run FB_KVER=6.12.95+deb12-amd64 \
	FB_STUB_VERSION=6.12.117+fb3 FB_STUB_SRCVERSION=B3 rb_top=$top rb_ver=$ver rb_tmp=$tmp \
	unshare $ns sh -c '
	set -e
	mount -t tmpfs none /usr/src
	mkdir -p "/usr/src/fuse-backport-$rb_ver"
	cp -r "$rb_top/scripts" "/usr/src/fuse-backport-$rb_ver/"
	mount -t tmpfs none /lib/modules
	mkdir -p "/lib/modules/$FB_KVER/build/include"
	mkdir -p /etc/dkms
	mount -t tmpfs none /etc/dkms
	mount -t tmpfs none /var/lib
	mkdir -p /var/lib/fuse-backport/build-failed
	printf "%s\tan earlier failure\n" "$rb_ver" > "/var/lib/fuse-backport/build-failed/$FB_KVER"
	set +e
	sh "$rb_tmp/postinst" configure
	echo "postinst exit $?"
	echo "records left: $(ls /var/lib/fuse-backport/build-failed | wc -l)"' 2>&1)
note=$(cat "$tmp/run/reboot-required" "$tmp/run/reboot-required.pkgs" 2> /dev/null | tr '\n' '|')
r=1
{ grep -qx 'scripts' dkms.files && grep -q 'dev/dkms-files.sh copy' debian/rules; } &&
	echo "$out" | grep -q '^postinst exit 0$' &&
	echo "$out" | grep -q "built and installed for 6.12.95+deb12-amd64" &&
	echo "$out" | grep -q "loaded fusebp 6.12.117+fb2 is older than the installed 6.12.117+fb3" &&
	[ "$note" = "$written" ] && r=0
tap_check $r "the postinst (configure, run in a private mount namespace) builds with dkms and writes the reboot note for a loaded older fusebp"
echo "$out" | grep -qx 'records left: 0'
tap_check $? "the postinst removes the kernel hook's record of a failed build of this version first: a configure is a new try ($(echo "$out" | grep '^records left'))"
echo "$out" | sed 's/^/# /'
tap_done
