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
tool=$FB_TOP/tools/fuse-backport
S=$FB_SCRATCH
M=$S/dm
mkdir -p "$M"
port=2222

cleanup() {
	while fb_mounted "$M"; do
		umount -l "$M" 2> /dev/null || break
	done
	[ -f "$S/sshd.pid" ] && kill "$(cat "$S/sshd.pid")" 2> /dev/null
	[ -z "$(awk -v d="$FB_DEV" '$5 == d' /proc/self/mountinfo)" ] || umount -l "$FB_DEV"
}
trap cleanup EXIT

# pids of the daemon serving $M (its command line names $M or /dev/fd/N
# after `run`, so: the processes whose cwd or arguments mention our scratch)
daemon_pids() {
	pgrep -f "^$1 .*$S/" | tr '\n' ' '
}
daemon_left() {
	[ -n "$(daemon_pids "$1")" ]
}

# sshd on 127.0.0.1:$port for root, with keys made now. UsePAM: without
# it sshd refuses root, whose password is locked ("account is locked").
start_sshd() {
	command -v sshd > /dev/null || PATH=$PATH:/usr/sbin
	command -v sshd > /dev/null || { echo "no sshd (openssh-server)" >&2; return 1; }
	ip link set lo up 2> /dev/null
	mkdir -p /run/sshd "$S/ssh"
	chmod 700 "$S/ssh"
	rm -f "$S/ssh/"*
	ssh-keygen -q -t ed25519 -N '' -f "$S/ssh/host" &&
		ssh-keygen -q -t ed25519 -N '' -f "$S/ssh/id" &&
		cp "$S/ssh/id.pub" "$S/ssh/authorized_keys" || return 1
	cat > "$S/ssh/sshd_config" << CONF
ListenAddress 127.0.0.1
Port $port
HostKey $S/ssh/host
PidFile $S/sshd.pid
AuthorizedKeysFile $S/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM yes
StrictModes no
Subsystem sftp internal-sftp
LogLevel VERBOSE
CONF
	"$(command -v sshd)" -f "$S/ssh/sshd_config" -E "$S/sshd.log" || return 1
	fb_wait_while 100 [ ! -s "$S/sshd.pid" ]
}

# mountcmd NAME: sets cmd, the daemon's command line (its backing store
# set up), and BK, the directory where a file written as $M/NAME lands.
mountcmd() {
	rm -rf "$S/b"
	mkdir -p "$S/b"
	case $1 in
	mergerfs)
		mkdir -p "$S/b/1" "$S/b/2"
		BK=$S/b/1
		# new files go to the first branch (ff: first found) with 1M free (the
		# default minfreespace, 4G, is more than the guest's /tmp has)
		cmd="mergerfs -o minfreespace=1M,category.create=ff,cache.files=partial,dropcacheonclose=true $S/b/1:$S/b/2 $M"
		;;
	bindfs)
		BK=$S/b
		cmd="bindfs $S/b $M"
		;;
	fuse-overlayfs)
		mkdir -p "$S/b/lower" "$S/b/upper" "$S/b/work"
		echo "lower file" > "$S/b/lower/low"
		BK=$S/b/upper
		cmd="fuse-overlayfs -o lowerdir=$S/b/lower,upperdir=$S/b/upper,workdir=$S/b/work $M"
		;;
	sshfs)
		BK=$S/b
		cmd="sshfs -o IdentityFile=$S/ssh/id,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,port=$port,LogLevel=ERROR root@127.0.0.1:$S/b $M"
		;;
	esac
}

sshd_ok=0
# mergerfs last: through run it mounts over the device node (see below)
for d in bindfs fuse-overlayfs sshfs mergerfs; do
	if ! command -v "$d" > /dev/null; then
		tap_skip_n 6 "$d" "$d is not installed (dev/deps.sh test)"
		continue
	fi
	if [ "$d" = sshfs ] && [ "$sshd_ok" = 0 ]; then
		if start_sshd 2> "$S/sshd.err"; then
			sshd_ok=1
		else
			tap_check 1 "sshd on 127.0.0.1:$port for sshfs ($(head -n 1 "$S/sshd.err") $(tail -n 1 "$S/sshd.log" 2> /dev/null))"
			tap_skip_n 5 "$d" "no sshd"
			continue
		fi
	fi
	mountcmd "$d"
	ver=$(dpkg-query -W -f='${Version}' "$d" 2> /dev/null)
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
			[ -z "$(daemon_pids "$d")" ]
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
		for p in $(daemon_pids "$d"); do
			kill -9 "$p" 2> /dev/null
		done
		tap_skip_n 4 "$d" "the mount does not answer"
		continue
	fi

	head -c 3000000 /dev/urandom > "$S/ref"
	cp "$S/ref" "$M/big" && cmp -s "$S/ref" "$BK/big" && fb_drop_caches && cmp -s "$S/ref" "$M/big" &&
		[ "$(stat -c %s "$M/big")" = 3000000 ]
	rc=$?
	if [ "$d" = fuse-overlayfs ]; then
		[ "$(cat "$M/low")" = "lower file" ] || rc=1
	fi
	tap_check $rc "$d: 3 MB written and read back byte for byte (cold cache), the same bytes in the backing store"

	# 4 writers at once, each its own 256 KiB of one 1 MiB file
	head -c 1048576 /dev/zero > "$M/par"
	: > "$S/expect"
	pids=""
	for i in 0 1 2 3; do
		head -c 262144 /dev/urandom > "$S/p$i"
		cat "$S/p$i" >> "$S/expect"
	done
	for i in 0 1 2 3; do
		dd if="$S/p$i" of="$M/par" bs=65536 seek=$((i * 4)) conv=notrunc,fsync status=none &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do
		wait "$p" || rc=1
	done
	[ $rc = 0 ] && cmp -s "$S/expect" "$BK/par" && fb_drop_caches && cmp -s "$S/expect" "$M/par"
	tap_check $? "$d: 4 parallel writers on one file: every writer's bytes in place (mount and backing store)"

	rm "$M/big" "$M/par" && [ ! -e "$BK/big" ]
	tap_check $? "$d: unlink"

	prog=${cmd%% *}
	timeout -k 2 20 umount "$M" && fb_wait_while 100 daemon_left "$prog" && ! fb_mounted "$M"
	tap_check $? "$d: unmount; the daemon exits ($(($(date +%s) - start)) s for this daemon)"
done
tap_done
