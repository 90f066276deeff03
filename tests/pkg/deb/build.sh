# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, the build: today's and the previous package, what they
# carry. Sourced by it, in its shell and its TAP count, after the parts before
# it (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- build ------------------------------------------------------------------
OUT=$pt_tmp/out1 sh dev/pkg-deb.sh > "$pt_tmp/build1.log" 2>&1
rc=$?
tap_check $rc "make deb: source package and $pkg built from the tracked files, lintian clean"
[ $rc = 0 ] || pt_log "$pt_tmp/build1.log" 15
deb1=""
for f in "$pt_tmp/out1/${pkg}_$ver"-*_all.deb; do
	[ -f "$f" ] && deb1=$f
done
if [ -z "$deb1" ]; then
	tap_diag "no $pkg .deb: nothing more to test"
	tap_done
	exit
fi
debver1=$(dpkg-deb -f "$deb1" Version)
[ "${debver1%-*}" = "$ver" ]
tap_check $? "Debian version $debver1 follows PACKAGE_VERSION $ver"

# The previous package, from the commit before today's PACKAGE_VERSION.
deb0="" tools0="" prev="" debver0=""
if [ "$upgrade" = yes ]; then
	prev_epoch=""
	[ "${FB_PKG_RED:-0}" = 1 ] && prev_epoch=1
	pt_build_prev "$pt_tmp/prev" $prev_epoch
	rc=$?
	deb0=$pt_prev_deb tools0=$pt_prev_tools prev=$pt_prev_ver
	debver0=$(dpkg-deb -f "$deb0" Version 2> /dev/null)
	tap_check $rc "the previous package $pkg ${debver0:-none} (product $prev) built from $(pt_prev_commit | cut -c1-12), the commit before PACKAGE_VERSION $ver"
	[ $rc = 0 ] || pt_log "$pt_tmp/prev/build.log" 15
	# Today's sorts above it for dpkg and rpm (no epoch).
	rv=$(rpm --eval "%{lua: print(rpm.vercmp('$ver', '$prev'))}" 2> /dev/null)
	dpkg --compare-versions "$debver1" gt "$debver0" && [ "$rv" = 1 ]
	tap_check $? "$debver1 sorts above $debver0 (dpkg --compare-versions), $ver above $prev (rpm.vercmp: ${rv:-no rpm})"
	if [ -z "$deb0" ]; then
		tap_diag "no previous .deb: nothing more to test"
		tap_done
		exit
	fi
else
	echo "NOTE: pkg-deb: the previous package's build, its install and the upgrade from it run with FB_CHECK_FULL=1 (tests/tiers: pkg-deb-upgrade), FB_PKG_PREV or FB_PKG_RED; today's package is installed on a host without one"
fi

# With a kernel's headers gone, dkms.conf still lists every module we may
# have installed there (dkms remove reads that list).
mods_nohdr=$(kernelver=6.1.0-fbgone-amd64 kernel_source_dir=/nonexistent bash -c \
	'. ./dkms.conf 2> /dev/null && echo "${BUILT_MODULE_NAME[*]}"')
[ "$mods_nohdr" = "fuse cuse virtiofs fusebp" ]
tap_check $? "dkms.conf without the headers lists every module of ours ($mods_nohdr)"

for b in $(pkg_bases); do
	# shellcheck source=backports/6.12/pin
	. "$top/backports/$b/pin"
	c=$(pkg_comp "$b")
	orig_linux=$pt_tmp/out1/${name}_$ver.orig-$c.tar.xz
	! grep -q "$DEBIAN_PACKAGE" debian/control && [ -f "$orig_linux" ] &&
		grep -q "${name}_$ver.orig-$c.tar.xz" "$pt_tmp"/out1/*.dsc &&
		tar -tJf "$orig_linux" | grep -q "^linux-$UPSTREAM_VERSION/fs/fuse/file.c$"
	tap_check $? "base $b: Linux $UPSTREAM_VERSION's kernel files ride in the source package ($(basename "$orig_linux"), in the .dsc); no $DEBIAN_PACKAGE build dependency"
done
# checkpatch and its data ride once, with the default base (dev/pkg-deb.sh).
cp_in=
for o in "$pt_tmp/out1/${name}_$ver".orig-linux*.tar.xz; do
	tar -tJf "$o" | grep -q '/scripts/checkpatch\.pl$' && cp_in="$cp_in ${o##*.orig-}"
done
[ "$cp_in" = " $(pkg_comp "$pkg_default_base").tar.xz" ]
tap_check $? "checkpatch.pl rides once in the source package, with base $pkg_default_base (in:${cp_in:- none})"

dpkg-deb -c "$deb1" | awk '{ print $6 }' | sed 's|^\./|/|' > "$pt_tmp/files1"
src=/usr/src/$name-$ver
pt_tree_missing "$pt_tmp/files1" "$src"
tap_check $? "the .deb carries the generated DKMS tree under $src/${pt_missing:+ (missing:$pt_missing)}"
pt_tree_clean "$pt_tmp/files1" "$src"
tap_check $? "the .deb carries nothing built or foreign (build/, tests/, dev/, *.o, *.ko)"
for b in $(pkg_bases); do
	t=$(pkg_tree "$b")
	dpkg-deb --fsys-tarfile "$deb1" | tar -xO ".$src/src/$t/.fb-import" > "$pt_tmp/fb-import" 2> /dev/null
	grep -qx 'series=all' "$pt_tmp/fb-import" && [ "$(grep -c '^patch=' "$pt_tmp/fb-import")" -gt 1 ]
	tap_check $? "src/$t (base $(sed -n 's/^base=//p' "$pt_tmp/fb-import"), $(sed -n 's/^upstream_version=//p' "$pt_tmp/fb-import")) is patched at package build time ($(grep -c '^patch=' "$pt_tmp/fb-import") patches, $(sed -n 's/^origin=//p' "$pt_tmp/fb-import" | sed 's|.*/||'))"
