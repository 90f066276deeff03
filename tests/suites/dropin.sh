#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Drop-in suite (guest): on a kernel whose FUSE is a module, our fuse.ko,
# cuse.ko and virtiofs.ko replace the stock ones; tests/vm/guest/dropin61.sh
# checks the live versions and round-trips data in every mode over tmpfs and
# XFS (splice, mmap, libaio). Only for our module in the drop-in flavor.
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"

if [ "${FB_TARGET:-}" = stock ]; then
	tap_skip "drop-in replacement" "the stock module is what gets replaced; nothing to test on stock"
	tap_done
	exit
fi
if [ ! -f "${FB_MODDIR:-}/fuse.ko" ]; then
	tap_skip "drop-in replacement" "our build for $(uname -r) is the renamed flavor (FUSE built in)"
	tap_done
	exit
fi
# tests/vm/guest/suites.sh loaded our fuse.ko and mounted its control fs; the
# drop-in check starts from the stock modules, so hand it a kernel where
# nothing of ours is loaded and nothing holds fuse.
. "$FB_TOP/tests/lib/fuse.sh"
fb_unload_ours
exec sh "$FB_TOP/tests/vm/guest/dropin61.sh" "$FB_MODDIR"
