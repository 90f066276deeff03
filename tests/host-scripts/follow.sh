# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: make follow (dev/follow.sh) and the age of a
# kernel's FUSE against a base's (scripts/fuse-age.sh, the build's ahead
# line). The archive is a stand-in apt-cache and apt-get on PATH serving
# packages from a list: the cached real linux-source-6.12 packages, and
# small ones built here from the pinned tarball's files (only what
# backports/copy-list names, which is all follow reads). Sourced by run.sh,
# in its shell and TAP count ($top, $work, $cache, $work/k (the pinned
# files as linux-$UPSTREAM_VERSION), ok, notok, the pin's variables).
# FB_FOLLOW_SCRIPT, FB_AGE_SCRIPT (red runs): another follow.sh, fuse-age.sh.
# shellcheck shell=sh disable=SC2154

fw=$work/follow
mkdir -p "$fw/bin" "$fw/cache" "$fw/debs"
# shellcheck source=tests/lib/debcache.sh
. "$top/tests/lib/debcache.sh"
follow_sh=${FB_FOLLOW_SCRIPT:-$top/dev/follow.sh}
age_sh=${FB_AGE_SCRIPT:-$top/scripts/fuse-age.sh}

# --- scripts/fuse-age.sh over fake versions ---------------------------------
printf 'UPSTREAM_VERSION=6.12.118\nFUSE_CURRENT_TO=6.12.120\n' > "$fw/pin"
# age_case KVER VERSION WANT: the class fuse-age.sh prints
age_case() {
	a=$(sh "$age_sh" "$1" "$2" "$fw/pin" 2> "$work/err")
	if [ "${a%%:*}" = "$3" ] && [ "$(echo "$a" | wc -l)" = 1 ]; then
		ok "fuse-age: $1 (Linux $2) on base 6.12 checked to 6.12.120 is $3: $a"
	else
		echo "got '$a', want class $3" >> "$work/err"
		notok "fuse-age: $1 (Linux $2) is $3"
	fi
}
age_case 6.12.95+deb12-amd64 6.12.95 current
age_case 6.12.120+deb12-amd64 6.12.120 current
age_case 6.12.121+deb12-amd64 6.12.121 ahead
age_case 7.3.4+deb13-amd64 7.3.4 ahead
age_case 6.1.0-57-amd64 6.1.192 older-series
age_case 6.12.0-55.9.1.el10_0.x86_64 6.12.0 unknown
age_case 6.12.130-200.el10.x86_64 6.12.130 unknown
age_case 6.8.0-45-generic 6.8.0 unknown
# A pin checked to a release older than its own: one line, no class.
printf 'UPSTREAM_VERSION=6.12.118\nFUSE_CURRENT_TO=6.12.100\n' > "$fw/pin-bad"
if ! a=$(sh "$age_sh" 6.12.95+deb12-amd64 6.12.95 "$fw/pin-bad" 2> "$work/err") && [ -z "$a" ] &&
	[ "$(cat "$work/err")" = "fuse-age: $fw/pin-bad: FUSE_CURRENT_TO=6.12.100 is older than its own UPSTREAM_VERSION=6.12.118" ]; then
	ok "fuse-age: a pin checked to a release older than its own: $(cat "$work/err")"
else
	echo "printed '$a'" >> "$work/err"
	notok "fuse-age: a pin checked to a release older than its own is one error line"
fi
# The headers' own version: Debian's flavour Makefile includes the common one.
mkdir -p "$fw/hdr-common" "$fw/hdr"
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 121\nEXTRAVERSION =\n' > "$fw/hdr-common/Makefile"
echo "include $fw/hdr-common/Makefile" > "$fw/hdr/Makefile"
if [ "$(sh "$age_sh" --headers "$fw/hdr" 2> "$work/err")" = 6.12.121 ] &&
	! sh "$age_sh" x 6.12 "$fw/pin" > /dev/null 2> "$work/err2" && [ "$(wc -l < "$work/err2")" = 1 ]; then
	ok "fuse-age: --headers reads the included Makefile (6.12.121); a version without a sublevel: $(cat "$work/err2")"
