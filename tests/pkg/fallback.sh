#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A drop-in that cannot load must never leave a host without FUSE: the
# packages' modprobe fallback loads the kernel's own
# module where ours is refused, decided at load time on the host that
# loads it. In a VM of Debian 12's 6.1 (FUSE a module) with our drop-in
# build installed under updates/dkms: module.sig_enforce=1 turned on after
# the build, as Secure Boot or lockdown would be on a host the module was
# not signed for (tests/pkg/fallback-guest.sh says what each test shows).
# About 2 minutes (one boot, the module build when build/KVER has none).
#
# usage: tests/pkg/fallback.sh [KVER]   (default pt_stock_kver, tests/pkg/lib.sh)
tap_suite="pkg-fallback"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"
k=${1:-$pt_stock_kver}

sh tests/vm/not-in-tmp.sh pkg-fallback || { tap_check 1 "a checkout the guest can see"; tap_done; exit 1; }
if ! sh dev/build-for.sh "$k" all > "build/modules-$k.log" 2>&1; then
	tap_check 1 "our drop-in build for $k ($(tail -n 1 "build/modules-$k.log"))"
	tap_done
	exit 1
fi
if [ ! -f "build/$k/fuse.ko" ]; then
	tap_check 1 "our build for $k is the drop-in flavor (build/$k/fuse.ko)"
	tap_done
	exit 1
fi
if ! make -s -C tools > /dev/null || ! make -s -C tests > build/test-progs.log 2>&1; then
	tap_check 1 "build tools and test programs"
	tap_done
	exit 1
fi
mkdir -p build/vm
log=build/vm/fallback-$k.log
FB_OUT=$top/build/vm FB_MODDIR=$top/build/$k sh tests/vm/boot.sh --kver "$k" --timeout 900 --log "$top/$log" -- \
	sh "$top/tests/pkg/fallback-guest.sh" > "build/vm/fallback-$k.out" 2>&1
rc=$?
# the guest's TAP lines are this section's first ones, its count line not
grep -E '^(ok|not ok) [0-9]+ - |^# ' "build/vm/fallback-$k.out" > "build/vm/fallback-$k.tap"
cat "build/vm/fallback-$k.tap"
tap_pass=$(grep -c '^ok ' "build/vm/fallback-$k.tap")
tap_fail=$(grep -c '^not ok ' "build/vm/fallback-$k.tap")
tap_n=$((tap_pass + tap_fail))
# the plan is data: this many tests, a guest that ran fewer fails
want=6
[ "$rc" = 0 ] && [ $tap_n = $want ]
tap_check $? "the guest ran its $want tests to the end (VM exit $rc, $tap_n run; log $log)"
tap_done
