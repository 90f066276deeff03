#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The build matrix: build against Debian's kernel headers, every base and
# flavor dkms.conf picks, and print kernel x base x flavor x result. A kernel
# a base serves (its series within a pin's range, tests/lib/served.sh) must
# build with no warning in our files: a refusal of it fails. One outside
# every base is listed with its reason, a skip.
#
# usage: dev/check-build.sh [KVER...]
#   default: the representative subset of dev/headers.sh (the host's
#   Debian 12 kernels, generic and rt, and the newest generic ABI of each
#   Debian 13 series); FB_CHECK_FULL=1: every amd64
#   ABI the Debian suites reachable here carry. Headers are installed as
#   needed (host apt, or the Debian 13 / unstable roots), and kernels whose
#   kbuild needs a newer glibc build inside their root (chroot).
# environment: FB_OUT (logs, default build/logs), FB_TABLE (the table as
#   Markdown, default build/logs/check-build.md), FB_RESULTS (where the
#   run's record goes, default results/: tests/lib/results.sh)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
out=${FB_OUT:-$top/build/logs}
table=${FB_TABLE:-$out/check-build.md}
mkdir -p "$out"
hdr() { sh "$top/dev/headers.sh" "$@"; }
# shellcheck source=tests/lib/served.sh
. "$top/tests/lib/served.sh"

list=$out/check-build.list
if [ $# -gt 0 ]; then
	for k in "$@"; do
		w=$(hdr where "$k") || exit 1
		echo "$w $k"
	done > "$list"
elif [ "${FB_CHECK_FULL:-0}" = 1 ]; then
	hdr list full > "$list" || exit 1
else
	hdr list > "$list" || exit 1
fi
[ -s "$list" ] || { echo "check-build: no kernel to build for" >&2; exit 1; }
# No Debian 7.x kernel has FUSE as a module: the drop-in flavor of bases
# 7.2 and 7.3 is built against a FUSE=m copy of the newest generic headers
# of each 7.x series in the list (tests/build/fusem.sh), after it.
fusem=$(awk '$2 ~ /^7\.[0-9.]*\+deb[0-9]*-amd64$/ { print $2 }' "$list" | sort -V |
	awk -F. '{ k[$1 "." $2] = $0 } END { for (s in k) print k[s] }' | sort -V)

# Headers first, one apt run per place.
# shellcheck disable=SC2013 # one word a line: host, trixie or sid
for w in $(cut -d' ' -f1 "$list" | sort -u); do
	# shellcheck disable=SC2046 # a list of kernel versions
	hdr install "$w" $(awk -v w="$w" '$1 == w { print $2 }' "$list") ||
		echo "check-build: could not install every header package for $w" >&2
done

[ $# = 0 ] && for f in $fusem; do
	if v=$(sh "$top/tests/build/fusem.sh" "$f" 2> "$out/fusem.err"); then
		echo "$(hdr where "$v") $v" >> "$list"
	else
		echo "check-build: no FUSE=m copy of $f's headers: $(cat "$out/fusem.err")" >&2
		echo "$(hdr where "$f") ${f%-amd64}-fbfusem-amd64" >> "$list"
	fi
done

{
	echo "| kernel | headers from | base | flavor | result |"
	echo "|---|---|---|---|---|"
} > "$table"
pass=0 fail=0 skip=0 n=0
while read -r w k; do
	n=$((n + 1))
	log=$out/build-$k.log
	r=$(hdr root "$w")
	if [ ! -f "$r/usr/src/linux-headers-$k/.config" ]; then
		echo "not ok $n - $k: no headers (linux-headers-$k did not install in $w)"
		echo "| $k | $w | | | **failed**: no headers |" >> "$table"
		fail=$((fail + 1))
		continue
	fi
	base=$(bash "$top/scripts/flavor.sh" --base "$k" "$r/usr/src/linux-headers-$k" 2> /dev/null | cut -d' ' -f1)
	flavor=$(bash "$top/scripts/flavor.sh" "$k" "$r/usr/src/linux-headers-$k" 2> /dev/null | cut -d' ' -f1)
	sh "$top/dev/build-in.sh" "$k" < /dev/null > "$log" 2>&1
	rc=$?
	# Warnings in files of ours (the build dir), whatever kbuild's exit.
	warn=$(grep -E '(warning|error):' "$log" | grep -F "$top/build/" | head -n 3)
	last=$(tail -n 1 "$log" | sed 's/^fuse-backport: //')
	# Exit 3 (refused): a skip outside the pins, a failure for a kernel
	# a base serves (tests/lib/served.sh).
	if [ $rc = 3 ] && sb=$(fb_must_serve "$top" "$k" "$r/usr/src/linux-headers-$k/.config"); then
		echo "not ok $n - $k: refused, but base $sb serves it (backports/$sb/pin): $last"
		res="**failed**: refused a kernel base $sb serves: $last"
		fail=$((fail + 1))
	elif [ $rc = 3 ]; then
		echo "ok $n - $k # SKIP $last"
		res="refused: $last"
		skip=$((skip + 1))
	elif [ $rc = 0 ] && [ -z "$warn" ]; then
		res=built
		why=$(sed -n 's/^FB_NO_PASSTHROUGH := //p' "$top/build/$k/fb_config.mk" 2> /dev/null)
		[ -n "$why" ] && res="built without passthrough: $why"
		echo "ok $n - $k: $res ($last)"
		pass=$((pass + 1))
	else
		echo "not ok $n - $k (see $log)"
		[ -n "$warn" ] && echo "$warn" | sed 's/^/#   /'
		[ -z "$warn" ] && tail -n 5 "$log" | sed 's/^/#   /'
		res="**failed** (${warn:+warnings in our files, }see build/logs/build-$k.log)"
		fail=$((fail + 1))
	fi
	echo "| $k | $w | ${base:--} | ${flavor:--} | $res |" >> "$table"
done < "$list"
echo "1..$n"
cat "$table"
# The run's record (tests/lib/results.sh): results/check-build/TIER/RUN-ID/,
# TIER the default subset, the full matrix or the kernels given.
sum="check-build: $pass passed, $fail failed, $skip skipped"
tier=default
[ "${FB_CHECK_FULL:-0}" = 1 ] && tier=full
[ $# -gt 0 ] && tier=selected
# shellcheck source=tests/lib/results.sh
. "$top/tests/lib/results.sh"
if res=$(fb_results_dir check-build "$tier"); then
	cp "$table" "$res/table.md"
	echo "$sum" > "$res/summary.txt"
	fb_meta_write "$res" "dev/check-build.sh $*"
fi
# The summary line tests/check.sh reads: built, failed, refused (skipped).
echo "$sum (table: ${table#"$top"/}, ${res#"$top"/})"
[ $fail = 0 ]
