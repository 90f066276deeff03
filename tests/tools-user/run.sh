#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Host tests of the userspace tool that need no module of ours: `status`
# finds our module where each package installs it, fails with exit 2 when
# modinfo fails, runs modinfo from the system's PATH as root, and prints
# hostile mount names (fsname) without control bytes, as valid JSON; `run`
# refuses option injection (before it needs the module, which the host
# lacks).
# Runs as root in a private mount namespace (tmpfs over /lib/modules, a
# FUSE mount nobody serves, mounted with mount -i: no mount.fuse helper); the module is a fake: an ELF object with our
# .modinfo. TAP output, then "tools-user: N passed, N failed".
# environment: FB_TOOL (the binary, default tools/fuse-backport)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
tool=${FB_TOOL:-$top/tools/fuse-backport}
n=0 pass=0 fail=0 skip=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
check() { if [ "$1" = 0 ]; then ok "$2"; else notok "$2"; fi; }
skip_all() {
	echo "ok 1 - # SKIP $1"
	echo "1..1"
	echo "tools-user: 0 passed, 0 failed, 1 skipped"
	exit 0
}

[ -x "$tool" ] || skip_all "$tool is not built (make -C tools)"
[ "$(id -u)" = 0 ] || skip_all "needs root (a private mount namespace)"
for c in unshare jq setpriv modinfo iconv cc; do
	command -v "$c" > /dev/null || skip_all "$c is missing"
done
if [ -z "${FB_TOOLS_USER_NS:-}" ]; then
	FB_TOOLS_USER_NS=1 exec unshare -m sh "$0" "$@"
fi
mount --make-rprivate / || skip_all "cannot make / private in a new mount namespace"

