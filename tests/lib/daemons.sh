# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Debian's FUSE daemons as they are (mergerfs, bindfs, fuse-overlayfs,
# sshfs), for the suites that mount them: daemons (stock, drop-in, and
# through `fuse-backport run`) and takeover (their own -t fuse.* mount, on
# ours). Sourced after tests/lib/fuse.sh. The caller sets:
#   DM_S   scratch directory (the backing store goes to DM_S/b, sshd's keys
#          and config to DM_S/ssh)
#   DM_M   mount point
#
#   dm_start_sshd        sshd on 127.0.0.1:$dm_port for root, keys made now
#   dm_stop_sshd         stop it
#   dm_cmd NAME          sets dm_cmdline (the daemon's command line, its backing
#                        store set up) and dm_bk (where a file written as
#                        DM_M/NAME lands)
#   dm_version NAME      the Debian package's version
#   dm_pids PROG         pids of PROG serving DM_S (its arguments name it)
#   dm_check_big NAME    3 MB written and read back byte for byte (cold
#                        cache), the same bytes in the backing store
#   dm_check_parallel    4 writers at once on one file, each its own 256 KiB:
#                        every writer's bytes in place (mount, backing store)
#   dm_check_unlink      the files of the two checks unlinked, gone below
#   dm_umount PROG       unmount DM_M; PROG exits
# The checks return their status (on failure dm_why names the step that
# failed); the suites word and count the tests. The checks' models are
# written by the test, in DM_S. Optional, for a mount of another user
# (the takeover suite's gocryptfs and rclone through fusermount3):
#   DM_RUNAS   a command (a shell function) that runs its arguments as
#              the mount's user: every access to DM_M goes through it (the
#              models in DM_S must be readable by that user); empty: as
#              the caller
#   dm_bk      empty (set by the caller, without dm_cmd): no backing store
#              to compare (a ciphertext); the caller checks it its own way
#   DM_BK_WAIT tenths of a second the backing store may take to show the
#              bytes (a daemon that writes back after close); default 0:
#              at once
#   DM_BREAK   model: each model changed in one byte after the writes (a
#              red run: every byte compare must fail)
dm_port=2222

dm_pids() {
	pgrep -f "^$1 .*$DM_S/" | tr '\n' ' '
}
dm_left() {
	[ -n "$(dm_pids "$1")" ]
}

# sshd on 127.0.0.1:$dm_port for root, with keys made now. UsePAM: without
# it sshd refuses root, whose password is locked ("account is locked").
dm_start_sshd() {
	command -v sshd > /dev/null || PATH=$PATH:/usr/sbin
	command -v sshd > /dev/null || { echo "no sshd (openssh-server)" >&2; return 1; }
	ip link set lo up 2> /dev/null
	mkdir -p /run/sshd "$DM_S/ssh"
	chmod 700 "$DM_S/ssh"
	rm -f "$DM_S/ssh/"*
	ssh-keygen -q -t ed25519 -N '' -f "$DM_S/ssh/host" &&
		ssh-keygen -q -t ed25519 -N '' -f "$DM_S/ssh/id" &&
		cp "$DM_S/ssh/id.pub" "$DM_S/ssh/authorized_keys" || return 1
	cat > "$DM_S/ssh/sshd_config" << CONF
ListenAddress 127.0.0.1
Port $dm_port
HostKey $DM_S/ssh/host
PidFile $DM_S/sshd.pid
AuthorizedKeysFile $DM_S/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM yes
StrictModes no
Subsystem sftp internal-sftp
LogLevel VERBOSE
CONF
	"$(command -v sshd)" -f "$DM_S/ssh/sshd_config" -E "$DM_S/sshd.log" || return 1
	fb_wait_while 100 [ ! -s "$DM_S/sshd.pid" ]
}
dm_stop_sshd() {
	[ -f "$DM_S/sshd.pid" ] && kill "$(cat "$DM_S/sshd.pid")" 2> /dev/null
	rm -f "$DM_S/sshd.pid"
}

