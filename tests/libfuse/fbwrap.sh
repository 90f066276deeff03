#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A daemon that leaves a child behind, for the supervisor tests of the
# libfuse suite: starts `sleep 600` (MODE keep: holding the FUSE device
# descriptor; close: without it), then runs fbbacking on BACKING and the
# mountpoint /dev/fd/N it was given.
#
# usage: fbwrap.sh keep|close BACKING MOUNTPOINT [fbbacking options]
# environment: FBWRAP_PIDFILE gets the child's pid; FBWRAP_DAEMON the
#              fbbacking to run (default: the one beside this script; the
#              suite runs a copy when the checkout is out of uid 65534's
#              reach, and finds its daemon by that path)
mode=$1 backing=$2 mp=$3
shift 3
n=${mp#/dev/fd/}
case $mode in
keep) sleep 600 > /dev/null 2>&1 & ;;
close) bash -c "exec $n>&-; exec sleep 600" < /dev/null > /dev/null 2>&1 & ;;
*) echo "fbwrap: mode keep or close" >&2; exit 2 ;;
esac
echo $! > "${FBWRAP_PIDFILE:-/dev/null}"
exec "${FBWRAP_DAEMON:-$(dirname "$0")/fbbacking}" "$backing" "$mp" "$@"
