#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One line for a kernel the package cannot build for because its headers
# are not installed, naming the packages that bring them (Debian).
#
# Every Debian linux-headers-<flavour> meta package provides nothing
# else: linux-headers-generic, which dkms recommends and apt falls back
# on, is provided by linux-headers-amd64 alone. So a cloud or RT host gets
# the generic kernel's headers, a build for a kernel it does not run, and
# none for the one it does. For the running kernel the line therefore
# names its own headers and its flavour's meta package (the headers of the
# kernels to come: linux-headers-cloud-amd64 on a cloud kernel,
# linux-headers-rt-amd64 on an RT one). The package's postinst runs it
# (shipped in /usr/src/fuse-backport-<ver>/scripts/).
#
# usage: scripts/headers-hint.sh TAG KVER
# environment (tests): FB_KVER (the running kernel; default: uname -r)
# exit: 0, the line printed
set -u

tag=${1:?usage: headers-hint.sh TAG KVER}
k=${2:?usage: headers-hint.sh TAG KVER}
running=${FB_KVER:-$(uname -r)}

line="$tag: not building for $k: its headers are not installed (package linux-headers-$k)"
if [ "$k" != "$running" ]; then
	echo "$line"
	exit 0
fi
# Debian's kernel release: VERSION-ABI-FLAVOUR (6.1.0-57-cloud-amd64) or,
# for backports and trixie, VERSION+debN-FLAVOUR (6.12.95+deb12-amd64).
flavour=$(echo "$k" | sed -n 's/^[0-9][0-9.]*\(-[0-9][0-9]*\|+deb[0-9][0-9]*\)-\([a-z0-9][a-z0-9-]*\)$/\2/p')
if [ -z "$flavour" ]; then
	echo "$line; it is the running kernel: install them (apt install linux-headers-$k)"
	exit 0
fi
echo "$line; it is the running kernel: apt install linux-headers-$k linux-headers-$flavour (the $flavour kernels' headers, for the kernels to come)"
