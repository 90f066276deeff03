#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The renamed flavor's prefix (FUSE built into the kernel: fusebp.ko,
# /dev/fusebp, file system types fusebp and fusebpblk). It is the admin's
# setting, FB_PREFIX= in /etc/fuse-backport/fuse-backport.conf, so that
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
# environment: FB_PREFIX; FB_CONF_FILE (the file; the tests point it at a copy)
conf=${FB_CONF_FILE:-/etc/fuse-backport/fuse-backport.conf}
if [ -n "${FB_PREFIX:-}" ]; then
	p=$FB_PREFIX
	from="FB_PREFIX=$p in the environment"
elif [ -e "$conf" ]; then
	if ! line=$(grep '^[[:space:]]*FB_PREFIX=' "$conf" 2> /dev/null | tail -n 1) && [ ! -r "$conf" ]; then
		echo "fuse-backport: cannot read $conf (FB_PREFIX)" >&2
		exit 1
	fi
	if [ -z "$line" ]; then
		echo fusebp
		exit 0
	fi
	# The last FB_PREFIX= line; one pair of quotes around the value, as a
	# shell would read it.
	p=$(echo "$line" | sed 's/^[[:space:]]*FB_PREFIX=//; s/[[:space:]]*$//; s/^"\(.*\)"$/\1/; s/^'"'"'\(.*\)'"'"'$/\1/')
	from="FB_PREFIX=$p in $conf"
else
	echo fusebp
	exit 0
fi
case $p in
fuse | cuse | virtiofs | fuseblk | fusectl | "" | *[!a-z0-9_]* | [!a-z]* | ????????????????*)
	echo "fuse-backport: $from is not a module name: [a-z][a-z0-9_]{0,14}, not fuse, cuse, virtiofs, fuseblk or fusectl" >&2
	exit 1
	;;
esac
echo "$p"
