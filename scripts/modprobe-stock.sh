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
# module was built. fuse-backport status reports it (degraded).
#
# usage: modprobe-stock MODULE [OPTION...]   (modprobe gives $CMDLINE_OPTS)
# environment (tests): FB_MODROOT (default /lib/modules)
set -u
m=${1:?usage: modprobe-stock MODULE [OPTION...]}
shift
modprobe=/sbin/modprobe
[ -x "$modprobe" ] || modprobe=modprobe
err=$("$modprobe" --ignore-install "$m" "$@" 2>&1) && exit 0
k=$(uname -r)
stock=""
for f in "${FB_MODROOT:-/lib/modules}/$k/kernel/fs/fuse/$m.ko"*; do
	[ -f "$f" ] && stock=$f && break
done
if [ -z "$stock" ]; then
	[ -z "$err" ] || echo "$err" >&2
	exit 1
fi
# What the kernel's own module needs first, through modprobe: fuse itself
# by this same rule (ours, or the kernel's where ours fails).
for d in $(modinfo -F depends "$stock" 2> /dev/null | tr ',' ' '); do
	"$modprobe" "$d" || exit 1
done
insmod=/sbin/insmod
[ -x "$insmod" ] || insmod=insmod
if ! "$insmod" "$stock" "$@"; then
	[ -z "$err" ] || echo "$err" >&2
	exit 1
fi
msg="fuse-backport: $m: ours did not load (${err##*: }); the kernel's own $stock serves instead"
echo "$msg" > /dev/kmsg 2> /dev/null
echo "$msg" >&2
exit 0
