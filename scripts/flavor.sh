#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Print what dkms.conf decides for a kernel: "FLAVOR MODULE..." on stdout,
# or the reason it is not served on stderr (exit 3).
#
# usage: scripts/flavor.sh KVER KDIR
set -eu
# Both are read by dkms.conf.
# shellcheck disable=SC2034
kernelver=${1:?usage: flavor.sh KVER KDIR}
# shellcheck disable=SC2034
kernel_source_dir=${2:?usage: flavor.sh KVER KDIR}
# shellcheck source=/dev/null
. "$(dirname "$0")/../dkms.conf" 2>/dev/null
if [ -n "$FB_SKIP" ]; then
	echo "$FB_SKIP" >&2
	exit 3
fi
echo "$FB_FLAVOR ${BUILT_MODULE_NAME[*]}"
