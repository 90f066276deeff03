#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build the modules for one kernel: pick the flavor (dkms.conf), probe the
# headers, lay out build/<kver>/ from the generated tree and run kbuild.
# This is what DKMS's MAKE runs, and every build of the tree: `make
# modules`, dev/build-for.sh and dev/build-in.sh (in a Debian root) call it.
#
# usage: scripts/build.sh KVER [KDIR]
# environment: SRC (generated tree, default the kernel's base's:
#              src/upstream-<base>, with FB_SERIES=none the unpatched one
#              make import SERIES=none makes: src/upstream-<base>-unpatched),
#              BUILD (default build/KVER, with FB_SERIES=none
#              build/KVER-unpatched), FB_PREFIX (over FB_PREFIX= of
#              /etc/fuse-backport/fuse-backport.conf: scripts/prefix.sh),
#              FB_WERROR=1,
#              FB_CONFIGURE_ONLY=1 (lay out and configure, do not compile)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: build.sh KVER [KDIR]}
kdir=${2:-/lib/modules/$kver/build}
unp=""
[ "${FB_SERIES:-all}" != none ] || unp=-unpatched
b=${BUILD:-$top/build/$kver$unp}

# shellcheck source=scripts/needs.sh
. "$top/scripts/needs.sh"

die() { echo "fuse-backport: $*" >&2; exit 1; }
# Exit 3: this kernel is not served (dkms.conf or a missing API), not an error.
unsupported() { echo "fuse-backport: $*" >&2; exit 3; }

[ -d "$kdir" ] || die "no kernel headers for $kver at $kdir (install linux-headers-$kver)"
[ -f "$kdir/Makefile" ] || die "$kdir is not a kernel build directory"

# The base (dkms.conf: by the kernel's series) and its generated tree.
if ! bt=$(bash "$top/scripts/flavor.sh" --base "$kver" "$kdir" 2>&1); then
	unsupported "not building for $kver: $bt"
fi
if ! fl=$(bash "$top/scripts/flavor.sh" "$kver" "$kdir" 2>&1); then
	unsupported "not building for $kver: $fl"
