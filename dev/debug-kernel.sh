#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The debug kernel of `make check-debug`: Linux of the pinned base (the
# sha256-checked tarball dev/import.sh verifies), configured as
# virtme-ng's guest defconfig plus dev/debug-kernel.config (lockdep, KASAN,
# DEBUG_ATOMIC_SLEEP, DEBUG_LIST, kmemleak, failslab, FUSE=m, what the
# suites use), built once
# per machine and kept under $FB_CACHE/debug-kernel/, keyed by the pin, the
# config fragment and the tools that shape the .config.
#
# usage: dev/debug-kernel.sh [BASE]
# Prints the built tree's path on stdout (its release is in
# TREE/include/config/kernel.release); everything else goes to stderr and to
# the cache entry's build.log. Nothing is installed on the host.
# environment: FB_CACHE (default /var/cache/fuse-backport), FB_JOBS (make -j,
#   default the number of CPUs)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-${BASE:-6.12}}
cache=${FB_CACHE:-/var/cache/fuse-backport}
frag=$top/dev/debug-kernel.config
jobs=${FB_JOBS:-$(nproc)}

die() { echo "debug-kernel: $*" >&2; exit 1; }

[ -f "$top/backports/$base/pin" ] || die "unknown base '$base' (no backports/$base/pin)"
# shellcheck source=/dev/null
. "$top/backports/$base/pin"

for t in virtme-configkernel vng gcc make flex bison bc flock; do
	command -v "$t" > /dev/null 2>&1 || die "$t not found (make deps-test installs what the debug kernel needs)"
done
# objtool needs libelf's headers
# shellcheck disable=SC2086 # HOSTCFLAGS: several flags, as kbuild takes them
echo '#include <gelf.h>' | gcc ${HOSTCFLAGS:-} -x c -fsyntax-only - 2> /dev/null ||
	die "libelf's headers (gelf.h) not found (make deps-test installs libelf-dev)"

# What decides the tree: the pinned source, our fragment's options (not
# its comments), the defconfig virtme-ng adds, the compiler.
key=$({
	echo "base=$base version=$UPSTREAM_VERSION tarballs=$TARBALL_SHA256 tree=$TREE_SHA256"
	sed '/^#/d; /^$/d' "$frag"
	vng --version 2>&1
	gcc --version | head -n 1
} | sha256sum | cut -c1-16)
dir=$cache/debug-kernel/$UPSTREAM_VERSION-$key
tree=$dir/linux
if [ -f "$dir/built" ]; then
	echo "$tree"
	exit 0
fi
mkdir -p "$dir" || die "cannot create $dir (set FB_CACHE)"
# One build at a time per entry; a second caller waits and reuses it.
exec 9> "$dir/lock"
flock 9
if [ -f "$dir/built" ]; then
	echo "$tree"
	exit 0
fi
log=$dir/build.log
: > "$log"
echo "debug-kernel: building Linux $UPSTREAM_VERSION with lockdep, KASAN, kmemleak and failslab in $tree (log: $log); about an hour on 2 cores" >&2
start=$(date +%s)

rm -rf "$tree" "$dir/linux.tar"
FB_TARBALL_TO=$dir/linux.tar FB_CACHE=$cache sh "$top/dev/import.sh" "$base" >&2 ||
	die "no verified source of Linux $UPSTREAM_VERSION"
mkdir "$tree"
tar -C "$tree" --strip-components=1 -xf "$dir/linux.tar" || die "cannot unpack $dir/linux.tar"
rm -f "$dir/linux.tar"

cd "$tree"
virtme-configkernel --defconfig >> "$log" 2>&1 || die "virtme-configkernel --defconfig failed (log: $log)"
cat "$frag" >> .config
make olddefconfig >> "$log" 2>&1 || die "make olddefconfig failed (log: $log)"
# Every option the fragment asks for must have survived kconfig.
bad=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)/\1/p' "$frag" | while read -r l; do
	if ! grep -qxF "$l" .config; then echo "$l"; fi
done)
bad=$bad$(sed -n 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "$frag" | while read -r o; do
	if grep -q "^$o=" .config; then echo " $o=n"; fi
done)
[ -z "$bad" ] || die "kconfig did not keep: $(echo "$bad" | tr '\n' ' ')(dev/debug-kernel.config; log: $log)"
cp .config "$dir/config"

echo "debug-kernel: make -j$jobs ($(date -u +%H:%M) UTC)" >&2
make -j"$jobs" >> "$log" 2>&1 || die "the build failed: $(grep -m1 -E 'error|Error' "$log") (log: $log)"
rel=$(cat include/config/kernel.release)
end=$(date +%s)
echo "release=$rel seconds=$((end - start)) jobs=$jobs built=$(date -u +%FT%TZ)" > "$dir/built"
echo "debug-kernel: $rel built in $((end - start)) s" >&2
echo "$tree"
