#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make help`: the Makefile's targets by pipeline stage, one line each,
# from the comment "## STAGE: what it does" on each target's line, so that
# the list cannot drift from the Makefile. STAGE is one of: pin, import,
# probes (probes and shims), build, dkms, packages, tests, bench, docs; a
# stage with no target is left out. An unknown stage is one line on stderr
# and exit 1.
#
# usage: dev/make-help.sh [MAKEFILE]
set -eu

mk=${1:-$(dirname "$0")/../Makefile}
[ -f "$mk" ] || { echo "make-help: no $mk" >&2; exit 1; }
awk '
BEGIN {
	n = split("pin import probes build dkms packages tests bench docs", st, " ")
	for (i = 1; i <= n; i++)
		title[st[i]] = st[i]
	title["probes"] = "probes and shims"
	title["dkms"] = "DKMS"
}
/^[A-Za-z0-9_.-]+:.*## / {
	t = $0
	sub(/:.*/, "", t)
	h = $0
	sub(/^[^#]*## */, "", h)
	s = h
	sub(/:.*/, "", s)
	sub(/^[^:]*: */, "", h)
	if (!(s in title)) {
		printf "make-help: target %s: unknown stage \"%s\" (%s)\n", t, s, FILENAME > "/dev/stderr"
		bad = 1
		exit 1
	}
	lines[s] = lines[s] sprintf("  %-14s %s\n", t, h)
}
END {
	if (bad)
		exit 1
	for (i = 1; i <= n; i++)
		if (lines[st[i]] != "")
			printf "%s\n%s", title[st[i]], lines[st[i]]
}' "$mk"
