#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# After an install, upgrade or rollback of our package: is a module loaded
# (ours, or the kernel's own fuse) that is not the one of ours modprobe
# would load now for the running kernel? Or, where FUSE is built into the
# running kernel, is our renamed module installed for it and not loaded
# (the first install: the boot loads it, and takes over with TAKEOVER=yes)?
# The new one takes over only when the old one is unloaded (no FUSE mount
# of its type left) or the machine reboots, so this writes Debian's
# reboot-required note, as update-notifier's notify-reboot-required does:
# /var/run/reboot-required and PACKAGE once in /var/run/reboot-required.pkgs
# (what unattended-upgrades, needrestart and monitoring read), and prints
# one line. The package's postinst runs it (shipped in
# /usr/src/fuse-backport-<ver>/scripts/).
#
# usage: scripts/reboot-required.sh PACKAGE
# environment (tests): FB_SYSFS (default /sys), FB_RUNDIR (default
#   /var/run), FB_KVER (default: uname -r)
# exit: 0 (note written or not needed); 1 the note could not be written.
set -u

pkg=${1:?usage: reboot-required.sh PACKAGE}
sysfs=${FB_SYSFS:-/sys}
run=${FB_RUNDIR:-/var/run}
kver=${FB_KVER:-$(uname -r)}
# the renamed module's name (FB_PREFIX), from the script beside this one
rn=$(sh "$(dirname "$0")/prefix.sh" 2> /dev/null) || rn=fusebp

# note LINE: the note written, LINE said; exit 0, or 1 when it cannot be
note() {
	if ! { echo '*** System restart required ***' > "$run/reboot-required" &&
		{ grep -qx "$pkg" "$run/reboot-required.pkgs" 2> /dev/null ||
			echo "$pkg" >> "$run/reboot-required.pkgs"; }; } 2> /dev/null; then
		echo "$pkg: $1, and $run/reboot-required could not be written" >&2
		exit 1
	fi
	echo "$pkg: $1: $2; $run/reboot-required written"
	exit 0
}

# Ours carry a version "<kernel release>+fb<N>"; the stock modules have none.
# The stock fuse loaded where ours is now installed (the first install of the
# drop-in) needs the same note: it stays until it is unloaded. A built-in
# FUSE also shows in sysfs, but modinfo finds no module of ours by its name.
for m in fuse $rn; do
	[ -d "$sysfs/module/$m" ] || continue
	loaded=$(cat "$sysfs/module/$m/version" 2> /dev/null)
	lsrc=$(cat "$sysfs/module/$m/srcversion" 2> /dev/null)
	inst=$(modinfo -k "$kver" -F version "$m" 2> /dev/null | head -n 1)
	isrc=$(modinfo -k "$kver" -F srcversion "$m" 2> /dev/null | head -n 1)
	# Nothing of ours installed for this kernel: nothing a reboot brings.
	case $inst in *+fb[0-9]*) ;; *) continue ;; esac
	case $loaded in
	*+fb[0-9]*) ;;
	*) loaded="(the kernel's own)" how="not the installed $inst" ;;
	esac
	if [ "$loaded" = "(the kernel's own)" ]; then
		:
	elif [ "$inst" = "$loaded" ]; then
		if [ -z "$lsrc" ] || [ -z "$isrc" ] || [ "$lsrc" = "$isrc" ]; then
			continue
		fi
		how="another build of the installed $inst"
	elif [ "$(printf '%s\n%s\n' "$loaded" "$inst" | sort -V | head -n 1)" = "$loaded" ]; then
		how="older than the installed $inst"
	else
		how="newer than the installed $inst"
	fi
	note "the loaded $m $loaded is $how" "reboot (or rmmod $m with no FUSE mount of it left, then modprobe $m) to use it"
done
# The renamed module (built only where FUSE is built in) installed for the
# running kernel and not loaded: the boot loads it (modules-load.d) and the
# takeover unit hands it fuse, fuseblk and /dev/fuse.
inst=$(modinfo -k "$kver" -F version "$rn" 2> /dev/null | head -n 1)
case $inst in
*+fb[0-9]*)
	[ -d "$sysfs/module/$rn" ] ||
		note "$rn $inst is installed for the running kernel (FUSE built in) and not loaded" \
			"reboot to use it (or now: modprobe $rn, and fuse-backport takeover on)"
	;;
esac
exit 0
