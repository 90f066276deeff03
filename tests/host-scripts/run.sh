#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Tests of the tooling itself: the import refuses what it must refuse, with
# one clear line and without leaving a half-written tree, and accepts a
# kernel.org-style tarball holding exactly the pinned files; the probes pick
# the variant of an API a kernel has, and a kernel with none gets one line.
# Runs on the host (no VM). TAP output (tests/lib/tap.sh), then "tools: N passed, N failed, N skipped".
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=/dev/null
. "$top/backports/6.12/pin"
work=$(mktemp -d "${TMPDIR:-/tmp}/fb-tools.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cache=${FB_CACHE:-/var/cache/fuse-backport}
deb=$cache/${DEBIAN_PACKAGE}_${DEBIAN_VERSION}_all.deb

tap_suite=tools
. "$top/tests/lib/tap.sh"
ok() { tap_check 0 "$1"; }
notok() { tap_check 1 "$1"; [ -f "$work/err" ] && sed 's/^/#   /' "$work/err"; }

# A scratch copy of the repository's tooling, so tests can break pins and
# series without touching the real ones.
scratch() {
	rm -rf "$work/repo"
	mkdir -p "$work/repo/src"
	cp -R "$top/scripts" "$top/dev" "$top/backports" "$top/dkms.conf" "$work/repo/"
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
	elif [ -e "$work/repo/src/upstream-6.12" ] || ls -d "$work"/repo/src/.import.* > /dev/null 2>&1; then
		notok "$name: left a tree behind"
	else
		ok "$name: $(cat "$work/err")"
	fi
}

import() { OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh"; }

# The pinned package must be at hand for the tarball tests.
if [ ! -f "$deb" ]; then
	mkdir -p "$cache" && (cd "$cache" && apt-get download "$DEBIAN_PACKAGE=$DEBIAN_VERSION" > /dev/null 2>&1)
fi
if [ ! -f "$deb" ]; then
	echo "Bail out! $DEBIAN_PACKAGE $DEBIAN_VERSION is not available (run dev/apt-suites.sh)"
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
if import > "$work/out" 2> "$work/err" && [ -f "$work/repo/src/upstream-6.12/.fb-import" ]; then
	ok "import of the pinned Debian package: $(cat "$work/out")"
else
	notok "import of the pinned Debian package"
fi
before=$(ls -l --time-style=full-iso "$work/repo/src/upstream-6.12/.fb-import")
if import > "$work/out" 2> "$work/err" && grep -q 'up to date' "$work/out" &&
   [ "$(ls -l --time-style=full-iso "$work/repo/src/upstream-6.12/.fb-import")" = "$before" ]; then
	ok "import is idempotent: $(cat "$work/out")"
else
	notok "import is idempotent"
fi
if grep -q 'FB_NAME' "$work/repo/src/upstream-6.12/fs/fuse/inode.c"; then
	ok "infra patches applied"
else
	notok "infra patches applied"
fi

# 2. A kernel.org tarball with exactly the pinned files is accepted.
scratch
if UPSTREAM_TARBALL="$work/linux-$UPSTREAM_VERSION.tar.xz" import > "$work/out" 2> "$work/err" &&
   grep -q "tree_sha256=$TREE_SHA256" "$work/repo/src/upstream-6.12/.fb-import"; then
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
	env UPSTREAM_TARBALL="$work/tampered.tar.xz" OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh"

cp "$work/linux-$UPSTREAM_VERSION.tar.xz" "$work/corrupt.tar.xz"
printf 'garbage' | dd of="$work/corrupt.tar.xz" bs=1 seek=4096 conv=notrunc 2> /dev/null
expect_fail "corrupted tarball" 'cannot read|lacks|sha256' \
	env UPSTREAM_TARBALL="$work/corrupt.tar.xz" OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh"

# A Debian package whose tarball is not the pinned one.
mkdir -p "$work/fakedeb/DEBIAN" "$work/fakedeb/$(dirname "$DEBIAN_TARBALL")" "$work/fakecache"
cp "$work/tampered.tar.xz" "$work/fakedeb/$DEBIAN_TARBALL"
printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: test <test@invalid>\nDescription: tampered\n' \
	"$DEBIAN_PACKAGE" "$DEBIAN_VERSION" > "$work/fakedeb/DEBIAN/control"
dpkg-deb -b "$work/fakedeb" "$work/fakecache/${DEBIAN_PACKAGE}_${DEBIAN_VERSION}_all.deb" > /dev/null
expect_fail "Debian source package with a tampered tarball" 'sha256 mismatch' \
	env FB_CACHE="$work/fakecache" OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh"

# FB_TARBALL_TO (the debug kernel's source, dev/debug-kernel.sh): the same
# checks, then only the verified tarball is written.
mkdir -p "$work/tarto"
expect_fail "FB_TARBALL_TO with a tampered Debian package" 'sha256 mismatch' \
	env FB_CACHE="$work/fakecache" FB_TARBALL_TO="$work/tarto/linux.tar" OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh"
if [ -e "$work/tarto/linux.tar" ] || ls -d "$work"/tarto/.import.* > /dev/null 2>&1; then
	notok "FB_TARBALL_TO with a tampered Debian package: left a file behind"
fi
if FB_TARBALL_TO="$work/tarto/linux.tar" OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh" > "$work/out" 2> "$work/err" &&
	case " $TARBALL_SHA256 " in *" $(sha256sum < "$work/tarto/linux.tar" | cut -d' ' -f1) "*) true ;; *) false ;; esac &&
	[ ! -e "$work/repo/src/upstream-6.12" ]; then
	ok "FB_TARBALL_TO writes the pinned tarball, verified, and imports nothing: $(cat "$work/out")"
else
	notok "FB_TARBALL_TO writes the pinned tarball, verified, and imports nothing"
fi
rm -rf "$work/tarto"

