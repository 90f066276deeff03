#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check's "docs" section: the generated docs are what `make docs`
# (dev/docs.sh) renders from the pins and results/. The tracked inputs
# (README.md, docs/testing.md, docs/design.md, docs/benchmarks.md.in, backports/*/pin,
# results/, dev/docs.sh)
# are copied into a scratch tree under build/, rendered there, and each
# output is compared with the tree's own: a pin, a result or the template
# changed without `make docs` (or a rendered file edited by hand) fails,
# with the diff.
#
# usage: tests/docs/check.sh [TREE]   (default: this checkout)
set -u
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 1
cd "$top" || exit 1
tap_suite=docs
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

mkdir -p build || exit 1
scratch=$(mktemp -d "$top/build/docs-check.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

# The inputs as the tree has them: tracked files only (what a clean clone
# gets), or everything where there is no git checkout.
if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
	files=$(git -C "$top" ls-files -- README.md docs/testing.md docs/design.md docs/benchmarks.md.in docs/coverage.md.in 'backports/*/pin' results dev/docs.sh)
else
	files=$(find README.md docs/testing.md docs/design.md docs/benchmarks.md.in docs/coverage.md.in backports/*/pin results dev/docs.sh -type f 2> /dev/null)
fi
rc=0
echo "$files" | while IFS= read -r f; do
	[ -n "$f" ] && [ -f "$f" ] || continue
	mkdir -p "$scratch/$(dirname "$f")" && cp -p "$f" "$scratch/$f" || exit 1
done || rc=1
if [ $rc = 0 ]; then
	sh "$scratch/dev/docs.sh" > "$scratch.log" 2>&1 || rc=$?
fi
tap_check $rc "make docs renders from the tracked pins, results/ and docs/benchmarks.md.in"
[ $rc = 0 ] || sed 's/^/#   /' "$scratch.log"
rm -f "$scratch.log"

for f in README.md docs/testing.md docs/design.md docs/coverage.md docs/benchmarks.md; do
	if [ $rc != 0 ]; then
		tap_check 1 "$f is what make docs renders (not rendered)"
	elif diff -u "$f" "$scratch/$f" > "$scratch/diff" 2>&1; then
		tap_check 0 "$f is what make docs renders"
	else
		tap_check 1 "$f is what make docs renders: run make docs and commit (diff, committed against rendered)"
		head -n 40 "$scratch/diff" | sed 's/^/#   /'
	fi
done
# The shape issue 25 asks for: a README of one screen, no file of code
# (C or shell) over 800 lines.
n=$(wc -l < README.md)
tap_check "$([ "$n" -le 150 ]; echo $?)" "README.md has at most 150 lines ($n)"
long=$(git -C "$top" ls-files -- '*.c' '*.h' '*.sh' 2> /dev/null | while IFS= read -r f; do
	[ -f "$f" ] && [ "$(wc -l < "$f")" -gt 800 ] && echo "$f"
done)
tap_check "$([ -z "$long" ]; echo $?)" "no C or shell file over 800 lines${long:+: }$(printf "%s" "$long" | tr "\n" " ")"

echo "1..$tap_n"
echo "docs: $tap_pass passed, $tap_fail failed"
[ "$tap_fail" = 0 ]
