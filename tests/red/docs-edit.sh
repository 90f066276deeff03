#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-red's host run of the docs section (tests/red/knobs, run docs):
# tests/docs/check.sh on a copy of the checkout's tracked files, under
# build/red/. FB_DOCS_BREAK=1 (the knob) edits one line of README.md's
# rendered distribution table by hand in the copy first, which the section must
# report; the checkout itself is never written.
#
# usage: tests/red/docs-edit.sh    Ends with the docs section's count line.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
copy=$top/build/red/docs-tree
{ rm -rf "$copy" && mkdir -p "$copy"; } || { echo "docs-edit: cannot create $copy" >&2; exit 1; }
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -c -f - --no-recursion) | tar -x -f - -C "$copy" ||
	{ echo "docs-edit: cannot copy the checkout to $copy" >&2; exit 1; }
if [ "${FB_DOCS_BREAK:-0}" = 1 ]; then
	# the first table row inside the generated block
	n=$(awk '/^<!-- BEGIN generated: distributions/ { b = 1 } b && /^\| / { print NR; exit }' "$copy/README.md")
	[ -n "$n" ] || { echo "docs-edit: no generated distribution table in README.md" >&2; exit 1; }
	sed -i "${n}s/|\$/ edited by hand |/" "$copy/README.md"
	echo "docs-edit: FB_DOCS_BREAK=1: README.md line $n edited by hand in $copy"
fi
# The copy is no git checkout of its own: git must not find this one above
# it (the section then lists the copy's files).
GIT_CEILING_DIRECTORIES=$top/build/red sh "$copy/tests/docs/check.sh" "$copy"