# 4. A pinned package that the archive does not have.
scratch
sed -i 's/^DEBIAN_VERSION=.*/DEBIAN_VERSION=0.0.0-fb-missing/' "$work/repo/backports/6.12/pin"
expect_fail "missing source package" 'cannot fetch' \
	env FB_CACHE="$work/emptycache" OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh"

# 5. A patch that does not apply stops with its name; an existing tree stays.
scratch
import > /dev/null 2>&1
stamp=$(cat "$work/repo/src/upstream-6.12/.fb-import")
printf -- '--- a/fs/fuse/file.c\n+++ b/fs/fuse/file.c\n@@ -1,3 +1,3 @@\n-this line is not there\n+nor this one\n context\n' \
	> "$work/repo/backports/6.12/patches/9999-does-not-apply.patch"
echo 9999-does-not-apply.patch >> "$work/repo/backports/6.12/series"
if OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh" > "$work/out" 2> "$work/err"; then
	notok "patch that does not apply: import succeeded"
elif [ "$(wc -l < "$work/err")" = 1 ] && grep -q '9999-does-not-apply.patch does not apply' "$work/err" &&
     [ "$(cat "$work/repo/src/upstream-6.12/.fb-import")" = "$stamp" ] &&
     ! ls -d "$work"/repo/src/.import.* > /dev/null 2>&1; then
	ok "patch that does not apply: $(cat "$work/err"); previous tree kept"
else
	notok "patch that does not apply"
fi
rm -rf "$work/repo/src/upstream-6.12"
expect_fail "series naming a missing patch" 'missing patch' sh -c \
	"echo 9998-absent.patch >> '$work/repo/backports/6.12/series'; OUT='$work/repo/src/upstream-6.12' sh '$work/repo/dev/import.sh'"

# 5b. A series entry with a slash takes another base's patch (base 7.2 takes
# base 7.3's series): the same tree as with the patch in place, the import
# record naming where it came from; a missing one is refused by name.
tree_sum() { (cd "$work/repo/src/upstream-6.12" && find fs -type f | LC_ALL=C sort | xargs sha256sum | sha256sum); }
scratch
import > /dev/null 2>&1
want=$(tree_sum)
rm -rf "$work/repo/src/upstream-6.12"
p3=0003-fuse-check-for-privileges-to-remove-once-per-inode-n.patch
mkdir -p "$work/repo/backports/9.9/patches"
mv "$work/repo/backports/6.12/patches/$p3" "$work/repo/backports/9.9/patches/"
sed -i "s|^$p3\$|9.9/patches/$p3|" "$work/repo/backports/6.12/series"
if import > "$work/out" 2> "$work/err" &&
	[ "$(tree_sum)" = "$want" ] &&
	grep -qx "patch=backports/9.9/patches/$p3" "$work/repo/src/upstream-6.12/.fb-import"; then
	ok "series entry 9.9/patches/$p3 (another base's patch): the same tree, recorded as backports/9.9/patches/$p3"
else
	notok "series entry 9.9/patches/$p3 (another base's patch): not the same tree or not recorded"
fi
rm -rf "$work/repo/src/upstream-6.12"
expect_fail "series naming another base's missing patch" "missing patch: backports/9.8/patches/$p3" sh -c \
	"sed -i 's|^9.9/|9.8/|' '$work/repo/backports/6.12/series'; OUT='$work/repo/src/upstream-6.12' sh '$work/repo/dev/import.sh'"

# 6. Unknown base.
scratch
expect_fail "unknown base" "unknown base" env OUT="$work/repo/src/upstream-6.12" sh "$work/repo/dev/import.sh" 9.99

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
# The renamed module DKMS built is the one dkms remove takes, whatever
# FB_PREFIX says when it runs: a module built with FB_PREFIX=acmefs (a fake
# DKMS tree) is listed by a read without FB_PREFIX, as a prerm does.
# shellcheck disable=SC2016 # expanded by bash -c
pv=$(kernelver="" kernel_source_dir="" bash -c '. "$1" 2>/dev/null; echo "$PACKAGE_VERSION"' _ "$work/repo/dkms.conf")
mkdir -p "$work/dkmstree/fuse-backport/$pv/6.12.95-fakey/x86_64/module"
: > "$work/dkmstree/fuse-backport/$pv/6.12.95-fakey/x86_64/module/acmefs.ko.xz"
# shellcheck disable=SC2016 # expanded by bash -c
msg=$(env -u FB_PREFIX action=remove dkms_tree="$work/dkmstree" kernelver=6.12.95-fakey kernel_source_dir="$work/noconfig" \
	bash -c '. "$1" 2>/dev/null; echo "${BUILT_MODULE_NAME[*]}"' _ "$work/repo/dkms.conf")
if [ "$msg" = acmefs ]; then
	ok "dkms.conf lists the renamed module DKMS built (acmefs) for a read without FB_PREFIX"
else
	notok "dkms.conf lists the renamed module DKMS built (acmefs) for a read without FB_PREFIX: '$msg'"
fi

# FB_PREFIX: the admin's config file, the environment, the shipped default.
# shellcheck source=tests/host-scripts/prefix.sh
. "$top/tests/host-scripts/prefix.sh"

# make follow (dev/follow.sh) on a stand-in archive, and the age of a
# kernel's FUSE against a base's (scripts/fuse-age.sh, the build's line).
# shellcheck source=tests/host-scripts/follow.sh
. "$top/tests/host-scripts/follow.sh"

# WHEN_AHEAD: the setting, dkms.conf's decision, modprobe's fallback.
# shellcheck source=tests/host-scripts/when-ahead.sh
. "$top/tests/host-scripts/when-ahead.sh"

# An upgrade keeps the modules it cannot build again (scripts/keep-modules.sh).
# shellcheck source=tests/host-scripts/keep-modules.sh
. "$top/tests/host-scripts/keep-modules.sh"

