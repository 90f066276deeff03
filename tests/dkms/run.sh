#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# DKMS on the host, from the working tree (the file set the package ships):
# add/build/install for every kernel given; each gets the flavor dkms.conf
# picks (renamed fusebp.ko where FUSE is built in, drop-in fuse.ko, cuse.ko
# and virtiofs.ko where it is a module) with our version and a signature; a
# kernel we do not serve (a fake 7.x header tree) is skipped by dkms with
# our reason instead of failing; remove leaves nothing behind.
#
# usage: tests/dkms/run.sh KVER...
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] || { echo "usage: tests/dkms/run.sh KVER..." >&2; exit 2; }
name=fuse-backport
ver=$(kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" && echo "$PACKAGE_VERSION"' _ "$top")
log=$(mktemp "${TMPDIR:-/tmp}/fb-dkms.XXXXXX")
fake=7.4.0-fbfake-amd64
cleanup() {
	rm -f "$log"
	rm -rf "/usr/src/linux-headers-$fake" "/lib/modules/$fake"
}
trap cleanup EXIT INT TERM
# DKMS and apt on this host are shared with tests/pkg/: one at a time.
exec 9>> /var/lock/fuse-backport-dkms.lock
flock 9

tap_suite=dkms
. "$top/tests/lib/tap.sh"
# shellcheck source=tests/lib/served.sh
. "$top/tests/lib/served.sh"
check() {
	tap_check "$1" "$2"
	[ "$1" = 0 ] || tail -n 5 "$log" | sed 's/^/#   /'
}

sh "$top/dev/dkms-local.sh" "$@" > "$log" 2>&1
check $? "dkms add/build/install $name $ver for $*"

for k in "$@"; do
	# what the kernel must get, from its .config (tests/lib/served.sh), not
	# from scripts/flavor.sh, which decides it
	fl=$(fb_expect_flavor "/lib/modules/$k/build/.config") || fl="none (FUSE off in its .config)"
	# The module version is the kernel's base's (its pin), not the product's.
	b=$(bash "$top/scripts/flavor.sh" --base "$k" "/lib/modules/$k/build" 2>/dev/null)
	b=${b%% *}
	mv=$(sed -n 's/^UPSTREAM_VERSION=//p' "$top/backports/${b:-6.12}/pin")+fb$(sed -n 's/^FB_RELEASE=//p' "$top/backports/${b:-6.12}/pin")
	dkms status -m "$name" -v "$ver" -k "$k" 2>/dev/null | grep -q installed
	check $? "$k: dkms status says installed ($fl)"
	for m in ${fl#* }; do
		mod=$(find "/lib/modules/$k/updates/dkms" -name "$m.ko*" 2>/dev/null | head -n 1)
		v=$(modinfo -F version "$mod" 2>/dev/null)
		f=$(modinfo -F flavor "$mod" 2>/dev/null)
		[ -n "$mod" ] && [ "$v" = "$mv" ] && [ "$f" = "${fl%% *}" ]
		check $? "$k: $m.ko installed: version '$v' (want $mv), flavor '$f'"
		if grep -qx 'CONFIG_MODULE_SIG=y' "/lib/modules/$k/build/.config"; then
			s=$(modinfo -F signer "$mod" 2>/dev/null)
			[ -n "$s" ]
			check $? "$k: $m.ko is signed (signer: ${s:-none})"
		fi
	done
done

# dkms status reads dkms.conf for every kernel it lists: that read must
# compile nothing (a monitoring agent runs it), though a read that decides a
# build compiles the gate, which keeps its answer in FB_GATE_CACHE. Both
# reads with an empty cache: status's leaves it empty, flavor.sh's (the
# read of a build) fills it, so the check can see a compile.
gs=$(mktemp -d "${TMPDIR:-/tmp}/fb-gate-status.XXXXXX")
gb=$(mktemp -d "${TMPDIR:-/tmp}/fb-gate-build.XXXXXX")
t0=$(date +%s)
FB_GATE_CACHE=$gs dkms status -m "$name" -v "$ver" > "$log" 2>&1
t1=$(date +%s)
FB_GATE_CACHE=$gb bash "$top/scripts/flavor.sh" "$1" "/lib/modules/$1/build" > /dev/null 2>&1
ns=$(find "$gs" -type f | wc -l)
nb=$(find "$gb" -type f | wc -l)
[ "$ns" = 0 ] && [ "$nb" -gt 0 ] && grep -q installed "$log"
check $? "dkms status compiles nothing: $ns gate answers written by status ($((t1 - t0)) s), $nb by a build's read for $1"
rm -rf "$gs" "$gb"

# A kernel of a series this base does not serve: dkms must not fail.
mkdir -p "/usr/src/linux-headers-$fake" "/lib/modules/$fake"
printf 'all:\n' > "/usr/src/linux-headers-$fake/Makefile"
printf 'CONFIG_FUSE_FS=y\nCONFIG_MODULES=y\n' > "/usr/src/linux-headers-$fake/.config"
ln -s "/usr/src/linux-headers-$fake" "/lib/modules/$fake/build"
dkms build -m "$name" -v "$ver" -k "$fake" > "$log" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 77 ]
rc_ok=$?
grep -q "outside every base" "$log" && [ $rc_ok = 0 ] && [ ! -d "/var/lib/dkms/$name/$ver/$fake" ]
check $? "$fake: dkms skips it (exit $rc) with our reason: $(grep -m1 'outside every base' "$log" | cut -c1-90)"

sh "$top/dev/dkms-local.sh" --remove > "$log" 2>&1
left=""
for k in "$@"; do
	left="$left$(find "/lib/modules/$k/updates/dkms" -name '*.ko*' -newer "$top/dkms.conf" 2>/dev/null |
		grep -E '/(fuse|cuse|virtiofs|fusebp)\.ko' | head -n 1)"
done
[ -z "$left" ] && ! dkms status -m "$name" 2>/dev/null | grep -q "$name" && [ ! -e "/usr/src/$name-$ver" ]
check $? "dkms remove leaves no module, no status, no source${left:+ (left: $left)}"

tap_done
