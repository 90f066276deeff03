#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Drop-in suite (guest): on a kernel whose FUSE is a module, our fuse.ko,
# cuse.ko and virtiofs.ko (FB_MODDIR/*.ko) replace the stock ones. Only for
# our module in the drop-in flavor (Debian 12's 6.1); it unloads and loads
# fuse, so only in a tests/vm guest (FB_VM=1). Alone, with a build directory:
#
#   tests/vm/boot.sh --kver 6.1.0-57-amd64 -- \
#       sh tests/suites/dropin.sh /work/main/build/6.1.0-57-amd64
#
# Replaces the stock fuse, cuse and virtiofs with ours, checks
# /sys/module/fuse/version, then mounts tests/daemon/fbtestd in cached, direct
# and passthrough modes over a backing directory on tmpfs and on XFS (loop
# device), and in each: round-trips a 20 MiB random file (cmp, also after
# dropping caches, and against the backing file), writes and reads through a
# shared mmap and splice(2), runs libaio writes and reads with verification
# (O_DIRECT on XFS), and for passthrough checks that the server saw no READ or WRITE.
# Finally, the kernel log since the start must have none of FB_KLOG_RE
# (tests/lib/klog.sh). TAP output (tests/lib/tap.sh). Needs root, python3,
# fio, mkfs.xfs, losetup.
set -u
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/klog.sh"

if [ "${FB_TARGET:-}" = stock ]; then
	tap_skip "drop-in replacement" "the stock module is what gets replaced; nothing to test on stock"
	tap_done
	exit
fi
b=${1:-${FB_MODDIR:-}}
if [ -n "${FB_TARGET:-}" ] && [ ! -f "$b/fuse.ko" ]; then
	tap_skip "drop-in replacement" "our build for $(uname -r) is the renamed flavor (FUSE built in)"
	tap_done
	exit
fi
# tests/vm/guest/suites.sh loaded our fuse.ko and mounted its control fs; the
# drop-in check starts from the stock modules, so it needs a kernel where
# nothing of ours is loaded and nothing holds fuse.
if [ -n "${FB_TARGET:-}" ]; then
	. "$FB_TOP/tests/lib/fuse.sh"
	fb_unload_ours
fi
top=$FB_TOP
fbtestd=$top/tests/daemon/fbtestd
py=/usr/bin/python3
w=/tmp/fb-dropin

ok() { tap_check 0 "$1"; }
notok() {
	tap_check 1 "$1"
	[ -z "${2:-}" ] || tap_diag "$2"
}
check() {
	desc=$1
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		notok "$desc" "$out"
	fi
}
finish() {
	tap_done
	exit
}
bail() {
	notok "$1" "${2:-}"
	finish
}

