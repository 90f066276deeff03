#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The layering of the fuse-backport tool (tools/): which file calls which,
# derived from the sources, checked against tools/layers (a file, its
# layer; a file may use only files of its own layer or below). Fails on a
# cycle among the files (named, a.c -> b.c -> a.c), on a call into a higher
# layer, and on a .c file the list does not place.
#
# A function of a file is one defined at column 0 with its "{" alone on
# the next line (kernel style) and not static; a file uses another when
# its code (comments and string literals taken out) names one of the
# other's functions that it does not define itself (a struct member of the
# same name is not one).
#
# usage: tests/lint/layers.sh [DIR]   (default tools/ of this checkout)
#        tests/lint/layers.sh --graph [DIR]   the edges, "from to function"
set -u

graph=no
if [ "${1:-}" = --graph ]; then
	graph=yes
	shift
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(cd "${1:-$top/tools}" && pwd) || exit 2
layers=$dir/layers
[ -f "$layers" ] || { echo "layers: no $layers" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fb-layers.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# code FILE: FILE without comments, string and character literals
code() {
	# shellcheck disable=SC2016 # awk, not shell
	awk '
	BEGIN { inc = 0 }
	{
		out = ""; s = $0
		while (s != "") {
			if (inc) {
				i = index(s, "*/")
				if (!i) { s = ""; break }
				s = substr(s, i + 2); inc = 0; continue
			}
			c = substr(s, 1, 1); t = substr(s, 1, 2)
			if (t == "/*") { inc = 1; s = substr(s, 3); out = out " "; continue }
			if (t == "//") break
			if (c == "\"" || c == "'\''") {
				j = 2
				while (j <= length(s) && substr(s, j, 1) != c)
					j += substr(s, j, 1) == "\\" ? 2 : 1
				out = out c c; s = substr(s, j + 1); continue
			}
			out = out c; s = substr(s, 2)
		}
		print out
	}' "$1"
}

cd "$dir" || exit 2
for f in *.c; do
	code "$f" > "$work/$f.code"
	# defined: "static|global name" of each function defined here
	awk '
	/^[A-Za-z_]/ && /[A-Za-z_0-9][ \t]*\(/ {
		l = $0
		sub(/[ \t]*\(.*/, "", l)
		n = split(l, w, /[^A-Za-z_0-9]+/)
		name = w[n]; st = $0 ~ /^static[ \t]/ ? "static" : "global"
		pending = 1
		next
	}
	pending && /^\{[ \t]*$/ { print st, name; pending = 0; next }
	/;[ \t]*$/ { pending = 0 }
	' "$work/$f.code" > "$work/$f.defs"
done

# Every global function: "name file".
for f in *.c; do
	awk -v f="$f" '$1 == "global" { print $2, f }' "$work/$f.defs"
done > "$work/globals"
awk '{ n[$1]++; w[$1] = w[$1] " " $2 } END { for (k in n) if (n[k] > 1) print k ":" w[k] }' \
	"$work/globals" > "$work/dups"

# Edges: "from to function", each pair once.
for f in *.c; do
	awk '{ print $2 }' "$work/$f.defs" > "$work/own"
	# a member (st->name, .name) is no use of a function of that name
	sed -E 's/(->|\.)[[:space:]]*[A-Za-z_][A-Za-z0-9_]*//g' "$work/$f.code" |
		tr -c 'A-Za-z0-9_\n' '\n' | grep -E '^[A-Za-z_]' | sort -u |
		grep -vxFf "$work/own" | awk -v f="$f" 'NR == FNR { def[$1] = $2; next }
			($1 in def) && def[$1] != f { print f, def[$1], $1 }' "$work/globals" -
done | sort -k1,2 -u > "$work/edges"

if [ $graph = yes ]; then
	cat "$work/edges"
	exit 0
fi

# The check: layers, then cycles (a depth-first search).
grep -v '^[[:space:]]*\(#\|$\)' "$layers" > "$work/layers" ||
	{ echo "layers: $layers places no file" >&2; exit 2; }
rc=0
for f in *.c; do
	awk -v f="$f" '$1 == f { found = 1 } END { exit !found }' "$work/layers" ||
		{ echo "layers: $f is not in tools/layers"; rc=1; }
done
awk '{ print $1 }' "$work/layers" | while read -r f; do
	[ -f "$f" ] || echo "layers: tools/layers lists $f, which does not exist"
done | grep . && rc=1
awk -v dups="$work/dups" '
NR == FNR { layer[$1] = $2; name[$2] = $3; next }
{ from = $1; to = $2
  if (!(from in layer) || !(to in layer)) next
  if (layer[to] > layer[from]) {
	printf "layers: %s (layer %d, %s) calls %s() of %s (layer %d, %s), a higher layer\n",
		from, layer[from], name[layer[from]], $3, to, layer[to], name[layer[to]]
	bad = 1
  }
  if (!(from in adj)) order[++nodes] = from
  adj[from] = adj[from] " " to
}
END {
	while ((getline l < dups) > 0) { printf "layers: defined twice: %s\n", l; bad = 1 }
	for (i = 1; i <= nodes; i++) if (!(order[i] in color)) visit(order[i])
	exit bad || cyc
}
function visit(n,    k, m, i, parts, c) {
	color[n] = 1; stack[++depth] = n
	m = split(adj[n], parts, " ")
	for (i = 1; i <= m; i++) {
		c = parts[i]
		if (!(c in color)) {
			visit(c)
		} else if (color[c] == 1) {
			s = ""
			for (k = 1; k <= depth; k++) if (stack[k] == c) break
			for (; k <= depth; k++) s = s stack[k] " -> "
			printf "layers: cycle: %s%s\n", s, c
			cyc = 1
		}
	}
	color[n] = 2; depth--
}' "$work/layers" "$work/edges" || rc=1
exit $rc
