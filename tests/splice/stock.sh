#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The splice suite against a kernel's stock FUSE, in a boot of its own: on
# Debian 12's 6.1 the race is expected to end in
#   kernel BUG at fs/fuse/dir.c:NNNN!  (fuse_set_nowrite <- fuse_direct_io)
# which takes the guest down (tests/suites/splice.sh sets panic_on_oops).
# Passes only when the console shows that BUG with fuse_set_nowrite in its
# call trace; a stock kernel that survives is reported as "stock did not
# crash", a failure.
#
# usage: tests/splice/stock.sh KVER
# environment: FB_TIMEOUT (VM run, default 900 s)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:?usage: tests/splice/stock.sh KVER}
name=splice-stock-$kver
cd "$top" || exit 1
make -s -C tests splice bin > /dev/null || { echo "$name: building the test programs failed (make -C tests splice bin)"; echo "$name: 0 passed, 1 failed"; exit 1; }

out=$top/build/vm
results=$out/results-$name
rm -rf "$results"
mkdir -p "$results"
echo "$name: stock FUSE of $kver, splice suite in its own boot (expected: kernel BUG)"
start=$(date +%s)
FB_SPLICE_CRASH=1 FB_OUT=$out "$top/tests/vm/boot.sh" --kver "$kver" --timeout "${FB_TIMEOUT:-900}" \
	--log "$results/vm.log" -- sh "$top/tests/vm/guest/suites.sh" "$results" stock=splice > /dev/null
vrc=$?
secs=$(($(date +%s) - start))

bug=$(grep -m 1 -o 'kernel BUG at fs/fuse/[a-z_]*\.c:[0-9]*!' "$results/vm.log")
# the call trace of that BUG (the lines after it, up to the end of the oops)
trace=$(sed -n '/kernel BUG at fs\/fuse\//,/end trace\|Kernel panic/p' "$results/vm.log" |
	grep -o 'fuse_set_nowrite\|fuse_direct_io\|fuse_direct_write_iter\|iter_file_splice_write\|fuse_sync_writes' |
	awk '!seen[$0]++' | tr '\n' ' ')
echo "1..1"
case $bug:$trace in
kernel\ BUG*:*fuse_set_nowrite*)
	echo "ok 1 - stock $kver: splice writes racing writeback: \"$bug\" in $trace(VM exit $vrc after $secs s)"
	grep -m 1 -A 3 'kernel BUG at fs/fuse/' "$results/vm.log" | sed 's/^/# /'
	echo "$name: 1 passed, 0 failed"
	exit 0
	;;
esac
if [ -n "$bug" ]; then
	echo "not ok 1 - stock $kver: \"$bug\", but not in fuse_set_nowrite (trace: $trace)"
else
	echo "not ok 1 - stock did not crash: no kernel BUG in fs/fuse on $kver (VM exit $vrc after $secs s; $(grep -h '^not ok\|^ok' "$results"/stock.splice.tap 2> /dev/null | tr '\n' ' '))"
fi
echo "$name: 0 passed, 1 failed"
exit 1
