#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Would the build refuse this kernel? dkms.conf asks before DKMS builds, so
# that a kernel whose headers lack an API base BASE cannot do without
# (backports/BASE/required) is excluded the way dkms excludes a kernel by
# BUILD_EXCLUSIVE (one line, dkms status 77, apt unaffected) instead of
# failing in MAKE (scripts/build.sh exit 3) and with it the kernel's
# packages. Only the required probes and a control object are compiled; the
# answer is kept in /run/fuse-backport-dkms/gate/ (when writable) under a key
# of the kernel, its headers and the probes, so that dkms sourcing dkms.conf
# again and again costs one compile per kernel.
#
# usage: scripts/gate.sh KVER KDIR BASE
# exit:  0 the build may go on (also when this cannot tell: the control
#          object does not compile, so the build will report the real error);
#        3 refused, the reason on stdout (one line).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: gate.sh KVER KDIR BASE}
kdir=${2:?usage: gate.sh KVER KDIR BASE}
base=${3:?usage: gate.sh KVER KDIR BASE}
req=$top/backports/$base/required

# shellcheck source=scripts/needs.sh
. "$top/scripts/needs.sh"

[ -f "$req" ] || exit 0
[ -f "$kdir/Makefile" ] && [ -f "$kdir/.config" ] || exit 0
needs=$(fb_required "$req")
[ -n "$needs" ] || exit 0
# Every probe a need names, in any of its variants.
list=$(fb_need_names "$needs")

# The key: what the answer depends on.
key=$({
	echo "$kver $kdir"
	cat "$req"
	for h in $list; do
		case $h in HAVE_EXPORT_*) ;; HAVE_*)
			n=$(echo "${h#HAVE_}" | tr '[:upper:]' '[:lower:]')
			cat "$top/backports/probes/$n.c" 2> /dev/null ;;
		esac
	done
	cat "$kdir/.config" "$kdir/Module.symvers" "$kdir/include/generated/autoconf.h" \
		"$kdir/include/generated/utsrelease.h" 2> /dev/null
} | cksum | tr ' ' '-')
cache=${FB_GATE_CACHE:-/run/fuse-backport-dkms/gate}
if [ -f "$cache/$key" ]; then
	r=$(cat "$cache/$key")
	[ -z "$r" ] && exit 0
	echo "$r"
	exit 3
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-gate.XXXXXX") || exit 0
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
# The control: any module compiles against working headers.
printf '#include <linux/module.h>\nint fb_gate_control(void);\nint fb_gate_control(void) { return 0; }\n' \
	> "$tmp/fb_gate_control.c"
objs="fb_gate_control.o"
# What the kernel has: the exports, then the probes that compile. A need
# naming a probe that does not exist counts as met, as before.
haves=""
for h in $list; do
	case $h in
	HAVE_EXPORT_*)
		sym=$(echo "${h#HAVE_EXPORT_}" | tr '[:upper:]' '[:lower:]')
		! awk -v s="$sym" '$2 == s { f = 1 } END { exit !f }' "$kdir/Module.symvers" 2> /dev/null ||
			haves="$haves $h"
		;;
	HAVE_*)
		n=$(echo "${h#HAVE_}" | tr '[:upper:]' '[:lower:]')
		if [ -f "$top/backports/probes/$n.c" ]; then
			cp "$top/backports/probes/$n.c" "$tmp/$n.c"
			objs="$objs $n.o"
		else
			haves="$haves $h"
		fi
		;;
	esac
done
echo 'ccflags-y := -Werror' > "$tmp/Kbuild"
# shellcheck disable=SC2086
make -C "$kdir" M="$tmp" -k -j"$(nproc 2> /dev/null || echo 1)" $objs > "$tmp/log" 2>&1
[ -f "$tmp/fb_gate_control.o" ] || exit 0
for o in $objs; do
	[ -f "$tmp/$o" ] || continue
	haves="$haves HAVE_$(echo "${o%.o}" | tr '[:lower:]' '[:upper:]')"
done
missing=$(fb_unmet "$needs" "$haves")
r=""
[ -n "$missing" ] &&
	r="kernel $kver is not supported yet by base $base: its headers lack $missing (see backports/$base/required)"
if mkdir -p "$cache" 2> /dev/null; then
	printf '%s' "$r" > "$cache/$key.$$" && mv "$cache/$key.$$" "$cache/$key"
fi
[ -z "$r" ] && exit 0
echo "$r"
exit 3