else
	notok "fuse-age: --headers reads the included Makefile; a version without a sublevel is one error line"
fi

# --- the build's ahead line (scripts/build.sh, FB_CONFIGURE_ONLY) ----------
# On this host's 6.12 headers (6.12.95): a pin checked only to 6.12.90
# makes it ahead, one line; the pin as it is: no line; 6.1: older-series, no
# line.
if [ -z "${pr_hdr:-}" ] || [ -z "${pd_hdr:-}" ]; then
	tap_skip "the build's ahead line" "needs the headers of a 6.12 kernel with FUSE built in and a 6.1 one with FUSE a module (make deps)"
else
	printf 'FB_PREFIX=fusebp\n' > "$pconf"
	cp "$work/repo/backports/6.12/pin" "$fw/pin.keep"
	sed -i -e 's/^UPSTREAM_VERSION=.*/UPSTREAM_VERSION=6.12.90/' -e 's/^FUSE_CURRENT_TO=.*/FUSE_CURRENT_TO=6.12.90/' \
		"$work/repo/backports/6.12/pin"
	cp "$age_sh" "$work/repo/scripts/fuse-age.sh"
	pfx_build ahead "$pr_hdr"
	a1=$(grep -c 'kernel ahead of our fs/fuse' "$work/out")
	a1l=$(grep 'kernel ahead of our fs/fuse' "$work/out")
	pfx_build old61 "$pd_hdr"
	a2=$(grep -c 'ahead' "$work/out")
	cp "$fw/pin.keep" "$work/repo/backports/6.12/pin"
	pfx_build current "$pr_hdr"
	a3=$(grep -c 'ahead' "$work/out")
	if [ "$a1" = 1 ] && [ "$a2" = 0 ] && [ "$a3" = 0 ]; then
		ok "the build says in one line that a kernel is ahead of our fs/fuse ($a1l); not for 6.1, nor with the pin as it is"
	else
		echo "ahead lines: $a1 (pin at 6.12.90), $a2 (6.1), $a3 (pin as it is); want 1 0 0" > "$work/err"
		notok "the build's ahead line"
	fi
	# the module carries the verdict: modinfo fb_fuse_age (fb_compat.h)
	ages=$(for n in ahead old61 current; do
		sed -n 's/^#define FB_FUSE_AGE "\(.*\)"$/\1/p' "$work/repo/build/$n/fb_config.h" 2> /dev/null | tr '\n' ' '
	done)
	if [ "$ages" = "ahead older-series current " ] &&
		grep -q '^FB_MODULE_INFO(fb_fuse_age, FB_FUSE_AGE);$' "$work/repo/backports/include/fb_compat.h"; then
		ok "the module records the build's verdict (modinfo fb_fuse_age): ahead, older-series, current"
	else
		echo "FB_FUSE_AGE of the three builds: '$ages'" > "$work/err"
		notok "the module records the build's verdict (modinfo fb_fuse_age)"
	fi
fi

