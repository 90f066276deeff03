#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make demo`: build the packages and the module for KVER, boot Debian's KVER
# in QEMU, load our module next to (or instead of) the kernel's FUSE, mount
# through it and round-trip a file byte for byte; then show the latest
# benchmark table, if `make bench` has made one.
#
# usage: tests/demo.sh KVER
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: tests/demo.sh KVER}
sh "$top/tests/vm/not-in-tmp.sh" demo || exit 1
cd "$top" || exit 1
mkdir -p build

echo "== packages (build/pkg/)"
if make -s deb > build/demo-deb.log 2>&1 && make -s rpm > build/demo-rpm.log 2>&1; then
	find build/pkg -maxdepth 1 \( -name '*.deb' -o -name '*.rpm' \) -printf '   %f\n'
else
	echo "   package build failed: see build/demo-deb.log and build/demo-rpm.log"
fi

echo "== module for $kver"
make -s modules KVER="$kver" || exit 1
make -s -C tests daemon > /dev/null || exit 1
for m in build/"$kver"/*.ko; do
	echo "   $m: $(modinfo -F version "$m"), flavor $(modinfo -F flavor "$m")"
done

echo "== in a VM booting Debian's $kver"
FB_OUT=$top/build/vm "$top/tests/vm/boot.sh" --kver "$kver" --timeout 600 -- \
	sh "$top/tests/vm/guest/demo.sh" "$top/build/$kver"
rc=$?

# the newest recorded run (results/bench/KVER/RUN-ID/, tests/lib/results.sh)
t=""
for f in results/bench/"$kver"/*/table.md; do [ -f "$f" ] && t=$f; done
if [ -n "$t" ]; then
	echo
	echo "== latest benchmark ($t; plot: ${t%table.md}bench.png)"
	cat "$t"
fi
exit $rc