fi
src=${SRC:-$top/src/${bt#* }$unp}
[ -f "$src/.fb-import" ] || die "no generated tree at $src: run 'make import BASE=${bt%% *}${unp:+ SERIES=none}' first"
[ "$(sed -n 's/^base=//p' "$src/.fb-import")" = "${bt%% *}" ] ||
	die "$src holds base $(sed -n 's/^base=//p' "$src/.fb-import"), kernel $kver needs base ${bt%% *}"
flavor=${fl%% *}
modules=${fl#* }
# The renamed module's prefix, as dkms.conf read it (scripts/prefix.sh: the
# config file's, the environment's, fusebp); a drop-in has none.
prefix=fusebp
if [ "$flavor" = renamed ]; then
	prefix=$(sh "$top/scripts/prefix.sh") || exit 1
fi

imp() { sed -n "s/^$1=//p" "$src/.fb-import"; }
version="$(imp upstream_version)+fb$(imp fb_release)"
base=$(imp base)
compat=$(sed -n 's/^COMPAT=//p' "$top/backports/$base/pin")
compat=${compat:-none}

probes=$(mktemp "${TMPDIR:-/tmp}/fb-probes.XXXXXX")
trap 'rm -f "$probes"' EXIT INT TERM
sh "$top/scripts/probe.sh" "$kdir" "$probes"

# APIs base $base cannot do without yet, in none of the variants it can
# use (scripts/needs.sh): a clear stop, not compiler errors.
haves=$(fb_haves "$probes")
missing=$(fb_unmet "$(fb_required "$top/backports/$base/required")" "$haves")
if [ -n "$missing" ]; then
	unsupported "kernel $kver is not supported yet by base $base: its headers lack $missing (see backports/$base/required)"
fi

# Passthrough: built where the kernel enables it and has every API the
# base's passthrough calls with the signature it calls (PASSTHROUGH_NEEDS of
# the pin), or, for a base with compat code, where the kernel has no
# backing-file layer and ours can be built (COMPAT_PASSTHROUGH_NEEDS);
# otherwise the module is built without it, and says why.
pin_needs() { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$top/backports/$base/pin"; }
nopt=""
case " $haves " in *" HAVE_BACKING_FILE "*) layer=kernel ;; *) layer=none ;; esac
# A kernel whose FUSE predates passthrough (no FUSE_PASSTHROUGH option in
# its .config, set or not: before 6.9) gets ours as 6.1 does, also where it
# has a backing-file layer: 6.8's, whose end_write() gets the file only, so
# base 6.12 could not keep i_size after a passthrough write through it.
if [ "$compat" = shared ] && [ $layer = kernel ] &&
	! grep -Eq '^(CONFIG_FUSE_PASSTHROUGH=|# CONFIG_FUSE_PASSTHROUGH is not set)' "$kdir/.config"; then
	layer=none
	own_layer=y
fi
if [ "$compat" = shared ] && [ $layer = none ]; then
	nopt=$(fb_unmet "$(pin_needs COMPAT_PASSTHROUGH_NEEDS)" "$haves")
elif grep -qx 'CONFIG_FUSE_PASSTHROUGH=y' "$kdir/.config"; then
	nopt=$(fb_unmet "$(pin_needs PASSTHROUGH_NEEDS)" "$haves")
fi
[ -z "$nopt" ] || echo "fuse-backport: $kver: building without passthrough: no $nopt (backports/probes)" >&2

# A build dir made from another generated tree is stale as a whole.
if [ -f "$b/.fb-import" ] && ! cmp -s "$b/.fb-import" "$src/.fb-import"; then
	rm -rf "$b"
fi
mkdir -p "$b"

# A kernel of the base's series newer than the newest release checked to
# carry our fs/fuse (FUSE_CURRENT_TO of the pin, scripts/fuse-age.sh): one
# line, and the build goes on. The module carries the verdict (modinfo
# fb_fuse_age): modprobe's fallback reads it where WHEN_AHEAD=stock
# (scripts/modprobe-stock.sh), on hosts with no headers to read.
age=$(sh "$top/scripts/fuse-age.sh" "$kver" "$(sh "$top/scripts/fuse-age.sh" --headers "$kdir" 2> /dev/null)" \
	"$top/backports/$base/pin" 2> /dev/null) || age=""
case $age in
ahead:*) echo "fuse-backport: kernel ahead of our fs/fuse: ${age#ahead: }" ;;
esac
age=${age%%:*}

{
	cat "$probes"
	echo "#define FB_VERSION \"$version\""
	echo "#define FB_BASE \"$base\""
	echo "#define FB_FLAVOR \"$flavor\""
	echo "#define FB_FUSE_AGE \"${age:-unknown}\""
	if [ "$flavor" = renamed ]; then
		echo "#define FB_RENAMED 1"
		echo "#define FB_PREFIX \"$prefix\""
		echo "#define FB_PREFIX_TOKEN $prefix"
	fi
} > "$b/fb_config.h.new"
# Keep the old header (and its mtime) when nothing changed.
if cmp -s "$b/fb_config.h.new" "$b/fb_config.h"; then
	rm -f "$b/fb_config.h.new"
else
	mv "$b/fb_config.h.new" "$b/fb_config.h"
fi
{
	printf 'FB_FLAVOR := %s\nFB_PREFIX := %s\nFB_COMPAT := %s\n' "$flavor" "$prefix" "$compat"
	# The probes that passed, for src/Kbuild to pick compat objects.
	printf 'FB_HAVE :=%s\n' "$(sed -n 's/^#define HAVE_\([A-Z0-9_]*\) 1$/ \1/p' "$probes" | tr -d '\n')"
	[ -z "$nopt" ] || printf 'FB_NO_PASSTHROUGH := kernel lacks%s\n' "$nopt"
	[ -z "${own_layer:-}" ] || printf 'FB_OWN_BACKING_FILE := y\n'
} > "$b/fb_config.mk"

# cp -p keeps mtimes, so kbuild rebuilds only what changed.
cp -pR "$src/fs" "$src/include" "$src/.fb-import" "$b/"
cp -p "$top/src/Kbuild" "$top/backports/include/fb_compat.h" "$b/"
cp -p "$top/backports/$base/Kbuild.objs" "$b/"
# The takeover of a built-in FUSE (renamed flavor; src/Kbuild decides).
mkdir -p "$b/takeover"
cp -p "$top"/backports/takeover/*.c "$b/takeover/"
# Stand-in headers (found before the kernel's) and compat sources, the
# base's own (backports/<base>/include/linux, backports/<base>/compat).
# Only a base whose pin says COMPAT=shared (6.12: kernels older than it)
# has them; a base that serves no kernel older than itself has none.
rm -rf "$b/fb_include"
rm -f "$b"/compat/*.c
mkdir -p "$b/fb_include" "$b/compat"
if [ "$compat" = shared ]; then
	if ! cp -pR "$top/backports/$base/include/linux" "$b/fb_include/" ||
		! cp -p "$top/backports/$base"/compat/*.c "$b/compat/"; then
		die "base $base has COMPAT=shared but no backports/$base/include/linux or backports/$base/compat"
	fi
fi

# FB_CONFIGURE_ONLY=1: stop here, with build/<kver>/ laid out and
# configured (the tests of the probe logic, tests/host-scripts/run.sh).
if [ "${FB_CONFIGURE_ONLY:-0}" = 1 ]; then
	echo "fuse-backport: configured $version ($flavor: $modules) for $kver in ${b#"$top"/}"
	exit 0
fi

extra=""
[ "${FB_WERROR:-0}" = 1 ] && extra="KCFLAGS=-Werror"
echo "fuse-backport: building $version ($flavor: $modules) for $kver"
# kbuild's output also in build/<kver>/kbuild.log; a failure ends with one
# line naming the first error's API (scripts/kbuild-error.sh) and the log.
rm -f "$b/kbuild.rc"
{
	rc=0
	# shellcheck disable=SC2086
	make -C "$kdir" M="$b" $extra modules 2>&1 || rc=$?
	echo $rc > "$b/kbuild.rc"
} | tee "$b/kbuild.log"
if [ "$(cat "$b/kbuild.rc" 2> /dev/null)" != 0 ]; then
	why=$(sh "$top/scripts/kbuild-error.sh" "$b/kbuild.log" "$b") || why="no compiler error line"
	die "$kver: the build failed: $why; full log: $b/kbuild.log"
fi
for m in $modules; do
	[ -f "$b/$m.ko" ] || die "kbuild did not produce $m.ko"
done
echo "fuse-backport: built $(for m in $modules; do printf '%s ' "${b#"$top"/}/$m.ko"; done)"
