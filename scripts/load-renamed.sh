#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The renamed module's load at boot, with or without fuse-backport-tools:
# /usr/lib/modules-load.d/fuse-backport.conf (scripts/fuse-backport.modules-load.conf)
# names fuse-backport-boot to systemd-modules-load, which has no module of
# that name, only modprobe's install command in
# /usr/lib/modprobe.d/fuse-backport-boot.conf (scripts/fuse-backport-boot.modprobe.conf),
# which runs this script (installed as /usr/libexec/fuse-backport/load-renamed,
# scripts/prefix.sh beside it as prefix).
#
# Where the running kernel has a module of the renamed flavor's name (the
# prefix: FB_PREFIX= of /etc/fuse-backport/fuse-backport.conf, default
# fusebp, as the DKMS build reads it), modprobe loads it, so /dev/fusebp
# exists after boot; its status is ours. Where it has none (FUSE is a
# module: the drop-in flavor; a kernel outside the series we serve, or
# without a build of ours), or where its module does not load, one line on
# stderr (the journal) and exit 0: nothing loaded is no failure of the
# boot. A `modprobe fusebp` by anyone else is left as it is: it fails where
# there is no fusebp.
#
# usage: load-renamed   (modprobe runs it: modprobe fuse-backport-boot)
# environment: FB_PREFIX, FB_CONF_FILE (scripts/prefix.sh's); modinfo,
# modprobe and uname from PATH, then from the system's directories
set -u
PATH=${PATH:+$PATH:}/usr/sbin:/usr/bin:/sbin:/bin
p=$(sh "$(dirname "$0")/prefix") || exit 0
k=$(uname -r)
if ! modinfo -k "$k" -F filename "$p" > /dev/null 2>&1; then
	echo "fuse-backport: $k has no $p module (FUSE is a module here, or no build of ours for it): nothing to load" >&2
	exit 0
fi
# A module that does not load (a signature the kernel refuses, a build that
# does not fit) is no failure of the boot either: one line, and the built-in
# FUSE serves; fuse-backport status reports it (degraded).
if ! err=$(modprobe "$p" 2>&1); then
	err=$(echo "$err" | tail -n 1)
	echo "fuse-backport: $k: $p did not load (${err:-modprobe failed}); the built-in FUSE serves" >&2
fi
exit 0