[ "$(id -u)" = 0 ] || bail "run as root (in the guest)"
[ "${FB_VM:-}" = 1 ] || bail "refusing to unload fuse outside a tests/vm guest (FB_VM=1)"
case $b in /*) ;; *) b=$top/$b ;; esac
for m in fuse cuse virtiofs; do
	[ -f "$b/$m.ko" ] || bail "no $b/$m.ko (build with: make modules KVER=$(uname -r))"
done
[ -x "$fbtestd" ] || bail "no $fbtestd (make -C tests daemon)"
echo "# kernel $(uname -r), modules from $b"

# --- modules ---------------------------------------------------------------
# A marker, not dmesg -C: the caller (tests/vm/guest/suites.sh) scans the log
# from its own marker, which must stay.
dmesg_mark="fb-dropin: begin $$ $(date +%s)"
echo "$dmesg_mark" >/dev/kmsg
# The stock modules first (if not loaded yet), to replace them for real.
for m in fuse cuse virtiofs; do
	modprobe "$m" 2>/dev/null
done
echo "# stock fuse loaded: $([ -d /sys/module/fuse ] && echo yes || echo no)," \
	"version file: $(cat /sys/module/fuse/version 2>/dev/null || echo none)"
for m in virtiofs cuse fuse; do
	if [ -d "/sys/module/$m" ]; then
		check "rmmod stock $m" rmmod "$m"
	fi
done
for m in fuse cuse virtiofs; do
	# virtiofs needs the virtio core, which the guest has loaded.
	check "insmod our $m.ko" insmod "$b/$m.ko"
done
want=$(modinfo -F version "$b/fuse.ko")
got=$(cat /sys/module/fuse/version 2>/dev/null)
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "/sys/module/fuse/version is ours: $got"
else
	notok "/sys/module/fuse/version is ours" "want '$want', got '$got'"
fi
for m in cuse virtiofs; do
	v=$(cat "/sys/module/$m/version" 2>/dev/null)
	if [ "$v" = "$want" ]; then
		ok "/sys/module/$m/version is ours"
	else
		notok "/sys/module/$m/version is ours" "got '$v'"
	fi
done
[ -c /dev/fuse ] || mknod /dev/fuse c 10 229
if ! grep -qw fuse /proc/filesystems || ! grep -qw fusectl /proc/filesystems; then
	bail "fuse and fusectl are not registered"
fi

# --- backing file systems --------------------------------------------------
mkdir -p "$w" || bail "mkdir $w"
mount -t tmpfs -o size=256m tmpfs "$w" || bail "mount tmpfs on $w"
mkdir -p "$w/tmpfs" "$w/xfs" "$w/mnt" "$w/data"
mount -t tmpfs -o size=160m tmpfs "$w/tmpfs" || bail "mount backing tmpfs"
truncate -s 512m "$w/xfs.img"
modprobe loop 2>/dev/null
lo=$(losetup -f --show "$w/xfs.img" 2>&1) || bail "losetup" "$lo"
if mkfs.xfs -q -f "$lo" >/dev/null 2>&1 && mount -t xfs "$lo" "$w/xfs"; then
	ok "XFS on $lo"
	backings="tmpfs xfs"
else
	notok "XFS on $lo"
	backings=tmpfs
fi
head -c 20971520 /dev/urandom >"$w/data/rand" || bail "random data"
head -c 1048576 /dev/urandom >"$w/data/rand1m"

# The mmap check: write through a shared mapping, msync, read back with
# read(2) and compare; returns the bytes for a check of the backing file.
mmap_py='
import mmap, os, sys
path, ref = sys.argv[1], open(sys.argv[2], "rb").read()
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.ftruncate(fd, len(ref))
m = mmap.mmap(fd, len(ref), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[:] = ref
m.flush()
if m[:] != ref:
    sys.exit("mapped bytes differ after writing them")
m.close()
os.close(fd)
if open(path, "rb").read() != ref:
    sys.exit("read(2) does not see what was written through mmap")
m2 = mmap.mmap(os.open(path, os.O_RDONLY), 0, mmap.MAP_SHARED, mmap.PROT_READ)
if m2[:] != ref:
    sys.exit("a fresh read-only mapping differs")
'

wait_pid() { # PID: until the server exited (5 s at most)
	i=0
	while [ -n "$1" ] && kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# splice(2) both ways: a pipe into the file, the file into a pipe.
splice_py='
import os, sys
path, ref = sys.argv[1], open(sys.argv[2], "rb").read()
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
off = 0
while off < len(ref):
    r, w = os.pipe()
    n = os.write(w, ref[off:off + 65536])
    os.close(w)
    while n:
        k = os.splice(r, fd, n)
        n -= k
        off += k
    os.close(r)
os.fsync(fd)
os.close(fd)
fd = os.open(path, os.O_RDONLY)
got = b""
while True:
    r, w = os.pipe()
    k = os.splice(fd, w, 65536)
    os.close(w)
    if not k:
        break
    got += os.read(r, k)
    os.close(r)
if got != ref:
    sys.exit("spliced bytes differ")
'

run_mode() { # BACKING MODE
	bk=$1 mode=$2
	t="$bk/$mode"
	dir=$w/$bk/$mode
	mkdir -p "$dir"
	stats=$w/stats-$bk-$mode
	rm -f "$stats"
	# Not in $(...): the serving child keeps the output open.
	if ! "$fbtestd" --backing "$dir" --mode "$mode" --stats "$stats" \
		--pidfile "$w/pid" "$w/mnt" >"$w/fbtestd.log" 2>&1; then
		notok "$t: mount fbtestd" "$(cat "$w/fbtestd.log")"
		return
	fi
	ok "$t: mount fbtestd"

	check "$t: write 20 MiB" cp "$w/data/rand" "$w/mnt/rand"
	check "$t: fsync" sync -f "$w/mnt/rand"
	check "$t: read back, cmp" cmp "$w/data/rand" "$w/mnt/rand"
	check "$t: backing file, cmp" cmp "$w/data/rand" "$dir/rand"
	echo 3 >/proc/sys/vm/drop_caches
	check "$t: read back after drop_caches, cmp" cmp "$w/data/rand" "$w/mnt/rand"
	check "$t: mmap write/read" "$py" -c "$mmap_py" "$w/mnt/map" "$w/data/rand1m"
	check "$t: mmap'd bytes in the backing file" cmp "$w/data/rand1m" "$dir/map"

	check "$t: splice write/read" "$py" -c "$splice_py" "$w/mnt/spl" "$w/data/rand1m"
	check "$t: spliced bytes in the backing file" cmp "$w/data/rand1m" "$dir/spl"

	# Asynchronous I/O (libaio): O_DIRECT only where the backing fs has it.
	direct=0
	[ "$bk" = xfs ] && direct=1
	check "$t: libaio write+verify (direct=$direct)" \
		fio --name=aio --filename="$w/mnt/aio" --size=8m --bs=64k \
		--ioengine=libaio --iodepth=8 --rw=write --direct=$direct \
		--verify=crc32c --do_verify=1 --minimal
	check "$t: libaio randread (direct=$direct)" \
		fio --name=aio --filename="$w/mnt/aio" --size=8m --bs=16k \
		--ioengine=libaio --iodepth=8 --rw=randread --direct=$direct \
		--minimal

	pid=$(cat "$w/pid" 2>/dev/null)
	[ -n "$pid" ] && kill -USR1 "$pid" 2>/dev/null && sleep 1
	if [ "$mode" = passthrough ]; then
		if ! grep -q '^passthrough_opens=[1-9]' "$stats" 2>/dev/null; then
			notok "$t: files were opened in passthrough" "$(cat "$stats" 2>&1)"
		elif grep -qE '^op_(READ|WRITE)=' "$stats"; then
			notok "$t: no READ/WRITE reached the server" \
				"$(grep -E '^op_(READ|WRITE)=|^passthrough' "$stats")"
		else
			ok "$t: $(grep '^passthrough_opens=' "$stats"), no READ/WRITE reached the server"
		fi
	else
		if grep -q '^op_WRITE=' "$stats" 2>/dev/null; then
			ok "$t: WRITEs went through the server"
		else
			notok "$t: WRITEs went through the server" "$(cat "$stats" 2>&1)"
		fi
	fi

	if umount "$w/mnt"; then
		ok "$t: umount"
	else
		notok "$t: umount"
		umount -l "$w/mnt"
	fi
	wait_pid "$pid"
	rm -f "$dir/rand" "$dir/map" "$dir/spl" "$dir/aio"
}

for bk in $backings; do
	for mode in cached direct passthrough; do
		run_mode "$bk" "$mode"
	done
done

# The stacking limit: passthrough to a file on a FUSE mount with passthrough
# (stack depth 1, fbtestd's max_stack_depth 1) must be refused.
mkdir -p "$w/tmpfs/outer" "$w/mnt2"
if "$fbtestd" --backing "$w/tmpfs/outer" --mode passthrough "$w/mnt2" >/dev/null 2>&1; then
	mkdir -p "$w/mnt2/inner"
	echo nested >"$w/mnt2/inner/f"
	if "$fbtestd" --backing "$w/mnt2/inner" --mode passthrough \
		--stats "$w/stats-nested" --pidfile "$w/pid2" "$w/mnt" >/dev/null 2>&1; then
		out=$(cat "$w/mnt/f" 2>&1)
		umount "$w/mnt"
		wait_pid "$(cat "$w/pid2" 2>/dev/null)"
		if grep -qx 'backing_open_errno=40' "$w/stats-nested" 2>/dev/null &&
		   [ "$out" != nested ]; then
			ok "stacking limit: BACKING_OPEN over a passthrough FUSE file is ELOOP"
		else
			notok "stacking limit: BACKING_OPEN over a passthrough FUSE file is ELOOP" \
				"read: $out; $(grep backing_open "$w/stats-nested" 2>&1)"
		fi
	else
		notok "stacking limit: mount the nested fbtestd"
	fi
	umount "$w/mnt2"
else
	notok "stacking limit: mount the outer fbtestd"
fi

# --- the takeover is for a built-in FUSE: here one line, nothing changes ----
tool=$top/tools/fuse-backport
out=$("$tool" takeover on 2>&1)
rc=$?
if [ $rc = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	printf '%s\n' "$out" | grep -q 'takeover refused: FUSE is a module on this kernel' &&
	! grep -q '^fusebp ' /proc/modules; then
	ok "takeover on, FUSE a module: refused with one line ($out)"
else
	notok "takeover on, FUSE a module: refused with one line (exit $rc)" "$out"
fi
mkdir -p /etc/fuse-backport && echo TAKEOVER=yes > /etc/fuse-backport/fuse-backport.conf
out=$("$tool" takeover boot 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$out" = "takeover: not applicable: FUSE is not built into this kernel" ] &&
	! grep -q '^fusebp ' /proc/modules; then
	ok "takeover boot, TAKEOVER=yes, FUSE a module: nothing, one line, success ($out)"
else
	notok "takeover boot, TAKEOVER=yes, FUSE a module (exit $rc)" "$out"
fi
rm -f /etc/fuse-backport/fuse-backport.conf

# --- teardown and the kernel log --------------------------------------------
umount "$w/xfs" 2>/dev/null
losetup -d "$lo" 2>/dev/null
umount "$w/tmpfs" "$w" 2>/dev/null
for m in virtiofs cuse fuse; do
	check "rmmod our $m" rmmod "$m"
done
bad=$(dmesg | sed -n "/$dmesg_mark\$/,\$p" | grep -E "$FB_KLOG_RE" | head -n 20)
if [ -z "$bad" ]; then
	ok "dmesg: none of FB_KLOG_RE (WARNING, BUG, Oops, ...)"
else
	notok "dmesg: none of FB_KLOG_RE (WARNING, BUG, Oops, ...)" "$bad"
fi
finish
