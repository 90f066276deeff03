#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check's lint section: tests/red/knobs is well formed, every red knob
# the code reads (a variable FB_*_RED, FB_*BREAK* or FB_INJECT in tests/,
# dev/, bench/ or the Makefile) is registered there (a knob's environment or
# a covers line), and every variable registered there is read somewhere in
# them. One line for each fault, status 1; nothing and status 0 when clean.
#
# usage: tests/red/lint.sh [TREE]   (default: this checkout)
set -u
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 2
data=$top/tests/red/knobs
# shellcheck source=tests/red/lib.sh
. "$top/tests/red/lib.sh"
[ -r "$data" ] || { echo "red-lint: cannot read $data"; exit 1; }
rc=0
red_check "$data" 2>&1 || rc=1
# The files that may read a knob: not the registry, not this check.
files=$(cd "$top" && find tests dev bench Makefile -type f ! -path tests/red/knobs ! -path tests/red/lint.sh \
	! -path '*/.*' 2> /dev/null | LC_ALL=C sort)
used=$(cd "$top" && echo "$files" | xargs grep -I -o -h -E 'FB_[A-Z0-9_]*_RED\b|FB_[A-Z0-9_]*BREAK[A-Z0-9_]*|FB_INJECT\b' 2> /dev/null | LC_ALL=C sort -u)
registered=$( {
	awk '$1 == "knob" { for (i = 4; i <= NF; i++) { v = $i; sub(/[+]?=.*/, "", v); print v } }' "$data"
	awk '$1 == "covers" { print $3 }' "$data"
} | LC_ALL=C sort -u)
for v in $used; do
	echo "$registered" | grep -qxF "$v" && continue
	where=$(cd "$top" && echo "$files" | xargs grep -I -l -w -- "$v" 2> /dev/null | head -n 3 | tr '\n' ' ')
	echo "red-lint: $v is read (${where% }) but no knob of tests/red/knobs sets it"
	rc=1
done
for v in $registered; do
	(cd "$top" && echo "$files" | xargs grep -I -q -w -- "$v" 2> /dev/null) && continue
	echo "red-lint: tests/red/knobs registers $v, which nothing in tests/, dev/, bench/ or the Makefile reads"
	rc=1
done
exit $rc
