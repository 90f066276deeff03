#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check's "docs" section: the generated docs are what `make docs`
# (dev/docs.sh) renders from the pins and results/. The tracked inputs
# (README.md, docs/testing.md, docs/design.md, docs/*.md.in,
# docs/distributions.tsv, debian/control, tests/host-scripts/run.sh,
# backports/*/pin, results/, dev/docs.sh)
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
	files=$(git -C "$top" ls-files -- README.md docs/testing.md docs/design.md docs/benchmarks.md.in docs/coverage.md.in docs/distributions.tsv debian/control tests/host-scripts/run.sh 'backports/*/pin' results dev/docs.sh)
else
	files=$(find README.md docs/testing.md docs/design.md docs/benchmarks.md.in docs/coverage.md.in docs/distributions.tsv debian/control tests/host-scripts/run.sh backports/*/pin results dev/docs.sh -type f 2> /dev/null)
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
# The shape of the docs: a README of one screen for a sysadmin; known gaps
# a table, short; no file of code (C or shell) over 800 lines.
n=$(wc -l < README.md)
tap_check "$([ "$n" -le 100 ]; echo $?)" "README.md has at most 100 lines ($n)"
n=$(wc -l < docs/known-gaps.md)
tap_check "$([ "$n" -le 120 ]; echo $?)" "docs/known-gaps.md has at most 120 lines ($n)"
# a paragraph (lines between blank lines, a table row, or a list item) of
# more than 80 words, outside code blocks and generated tables
long=$(for f in README.md docs/known-gaps.md; do
	awk -v f="$f" '
		/^```/ { code = !code; next }
		code { next }
		function flush() { if (w > 80) print f ":" start " (" w " words)"; w = 0; start = 0 }
		/^$/ || /^#/ { flush(); next }
		/^\|/ { flush(); if (gsub(/[^ |]+/, "&") > 80 + 0 && !/results\//) print f ":" NR " (a table row of " gsub(/[^ |]+/, "&") " words)"; next }
		/^[-*] / { flush() }
		{ if (!start) start = NR; w += NF }
		END { flush() }' "$f"
done)
tap_check "$([ -z "$long" ]; echo $?)" "no paragraph or table row of more than 80 words in README.md and docs/known-gaps.md${long:+: }$(printf "%s" "$long" | tr "\n" " ")"
# Every link into results/ from the README and the docs resolves to a
# tracked file or directory: results/ keeps what the docs show, no more,
# and nothing they show is gone (in a copy that is no checkout: an
# existing file).
in_git=$(git -C "$top" rev-parse --git-dir 2> /dev/null)
dead=$(for f in README.md docs/*.md; do
	d=$(dirname "$f")
	grep -o '](\(\.\./\)\{0,1\}results/[^)#]*' "$f" | sed 's/^](//' | sort -u | while IFS= read -r l; do
		t=$(cd "$d" && realpath -m --relative-to="$top" "$l")
		if [ -n "$in_git" ]; then
			[ -n "$(git -C "$top" ls-files -- "$t" | head -n 1)" ] || echo "$f: $l"
		else
			[ -e "$top/$t" ] || echo "$f: $l"
		fi
	done
done)
tap_check "$([ -z "$dead" ]; echo $?)" "every link into results/ from the docs resolves to a tracked file${dead:+: }$(printf "%s" "$dead" | head -n 5 | tr "\n" " ")"
# Issue numbers and red-run archives stand for facts: the docs say the fact.
refs=$(git -C "$top" ls-files -- README.md HACKING.md 'docs/*.md' 'docs/*.in' docs/distributions.tsv dev/docs.sh tests/docs 2> /dev/null |
	grep -v -x docs/testing.md | while IFS= read -r f; do
		[ -f "$f" ] && grep -n -i -E -e 'issue ?[0-9]+' -e 'results/red[-]runs' "$f" | sed "s|^|$f:|" | head -n 3
	done)
tap_check "$([ -z "$refs" ]; echo $?)" "no issue number or red-run archive cited in the docs (docs/testing.md aside)${refs:+: }$(printf "%s" "$refs" | head -n 5 | tr "\n" " ")"
long=$(git -C "$top" ls-files -- '*.c' '*.h' '*.sh' 2> /dev/null | while IFS= read -r f; do
	[ -f "$f" ] && [ "$(wc -l < "$f")" -gt 800 ] && echo "$f"
done)
tap_check "$([ -z "$long" ]; echo $?)" "no C or shell file over 800 lines${long:+: }$(printf "%s" "$long" | tr "\n" " ")"

echo "1..$tap_n"
echo "docs: $tap_pass passed, $tap_fail failed"
[ "$tap_fail" = 0 ]