# How a run's closing count is taken (tests/lib/count.sh), on fake logs.
# shellcheck source=tests/host-scripts/count.sh
. "$top/tests/host-scripts/count.sh"

# The layers of a write in make bench's report (bench/lib.sh), on
# fake profiles.
# shellcheck source=tests/host-scripts/perf-split.sh
. "$top/tests/host-scripts/perf-split.sh"

# make bench-pool (bench/pool.sh), on fake runs.
# shellcheck source=tests/host-scripts/pool.sh
. "$top/tests/host-scripts/pool.sh"

# make bench's knobs: the A/A control raw2, the workloads (bench/lib.sh).
# shellcheck source=tests/host-scripts/bench-knobs.sh
. "$top/tests/host-scripts/bench-knobs.sh"

# make bench's report of the workload latfiles (bench/report.sh).
# shellcheck source=tests/host-scripts/bench-report.sh
. "$top/tests/host-scripts/bench-report.sh"

# make help: a line for each .PHONY target, by stage (dev/make-help.sh).
# shellcheck source=tests/host-scripts/make-help.sh
. "$top/tests/host-scripts/make-help.sh"

# The renamed module's load at boot (scripts/load-renamed.sh), with stubs.
# shellcheck source=tests/host-scripts/load-renamed.sh
. "$top/tests/host-scripts/load-renamed.sh"

# The reference pages against the code: fuse-backport.conf(5)'s keys,
# fuse-backport(7)'s module parameters and their defaults, groff's warnings.
# shellcheck source=tests/host-scripts/manpages.sh
. "$top/tests/host-scripts/manpages.sh"
# One flavor rule: status and dkms.conf (scripts/fuse-config.sh) on fake
# kernels whose config files and module lists disagree or are missing.
# shellcheck source=tests/host-scripts/fuse-config.sh
. "$top/tests/host-scripts/fuse-config.sh"
# One age rule: status and scripts/fuse-age.sh on fake kernels of the pins' versions.
# shellcheck source=tests/host-scripts/fuse-age.sh
. "$top/tests/host-scripts/fuse-age.sh"
# make check-red's judgement (tests/red/run.sh), on fake runs.
# shellcheck source=tests/host-scripts/red.sh
. "$top/tests/host-scripts/red.sh"

