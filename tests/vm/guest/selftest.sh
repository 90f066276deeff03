#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs INSIDE the guest for selftest.sh: one boot, many checks.
#
# usage: sh tests/vm/guest/selftest.sh KVER HOST_CWD TOKEN_FILE TOKEN
#
# Prints one line per check, "CHECK ok DESCRIPTION" or "CHECK fail
# DESCRIPTION", plus "# ..." notes; selftest.sh turns them into TAP.
kver=$1 host_cwd=$2 token_file=$3 token=$4

check() {
	desc=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		echo "CHECK ok $desc"
	else
		echo "CHECK fail $desc"
		sed 's/^/#   /' /tmp/check.out
	fi
}

# Most checks are small functions, so that their output can be shown on failure.
kver_ok() {
	[ "$(uname -r)" = "$kver" ] && [ "${FB_KVER:-}" = "$kver" ] &&
		[ "$(cat /run/fb-kver)" = "$kver" ]
}
tmp_is_tmpfs() { [ "$(stat -f -c %T /tmp)" = tmpfs ]; }
root_ro() { ! touch /.fb-selftest-ro 2>/dev/null; }
cpus2() { [ "$(nproc)" = 2 ]; }
cwd_ok() { [ "$(pwd -P)" = "$host_cwd" ]; }
dmesg_ok() { dmesg | grep -q "Linux version $kver"; }

xfs_on() { # DEVICE MOUNTPOINT
	mkfs.xfs -q -f "$1" && mkdir -p "$2" && mount -t xfs "$1" "$2" &&
		echo hello >"$2/f" && [ "$(cat "$2/f")" = hello ] &&
		grep -q " $2 xfs " /proc/mounts && umount "$2"
}
modprobe_xfs() { modprobe xfs && grep -qw xfs /proc/filesystems; }
null_blk_xfs() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || return 1
	[ -b /dev/nullb0 ] && xfs_on /dev/nullb0 /tmp/mnt-nullb
}
loop_xfs() {
	modprobe loop && truncate -s 512M /tmp/xfs.img &&
		dev=$(losetup -f --show /tmp/xfs.img) && xfs_on "$dev" /tmp/mnt-loop &&
		losetup -d "$dev"
}
fuse_not_loaded() { ! grep -q '^fuse ' /proc/modules; }
# The stock module by path: `modprobe fuse` would pick a DKMS-installed one
# from the host's /lib/modules/KVER/updates first.
stock_fuse_ok() {
	if ! grep -q '/fuse\.ko' "/lib/modules/$kver/modules.builtin"; then
		ko=$(find "/lib/modules/$kver/kernel/fs/fuse" -name 'fuse.ko*' | head -n 1)
		insmod "$ko" || return 1
	fi
	[ -c /dev/fuse ] && grep -qw fuse /proc/filesystems
}
write_back() { printf '%s\n' "$token" >"$token_file"; }

loop() {
	i=0
	while [ $i -lt 300000 ]; do i=$((i + 1)); done
}
parallel() {
	t0=$(date +%s%N)
	loop
	t1=$(date +%s%N)
	loop &
	loop &
	wait
	t2=$(date +%s%N)
	one=$(((t1 - t0) / 1000000))
	two=$(((t2 - t1) / 1000000))
	echo "# busy loop: 1 at once ${one} ms, 2 at once ${two} ms (ratio $((two * 100 / one))%)" >&3
	# Serialised vCPUs would give ~200%.
	[ $((two * 100 / one)) -lt 160 ]
}

check "uname -r, FB_KVER and /run/fb-kver are $kver" kver_ok
check "/tmp is a tmpfs" tmp_is_tmpfs
check "host root is read-only" root_ro
check "2 vCPUs" cpus2
check "working directory is the host's ($host_cwd)" cwd_ok
check "dmesg shows the kernel log" dmesg_ok
check "modprobe xfs" modprobe_xfs
check "XFS on a memory-backed null_blk (modprobe null_blk)" null_blk_xfs
check "XFS on a loop device over /tmp (modprobe loop)" loop_xfs
check "no fuse module loaded at start (built in, or vng's unloaded)" fuse_not_loaded
check "stock FUSE (built in, or insmod kernel/fs/fuse/fuse.ko): /dev/fuse, fuse in /proc/filesystems" stock_fuse_ok
echo "# modprobe fuse would load: $(modinfo -n fuse 2>&1)"
check "write to the shared results directory" write_back
check "2 busy loops on 2 vCPUs take < 1.6x the time of 1" parallel 3>&1
