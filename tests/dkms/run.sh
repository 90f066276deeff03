#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# DKMS on the host, from the working tree (the file set the package ships):
# add/build/install for every kernel given; a kernel we serve gets our
# module with our version and a signature, one we do not serve yet fails
# with our one-line reason in make.log; remove leaves nothing behind.
#
# usage: tests/dkms/run.sh SERVED_KVER [UNSUPPORTED_KVER]
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
good=${1:?usage: run.sh SERVED_KVER [UNSUPPORTED_KVER]}
bad=${2:-}
name=fuse-backport
ver=$(kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" && echo "$PACKAGE_VERSION"' _ "$top")
log=$(mktemp "${TMPDIR:-/tmp}/fb-dkms.XXXXXX")
trap 'rm -f "$log"' EXIT INT TERM
# DKMS and apt on this host are shared with tests/pkg/: one at a time.
exec 9>> /var/lock/fuse-backport-dkms.lock
flock 9

n=0 pass=0 fail=0
check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok $n - $2"
	else fail=$((fail + 1)); echo "not ok $n - $2"; tail -n 5 "$log" | sed 's/^/#   /'; fi
}

sh "$top/scripts/dkms-local.sh" "$good" > "$log" 2>&1
check $? "dkms add/build/install $name $ver for $good"

mod=$(find "/lib/modules/$good/updates/dkms" -name 'fusebp.ko*' 2>/dev/null | head -n 1)
[ -n "$mod" ] && dkms status -m "$name" -v "$ver" -k "$good" 2>/dev/null | grep -q installed
check $? "dkms status says installed, module at ${mod:-nowhere}"

v=$(modinfo -F version "$mod" 2>/dev/null)
f=$(modinfo -F flavor "$mod" 2>/dev/null)
[ "$v" = "$ver" ] && [ "$f" = renamed ]
check $? "installed module: version '$v', flavor '$f'"

if grep -qx 'CONFIG_MODULE_SIG=y' "/lib/modules/$good/build/.config"; then
	s=$(modinfo -F signer "$mod" 2>/dev/null)
	[ -n "$s" ]
	check $? "installed module is signed (signer: ${s:-none})"
fi

if [ -n "$bad" ]; then
	dkms build -m "$name" -v "$ver" -k "$bad" > "$log" 2>&1
	rc=$?
	ml=/var/lib/dkms/$name/$ver/build/make.log
	[ $rc != 0 ] && grep -q 'not supported yet' "$ml" && [ "$(grep -c '^fuse-backport:' "$ml")" = 1 ] &&
		! grep -q 'error:' "$ml"
	check $? "$bad: build stops with one line: $(grep '^fuse-backport:' "$ml" | cut -c1-100)"
fi

sh "$top/scripts/dkms-local.sh" --remove > "$log" 2>&1
[ -z "$(find "/lib/modules/$good/updates/dkms" -name 'fusebp.ko*' 2>/dev/null)" ] &&
	! dkms status -m "$name" 2>/dev/null | grep -q "$name" && [ ! -e "/usr/src/$name-$ver" ]
check $? "dkms remove leaves no module, no status, no source"

echo "1..$n"
echo "dkms: $pass passed, $fail failed"
[ $fail = 0 ]