# 8. Probes by signature (docs/design.md, "Probes"). A fake kernel is a
# copy of the arch part of an installed headers tree (its -common part is
# shared) with headers of the -common part rewritten into
# arch/x86/include/generated/linux/, which kbuild searches before include/.
# Each check compiles only the probes it is about (the scratch copy keeps
# those and the required ones), so that a pass stays short; FB_CHECK_FULL=1
# adds full passes, and compiles our shims and compat code against the fakes.
hdr_of() {
	for d in /usr/src/linux-headers-$1; do
		case $d in *-rt-* | *-cloud-*) continue ;; esac
		[ -f "$d/.config" ] && [ -f "$d/Module.symvers" ] && echo "$d" && return 0
	done
	return 1
}
# fake NAME SRC: $work/hdr/NAME, a copy of the headers tree SRC
fake() {
	rm -rf "$work/hdr/$1"
	mkdir -p "$work/hdr"
	cp -a "$2" "$work/hdr/$1" || return 1
	for l in scripts tools; do
		[ -L "$2/$l" ] && ln -sfn "$(readlink -f "$2/$l")" "$work/hdr/$1/$l"
	done
	return 0
}
# alter NAME HEADER SED: rewrite <linux/HEADER> of fake NAME; fails if SED
# changes nothing (the fake would test nothing)
alter() {
	g=$work/hdr/$1/arch/x86/include/generated/linux/$2
	from=$g
	[ -f "$g" ] || from=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$work/hdr/$1/Makefile")/include/linux/$2
	mkdir -p "$(dirname "$g")"
	sed "$3" "$from" > "$g.new" && ! cmp -s "$from" "$g.new" && mv "$g.new" "$g"
}
# mkfake NAME SRC [HEADER SED]...: fake NAME from SRC, with those rewrites
mkfake() {
	mk_n=$1
	fake "$1" "$2" || return 1
	shift 2
	while [ $# -ge 2 ]; do
		alter "$mk_n" "$1" "$2" || return 1
		shift 2
	done
}
# locks_out_of_fs_h NAME: in fake NAME (a 6.1 tree), the file locking
# declarations of <linux/fs.h> moved to a <linux/filelock.h> of their own,
# as "filelock: move file locking definitions to separate header file"
# (6.3) did; fs.h keeps fl_owner_t and a declaration of struct file_lock
locks_out_of_fs_h() {
	lo_g=$work/hdr/$1/arch/x86/include/generated/linux
	lo_c=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$work/hdr/$1/Makefile")
	mkdir -p "$lo_g"
	printf '#ifndef _LINUX_FILELOCK_H\n#define _LINUX_FILELOCK_H\n#include <linux/fs.h>\n' > "$lo_g/filelock.h"
	awk -v fs="$lo_g/fs.h" -v lk="$lo_g/filelock.h" '
	{ l[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++) {
			if (!a1 && l[i] ~ /^#define FL_POSIX/) a1 = i
			if (a1 && !a2 && l[i] ~ /^#endif \/\* !CONFIG_FILE_LOCKING \*\//) a2 = i
			if (!w1 && l[i] ~ /^static inline int locks_lock_file_wait\(/) w1 = i
			if (w1 && !w2 && i > w1 && l[i] ~ /^}/) w2 = i
			if (!b1 && l[i] ~ /^#ifdef CONFIG_FILE_LOCKING$/ && l[i + 1] ~ /^static inline int break_lease\(/) b1 = i
			if (b1 && !b2 && i > b1 && l[i] ~ /^#endif \/\* CONFIG_FILE_LOCKING \*\//) b2 = i
		}
		if (!(a1 && a2 && w1 && w2 && b1 && b2))
			exit 1
		for (i = 1; i <= NR; i++) {
			if ((i >= a1 && i <= a2) || (i >= w1 && i <= w2) || (i >= b1 && i <= b2)) {
				print l[i] >> lk
				if (i == a1)
					print "typedef void *fl_owner_t;\nstruct file_lock;" > fs
			} else {
				print l[i] > fs
			}
		}
	}' "$lo_c/include/linux/fs.h" || return 1
	echo '#endif' >> "$lo_g/filelock.h"
}
# probes NAME...: the scratch copy keeps these probes and the required ones
req_probes="misc_dynamic_minor mnt_idmap mnt_user_ns generic_fillattr_mask generic_fillattr_idmap generic_fillattr_userns dentry_init_security_ctx dentry_init_security_lsmcontext filelock_h filelock_h_fl file_lock_fs_h"
probes() {
	rm -f "$work/repo/backports/probes/"*.c
	for p in $req_probes "$@"; do
		cp "$top/backports/probes/$p.c" "$work/repo/backports/probes/"
	done
}
all_probes() { cp "$top"/backports/probes/*.c "$work/repo/backports/probes/"; }
# configure NAME: build.sh FB_CONFIGURE_ONLY=1 for fake NAME (kernel
# 6.12.95-fbNAME or 6.1.0-fbNAME by the tree), stderr in $work/err
configure() {
	cfg_k=$(sed -n 's/^#define UTS_RELEASE "\([0-9]*\.[0-9]*\).*/\1/p' "$work/hdr/$1/include/generated/utsrelease.h")
	case $cfg_k in 6.1) cfg_k=6.1.0-fb$1 ;; *) cfg_k=$cfg_k.0-fb$1 ;; esac
	cfg_b=$work/repo/build/$1
	FB_GATE_CACHE=$work/gatecache FB_CONFIGURE_ONLY=1 BUILD=$cfg_b \
		sh "$work/repo/scripts/build.sh" "$cfg_k" "$work/hdr/$1" > "$work/out" 2> "$work/err"
}
has() { grep -q "^#define $2 1" "$work/repo/build/$1/fb_config.h"; }
# compile NAME OBJ...: those objects of build/NAME, no warning in our files
compile() {
	cmp_n=$1
	shift
	make -C "$work/hdr/$cmp_n" M="$work/repo/build/$cmp_n" "$@" > "$work/err" 2>&1 &&
		! grep -q 'warning:' "$work/err"
}

k612=$(hdr_of '6.12.*-amd64') || k612=""
k61=$(hdr_of '6.1.0-*-amd64') || k61=""
if [ -z "$k612" ] || [ -z "$k61" ]; then
	ok "probes by signature # skip needs the headers of a 6.12 and a 6.1 kernel (make deps)"
else
	if [ ! -f "$work/repo/src/upstream-6.12/.fb-import" ]; then
		scratch
		import > /dev/null 2>&1
	fi

	# 8a. 6.12.y before the backing-file LSM backport: backing_file_open()
	# takes the user's path. Passthrough stays, through the shim. Also the
	# mix of a mnt_idmap VFS with in_group_or_capable() taking a
	# user_namespace: the shim's, not the kernel's.
	mkfake lsm "$k612" \
		backing-file.h 's/^struct file \*backing_file_open(const struct file \*user_file, int flags,/struct file *backing_file_open(const struct path *user_path, int flags,/' \
		fs.h 's/^bool in_group_or_capable(struct mnt_idmap \*idmap,/bool in_group_or_capable(struct user_namespace *idmap,/' ||
		notok "fake 6.12 headers (lsm) could not be made"
	probes backing_file backing_file_open_file backing_file_open_path backing_file_end_write_pos \
		vfs_iocb_iter_write in_group_or_capable in_group_or_capable_userns
	if configure lsm && [ ! -s "$work/err" ] &&
		has lsm HAVE_BACKING_FILE_OPEN_PATH && ! has lsm HAVE_BACKING_FILE_OPEN_FILE &&
		has lsm HAVE_BACKING_FILE_END_WRITE_POS && ! grep -q FB_NO_PASSTHROUGH "$work/repo/build/lsm/fb_config.mk" &&
		has lsm HAVE_IN_GROUP_OR_CAPABLE_USERNS && ! has lsm HAVE_IN_GROUP_OR_CAPABLE && has lsm HAVE_MNT_IDMAP; then
		ok "6.12 with backing_file_open(path): HAVE_BACKING_FILE_OPEN_PATH, passthrough kept, nothing said; in_group_or_capable(user_namespace): HAVE_IN_GROUP_OR_CAPABLE_USERNS only"
	else
		notok "6.12 with backing_file_open(path), in_group_or_capable(user_namespace)"
	fi
	# The shim compiles the call base 6.12's passthrough makes; without it
	# (the kernel's form taken for the other), the call does not compile.
	u=$work/unit
	mkdir -p "$u/inc/linux"
	cp "$top/backports/6.12/include/linux/backing-file.h" "$u/inc/linux/"
	printf '#define HAVE_BACKING_FILE 1\n#define HAVE_BACKING_FILE_OPEN_PATH 1\n' > "$u/cfg.h"
	printf '#include <linux/backing-file.h>\nstruct file *fb_unit(struct file *file, const struct path *p, const struct cred *c);\nstruct file *fb_unit(struct file *file, const struct path *p, const struct cred *c)\n{\n\treturn backing_file_open(file, file->f_flags, p, c);\n}\n' > "$u/shim.c"
	cp "$u/shim.c" "$u/noshim.c"
	# shellcheck disable=SC2016
	printf 'NOSTDINC_FLAGS += -I$(src)/inc\nccflags-y := -Werror -include $(src)/cfg.h\nCFLAGS_noshim.o := -DHAVE_BACKING_FILE_OPEN_FILE=1\n' > "$u/Kbuild"
	make -C "$work/hdr/lsm" M="$u" -k shim.o noshim.o > "$work/err" 2>&1
	if [ -f "$u/shim.o" ] && [ ! -f "$u/noshim.o" ]; then
		ok "backing_file_open(file, ...) compiles through the shim on those headers, and not without it"
	else
		notok "backing_file_open() shim (shim.o $([ -f "$u/shim.o" ] && echo built || echo failed), noshim.o $([ -f "$u/noshim.o" ] && echo built || echo failed))"
	fi

	# 8b. A layer whose end_write() gets the file only (6.9-6.11), and a
	# backing_file_open() of neither form: no passthrough, one line naming
	# both needs.
	mkfake endw "$k612" backing-file.h 's/void (\*end_write)(struct file \*, loff_t, ssize_t);/void (*end_write)(struct file *);/; s/^struct file \*backing_file_open(const struct file \*user_file, int flags,/struct file *backing_file_open(const struct file *user_file, unsigned int flags,/' ||
		notok "fake 6.12 headers (endw) could not be made"
	probes backing_file backing_file_open_file backing_file_open_path backing_file_end_write_pos vfs_iocb_iter_write
	if configure endw && [ "$(wc -l < "$work/err")" = 1 ] &&
		grep -q 'building without passthrough: no HAVE_BACKING_FILE_END_WRITE_POS HAVE_BACKING_FILE_OPEN_FILE|HAVE_BACKING_FILE_OPEN_PATH ' "$work/err" &&
		grep -q '^FB_NO_PASSTHROUGH := ' "$work/repo/build/endw/fb_config.mk" && has endw HAVE_BACKING_FILE; then
		ok "6.12 with end_write(file) and another backing_file_open(): $(cat "$work/err")"
	else
		notok "6.12 with end_write(file) and another backing_file_open(): no one-line 'without passthrough'"
	fi

	# 8c. generic_fillattr() of a form no variant fits: refused in one line,
	# by gate.sh (dkms.conf) and by build.sh.
	mkfake fill "$k612" fs.h 's/^void generic_fillattr(struct mnt_idmap \*, u32, struct inode \*, struct kstat \*);/void generic_fillattr(struct mnt_idmap *, u32, struct inode *, struct kstat *, unsigned int);/' ||
		notok "fake 6.12 headers (fill) could not be made"
	probes
	fillre='not supported yet by base 6\.12: its headers lack HAVE_GENERIC_FILLATTR_MASK\+HAVE_MNT_IDMAP\|HAVE_GENERIC_FILLATTR_IDMAP\+HAVE_MNT_IDMAP\|HAVE_GENERIC_FILLATTR_USERNS\+HAVE_MNT_USER_NS \(see'
	FB_GATE_CACHE=$work/gatecache bash "$work/repo/scripts/gate.sh" 6.12.0-fbfill "$work/hdr/fill" 6.12 > "$work/out" 2> "$work/err"
	rc=$?
	if [ $rc = 3 ] && [ "$(wc -l < "$work/out")" = 1 ] && grep -Eq "$fillre" "$work/out"; then
		ok "gate.sh refuses generic_fillattr() of no known form: $(cat "$work/out")"
	else
		notok "gate.sh refuses generic_fillattr() of no known form (exit $rc: $(cat "$work/out"))"
	fi
	configure fill
	rc=$?
	if [ $rc = 3 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -Eq "$fillre" "$work/err" && [ ! -e "$work/repo/build/fill" ]; then
		ok "build.sh refuses it too, exit 3: $(cat "$work/err")"
	else
		notok "build.sh refuses generic_fillattr() of no known form (exit $rc)"
	fi

	# 8d. 6.1 without kiocb_start_write() (before November 2024) nor
	# no_free_ptr() (before 6.1.79): shims, and our backing-file layer with
	# the caller taking the freeze protection.
	# shellcheck disable=SC2016
	mkfake old61 "$k61" \
		fs.h 's/^static inline void kiocb_\(start\|end\)_write(/static inline void fb_gone_kiocb_\1_write(/' \
		cleanup.h '$a #undef no_free_ptr' ||
		notok "fake 6.1 headers (old61) could not be made"
	probes kiocb_start_write define_free file_write_not_started backing_file vfs_iocb_iter_write
	if configure old61 && [ ! -s "$work/err" ] &&
		! has old61 HAVE_KIOCB_START_WRITE && ! has old61 HAVE_DEFINE_FREE && ! has old61 HAVE_FILE_WRITE_NOT_STARTED &&
		has old61 HAVE_MNT_USER_NS && ! has old61 HAVE_MNT_IDMAP && has old61 HAVE_GENERIC_FILLATTR_USERNS &&
		! grep -q FB_NO_PASSTHROUGH "$work/repo/build/old61/fb_config.mk"; then
		ok "6.1 without kiocb_start_write(), no_free_ptr(): both probes unset, user_namespace variants set, passthrough by our layer"
	else
		notok "6.1 without kiocb_start_write(), no_free_ptr()"
	fi

	# 8e. 6.12 without a backing-file layer (6.3-6.7 have none and pass a
	# struct mnt_idmap): our layer, the VFS taking the freeze protection.
	mkfake nolayer "$k612" backing-file.h 'd' ||
		notok "fake 6.12 headers (nolayer) could not be made"
	probes backing_file backing_file_end_write_pos backing_file_open_file file_write_not_started \
		vfs_iocb_iter_write kiocb_start_write
	if configure nolayer && [ ! -s "$work/err" ] && ! has nolayer HAVE_BACKING_FILE &&
		has nolayer HAVE_FILE_WRITE_NOT_STARTED && has nolayer HAVE_MNT_IDMAP &&
		! grep -q FB_NO_PASSTHROUGH "$work/repo/build/nolayer/fb_config.mk"; then
		ok "6.12 without a backing-file layer: our layer, HAVE_FILE_WRITE_NOT_STARTED, HAVE_MNT_IDMAP"
	else
		notok "6.12 without a backing-file layer"
	fi

	# 8f-8h. The kernels of other distributions base 6.12 serves, as
	# fakes: each probe of theirs flips, the shim is used (the object
	# refers to what the shim is made of, not to what it stands in for)
	# and what calls it compiles without a warning. These configure with
	# every probe, for the shims of the others must stay off.
	# undef_in NAME OBJ SYM: SYM is an undefined symbol of build/NAME/OBJ
	undef_in() { nm -u "$work/repo/build/$1/$2" 2> /dev/null | grep -qw "$3"; }

	# 8f. RHEL 10.0's 6.12 (6.12.0-55.el10): no page_get_link_raw(), whose
	# stable backport it lacks. Without the shim (the probe forced on),
	# dir.c fails as it does on RHEL 10.
	mkfake rhel10 "$k612" fs.h '/^extern const char \*page_get_link_raw(/,/;/d' ||
		notok "fake 6.12 headers (rhel10) could not be made"
	all_probes
	if configure rhel10 && [ ! -s "$work/err" ] && ! has rhel10 HAVE_PAGE_GET_LINK_RAW &&
		has rhel10 HAVE_INVALID_MNT_IDMAP && compile rhel10 fs/fuse/dir.o &&
		! undef_in rhel10 fs/fuse/dir.o page_get_link_raw && undef_in rhel10 fs/fuse/dir.o page_put_link; then
		ok "6.12 without page_get_link_raw() (RHEL 10.0): probe unset, dir.o compiles through the shim, no warning"
	else
		notok "6.12 without page_get_link_raw() (RHEL 10.0)"
	fi
	rm -f "$work/repo/build/rhel10/fs/fuse/dir.o"
	make -C "$work/hdr/rhel10" M="$work/repo/build/rhel10" KCFLAGS=-DHAVE_PAGE_GET_LINK_RAW=1 \
		fs/fuse/dir.o > "$work/out" 2>&1
	if [ ! -f "$work/repo/build/rhel10/fs/fuse/dir.o" ] &&
		grep -q "implicit declaration of function .page_get_link_raw" "$work/out"; then
		ok "without the shim, dir.o fails as on RHEL 10: $(grep -m1 -o "error: implicit declaration of function .page_get_link_raw." "$work/out")"
	else
		notok "without the shim, dir.o does not fail on implicit page_get_link_raw()"
	fi

	# 8f2. RHEL 10.0 as it is: FUSE, CUSE and virtiofs as modules
	# (CONFIG_FUSE_FS=m), so the drop-in flavor. Its Module.symvers is
	# made without the built-in's fuse_* exports (its fs/fuse is a
	# module there), so that the whole build, modpost included, runs:
	# fuse.ko, cuse.ko and virtiofs.ko, the shim in dir.o.
	mkfake rhel10m "$k612" fs.h '/^extern const char \*page_get_link_raw(/,/;/d' ||
		notok "fake 6.12 headers (rhel10m) could not be made"
	for f in .config include/config/auto.conf; do
		sed -i 's/^CONFIG_FUSE_FS=y$/CONFIG_FUSE_FS=m/; s/^CONFIG_VIRTIO_FS=y$/CONFIG_VIRTIO_FS=m/' "$work/hdr/rhel10m/$f"
	done
	sed -i 's/^#define CONFIG_FUSE_FS 1$/#define CONFIG_FUSE_FS_MODULE 1/; s/^#define CONFIG_VIRTIO_FS 1$/#define CONFIG_VIRTIO_FS_MODULE 1/' \
		"$work/hdr/rhel10m/include/generated/autoconf.h"
	awk -F '\t' '!($2 ~ /^fuse_/ && $3 == "vmlinux")' "$work/hdr/rhel10m/Module.symvers" > "$work/symvers" &&
		cat "$work/symvers" > "$work/hdr/rhel10m/Module.symvers"
	b10=$work/repo/build/rhel10m
	FB_GATE_CACHE=$work/gatecache BUILD=$b10 sh "$work/repo/scripts/build.sh" 6.12.0-fbrhel10m "$work/hdr/rhel10m" \
		> "$work/out" 2> "$work/err"
	rc=$?
	if [ $rc = 0 ] && grep -q '^#define FB_FLAVOR "dropin"$' "$b10/fb_config.h" && ! has rhel10m HAVE_PAGE_GET_LINK_RAW &&
		has rhel10m HAVE_BACKING_FILE_END_WRITE_POS && [ -f "$b10/fuse.ko" ] && [ -f "$b10/cuse.ko" ] &&
		[ -f "$b10/virtiofs.ko" ] && ! grep -q 'warning:' "$work/out" && undef_in rhel10m fs/fuse/dir.o page_put_link &&
		! undef_in rhel10m fs/fuse/dir.o page_get_link_raw && undef_in rhel10m fuse.ko backing_file_write_iter; then
		ok "RHEL 10.0 (FUSE=m, no page_get_link_raw()): drop-in, fuse.ko, cuse.ko and virtiofs.ko built through the shim with the kernel's passthrough, no warning"
	else
		notok "RHEL 10.0 (FUSE=m): the drop-in build (exit $rc)"
		tail -n 5 "$work/out" | sed 's/^/#   /'
	fi

	# 8f3. A failure no probe foresaw (here: a probe that says yes to an
	# API the kernel lacks) is still one line at the end of the build,
	# naming the first error's API and the log (scripts/kbuild-error.sh).
	printf '%s\n' '// SPDX-License-Identifier: GPL-2.0-only' '/* a probe that is wrong: always yes */' \
		'int fb_probe(void);' 'int fb_probe(void) { return 0; }' > "$work/repo/backports/probes/page_get_link_raw.c"
	FB_GATE_CACHE=$work/gatecache BUILD=$b10 sh "$work/repo/scripts/build.sh" 6.12.0-fbrhel10m "$work/hdr/rhel10m" \
		> "$work/out" 2> "$work/err"
	rc=$?
	last=$(tail -n 1 "$work/err")
	if [ $rc = 1 ] && has rhel10m HAVE_PAGE_GET_LINK_RAW &&
		echo "$last" | grep -Eq "^fuse-backport: 6\.12\.0-fbrhel10m: the build failed: fs/fuse/dir\.c:[0-9]+: page_get_link_raw \(implicit declaration of function 'page_get_link_raw'\); full log: $b10/kbuild\.log\$" &&
		grep -q "error: implicit declaration of function .page_get_link_raw" "$b10/kbuild.log"; then
		ok "an unforeseen compile failure: the last line names the API and the log: $last"
	else
		notok "an unforeseen compile failure (exit $rc): the last line is: $last"
	fi
	cp "$top/backports/probes/page_get_link_raw.c" "$work/repo/backports/probes/"

	# 8g. Ubuntu 24.04's 6.8 (6.8.0-generic), but for its file locks
	# (8h): no invalid_mnt_idmap, security_dentry_init_security() with a
	# struct lsmcontext (Ubuntu's LSM stacking), no page_get_link_raw(), a
	# backing-file layer whose end_write() gets the file only and whose
	# backing_file_open() takes the user's path, and no FUSE_PASSTHROUGH
	# option: our backing-file layer, as on 6.1.
	# shellcheck disable=SC2016
	mkfake noble "$k612" \
		mnt_idmapping.h '/^extern struct mnt_idmap invalid_mnt_idmap;$/d' \
		security.h '/^int security_dentry_init_security(/i struct lsmcontext { char *context; u32 len; int slot; };' \
		security.h '/^int security_dentry_init_security(/,/;/{s/const char \*\*xattr_name, void \*\*ctx,$/const char **xattr_name, struct lsmcontext *lsmctx);/;/^[[:space:]]*u32 \*ctxlen);$/d}' \
		fs.h '/^extern const char \*page_get_link_raw(/,/;/d' \
		backing-file.h 's/void (\*end_write)(struct file \*, loff_t, ssize_t);/void (*end_write)(struct file *);/; s/^struct file \*backing_file_open(const struct file \*user_file, int flags,/struct file *backing_file_open(const struct path *user_path, int flags,/' ||
		notok "fake 6.12 headers (noble) could not be made"
	for f in .config include/config/auto.conf include/generated/autoconf.h; do
		sed -i '/CONFIG_FUSE_PASSTHROUGH/d' "$work/hdr/noble/$f"
	done
	if configure noble && [ ! -s "$work/err" ] && has noble HAVE_MNT_IDMAP && ! has noble HAVE_INVALID_MNT_IDMAP &&
		! has noble HAVE_DENTRY_INIT_SECURITY_CTX && has noble HAVE_DENTRY_INIT_SECURITY_LSMCONTEXT &&
		! has noble HAVE_PAGE_GET_LINK_RAW && has noble HAVE_BACKING_FILE && ! has noble HAVE_BACKING_FILE_END_WRITE_POS &&
		grep -q '^FB_OWN_BACKING_FILE := y' "$work/repo/build/noble/fb_config.mk" &&
		! grep -q FB_NO_PASSTHROUGH "$work/repo/build/noble/fb_config.mk"; then
		ok "6.8 (Ubuntu 24.04): HAVE_INVALID_MNT_IDMAP, HAVE_DENTRY_INIT_SECURITY_CTX, HAVE_PAGE_GET_LINK_RAW unset, HAVE_DENTRY_INIT_SECURITY_LSMCONTEXT set, passthrough by our layer"
	else
		notok "6.8 (Ubuntu 24.04): probes"
	fi
	if compile noble fs/fuse/dir.o fs/fuse/dev.o fs/fuse/passthrough.o compat/invalid_mnt_idmap.o compat/backing_file.o &&
		! undef_in noble fs/fuse/dir.o invalid_mnt_idmap && undef_in noble fs/fuse/dir.o fb_invalid_mnt_idmap &&
		undef_in noble fs/fuse/dev.o fb_invalid_mnt_idmap && ! undef_in noble fs/fuse/dir.o page_get_link_raw &&
		undef_in noble fs/fuse/dir.o security_dentry_init_security &&
		! undef_in noble fs/fuse/passthrough.o backing_file_write_iter && undef_in noble fs/fuse/passthrough.o fb_backing_file_write_iter; then
		ok "6.8 (Ubuntu 24.04): dir.o, dev.o, passthrough.o and our invalid_mnt_idmap and backing-file layer compile through the shims, no warning"
	else
		notok "6.8 (Ubuntu 24.04): objects through the shims"
	fi

	# 8h. 6.3-6.8's file locks (Ubuntu 24.04): the declarations in
	# <linux/filelock.h>, struct file_lock with its own fl_* fields. A 6.1
	# tree with them moved there from <linux/fs.h>, as 6.3 moved them.
	if fake lock68 "$k61" && locks_out_of_fs_h lock68; then
		if configure lock68 && [ ! -s "$work/err" ] && ! has lock68 HAVE_FILELOCK_H &&
			has lock68 HAVE_FILELOCK_H_FL && ! has lock68 HAVE_FILE_LOCK_FS_H &&
			compile lock68 fs/fuse/file.o; then
			ok "file locks in <linux/filelock.h> of 6.3-6.8: HAVE_FILELOCK_H_FL only, file.o compiles, no warning"
		else
			notok "file locks in <linux/filelock.h> of 6.3-6.8"
		fi
		# None of the three forms: one line, naming the need (a cache of
		# its own: the key does not cover a header changed in place).
		alter lock68 filelock.h 's/\<posix_test_lock\>/fb_gone_posix_test_lock/'
		FB_GATE_CACHE=$work/gatecache-lock68 bash "$work/repo/scripts/gate.sh" 6.1.0-fblock68 "$work/hdr/lock68" 6.12 > "$work/out" 2> "$work/err"
		rc=$?
		if [ $rc = 3 ] && [ "$(wc -l < "$work/out")" = 1 ] &&
			grep -q 'its headers lack HAVE_FILELOCK_H|HAVE_FILELOCK_H_FL|HAVE_FILE_LOCK_FS_H (see' "$work/out"; then
			ok "file locks of no known form: gate.sh says one line: $(cat "$work/out")"
		else
			notok "file locks of no known form: gate.sh (exit $rc: $(cat "$work/out"))"
		fi
	else
		notok "fake 6.1 headers (lock68) could not be made"
	fi

	# The stand-in <linux/cleanup.h> where the kernel has none, in user
	# space: __free() runs the free expression as the variable goes out of
	# scope, no_free_ptr() takes the value and leaves NULL.
	mkdir -p "$work/cu/linux"
	cp "$top/backports/6.12/include/linux/cleanup.h" "$work/cu/linux/"
	cat > "$work/cu/t.c" <<-'EOF'
	#include <stddef.h>
	#include <linux/cleanup.h>
	static int freed;
	DEFINE_FREE(count, int *, if (_T) freed++)
	static int *keep(int *p)
	{
		int *q __free(count) = p;

		return no_free_ptr(q);
	}
	int main(void)
	{
		int x;

		{
			int *p __free(count) = &x;
			(void)p;
		}
		if (freed != 1 || keep(&x) != &x || freed != 1)
			return 1;
		return 0;
	}
	EOF
	if cc -Wall -Werror -I"$work/cu" -o "$work/cu/t" "$work/cu/t.c" 2> "$work/err" && "$work/cu/t"; then
		ok "stand-in <linux/cleanup.h>: __free() frees at scope exit, no_free_ptr() keeps"
	else
		notok "stand-in <linux/cleanup.h>"
	fi

	# FB_CHECK_FULL=1: every probe on the fakes, and what the shims serve
	# compiles without a warning.
	if [ "${FB_CHECK_FULL:-0}" = 1 ]; then
		all_probes
		for t in "lsm fs/fuse/passthrough.o fs/fuse/acl.o" "old61 compat/backing_file.o fs/fuse/virtio_fs.o fs/fuse/file.o" \
			"nolayer compat/backing_file.o" "endw fs/fuse/file.o fs/fuse/iomode.o"; do
			# shellcheck disable=SC2086
			set -- $t
			if configure "$1" && compile "$@"; then
				ok "full probes on $1: $(shift; echo "$@") compile without a warning"
			else
				notok "full probes on $1: $(shift; echo "$@")"
			fi
		done
	fi
fi

# A cached .deb is used again only with the archive's checksum, or, where
# the index no longer has its version, when its own checksums hold
# (tests/lib/debcache.sh, for tests/vm/kernel.sh and dev/headers.sh unpack).
# The index is a stand-in apt-cache on PATH that knows fbtest 1.0 only.
if (
	# shellcheck source=tests/lib/debcache.sh
	. "$top/tests/lib/debcache.sh"
	d=$work/debcache
	mkdir -p "$d/pkg/DEBIAN" "$d/pkg/usr/share/fbtest" "$d/bin"
	printf 'Package: fbtest\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n' > "$d/pkg/DEBIAN/control"
	head -c 200000 /dev/urandom > "$d/pkg/usr/share/fbtest/data"
	dpkg-deb -Zxz -b "$d/pkg" "$d/good.deb" > /dev/null || exit 1
	# shellcheck disable=SC2016 # the stand-in's own $2
	printf '#!/bin/sh\ncase "$2" in fbtest=1.0) echo "SHA256: %s" ;; esac\n' "$(sha256sum < "$d/good.deb" | cut -d' ' -f1)" > "$d/bin/apt-cache"
	chmod 755 "$d/bin/apt-cache"
	PATH=$d/bin:$PATH
	bad() {	# bad FILE: a copy of good.deb with one byte of its data changed
		cp "$d/good.deb" "$1" && printf 'X' | dd of="$1" bs=1 seek=150000 conv=notrunc 2> /dev/null
	}
	cp "$d/good.deb" "$d/a.deb" && bad "$d/b.deb" && bad "$d/c.deb" && cp "$d/good.deb" "$d/e.deb" || exit 1
	r=""
	fb_deb_cached "$d/a.deb" fbtest 1.0 t 2> /dev/null && [ -f "$d/a.deb" ] || r="$r indexed-intact"
	! fb_deb_cached "$d/b.deb" fbtest 1.0 t 2> "$d/b.err" && [ ! -e "$d/b.deb" ] &&
		grep -q "is not the archive's fbtest 1.0 (checksum): fetching it again" "$d/b.err" || r="$r indexed-changed"
	! fb_deb_cached "$d/c.deb" fbtest 0.9 t 2> /dev/null && [ ! -e "$d/c.deb" ] || r="$r superseded-changed"
	fb_deb_cached "$d/e.deb" fbtest 0.9 t 2> /dev/null && [ -f "$d/e.deb" ] || r="$r superseded-intact"
	[ -z "$r" ] || { echo "wrong:$r" > "$work/err"; exit 1; }
)
then
	ok "cached .deb: kept with the index's SHA256 or, superseded, intact; one changed byte: removed with one line, fetched again"
else
	notok "cached .deb verification (tests/lib/debcache.sh)"
fi

tap_done
