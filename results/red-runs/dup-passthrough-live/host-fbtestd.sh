#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fb_passthrough_live on the host's own FUSE with the test daemon
# (tests/daemon/fbtestd) in each --mode: it cannot tell passthrough from a
# FUSE mount whose daemon drops the page cache at open (cached: no
# FOPEN_KEEP_CACHE) or reads through the daemon (direct: FOPEN_DIRECT_IO).
# usage: unshare -m --propagation private sh host-fbtestd.sh
# shellcheck disable=SC1091,SC2154 # fuse.sh from FB_TOP; its fb_pl_got
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$FB_TOP/tests/lib/fuse.sh"
D=$FB_TOP/tests/daemon/fbtestd
T=/tmp/pltest
for m in passthrough cached direct; do
	rm -rf $T/b $T/m
	mkdir -p $T/b $T/m
	$D --dev /dev/fuse --fstype fuse --backing $T/b --pidfile $T/pid --mode $m $T/m || { echo "mount $m failed"; continue; }
	fb_passthrough_live $T/m/pt $T/b/pt
	echo "fbtestd --mode $m: rc=$? ($fb_pl_got)"
	umount $T/m
done