work=$(mktemp -d "${TMPDIR:-/tmp}/fb-tools-user.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
chmod 755 "$work"
cp "$tool" "$work/fuse-backport"
tool=$work/fuse-backport
# shellcheck source=/dev/null
. "$top/backports/6.12/pin"
ver=$UPSTREAM_VERSION+fb$FB_RELEASE
printf 'static const char m[] __attribute__((section(".modinfo"), used)) =\n"version=%s\\0srcversion=0123456789ABCDEF\\0flavor=renamed\\0fb_base=%s\\0license=GPL";\n' \
	"$ver" "$UPSTREAM_VERSION" > "$work/m.c"
cc -c -o "$work/fusebp.ko" "$work/m.c" || skip_all "cannot build the fake module"
kver=$(uname -r)
mount -t tmpfs none /lib/modules || skip_all "cannot mount a tmpfs over /lib/modules"
# layout DIR: the running kernel with our module under DIR, in modules.dep
layout() {
	rm -rf /lib/modules/*
	mkdir -p "/lib/modules/$kver/kernel" "/lib/modules/$kver/$1"
	: > "/lib/modules/$kver/modules.order"
	cp "$work/fusebp.ko" "/lib/modules/$kver/$1/fusebp.ko"
	echo "$1/fusebp.ko:" > "/lib/modules/$kver/modules.dep"
}

# 1-3: where the packages install our module.
for d in updates/dkms extra updates/fuse-backport; do
	layout "$d"
	"$tool" status --json --no-probe > "$work/st.json" 2> "$work/st.err"
	f=$(jq -r '.kernels[] | select(.running) | .ours_file' "$work/st.json" 2> /dev/null)
	[ "$f" = "/lib/modules/$kver/$d/fusebp.ko" ]
	check $? "status finds our module under $d (ours_file: ${f:-none})"
done

# 4: modinfo fails: exit 2 (the state cannot be read).
layout updates/dkms
mkdir -p "$work/stub"
printf '#!/bin/sh\ntouch %s/stub-ran\nexit 1\n' "$work" > "$work/stub/modinfo"
chmod 755 "$work/stub" "$work/stub/modinfo"
setpriv --reuid=65534 --regid=65534 --clear-groups env PATH="$work/stub:$PATH" \
	"$tool" status --no-probe > /dev/null 2> "$work/st.err"
rc=$?
[ "$rc" = 2 ] && grep -q modinfo "$work/st.err"
check $? "status as a user whose modinfo fails: exit $rc, want 2 ($(head -n 1 "$work/st.err"))"

# 5: as root, modinfo from the system's PATH, not the caller's.
rm -f "$work/stub-ran"
PATH="$work/stub:$PATH" "$tool" status --no-probe > /dev/null 2> "$work/st.err"
rc=$?
[ ! -e "$work/stub-ran" ] && [ "$rc" != 2 ]
check $? "status as root ignores a modinfo early in PATH (exit $rc)"

# 6-7: a FUSE mount with a hostile fsname (nobody serves it: closed at once).
evil=$(printf 'ev\033[2Jil\nFUSE mounts: spoofed\377\376')
mkdir -p "$work/mnt"
if grep -qw fuse /proc/filesystems && [ -c /dev/fuse ] &&
	exec 7<> /dev/fuse && mount -i -t fuse -o fd=7,rootmode=40000,user_id=0,group_id=0 "$evil" "$work/mnt"; then
	"$tool" status --no-probe > "$work/st.txt" 2> /dev/null
	"$tool" status --no-probe --json > "$work/st.json" 2> /dev/null
	exec 7>&-
	umount -l "$work/mnt"
	! grep -q "$(printf '\033')" "$work/st.txt" && ! grep -q '^FUSE mounts: spoofed' "$work/st.txt" &&
		grep -q 'ev\\x1b\[2Jil\\x0aFUSE mounts: spoofed\\xff\\xfe' "$work/st.txt"
	check $? "status text: the fsname's ESC, newline and invalid UTF-8 escaped ($(grep -a 'spoofed' "$work/st.txt" | head -n 1 | tr -d '\033'))"
	jq -e '.mounts[] | select(.source | startswith("ev"))' "$work/st.json" > /dev/null 2>&1 &&
		iconv -f UTF-8 -t UTF-8 "$work/st.json" > /dev/null 2>&1
	check $? "status --json: valid JSON and valid UTF-8 with that fsname"
else
	exec 7>&- 2> /dev/null
	n=$((n + 1)) skip=$((skip + 1))
	echo "ok $n - # SKIP hostile fsname: no FUSE on this host"
fi

# 8-11: run's parsing, before it needs the module.
if grep -qw fusebp /proc/filesystems; then
	n=$((n + 1)) skip=$((skip + 1))
	echo "ok $n - # SKIP run parsing: fusebp is loaded on this host"
else
	mkdir -p "$work/b" "$work/m"
	# run_says REGEX LABEL ARGS...: run ARGS exits 125 saying REGEX
	run_says() {
		re=$1 label=$2
		shift 2
		"$tool" run "$@" > /dev/null 2> "$work/run.err"
		rc=$?
		[ "$rc" = 125 ] && grep -Eq "$re" "$work/run.err"
		check $? "$label (exit $rc: $(head -n 1 "$work/run.err"))"
	}
	run_says 'comma' "run -o 'max_read=4096\\,fd=0': refused, no second fd= for the kernel" \
		-o 'max_read=4096\,fd=0' -- true "$work/b" "$work/m"
	run_says 'subtype' "run -o 'subtype=x\\,allow_other': refused" \
		-o 'subtype=x\,allow_other' -- true "$work/b" "$work/m"
	run_says 'SUBTYPE' "run -t 'fusebp.x,allow_other': refused" \
		-t 'fusebp.x,allow_other' -- true "$work/b" "$work/m"
	ln -sf "$(command -v true)" "$work/d,allow_other"
	run_says 'subtype' "a daemon named 'd,allow_other': refused as a subtype" \
		-- "$work/d,allow_other" "$work/b" "$work/m"
fi

echo "1..$n"
echo "tools-user: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