# --- make follow on a stand-in archive -------------------------------------
# The stand-ins: $fw/index lists "PACKAGE VERSION SHA256 FILE" (the signed
# index); apt-get download copies FILE.
# shellcheck disable=SC2016 # the stand-ins' own variables
{
	printf '#!/bin/sh\nidx=%s\n' "$fw/index"
	echo 'case $1 in'
	echo 'madison) awk -v p="$2" '\''$1 == p { print " " $1 " | " $2 " | file:/fb-stand-in suite/main amd64 Packages" }'\'' "$idx" ;;'
	echo 'show) awk -v pv="$2" '\''$1 "=" $2 == pv { print "SHA256: " $3 }'\'' "$idx" ;;'
	echo 'esac'
} > "$fw/bin/apt-cache"
# shellcheck disable=SC2016
{
	printf '#!/bin/sh\nidx=%s\n' "$fw/index"
	echo '[ "$1" = download ] || exit 100'
	echo 'f=$(awk -v pv="$2" '\''$1 "=" $2 == pv { print $4 }'\'' "$idx")'
	echo '[ -n "$f" ] || { echo "E: no $2" >&2; exit 100; }'
	echo 'cp "$f" "./$(echo "$2" | sed "s/=/_/")_all.deb"'
} > "$fw/bin/apt-get"
chmod 755 "$fw/bin/apt-cache" "$fw/bin/apt-get"
index() { # index PACKAGE VERSION FILE: the archive carries FILE as PACKAGE VERSION
	echo "$1 $2 $(sha256sum < "$3" | cut -d' ' -f1) $3" >> "$fw/index"
}

# A scratch repository with what follow reads and writes.
fscratch() {
	rm -rf "$fw/repo" "$fw/cache" && mkdir -p "$fw/repo/tests" "$fw/cache"
	cp -R "$top/dev" "$top/backports" "$top/debian" "$top/rpm" "$top/dkms.conf" "$top/Makefile" "$fw/repo/"
	cp -R "$top/tests/lib" "$fw/repo/tests/"
	cp "$follow_sh" "$fw/repo/dev/follow.sh"
	: > "$fw/index"
	snap
}
# snap: what follow may write, as it is now; unchanged: still so
snap() { rm -rf "$fw/before" && mkdir "$fw/before" && (cd "$fw/repo" && cp -R backports debian rpm dkms.conf "$fw/before/"); }
unchanged() { for f in backports debian rpm dkms.conf; do diff -r "$fw/before/$f" "$fw/repo/$f" > /dev/null || return 1; done; }
follow() { env PATH="$fw/bin:$PATH" FB_CACHE="$fw/cache" FB_FOLLOW_MATRIX=0 sh "$fw/repo/dev/follow.sh" "$@"; }

# mini VERSION SUBLEVEL [CHANGE]: a small linux-source-6.12 package of
# Debian version VERSION, the pinned files with the Makefile's SUBLEVEL,
# CHANGE a line appended to fs/fuse/dev.c; path on stdout
mini() {
	m=$fw/mini-$1
	rm -rf "$m" && mkdir -p "$m/t" "$m/deb/DEBIAN" "$m/deb/$(dirname "$DEBIAN_TARBALL")"
	cp -R "$work/k/linux-$UPSTREAM_VERSION" "$m/t/linux-source-6.12"
	sed -i "s/^SUBLEVEL = .*/SUBLEVEL = $2/" "$m/t/linux-source-6.12/Makefile"
	[ -z "${3:-}" ] || echo "$3" >> "$m/t/linux-source-6.12/fs/fuse/dev.c"
	tar -C "$m/t" -cJf "$m/deb/$DEBIAN_TARBALL" linux-source-6.12
	printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: t <t@invalid>\nDescription: stand-in\n' \
		"$DEBIAN_PACKAGE" "$1" > "$m/deb/DEBIAN/control"
	dpkg-deb -Zxz -b "$m/deb" "$fw/debs/$1.deb" > /dev/null && echo "$fw/debs/$1.deb"
}
# ffail NAME REGEX ARGS...: follow fails with one line matching REGEX and
# leaves pins, changelogs, specs and dkms.conf as they were
ffail() {
	name=$1 re=$2
	shift 2
	if follow "$@" > "$work/out" 2> "$work/err"; then
		notok "follow, $name: succeeded"
	elif [ "$(wc -l < "$work/err")" != 1 ] || ! grep -Eq "$re" "$work/err"; then
		notok "follow, $name: want one line matching /$re/"
	elif ! unchanged; then
		notok "follow, $name: changed the tree"
	else
		ok "follow, $name: $(cat "$work/err"); nothing changed"
	fi
}

