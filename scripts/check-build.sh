#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build against every kernel whose headers are installed. A kernel we serve
# must build with no warning in our files; one we do not serve (yet) is
# listed as skipped with its reason.
#
# usage: scripts/check-build.sh [KVER...]   (default: all installed headers)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
out=${FB_OUT:-$top/build/logs}
mkdir -p "$out"

kvers=${*:-}
if [ -z "$kvers" ]; then
	for d in /usr/src/linux-headers-*; do
		[ -f "$d/.config" ] || continue
		kvers="$kvers ${d#/usr/src/linux-headers-}"
	done
fi
[ -n "$kvers" ] || { echo "check-build: no kernel headers installed" >&2; exit 1; }

pass=0 fail=0 skip=0 n=0
for k in $kvers; do
	n=$((n + 1))
	log=$out/build-$k.log
	sh "$top/scripts/build.sh" "$k" "/usr/src/linux-headers-$k" > "$log" 2>&1
	rc=$?
	# Warnings in files of ours (the build dir), whatever kbuild's exit.
	warn=$(grep -E '(warning|error):' "$log" | grep -F "$top/build/" | head -n 3)
	if [ $rc = 3 ]; then
		echo "ok $n - $k # SKIP $(tail -n 1 "$log" | sed 's/^fuse-backport: //')"
		skip=$((skip + 1))
	elif [ $rc = 0 ] && [ -z "$warn" ]; then
		echo "ok $n - $k: $(tail -n 1 "$log" | sed 's/^fuse-backport: //')"
		pass=$((pass + 1))
	else
		echo "not ok $n - $k (see $log)"
		[ -n "$warn" ] && echo "$warn" | sed 's/^/#   /'
		[ -z "$warn" ] && tail -n 5 "$log" | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
done
echo "1..$n"
echo "check-build: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