# shellcheck disable=SC2034 # dm_cmdline: for the suites
dm_cmd() {
	rm -rf "$DM_S/b"
	mkdir -p "$DM_S/b"
	case $1 in
	mergerfs)
		mkdir -p "$DM_S/b/1" "$DM_S/b/2"
		dm_bk=$DM_S/b/1
		# new files go to the first branch (ff: first found) with 1M free (the
		# default minfreespace, 4G, is more than the guest's /tmp has)
		dm_cmdline="mergerfs -o minfreespace=1M,category.create=ff,cache.files=partial,dropcacheonclose=true $DM_S/b/1:$DM_S/b/2 $DM_M"
		;;
	bindfs)
		dm_bk=$DM_S/b
		dm_cmdline="bindfs $DM_S/b $DM_M"
		;;
	fuse-overlayfs)
		mkdir -p "$DM_S/b/lower" "$DM_S/b/upper" "$DM_S/b/work"
		echo "lower file" > "$DM_S/b/lower/low"
		dm_bk=$DM_S/b/upper
		dm_cmdline="fuse-overlayfs -o lowerdir=$DM_S/b/lower,upperdir=$DM_S/b/upper,workdir=$DM_S/b/work $DM_M"
		;;
	sshfs)
		dm_bk=$DM_S/b
		dm_cmdline="sshfs -o IdentityFile=$DM_S/ssh/id,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,port=$dm_port,LogLevel=ERROR root@127.0.0.1:$DM_S/b $DM_M"
		;;
	*)
		echo "dm_cmd: unknown daemon $1" >&2
		return 1
		;;
	esac
}

dm_version() {
	dpkg-query -W -f='${Version}' "$1" 2> /dev/null
}

# dm_as CMD...: CMD as the mount's user (DM_RUNAS), or as the caller
dm_as() {
	if [ -n "${DM_RUNAS:-}" ]; then
		"$DM_RUNAS" "$@"
	else
		"$@"
	fi
}
# dm_bk_same NAME MODEL: the backing store's NAME is MODEL (no backing
# store: true)
dm_bk_same() {
	[ -z "$dm_bk" ] || fb_wait_while "${DM_BK_WAIT:-0}" dm_differ "$2" "$dm_bk/$1"
}
dm_differ() {
	! cmp -s "$1" "$2"
}
# dm_break FILE: with DM_BREAK=model, FILE's middle byte changed (+1)
dm_break() {
	[ "${DM_BREAK:-}" = model ] || return 0
	dm_o=$(($(stat -c %s "$1") / 2))
	dm_b=$(od -An -tu1 -j "$dm_o" -N 1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059 # the byte, as an octal escape
	printf "\\$(printf %o $(((dm_b + 1) % 256)))" | dd of="$1" bs=1 seek="$dm_o" conv=notrunc status=none
}

# shellcheck disable=SC2034 # dm_why: for the suites
dm_check_big() {
	head -c 3000000 /dev/urandom > "$DM_S/ref"
	dm_why="write" && dm_as cp "$DM_S/ref" "$DM_M/big" && dm_break "$DM_S/ref" &&
		dm_why="the backing store" && dm_bk_same big "$DM_S/ref" &&
		dm_why="read back (cold cache)" && fb_drop_caches && dm_as cmp -s "$DM_S/ref" "$DM_M/big" &&
		dm_why=size && [ "$(dm_as stat -c %s "$DM_M/big")" = 3000000 ] || return 1
	if [ "$1" = fuse-overlayfs ]; then
		dm_why="the lower file"
		[ "$(dm_as cat "$DM_M/low")" = "lower file" ] || return 1
	fi
}

# shellcheck disable=SC2034 # dm_why: for the suites
dm_check_parallel() {
	dm_why="the 1 MiB of zeros"
	# shellcheck disable=SC2016 # the inner shell's $1
	dm_as sh -c 'head -c 1048576 /dev/zero > "$1"' dm "$DM_M/par" || return 1
	: > "$DM_S/expect"
	dm_ps=""
	for dm_i in 0 1 2 3; do
		head -c 262144 /dev/urandom > "$DM_S/p$dm_i"
		cat "$DM_S/p$dm_i" >> "$DM_S/expect"
	done
	for dm_i in 0 1 2 3; do
		dm_as dd if="$DM_S/p$dm_i" of="$DM_M/par" bs=65536 seek=$((dm_i * 4)) conv=notrunc,fsync status=none &
		dm_ps="$dm_ps $!"
	done
	dm_rc=0
	for dm_p in $dm_ps; do
		wait "$dm_p" || dm_rc=1
	done
	dm_why="a writer failed" && [ $dm_rc = 0 ] && dm_break "$DM_S/expect" &&
		dm_why="the backing store" && dm_bk_same par "$DM_S/expect" &&
		dm_why="read back (cold cache)" && fb_drop_caches && dm_as cmp -s "$DM_S/expect" "$DM_M/par"
}

# shellcheck disable=SC2034 # dm_why: for the suites
dm_check_unlink() {
	dm_why="unlink" && dm_as rm "$DM_M/big" "$DM_M/par" &&
		dm_why="still in the backing store" && { [ -z "$dm_bk" ] || fb_wait_while "${DM_BK_WAIT:-0}" [ -e "$dm_bk/big" ]; }
}

dm_umount() {
	timeout -k 2 20 umount "$DM_M" && fb_wait_while 100 dm_left "$1" && ! fb_mounted "$DM_M"
}
