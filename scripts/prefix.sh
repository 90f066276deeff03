#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The renamed flavor's prefix (FUSE built into the kernel: fusebp.ko,
# /dev/fusebp, file system types fusebp and fusebpblk). It is the admin's
# setting, FB_PREFIX= in /etc/fuse-backport/fuse-backport.conf (over the
# package's defaults in /usr/lib/fuse-backport/fuse-backport.conf), so that
# every dkms build and remove reads the same one whoever runs dkms: the
# postinst, the prerm, the rpm scriptlets and the kernel hooks have no
# FB_PREFIX in their environment. dkms.conf and scripts/build.sh read it
# here. FB_PREFIX in the environment wins (a developer's `make modules`);
# neither set: fusebp.
#
# Prints the prefix. A value that is not a module name of ours
# ([a-z][a-z0-9_]{0,14}, none of the built-in FUSE's names) is one line on
# stderr and exit 1.
#
# usage: scripts/prefix.sh
# environment: FB_PREFIX; FB_CONF_FILE (the admin's file) and
#   FB_CONF_DEFAULTS (the package's defaults; the tests point them at copies)
defaults=${FB_CONF_DEFAULTS:-/usr/lib/fuse-backport/fuse-backport.conf}
conf=${FB_CONF_FILE:-/etc/fuse-backport/fuse-backport.conf}
from=""
if [ -n "${FB_PREFIX:-}" ]; then
	p=$FB_PREFIX
	from="FB_PREFIX=$p in the environment"
else
	# The defaults, then the admin's file: the last FB_PREFIX= line of the
	# last file that has one; one pair of quotes around the value, as a
	# shell would read it.
	for f in "$defaults" "$conf"; do
		[ -e "$f" ] || continue
		if ! line=$(grep '^[[:space:]]*FB_PREFIX=' "$f" 2> /dev/null | tail -n 1) && [ ! -r "$f" ]; then
			echo "fuse-backport: cannot read $f (FB_PREFIX)" >&2
			exit 1
		fi
		[ -n "$line" ] || continue
		p=$(echo "$line" | sed 's/^[[:space:]]*FB_PREFIX=//; s/[[:space:]]*$//; s/^"\(.*\)"$/\1/; s/^'"'"'\(.*\)'"'"'$/\1/')
		from="FB_PREFIX=$p in $f"
	done
	if [ -z "$from" ]; then
		echo fusebp
		exit 0
	fi
fi
case $p in
fuse | cuse | virtiofs | fuseblk | fusectl | "" | *[!a-z0-9_]* | [!a-z]* | ????????????????*)
	echo "fuse-backport: $from is not a module name: [a-z][a-z0-9_]{0,14}, not fuse, cuse, virtiofs, fuseblk or fusectl" >&2
	exit 1
	;;
esac
echo "$p"
