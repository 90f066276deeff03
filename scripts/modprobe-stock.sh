#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# modprobe's install command for fuse, cuse and virtiofs
# (/usr/lib/modprobe.d/fuse-backport.conf; installed as
# /usr/libexec/fuse-backport/modprobe-stock): load the module as modprobe
# would, which is ours where DKMS installed it under updates/. Where that
# fails and the kernel has a module of its own by that name, load the
# kernel's own instead and say so in the kernel log, so that a host never
# ends up without FUSE: a signature the kernel rejects (Secure Boot or
# lockdown that came after the build, module.sig_enforce=1, a MOK that is
# no longer enrolled), or a module that does not fit the kernel. The
# decision is taken at load time, on the host that loads it, not when the
# module was built. fuse-backport status reports it (degraded). Where the
# admin chose WHEN_AHEAD=stock (fuse-backport.conf(5)) and ours was built
# for a kernel ahead of its fs/fuse, the kernel's own loads too, by choice.
#
# usage: modprobe-stock MODULE [OPTION...]   (modprobe gives $CMDLINE_OPTS)
# environment (tests): FB_MODROOT (default /lib/modules; modinfo's -b is
# its parent's parent), FB_MODPROBE, FB_INSMOD (default /sbin/modprobe,
# /sbin/insmod)
set -u
m=${1:?usage: modprobe-stock MODULE [OPTION...]}
shift
modprobe=${FB_MODPROBE:-/sbin/modprobe}
[ -x "$modprobe" ] || modprobe=modprobe
k=$(uname -r)
stock=""
for f in "${FB_MODROOT:-/lib/modules}/$k/kernel/fs/fuse/$m.ko"*; do
	[ -f "$f" ] && stock=$f && break
done

# load_stock WHY: the kernel's own module in place of ours, and say WHY
load_stock() {
	# What the kernel's own module needs first, through modprobe: fuse
	# itself by this same rule (ours, or the kernel's where ours fails).
	for d in $(modinfo -F depends "$stock" 2> /dev/null | tr ',' ' '); do
		"$modprobe" "$d" || return 1
	done
	insmod=${FB_INSMOD:-/sbin/insmod}
	[ -x "$insmod" ] || insmod=insmod
	"$insmod" "$stock" "$@" || return 1
	msg="fuse-backport: $m: $why; the kernel's own $stock serves instead"
	echo "$msg" > /dev/kmsg 2> /dev/null
	echo "$msg" >&2
}

# Ours built for a kernel ahead of its fs/fuse (modinfo fb_fuse_age, the
# build's verdict from the headers) where the admin chose WHEN_AHEAD=stock
# (scripts/when-ahead.sh, installed beside this script): the kernel's own.
here=$(dirname "$0")
wa=$here/when-ahead
[ -f "$wa" ] || wa=$here/when-ahead.sh
ours=$(modinfo ${FB_MODROOT:+-b "$(cd "$FB_MODROOT/../.." && pwd)"} -k "$k" -F filename "$m" 2> /dev/null)
if [ -n "$stock" ] && [ -n "$ours" ] && [ "$ours" != "$stock" ] &&
	[ "$(modinfo -F fb_fuse_age "$ours" 2> /dev/null)" = ahead ] &&
	[ "$(sh "$wa" 2> /dev/null)" = stock ]; then
	why="ours ($ours) was built for a kernel ahead of its fs/fuse, and WHEN_AHEAD=stock"
	load_stock "$@" && exit 0
	# The kernel's own did not load (it needs symbols of a fuse of ours
	# already loaded, or another load came first): ours rather than none.
	echo "fuse-backport: $m: the kernel's own did not load; ours is loaded instead (WHEN_AHEAD=stock)" >&2
fi

err=$("$modprobe" --ignore-install "$m" "$@" 2>&1) && exit 0
if [ -z "$stock" ]; then
	[ -z "$err" ] || echo "$err" >&2
	exit 1
fi
why="ours did not load (${err##*: })"
if ! load_stock "$@"; then
	[ -z "$err" ] || echo "$err" >&2
	exit 1
fi
exit 0
