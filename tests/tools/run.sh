#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Tests of the tooling itself: the import refuses what it must refuse, with
# one clear line and without leaving a half-written tree, and accepts a
# kernel.org-style tarball holding exactly the pinned files.
# Runs on the host (no VM). TAP output, then "N passed, N failed".
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=/dev/null
. "$top/backports/6.12/pin"
work=$(mktemp -d "${TMPDIR:-/tmp}/fb-tools.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cache=${FB_CACHE:-/var/cache/fuse-backport}
deb=$cache/${DEBIAN_PACKAGE}_${DEBIAN_VERSION}_all.deb

n=0 pass=0 fail=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; [ -f "$work/err" ] && sed 's/^/#   /' "$work/err"; }

# A scratch copy of the repository's tooling, so tests can break pins and
# series without touching the real ones.
scratch() {
	rm -rf "$work/repo"
	mkdir -p "$work/repo/src"
	cp -R "$top/scripts" "$top/backports" "$top/dkms.conf" "$work/repo/"
	cp -p "$top/src/Kbuild" "$work/repo/src/"
}

# expect_fail NAME REGEX CMD...: CMD fails, says one line matching REGEX on
# stderr, and leaves neither a tree nor a temporary directory behind.
expect_fail() {
	name=$1 re=$2
	shift 2
	if "$@" > "$work/out" 2> "$work/err"; then
		notok "$name: succeeded"
	elif [ "$(wc -l < "$work/err")" != 1 ]; then
		notok "$name: $(wc -l < "$work/err") lines on stderr, want 1"
	elif ! grep -Eq "$re" "$work/err"; then
		notok "$name: message does not match /$re/"
	elif [ -e "$work/repo/src/upstream" ] || ls -d "$work"/repo/src/.import.* > /dev/null 2>&1; then
		notok "$name: left a tree behind"
	else
		ok "$name: $(cat "$work/err")"
	fi
}

import() { OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh"; }

# The pinned package must be at hand for the tarball tests.
if [ ! -f "$deb" ]; then
	mkdir -p "$cache" && (cd "$cache" && apt-get download "$DEBIAN_PACKAGE=$DEBIAN_VERSION" > /dev/null 2>&1)
fi
if [ ! -f "$deb" ]; then
	echo "Bail out! $DEBIAN_PACKAGE $DEBIAN_VERSION is not available (run scripts/apt-suites.sh)"
	exit 1
fi
dpkg-deb --fsys-tarfile "$deb" | tar -C "$work" -x "./$DEBIAN_TARBALL"
pinned=$work/$DEBIAN_TARBALL

# A kernel.org-style tarball (top dir linux-X.Y.Z) built from the pinned files.
mkdir -p "$work/k"
d=$(tar -tf "$pinned" | head -n 1 | cut -d/ -f1)
tar -C "$work/k" -xf "$pinned" --transform "s,^$d,linux-$UPSTREAM_VERSION," \
	"$d/Makefile" "$d/fs/fuse" "$d/include/uapi/linux/fuse.h"
tar -C "$work/k" -cJf "$work/linux-$UPSTREAM_VERSION.tar.xz" "linux-$UPSTREAM_VERSION"

# 1. The real import, twice: the second run changes nothing.
scratch
if import > "$work/out" 2> "$work/err" && [ -f "$work/repo/src/upstream/.fb-import" ]; then
	ok "import of the pinned Debian package: $(cat "$work/out")"
else
	notok "import of the pinned Debian package"
fi
before=$(ls -l --time-style=full-iso "$work/repo/src/upstream/.fb-import")
if import > "$work/out" 2> "$work/err" && grep -q 'up to date' "$work/out" &&
   [ "$(ls -l --time-style=full-iso "$work/repo/src/upstream/.fb-import")" = "$before" ]; then
	ok "import is idempotent: $(cat "$work/out")"
else
	notok "import is idempotent"
fi
if grep -q 'FB_NAME' "$work/repo/src/upstream/fs/fuse/inode.c"; then
	ok "infra patches applied"
else
	notok "infra patches applied"
fi

# 2. A kernel.org tarball with exactly the pinned files is accepted.
scratch
if UPSTREAM_TARBALL="$work/linux-$UPSTREAM_VERSION.tar.xz" import > "$work/out" 2> "$work/err" &&
   grep -q "tree_sha256=$TREE_SHA256" "$work/repo/src/upstream/.fb-import"; then
	ok "kernel.org-style tarball with the pinned fs/fuse is accepted"
else
	notok "kernel.org-style tarball with the pinned fs/fuse is accepted"
fi

# 3. Tampered tarballs.
scratch
mkdir -p "$work/t" && cp -R "$work/k/linux-$UPSTREAM_VERSION" "$work/t/"
echo '/* tampered */' >> "$work/t/linux-$UPSTREAM_VERSION/fs/fuse/file.c"
tar -C "$work/t" -cJf "$work/tampered.tar.xz" "linux-$UPSTREAM_VERSION"
expect_fail "tampered fs/fuse in a kernel.org tarball" 'sha256 mismatch' \
	env UPSTREAM_TARBALL="$work/tampered.tar.xz" OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh"

cp "$work/linux-$UPSTREAM_VERSION.tar.xz" "$work/corrupt.tar.xz"
printf 'garbage' | dd of="$work/corrupt.tar.xz" bs=1 seek=4096 conv=notrunc 2> /dev/null
expect_fail "corrupted tarball" 'cannot read|lacks|sha256' \
	env UPSTREAM_TARBALL="$work/corrupt.tar.xz" OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh"

# A Debian package whose tarball is not the pinned one.
mkdir -p "$work/fakedeb/DEBIAN" "$work/fakedeb/$(dirname "$DEBIAN_TARBALL")" "$work/fakecache"
cp "$work/tampered.tar.xz" "$work/fakedeb/$DEBIAN_TARBALL"
printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: test <test@invalid>\nDescription: tampered\n' \
	"$DEBIAN_PACKAGE" "$DEBIAN_VERSION" > "$work/fakedeb/DEBIAN/control"
dpkg-deb -b "$work/fakedeb" "$work/fakecache/${DEBIAN_PACKAGE}_${DEBIAN_VERSION}_all.deb" > /dev/null
expect_fail "Debian source package with a tampered tarball" 'sha256 mismatch' \
	env FB_CACHE="$work/fakecache" OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh"

# FB_TARBALL_TO (the debug kernel's source, tests/debug/kernel.sh): the same
# checks, then only the verified tarball is written.
mkdir -p "$work/tarto"
expect_fail "FB_TARBALL_TO with a tampered Debian package" 'sha256 mismatch' \
	env FB_CACHE="$work/fakecache" FB_TARBALL_TO="$work/tarto/linux.tar" OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh"
if [ -e "$work/tarto/linux.tar" ] || ls -d "$work"/tarto/.import.* > /dev/null 2>&1; then
	notok "FB_TARBALL_TO with a tampered Debian package: left a file behind"
fi
if FB_TARBALL_TO="$work/tarto/linux.tar" OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh" > "$work/out" 2> "$work/err" &&
	case " $TARBALL_SHA256 " in *" $(sha256sum < "$work/tarto/linux.tar" | cut -d' ' -f1) "*) true ;; *) false ;; esac &&
	[ ! -e "$work/repo/src/upstream" ]; then
	ok "FB_TARBALL_TO writes the pinned tarball, verified, and imports nothing: $(cat "$work/out")"
