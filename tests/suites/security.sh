#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Privilege removal on passthrough writes (guest). An unprivileged write must
# clear suid/sgid and remove security.capability, on stock and on ours; after
# the daemon changes them out of band and notifies the kernel, the next write
# clears them again; ours asks the daemon for security.capability once per
# inode instead of once per write; and with a FUSE_HANDLE_KILLPRIV_V2 daemon
# suid must not survive an unprivileged write (upstream lets it survive).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
mkdir -p "$FB_SCRATCH"
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
writes=20

for t in setpriv setcap getcap; do
	command -v $t > /dev/null || { tap_skip "security suite" "$t is not installed"; tap_done; exit; }
done

# uwrite OFFSET: one byte written by uid 65534 through the mount.
uwrite() {
	$nobody dd if=/dev/zero of="$FB_MNT/f" bs=1 count=1 seek="$1" conv=notrunc status=none
}
mode_of() { stat -c %a "$FB_BACK/f"; }
caps_of() { getcap "$FB_BACK/f" 2> /dev/null | sed 's/^[^ ]* //'; }

# mount_pt [DAEMON-ARGS]: passthrough mount with a world-writable test file.
mount_pt() {
	rm -rf "$FB_BACK"
	if ! fb_mount --mode passthrough --parallel "$@" 2> "$FB_SCRATCH/mount.err"; then
		tap_skip "passthrough mount" "$(head -n 1 "$FB_SCRATCH/mount.err")"
		return 1
	fi
	head -c 8192 /dev/zero > "$FB_MNT/f"
	chmod 0777 "$FB_MNT/f"
}

if mount_pt; then
	chmod 4777 "$FB_MNT/f" && setcap cap_net_raw+ep "$FB_MNT/f"
	tap_check $? "set suid and security.capability through the mount ($(mode_of), $(caps_of))"
	uwrite 1
	tap_check $? "unprivileged passthrough write succeeds"
	[ "$(mode_of)" = 777 ]
	tap_check $? "suid cleared by the unprivileged write (mode $(mode_of))"
	[ -z "$(caps_of)" ]
	tap_check $? "security.capability removed by the unprivileged write ($(caps_of))"

	# One process, one open file, $writes write(2) calls of one byte:
	# quick enough that no attribute refresh (1 s) falls in between, since
	# a refresh that shows a new ctime rightly makes the kernel ask again.
	before=$(fb_stat op_GETXATTR)
	$nobody dd if=/dev/zero of="$FB_MNT/f" bs=1 count=$writes seek=2 conv=notrunc status=none
	rc=$?
	after=$(fb_stat op_GETXATTR)
	n=$((${after:-0} - ${before:-0}))
	tap_diag "$writes unprivileged writes sent $n GETXATTR to the daemon"
	[ $rc = 0 ] && [ $n -le 1 ]
	tap_new $? "at most one GETXATTR for $writes writes to one inode (got $n)" \
		"upstream asks the daemon for security.capability on every write"

	# Out of band, then the daemon notifies (NOTIFY_INVAL_INODE).
	chmod 4777 "$FB_BACK/f" && setcap cap_net_raw+ep "$FB_BACK/f" &&
		kill -USR2 "$(cat "$FB_PIDFILE")" && sleep 0.5
	[ "$(stat -c %a "$FB_MNT/f")" = 4777 ]
	tap_check $? "out-of-band suid visible through the mount after the notify"
	uwrite 3
	[ "$(mode_of)" = 777 ] && [ -z "$(caps_of)" ]
	tap_check $? "after out-of-band change + notify, the next write clears suid and the capability again ($(mode_of) $(caps_of))"

	# sgid with group-execute is cleared too; a root write keeps suid.
	chmod 2777 "$FB_MNT/f" && uwrite 4
	[ "$(mode_of)" = 777 ]
	tap_check $? "sgid (with group exec) cleared by an unprivileged write (mode $(mode_of))"
	chmod 4777 "$FB_MNT/f" && dd if=/dev/zero of="$FB_MNT/f" bs=1 count=1 seek=5 conv=notrunc status=none
	[ "$(mode_of)" = 4777 ]
	tap_check $? "a write by root (CAP_FSETID) keeps suid (mode $(mode_of))"
	fb_umount
fi

if mount_pt --killpriv-v2; then
	chmod 4777 "$FB_MNT/f"
	uwrite 1
	tap_check $? "KILLPRIV_V2 daemon: unprivileged passthrough write succeeds"
	m=$(mode_of)
	tap_diag "KILLPRIV_V2 daemon: mode after an unprivileged passthrough write: $m"
	[ "$m" = 777 ]
	tap_new $? "KILLPRIV_V2 daemon: suid does not survive an unprivileged passthrough write (mode $m)" \
		"passthrough writes never reach a KILLPRIV_V2 server, and the kernel leaves suid to it"
	fb_umount
fi
tap_done
