#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Print what dkms.conf decides for a kernel: "FLAVOR MODULE..." on stdout,
# or the reason it is not served on stderr (exit 3). With --base: "BASE TREE",
# the base that serves the kernel's series (backports/<base>) and its
# generated tree (src/<tree>), or exit 3 outside every base.
#
# usage: scripts/flavor.sh [--base] KVER KDIR
set -eu
what=flavor
if [ "${1:-}" = --base ]; then
	what=base
	shift
fi
# Both are read by dkms.conf.
# shellcheck disable=SC2034
kernelver=${1:?usage: flavor.sh [--base] KVER KDIR}
# shellcheck disable=SC2034
kernel_source_dir=${2:?usage: flavor.sh [--base] KVER KDIR}
# shellcheck source=/dev/null
. "$(dirname "$0")/../dkms.conf" 2>/dev/null
if [ $what = base ]; then
	# The series alone decides the base (no .config needed).
	if [ -z "$fb_base" ]; then
		echo "kernel $kernelver is outside every base (served: $FB_BASES)" >&2
		exit 3
	fi
	echo "$FB_BUILD_BASE $FB_TREE"
	exit 0
fi
if [ -n "$FB_SKIP" ]; then
	echo "$FB_SKIP" >&2
	exit 3
fi
echo "$FB_FLAVOR ${BUILT_MODULE_NAME[*]}"