done

deps=$(dpkg-deb -f "$deb1" Depends)
arch=$(dpkg-deb -f "$deb1" Architecture)
sugg=$(dpkg-deb -f "$deb1" Recommends)
echo "$deps" | grep -q 'dkms' && ! echo "$deps" | grep -q 'linux-headers' &&
	[ "$arch" = all ] && [ "$sugg" = "fuse-backport-tools" ]
tap_check $? "control: Architecture $arch; Depends: $deps; Recommends: $sugg (no headers: they pulled in the generic kernel)"
# What apt would install with the recommendations, on this host's archive:
# no kernel image, no headers meta package (linux-headers-amd64 depends on
# linux-image-amd64).
apt-get -s -o Debug::NoLocking=1 install --reinstall "$deb1" > "$pt_tmp/sim.log" 2>&1
pulled=$(sed -n 's/^Inst \(linux-[^ ]*\) .*/\1/p' "$pt_tmp/sim.log" | tr '\n' ' ')
grep -q '^Inst fuse-backport-dkms ' "$pt_tmp/sim.log" && [ -z "$pulled" ]
tap_check $? "apt install of the .deb with recommendations, simulated: no linux-* package pulled in${pulled:+ (pulls $pulled)}"

mkdir "$pt_tmp/ctl"
dpkg-deb -e "$deb1" "$pt_tmp/ctl"
if command -v shellcheck > /dev/null; then
	shellcheck -s sh "$pt_tmp/ctl/postinst" "$pt_tmp/ctl/prerm" > "$pt_tmp/sc.log" 2>&1
	rc=$?
	tap_check $rc "maintainer scripts are shellcheck clean"
	[ $rc = 0 ] || pt_log "$pt_tmp/sc.log"
else
	tap_skip "maintainer scripts are shellcheck clean" "no shellcheck"
fi

tools1=""
for f in "$pt_tmp/out1/fuse-backport-tools_$ver"-*.deb; do
	[ -f "$f" ] && tools1=$f
done
rm -rf "$pt_tmp/tools-deb"
dpkg-deb -x "$tools1" "$pt_tmp/tools-deb" 2> /dev/null
lacks=$(pt_hardened "$pt_tmp/tools-deb/usr/bin/fuse-backport")
[ -f "$pt_tmp/tools-deb/usr/bin/fuse-backport" ] && [ -z "$lacks" ]
tap_check $? "the tools .deb's /usr/bin/fuse-backport is hardened: bind-now, pie, relro, stack protector, fortify${lacks:+ (lacks: $lacks)}"
# Lockstep with the prebuilt modules too, and kmod (modprobe, modinfo).
tdep=$(dpkg-deb -f "$tools1" Depends)
tbr=$(dpkg-deb -f "$tools1" Breaks | tr ',' '\n' | sed 's/^ *//' | LC_ALL=C sort | tr '\n' ';')
uver=${ver%%-*}
dver=$(dpkg-deb -f "$tools1" Version)
echo "$tdep" | tr ',' '\n' | grep -qx ' *kmod' &&
	[ "$tbr" = "fuse-backport-dkms (<< $dver);fuse-backport-dkms (>> $dver);fuse-backport-modules (<< $uver);fuse-backport-modules (>> $uver);fuse-backport-modules-common (<< $dver);fuse-backport-modules-common (>> $dver);" ]
tap_check $? "the tools .deb depends on kmod and breaks every other version of fuse-backport-dkms and of the prebuilt modules (Depends: $tdep; Breaks: $tbr)"
# The takeover's arrival, for hosts upgrading from a release without it:
# apt-listchanges shows NEWS entries newer than the installed version.
news=$pt_tmp/tools-deb/usr/share/doc/fuse-backport-tools/NEWS.Debian.gz
nver=$(zcat "$news" 2> /dev/null | dpkg-parsechangelog -l - -S Version 2> /dev/null)
[ "$nver" = 2026.12.3-1 ] && zcat "$news" | grep -q 'TAKEOVER=no'
tap_check $? "the tools .deb has NEWS.Debian: the takeover, new in 2026.12.3-1, and how to keep the built-in FUSE (entry: ${nver:-none})"
# The settings (TAKEOVER, FB_PREFIX, which dkms.conf reads): the package's
# defaults in /usr/lib/fuse-backport, FB_PREFIX named at its default; the
# admin's /etc/fuse-backport/fuse-backport.conf is never shipped, so no
# conffile, and no upgrade asks about it.
rm -rf "$pt_tmp/tools-ctl"
dpkg-deb -e "$tools1" "$pt_tmp/tools-ctl" 2> /dev/null
[ ! -s "$pt_tmp/tools-ctl/conffiles" ] && [ ! -e "$pt_tmp/tools-deb/etc/fuse-backport" ] &&
	grep -qx '#FB_PREFIX=fusebp' "$pt_tmp/tools-deb/usr/lib/fuse-backport/fuse-backport.conf" &&
	grep -qx 'TAKEOVER=yes' "$pt_tmp/tools-deb/usr/lib/fuse-backport/fuse-backport.conf"
tap_check $? "the tools .deb: defaults in /usr/lib/fuse-backport/fuse-backport.conf (TAKEOVER=yes, #FB_PREFIX=fusebp), no conffile ($(tr '\n' ' ' < "$pt_tmp/tools-ctl/conffiles" 2> /dev/null))"
