#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check's section vm-debian13 (the full tier only): the debian13 suite
# (tests/suites/debian13.sh) on our module, in a guest whose root is the
# Debian 13 root of dev/guest-root.sh (made once, then checked and reused),
# booting each Debian 13 kernel of the tier's debian13-kernels
# (tests/tiers/full: trixie-backports' 7.3.4+deb13 and trixie's
# 6.12.117+deb13), one boot a kernel through tests/vm/run-suites.sh with
# FB_VM_ROOT. The suite's number of tests is data: class debian13 of
# tests/tiers/TIER.counts.
#
# usage: tests/vm/debian13.sh [KVER...]   (default: the tier's debian13-kernels)
# environment: FB_TAKEOVER_RED=off (the red run: the takeover is never
#   turned on, tests/suites/debian13.sh)
# Ends with "vm-debian13: N passed, N failed, N skipped", the sum of the
# kernels' lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
FB_TOP=$top
. "$top/tests/lib/tier.sh"
. "$top/tests/lib/count.sh"
name=vm-debian13
kvers=${*:-$(tier_get debian13-kernels)}
[ -n "$kvers" ] || { echo "$name: tests/tiers/$tier has no debian13-kernels"; echo "$name: 0 passed, 1 failed"; exit 1; }

if ! root=$(sh dev/guest-root.sh make); then
	echo "$name: 0 passed, 1 failed"
	exit 1
fi
echo "$name: guest root $root: $(tr '\n' ';' < "$root/.fb-guest-root" | sed 's/;$//; s/;/; /g')"

counts=$top/build/logs/$name.counts
mkdir -p "$top/build/logs"
awk '$1 == "debian13" { print $2, $3, $4 }' "$top/tests/tiers/$tier.counts" > "$counts" 2> /dev/null
[ -s "$counts" ] || echo "NOTE: $name: tests/tiers/$tier.counts has no counts for class debian13: the number of tests is not checked"

p=0 f=0 s=0 rc=0
for k in $kvers; do
	log=$top/build/logs/$name-$k.log
	if [ -s "$counts" ]; then
		FB_VM_COUNTS=$counts FB_VM_ROOT=$root FB_VM_TARGETS=ours sh tests/vm/run-suites.sh "$k" debian13 2>&1 | tee "$log"
	else
		FB_VM_ROOT=$root FB_VM_TARGETS=ours sh tests/vm/run-suites.sh "$k" debian13 2>&1 | tee "$log"
	fi
	# the kernel's name as a regex: its dots and plus signs literal
	if count_line "$log" "vm-$(printf '%s' "$k" | sed 's/[.+]/\\&/g')"; then
		p=$((p + count_pass)) f=$((f + count_fail)) s=$((s + count_skip))
	else
		echo "$name: vm-$k gave no result line: counted as a failure"
		f=$((f + 1))
	fi
	grep -qF "vm-$k: $count_pass passed, 0 failed" "$log" || rc=1
done
echo "$name: $p passed, $f failed, $s skipped"
[ $rc = 0 ] && [ $f = 0 ]