m119=$(mini 6.12.119-1~fake1 119)
m100=$(mini 6.12.100-1~fake1 100)

# The same fs/fuse in a newer release: one line, FUSE_CURRENT_TO recorded,
# nothing else changed; run again: the same line, nothing changed.
fscratch
index "$DEBIAN_PACKAGE" 6.12.119-1~fake1 "$m119"
index "$DEBIAN_PACKAGE" 6.12.100-1~fake1 "$m100"
if follow 6.12 > "$work/out" 2> "$work/err" &&
	[ "$(cat "$work/out")" = "base 6.12: 6.12.119 carries the same fs/fuse as ours" ] &&
	grep -qx 'FUSE_CURRENT_TO=6.12.119' "$fw/repo/backports/6.12/pin" &&
	[ "$(diff "$top/backports/6.12/pin" "$fw/repo/backports/6.12/pin" | grep -c '^[<>]')" = 2 ] &&
	cmp -s "$top/debian/changelog" "$fw/repo/debian/changelog"; then
	snap
	if follow 6.12 > "$work/out2" 2> "$work/err" && cmp -s "$work/out" "$work/out2" && unchanged; then
		ok "follow, same fs/fuse: $(cat "$work/out"); FUSE_CURRENT_TO=6.12.119 in the pin, nothing else; again: nothing changed"
	else
		notok "follow, same fs/fuse: a second run changed something"
	fi
else
	echo "out: $(cat "$work/out")" >> "$work/err"
	notok "follow, same fs/fuse: want one line and FUSE_CURRENT_TO=6.12.119 only"
fi

# Bad input: one line each, nothing changed.
fscratch
ffail "an archive without the series" "no suite apt reaches carries $DEBIAN_PACKAGE" 6.12
fscratch
index "$DEBIAN_PACKAGE" 6.12.100-1~fake1 "$m100"
ffail "an archive older than the pin" "6.12.100-1~fake1 \(Linux 6.12.100\), is older than the pin's $UPSTREAM_VERSION" 6.12
fscratch
index "$DEBIAN_PACKAGE" 6.12.119-1~fake1 "$m119"
sed -i 's/^FUSE_CURRENT_TO=.*/FUSE_CURRENT_TO=6.12.100/' "$fw/repo/backports/6.12/pin"
snap
ffail "a pin checked to a release older than its own" "FUSE_CURRENT_TO=6.12.100 is older than its own UPSTREAM_VERSION=$UPSTREAM_VERSION" 6.12
# A package that is not the one the signed index lists: refused (and not
# kept in the cache).
fscratch
m121=$(mini 6.12.121-1~fake1 121 '/* another fs/fuse */')
echo "$DEBIAN_PACKAGE 6.12.121-1~fake1 $(sha256sum < "$m119" | cut -d' ' -f1) $m121" >> "$fw/index"
ffail "a package that does not match the signed index" "6.12.121-1~fake1 does not match the archive's signed index" 6.12
[ ! -e "$fw/cache/${DEBIAN_PACKAGE}_6.12.121-1~fake1_all.deb" ] ||
	notok "follow, a package that does not match the signed index: kept in the cache"

# Behind: a pin set back to 6.12.117 while the archive has 6.12.118 (the
# real packages, which must both be at hand): follow names the two files
# and rebases, the series applying with no fuzz; the changelogs list them.
d117=$cache/${DEBIAN_PACKAGE}_6.12.117-1~deb12u1_all.deb
d118=$cache/${DEBIAN_PACKAGE}_6.12.118-1~deb12u1_all.deb
if [ ! -f "$d117" ] || [ ! -f "$d118" ] ||
	! fb_deb_ok "$d117" "$DEBIAN_PACKAGE" 6.12.117-1~deb12u1 || ! fb_deb_ok "$d118" "$DEBIAN_PACKAGE" 6.12.118-1~deb12u1; then
	tap_skip "follow finds a pin set back to 6.12.117 behind" "needs $DEBIAN_PACKAGE 6.12.117-1~deb12u1 and 6.12.118-1~deb12u1, intact, in $cache (make follow fetches the newest; a superseded one only the cache keeps)"
