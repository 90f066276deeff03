#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Real daemons (guest): mergerfs, bindfs, fuse-overlayfs and sshfs (over
# sshd on 127.0.0.1 inside the guest, keys made now), Debian's packages as
# they are. On a kernel whose FUSE is fs type "fuse" (stock; our drop-in
# flavor) each daemon mounts itself as usual; on our renamed flavor it runs
# through `fuse-backport run` (-t fusebp). For each: the mount and its type,
# a 3 MB file byte for byte (through the mount cold, and in the backing
# store), 4 parallel writers on one file, unmount and the daemon gone.
# A daemon that is not installed is skipped by name (dev/deps.sh test
# installs them).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
. "$FB_TOP/tests/lib/daemons.sh"
tool=$FB_TOP/tools/fuse-backport
S=$FB_SCRATCH
M=$S/dm
DM_S=$S DM_M=$M
mkdir -p "$M"

cleanup() {
	while fb_mounted "$M"; do
		umount -l "$M" 2> /dev/null || break
	done
	dm_stop_sshd
	[ -z "$(awk -v d="$FB_DEV" '$5 == d' /proc/self/mountinfo)" ] || umount -l "$FB_DEV"
}
trap cleanup EXIT

sshd_ok=0
# mergerfs last: through run it mounts over the device node (see below)
for d in bindfs fuse-overlayfs sshfs mergerfs; do
	if ! command -v "$d" > /dev/null; then
		tap_skip_n 6 "$d" "$d is not installed (dev/deps.sh test)"
		continue
	fi
	if [ "$d" = sshfs ] && [ "$sshd_ok" = 0 ]; then
		if dm_start_sshd 2> "$S/sshd.err"; then
			sshd_ok=1
		else
			tap_check 1 "sshd on 127.0.0.1:$dm_port for sshfs ($(head -n 1 "$S/sshd.err") $(tail -n 1 "$S/sshd.log" 2> /dev/null))"
			tap_skip_n 5 "$d" "no sshd"
			continue
		fi
	fi
	dm_cmd "$d"
	cmd=$dm_cmdline
	ver=$(dm_version "$d")
	start=$(date +%s)
	# shellcheck disable=SC2086 # the daemon's words
	case $FB_FSTYPE in
	fuse) timeout 60 $cmd > "$S/mount.out" 2> "$S/mount.err" ;;
	*) timeout 60 "$tool" run -- $cmd > "$S/mount.out" 2> "$S/mount.err" ;;
	esac
	rc=$?
	how=$([ "$FB_FSTYPE" = fuse ] && echo "its own mount" || echo "fuse-backport run")
	fstype=$(awk -v m="$M" '$2 == m { t = $3 } END { print t }' /proc/mounts)
	# bindfs (libfuse 2) and mergerfs (its own libfuse) take /dev/fd/N for
	# a path and mount the kernel's FUSE on the device node: run must
	# refuse them with one line and leave nothing mounted.
	case $FB_FSTYPE:$d in
	fuse:*) ;;
	*:bindfs | *:mergerfs)
		stray=$(awk -v d="$FB_DEV" '$5 == d { sub(/.* - /, ""); print }' /proc/self/mountinfo | head -n 1)
		[ "$rc" = 125 ] && [ "$(grep -c 'libfuse >= 3.3' "$S/mount.err")" = 1 ] && [ -z "$fstype" ] && [ -z "$stray" ] &&
			[ -z "$(dm_pids "$d")" ]
		tap_check $? "$d $ver: $how refuses it, /dev/fd/N needs libfuse >= 3.3 (exit $rc: $(grep -m1 'libfuse' "$S/mount.err")); left mounted: ${fstype:-nothing} on $M, ${stray:-nothing} on $FB_DEV"
		[ -n "$stray" ] && umount -l "$FB_DEV"
		fb_mounted "$M" && umount -l "$M"
		tap_skip_n 5 "$d" "does not serve /dev/fd/N (libfuse < 3.3): refused by run"
		continue
		;;
	esac
	case $fstype in
	"$FB_FSTYPE" | "$FB_FSTYPE".*) [ "$rc" = 0 ] ;;
	*) false ;;
	esac
	tap_check $? "$d $ver: $how: mounted as ${fstype:-nothing} (exit $rc $(head -n 1 "$S/mount.err"))"
	# A daemon whose libfuse does not know /dev/fd/N mounts on that path
	# itself, which is the device node: the mount on it goes, or no later
	# run could open the device.
	if [ -n "$(awk -v d="$FB_DEV" '$5 == d' /proc/self/mountinfo)" ]; then
		tap_check 1 "$d: nothing mounted on $FB_DEV (found: $(awk -v d="$FB_DEV" '$5 == d { sub(/.* - /, ""); print }' /proc/self/mountinfo | head -n 1))"
		umount -l "$FB_DEV"
	fi
	if ! fb_mounted "$M"; then
		[ "$d" = sshfs ] && tap_diag "sshd's log: $(tail -n 8 "$S/sshd.log")"
		tap_skip_n 5 "$d" "not mounted"
		continue
	fi
	# A mount nobody serves blocks every access until INIT is answered.
	timeout -k 2 30 ls "$M" > /dev/null 2>&1
	rc=$?
	tap_check $rc "$d: the mount answers (ls within 30 s: exit $rc)"
	if [ $rc != 0 ]; then
		tap_diag "$d: $(pgrep -af "^$d " | head -n 2)"
		umount -l "$M"
		for p in $(dm_pids "$d"); do
			kill -9 "$p" 2> /dev/null
		done
		tap_skip_n 4 "$d" "the mount does not answer"
		continue
	fi

	dm_check_big "$d"
	rc=$?
	tap_check $rc "$d: 3 MB written and read back byte for byte (cold cache), the same bytes in the backing store"

	# 4 writers at once, each its own 256 KiB of one 1 MiB file
	dm_check_parallel
	tap_check $? "$d: 4 parallel writers on one file: every writer's bytes in place (mount and backing store)"

	dm_check_unlink
	tap_check $? "$d: unlink"

	prog=${cmd%% *}
	dm_umount "$prog"
	tap_check $? "$d: unmount; the daemon exits ($(($(date +%s) - start)) s for this daemon)"
done
tap_done
