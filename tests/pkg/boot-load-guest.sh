#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, in the guest (the host's root with fuse-backport-dkms
# installed and DKMS's modules in place; the guest's /usr and /tmp are its
# own): the package's load of the renamed module at boot, as
# systemd-modules-load.service runs it with the package's
# /usr/lib/modules-load.d/fuse-backport.conf. First without modprobe's
# install command (/usr/lib/modprobe.d/fuse-backport-boot.conf moved aside)
# to show what that line does, then as installed. Prints, for each of
# "without" and "with", "boot-load: LABEL: rc=N MODULE=loaded|absent
# /dev/MODULE=yes|no" and systemd-modules-load's lines after
# "boot-load: LABEL: ".
#
# usage: tests/pkg/boot-load-guest.sh [MODULE]   (default fusebp)
set -u
m=${1:-fusebp}
conf=/usr/lib/modules-load.d/fuse-backport.conf
line=/usr/lib/modprobe.d/fuse-backport-boot.conf
sml=/lib/systemd/systemd-modules-load
[ -x "$sml" ] || sml=/usr/lib/systemd/systemd-modules-load

run() { # LABEL
	out=$("$sml" "$conf" 2>&1)
	rc=$?
	l=absent
	[ -d "/sys/module/$m" ] && l=loaded
	d=no
	[ -c "/dev/$m" ] && d=yes
	echo "boot-load: $1: rc=$rc $m=$l /dev/$m=$d"
	[ -z "$out" ] || echo "$out" | sed "s|^|boot-load: $1: |"
}

if [ -f "$line" ] && mv "$line" /tmp/fb-boot-load.conf; then
	run without
	mv /tmp/fb-boot-load.conf "$line"
else
	echo "boot-load: without: $line is not there"
fi
run with
