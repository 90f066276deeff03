#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What a kernel ahead of our fs/fuse gets: WHEN_AHEAD= of
# /etc/fuse-backport/fuse-backport.conf, over the package's defaults in
# /usr/lib/fuse-backport/fuse-backport.conf (fuse-backport.conf(5)). serve:
# ours serves it; stock: it keeps its own FUSE. Not set, or no file:
# serve. Another value: one line on stderr, and serve.
#
# usage: scripts/when-ahead.sh
#          prints the setting, serve or stock
#        scripts/when-ahead.sh KVER KDIR BASE
#          dkms.conf's question, where KVER (its headers KDIR) is ahead of
#          base BASE's fs/fuse (scripts/fuse-age.sh): with stock, exit 1
#          and one line on stdout (why it keeps its own FUSE); with serve,
#          exit 0 and one line (that it is ahead). Not ahead: exit 0,
#          nothing on stdout
# environment: FB_CONF_FILE (the admin's file) and FB_CONF_DEFAULTS (the
#   package's defaults; the tests point them at copies)
# Installed beside modprobe-stock as /usr/libexec/fuse-backport/when-ahead.
set -u
defaults=${FB_CONF_DEFAULTS:-/usr/lib/fuse-backport/fuse-backport.conf}
v="" conf=""
for f in "$defaults" "${FB_CONF_FILE:-/etc/fuse-backport/fuse-backport.conf}"; do
	if [ -r "$f" ]; then
		# the last WHEN_AHEAD= line of the last file that has one,
		# blanks (a CR too) and one pair of quotes off, as the tools
		# read it (tools/fact_conf.c)
		line=$(tr -d '\r' < "$f" | grep '^[[:space:]]*WHEN_AHEAD=' | tail -n 1)
		[ -n "$line" ] || continue
		v=$(echo "$line" | sed 's/^[[:space:]]*WHEN_AHEAD=//; s/[[:space:]]*$//; s/^"\(.*\)"$/\1/; s/^'"'"'\(.*\)'"'"'$/\1/')
		conf=$f
	elif [ -e "$f" ]; then
		echo "fuse-backport: cannot read $f (WHEN_AHEAD)" >&2
	fi
done
case $v in
"" | serve) v=serve ;;
stock) ;;
*)
	echo "fuse-backport: WHEN_AHEAD=$v in $conf is not serve or stock; serve is used" >&2
	v=serve
	;;
esac
if [ $# = 0 ]; then
	echo "$v"
	exit 0
fi
[ $# = 3 ] || { echo "usage: when-ahead.sh [KVER KDIR BASE]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
age=$(sh "$here/fuse-age.sh" "$1" "$(sh "$here/fuse-age.sh" --headers "$2" 2> /dev/null)" \
	"$here/../backports/$3/pin" 2> /dev/null) || exit 0
case $age in
ahead:*) ;;
*) exit 0 ;;
esac
if [ "$v" = stock ]; then
	echo "ahead of our fs/fuse: ${age#ahead: }; WHEN_AHEAD=stock in $conf keeps its own FUSE"
	exit 1
fi
echo "ahead of our fs/fuse: ${age#ahead: } (WHEN_AHEAD=serve)"
exit 0
