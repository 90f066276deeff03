# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: the reference pages cannot drift from the code.
# fuse-backport.conf(5) documents every key the shipped config file has and
# every key the code that reads the file reads (a file under tools/ or
# scripts/, or dkms.conf, that names the file: "KEY=" in C,
# '^[[:space:]]*KEY=' in shell), and no other; fuse-backport(7) documents
# every module parameter of ours (module_param* in backports/: the patches,
# the takeover, the compat code) with the default the code gives it
# (initializer, else "(default X" of its MODULE_PARM_DESC), and every one
# upstream's imported fs/fuse has (src/upstream-*, when imported), and no
# other; man --warnings is silent on every page; both packages install every
# page. Sourced by it, in its shell and its TAP count ($top, $work, ok,
# notok). FB_MAN_DIR: the pages (the red run's copy), default man/.
# shellcheck shell=sh disable=SC2154

mp_dir=${FB_MAN_DIR:-$top/man}
mp=$work/manpages
mkdir -p "$mp"

# mp_diff NAME WANT HAVE: ok when the sorted lists WANT and HAVE (files)
# are the same, else notok naming what is missing and what is extra
mp_diff() {
	sort -u "$2" > "$mp/w"
	sort -u "$3" > "$mp/h"
	mp_miss=$(comm -23 "$mp/w" "$mp/h" | tr '\n' ' ')
	mp_extra=$(comm -13 "$mp/w" "$mp/h" | tr '\n' ' ')
	if [ -z "$mp_miss$mp_extra" ] && [ -s "$mp/w" ]; then
		ok "$1: $(tr '\n' ' ' < "$mp/w")"
	else
		notok "$1: missing ${mp_miss:-none}; not in the code ${mp_extra:-none}"
	fi
}

# mp_heads: the names NAME of the entries (.TP, then .B, .BI or .BR NAME=)
# of a page's section on stdin
mp_heads() {
	awk '/^\.TP/ { head = 1; next }
		head && /^\.B[IR]? [A-Za-z_][A-Za-z0-9_]*=/ { n = $2; sub(/=.*/, "", n); print n }
		{ head = 0 }'
}

# --- fuse-backport.conf(5) ---
conf5=$mp_dir/fuse-backport.conf.5
sed -n 's/^#\{0,1\}\([A-Z][A-Z0-9_]*\)=.*/\1/p' "$top/tools/fuse-backport.conf" > "$mp/shipped"
: > "$mp/read"
for f in "$top"/tools/*.c "$top"/tools/*.h "$top"/scripts/*.sh "$top/dkms.conf"; do
	grep -q 'FB_CONF_FILE\|fuse-backport/fuse-backport\.conf' "$f" || continue
	grep -ohE '"[A-Z][A-Z0-9_]*="' "$f" | tr -d '"=' >> "$mp/read"
	grep -ohE "\^\[\[:space:\]\]\*[A-Z][A-Z0-9_]*=" "$f" | sed 's/.*\*//; s/=$//' >> "$mp/read"
done
sed -n '/^\.SH KEYS/,/^\.SH /p' "$conf5" 2> /dev/null | mp_heads > "$mp/keys5"
cat "$mp/shipped" "$mp/read" > "$mp/conf-all"
mp_diff "fuse-backport.conf(5) documents the keys the shipped file has and the code reads" "$mp/conf-all" "$mp/keys5"
mp_diff "the shipped config file has every key the code reads" "$mp/read" "$mp/shipped"