else
	notok "FB_TARBALL_TO writes the pinned tarball, verified, and imports nothing"
fi
rm -rf "$work/tarto"

# 4. A pinned package that the archive does not have.
scratch
sed -i 's/^DEBIAN_VERSION=.*/DEBIAN_VERSION=0.0.0-fb-missing/' "$work/repo/backports/6.12/pin"
expect_fail "missing source package" 'cannot fetch' \
	env FB_CACHE="$work/emptycache" OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh"

# 5. A patch that does not apply stops with its name; an existing tree stays.
scratch
import > /dev/null 2>&1
stamp=$(cat "$work/repo/src/upstream/.fb-import")
printf -- '--- a/fs/fuse/file.c\n+++ b/fs/fuse/file.c\n@@ -1,3 +1,3 @@\n-this line is not there\n+nor this one\n context\n' \
	> "$work/repo/backports/6.12/patches/9999-does-not-apply.patch"
echo 9999-does-not-apply.patch >> "$work/repo/backports/6.12/series"
if OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh" > "$work/out" 2> "$work/err"; then
	notok "patch that does not apply: import succeeded"
elif [ "$(wc -l < "$work/err")" = 1 ] && grep -q '9999-does-not-apply.patch does not apply' "$work/err" &&
     [ "$(cat "$work/repo/src/upstream/.fb-import")" = "$stamp" ] &&
     ! ls -d "$work"/repo/src/.import.* > /dev/null 2>&1; then
	ok "patch that does not apply: $(cat "$work/err"); previous tree kept"
else
	notok "patch that does not apply"
fi
rm -rf "$work/repo/src/upstream"
expect_fail "series naming a missing patch" 'missing patch' sh -c \
	"echo 9998-absent.patch >> '$work/repo/backports/6.12/series'; OUT='$work/repo/src/upstream' sh '$work/repo/scripts/import.sh'"

# 6. Unknown base.
scratch
expect_fail "unknown base" "unknown base" env OUT="$work/repo/src/upstream" sh "$work/repo/scripts/import.sh" 9.99

# 7. Headers without .config: a clear skip, no build directory.
scratch
import > /dev/null 2>&1
mkdir -p "$work/noconfig"
echo 'all:' > "$work/noconfig/Makefile"
if BUILD="$work/repo/build/x" sh "$work/repo/scripts/build.sh" 6.12.95-fake "$work/noconfig" > "$work/out" 2> "$work/err"; then
	notok "headers without .config: build succeeded"
else
	rc=$?
	if [ $rc = 3 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -q 'no .config' "$work/err" && [ ! -e "$work/repo/build/x" ]; then
		ok "headers without .config: $(cat "$work/err")"
	else
		notok "headers without .config (exit $rc)"
	fi
fi
# Same from the DKMS side: dkms.conf names the reason and excludes the kernel.
msg=$(kernelver=6.12.95-fake kernel_source_dir="$work/noconfig" bash -c '. "$1"; echo "$BUILD_EXCLUSIVE_KERNEL"' _ "$work/repo/dkms.conf" 2>&1)
if echo "$msg" | grep -q 'not building for this kernel: no .config' && echo "$msg" | grep -q 'unsupported'; then
	ok "dkms.conf skips a kernel without .config"
else
	notok "dkms.conf skips a kernel without .config: $msg"
fi
echo 'CONFIG_FUSE_FS=y' > "$work/noconfig/.config"
msg=$(kernelver=7.4.0-1-amd64 kernel_source_dir="$work/noconfig" bash -c '. "$1"' _ "$work/repo/dkms.conf" 2>&1)
case $msg in
*"outside every base"*) ok "dkms.conf skips a kernel outside every base: $msg" ;;
*) notok "dkms.conf skips a kernel outside every base: $msg" ;;
esac

echo "1..$n"
echo "tools: $pass passed, $fail failed"
[ $fail = 0 ]