else
	fscratch
	mkdir -p "$fw/b117"
	dpkg-deb --fsys-tarfile "$d117" | tar -C "$fw/b117" -x "./$DEBIAN_TARBALL"
	t117=$(sha256sum < "$fw/b117/$DEBIAN_TARBALL" | cut -d' ' -f1)
	tar -C "$fw/b117" -xf "$fw/b117/$DEBIAN_TARBALL" --strip-components=1 linux-source-6.12/fs/fuse linux-source-6.12/include/uapi/linux/fuse.h
	rm -f "$fw/b117/$DEBIAN_TARBALL"
	s117=$(cd "$fw/b117" && find fs/fuse include/uapi/linux/fuse.h -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
	sed -i -e 's/^UPSTREAM_VERSION=.*/UPSTREAM_VERSION=6.12.117/' -e 's/^FUSE_CURRENT_TO=.*/FUSE_CURRENT_TO=6.12.117/' \
		-e 's/^DEBIAN_VERSION=.*/DEBIAN_VERSION=6.12.117-1~deb12u1/' -e "s/^TARBALL_SHA256=.*/TARBALL_SHA256=\"$t117\"/" \
		-e "s/^TREE_SHA256=.*/TREE_SHA256=$s117/" "$fw/repo/backports/6.12/pin"
	ln -s "$d117" "$d118" "$fw/cache/"
	index "$DEBIAN_PACKAGE" 6.12.117-1~deb12u1 "$d117"
	index "$DEBIAN_PACKAGE" 6.12.118-1~deb12u1 "$d118"
	r=""
	follow 6.12 > "$work/out" 2> "$work/err" || r="$r exit-status"
	grep -q "^base 6.12: 6.12.118 .* carries another fs/fuse than ours (6.12.117): file.c virtio_fs.c\$" "$work/out" || r="$r no-behind-line"
	grep -q '^  fs/fuse/file.c: .*fuse_launder_folio()' "$work/out" || r="$r no-file.c"
	grep -q '^  fs/fuse/virtio_fs.c: .*virtio_fs_verify_response()' "$work/out" || r="$r no-virtio_fs.c"
	# shellcheck disable=SC2016 # the pin's own variables
	[ "$(sh -c '. "$1"; echo "$UPSTREAM_VERSION $FUSE_CURRENT_TO $DEBIAN_VERSION $TREE_SHA256"' _ "$fw/repo/backports/6.12/pin")" = \
		"6.12.118 6.12.118 6.12.118-1~deb12u1 $(sed -n 's/^TREE_SHA256=//p' "$top/backports/6.12/pin")" ] || r="$r pin"
	sed -n '1,/^ -- /p' "$fw/repo/debian/changelog" > "$fw/entry"
	grep -q 'fs/fuse/file.c' "$fw/entry" && grep -q 'fs/fuse/virtio_fs.c' "$fw/entry" || r="$r debian-changelog"
	for s in "$fw"/repo/rpm/*-dkms.spec; do
		awk '/^%changelog/ { c = 1; next } c && /^\*/ { n++ } c && n == 1' "$s" > "$fw/rentry"
		grep -q 'fs/fuse/file.c' "$fw/rentry" && grep -q 'fs/fuse/virtio_fs.c' "$fw/rentry" || r="$r rpm-changelog"
	done
	if [ -z "$r" ]; then
		ok "follow finds a pin set back to 6.12.117 behind: $(head -n 1 "$work/out"); pin, series (no fuzz) and changelogs follow"
	else
		echo "wrong:$r; $(tail -n 2 "$work/out" | tr '\n' ' ')" >> "$work/err"
		notok "follow finds a pin set back to 6.12.117 behind"
	fi
fi
