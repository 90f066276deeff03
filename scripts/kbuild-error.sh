#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The first error of a failed kbuild, as one phrase naming the API it is
# about: "fs/fuse/dir.c:1638: page_get_link_raw (implicit declaration of
# function)". scripts/build.sh ends a failed build with it, so that the last
# line of DKMS's make.log says what the kernel lacks, not make's "Error 2".
# The API is the first quoted name of gcc's message (both quote styles), a
# struct's member as "struct S.member", a missing header, or modpost's
# undefined symbol; a message of no known shape is given as it is.
#
# usage: scripts/kbuild-error.sh LOG [BUILD_DIR]   (BUILD_DIR: cut from paths)
# exit:  0 and the phrase on stdout; 1 when LOG has no error line.
set -u

log=${1:?usage: kbuild-error.sh LOG [BUILD_DIR]}
dir=${2:-}
[ -r "$log" ] || exit 1
line=$(LC_ALL=C grep -m 1 -E ': (fatal )?error: |^ERROR: modpost: ' "$log") || exit 1
[ -n "$dir" ] && line=$(printf '%s\n' "$line" | awk -v d="${dir%/}/" '
	{ while ((i = index($0, d)) > 0) $0 = substr($0, 1, i - 1) substr($0, i + length(d)) }
	{ print }')
# gcc's quotes in a UTF-8 locale, as plain ones
line=$(printf '%s\n' "$line" | sed "s/\xe2\x80\x98/'/g; s/\xe2\x80\x99/'/g")

case $line in
"ERROR: modpost: "*)
	sym=$(printf '%s\n' "$line" | sed -n 's/^ERROR: modpost: "\([^"]*\)".*undefined!.*/\1/p')
	if [ -n "$sym" ]; then
		echo "modpost: $sym (not exported by this kernel)"
	else
		echo "${line#ERROR: }"
	fi
	exit 0
	;;
esac

where=$(printf '%s\n' "$line" | sed -n 's/^\([^: ]*:[0-9][0-9]*\):.*/\1/p')
msg=$(printf '%s\n' "$line" | sed 's/^.*: \(fatal \)\{0,1\}error: //')
api="" what=$msg
case $msg in
"'struct "*"' has no member named '"*)
	api=$(printf '%s\n' "$msg" | sed -n "s/^'\(struct [^']*\)' has no member named '\([^']*\)'.*/\1.\2/p")
	what="no such member"
	;;
*": No such file or directory"*)
	api=${msg%%:*}
	what="no such header"
	;;
*"'"*"'"*)
	api=$(printf '%s\n' "$msg" | sed -n "s/^[^']*'\([^']*\)'.*/\1/p")
	what=$(printf '%s\n' "$msg" | sed 's/; did you mean .*//; s/ *\[-W[^]]*\]$//; s/ (first use in this function)//')
	;;
esac
# a name, not a token of a syntax error ("expected ';' before '}'")
case $api in
*[!A-Za-z0-9_\ ./]* | [!A-Za-z_]*) api="" what=$msg ;;
esac
if [ -n "$api" ]; then
	echo "${where:+$where: }$api ($what)"
else
	echo "${where:+$where: }$what"
fi