# --- fuse-backport(7): module parameters ---
page7=$mp_dir/fuse-backport.7
# mp_params FILE...: "NAME" of each module_param* (an added line of a patch too)
mp_params() {
	cat "$@" 2> /dev/null |
		sed -n 's/^+\{0,1\}[[:space:]]*module_param\(_named\|_cb\|_call\)\{0,1\}(\([a-z_][a-z0-9_]*\),.*/\2/p'
}
# mp_default NAME FILE...: the default the code gives NAME: its
# initializer (true/false as Y/N, a bool without one N, another without one
# 0), else "(default X" of MODULE_PARM_DESC, else nothing
mp_default() {
	mp_n=$1
	shift
	mp_t=$(cat "$@" 2> /dev/null | sed 's/^+//')
	mp_v=$(printf '%s\n' "$mp_t" | sed -n "s/^[a-z_ ]*[ *]${mp_n}[[:space:]]*=[[:space:]]*\([^;]*\);.*/\1/p" | head -n 1)
	if [ -z "$mp_v" ] && printf '%s\n' "$mp_t" | grep -q "^[a-z_ ]*[ *]$mp_n;"; then
		if printf '%s\n' "$mp_t" | grep -q "^[a-z_ ]*bool[a-z_ ]* $mp_n;"; then
			mp_v=N
		else
			mp_v=0
		fi
	fi
	[ -n "$mp_v" ] || mp_v=$(printf '%s\n' "$mp_t" | tr '\n' ' ' |
		sed -n "s/.*MODULE_PARM_DESC($mp_n,[^;]*(default \([^,;) ]*\).*/\1/p")
	case $mp_v in
	true) mp_v=Y ;;
	false) mp_v=N ;;
	esac
	echo "$mp_v"
}
# mp_page_default NAME: the page's "Default: \fBX\fR" in NAME's entry
mp_page_default() {
	awk -v n="$1" '
		/^\.(TP|SH)/ { cur = ""; head = 1; next }
		head && /^\.B[IR]* [a-z_0-9]*=/ { cur = $2; sub(/=.*/, "", cur) }
		{ head = 0 }
		cur == n && match($0, /Default: \\fB[^\\]*\\fR/) {
			print substr($0, RSTART + 12, RLENGTH - 15); exit
		}' "$page7"
}
# the page's entries: ours, upstream's
sed -n '/^\.SH PARAMETERS OF OURS/,/^\.SH /p' "$page7" 2> /dev/null | mp_heads > "$mp/page-ours"
sed -n '/^\.SH PARAMETERS KEPT FROM UPSTREAM/,/^\.SH /p' "$page7" 2> /dev/null | mp_heads > "$mp/page-upstream"
set -- "$top"/backports/*/patches/*.patch "$top"/backports/*/infra/patches/*.patch \
	"$top"/backports/takeover/*.c "$top"/backports/*/compat/*.c "$top"/backports/include/*.h
mp_params "$@" > "$mp/ours"
mp_diff "fuse-backport(7) documents every module parameter of ours (backports/)" "$mp/ours" "$mp/page-ours"
# shellcheck disable=SC2013 # names, one a line, no blanks
for p in $(sort -u "$mp/ours"); do
	mp_files=$(grep -l "module_param[a-z_]*($p," "$@")
	# shellcheck disable=SC2086 # a list of files without blanks
	c=$(mp_default "$p" $mp_files)
	w=$(mp_page_default "$p")
	if [ -n "$c" ] && [ "$c" = "$w" ]; then
		ok "fuse-backport(7): $p defaults to $c, as the code"
	else
		notok "fuse-backport(7): $p defaults to '${w:-none}' on the page, '${c:-none found}' in the code"
	fi
done
if ls -d "$top"/src/upstream-*/fs/fuse > /dev/null 2>&1; then
	mp_params "$top"/src/upstream-*/fs/fuse/*.c | sort -u | grep -vxF -f "$mp/ours" > "$mp/upstream"
	mp_diff "fuse-backport(7) documents every module parameter upstream's imported fs/fuse keeps" "$mp/upstream" "$mp/page-upstream"
	# shellcheck disable=SC2013 # names, one a line, no blanks
	for p in $(sort -u "$mp/upstream"); do
		w=$(mp_page_default "$p")
		[ -n "$w" ] || continue
		mp_files=$(grep -l "module_param[a-z_]*($p," "$top"/src/upstream-*/fs/fuse/*.c)
		# shellcheck disable=SC2086 # a list of files without blanks
		c=$(mp_default "$p" $mp_files)
		[ "$c" = "$w" ]
		tap_check $? "fuse-backport(7): upstream's $p defaults to $w on the page, ${c:-none found} in the code"
	done
else
	notok "fuse-backport(7) against upstream's parameters: no imported tree src/upstream-* (make import-all; tests/check.sh makes it)"
fi

# --- the pages themselves, and the packages that install them ---
for m in "$mp_dir"/*.[1-8]; do
	n=${m##*/}
	if ! command -v man > /dev/null 2>&1; then
		notok "man --warnings -l man/$n: no man (man-db: make deps-test installs it)"
		continue
	fi
	MANWIDTH=80 man --warnings -E UTF-8 -l "$m" > /dev/null 2> "$mp/warn"
	r=$?
	[ $r = 0 ] && [ ! -s "$mp/warn" ]
	tap_check $? "man --warnings -l man/$n: exit $r, $(wc -l < "$mp/warn") warnings $(head -n 1 "$mp/warn")"
	grep -qx "man/$n" "$top/debian/fuse-backport-tools.manpages" &&
		grep -q "install .*man/$n " "$top/rpm/fuse-backport-tools.spec" &&
		grep -q "^%{_mandir}/man${n##*.}/$n\*" "$top/rpm/fuse-backport-tools.spec"
	tap_check $? "man/$n is installed by fuse-backport-tools (debian/fuse-backport-tools.manpages, rpm/fuse-backport-tools.spec)"
done
