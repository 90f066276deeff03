#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Splice suite (guest): splice writes to FOPEN_DIRECT_IO opens of a file
# racing page-cache writeback of a shared mmap, direct reads and truncate,
# then fio with the splice, mmap, direct and buffered engines on one file
# (xfstests generic/095's mix), through tests/splice/fbmixd: a libfuse
# daemon that, like libfuse's passthrough_hp, answers an O_DIRECT open with
# FOPEN_DIRECT_IO | FOPEN_PARALLEL_DIRECT_WRITES and any other open cached.
#
# Debian 12's stock 6.1 FUSE lets parallel direct writers take the inode lock
# shared while page-cache opens have writeback in flight; two of them meet in
# fuse_set_nowrite() and hit BUG_ON(fi->writectr < 0). Base 6.12 takes the
# lock exclusively while the inode has page-cache opens (io modes). On stock
# the race takes the guest down, so the default run skips stock: with
# FB_SPLICE_CRASH=1 (tests/splice/stock.sh, its own boot) the suite runs on
# stock with panic_on_oops, and the host asserts the BUG line in the console.
# Environment: FB_SPLICE_ROUNDS (racer rounds, default 12), FB_SPLICE_FIO
# (fio seconds, default 8).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
tool=$FB_TOP/tools/fuse-backport
mixd=$FB_TOP/tests/splice/fbmixd
racer=$FB_TOP/tests/splice/fbsplice
S=$FB_SCRATCH
B=$S/sb
M=$S/sm
rounds=${FB_SPLICE_ROUNDS:-12}
fiosec=${FB_SPLICE_FIO:-8}
writers=4
# ms the daemon holds each page-cache writeback WRITE
delay=150
crash=${FB_SPLICE_CRASH:-0}
mkdir -p "$B" "$M"

for f in "$mixd" "$racer"; do
	[ -x "$f" ] || {
		tap_skip "splice suite" "$f is not built (make -C tests splice)"
		tap_done
		exit
	}
done
if [ "$FB_TARGET" = stock ] && [ "$crash" != 1 ]; then
	tap_skip "splice writes racing writeback on stock" "on Debian 12's 6.1 this takes the guest down (kernel BUG in fuse_set_nowrite); tests/splice/stock.sh runs it in a boot of its own (FB_CHECK_FULL=1)"
	tap_done
	exit
fi

cleanup() {
	while fb_mounted "$M"; do
		umount -l "$M" 2> /dev/null || break
	done
	for p in $(pgrep -f "fbmixd --wb-delay-ms [0-9]* $B"); do
		kill -9 "$p" 2> /dev/null
	done
}
trap cleanup EXIT

# mixd DELAY-MS: mount fbmixd on $M (its own mount on "fuse", else through
# fuse-backport run), page-cache writeback answered after DELAY-MS
mixd() {
	case $FB_FSTYPE in
	fuse) "$mixd" --wb-delay-ms "$1" "$B" "$M" 2> "$S/mount.err" ;;
	*) "$tool" run -- "$mixd" --wb-delay-ms "$1" "$B" "$M" > /dev/null 2> "$S/mount.err" ;;
	esac
	rc=$?
	fstype=$(awk -v m="$M" '$2 == m { print $3 }' /proc/mounts)
	[ "$rc" = 0 ] && [ "$fstype" = "$FB_FSTYPE.fbmixd" ]
}
# unmixd: unmount, the daemon gone within 10 s
unmixd() {
	umount "$M" && fb_wait_while 100 pgrep -f "fbmixd --wb-delay-ms [0-9]* $B" > /dev/null
}

mixd "$delay"
tap_check $? "fbmixd (libfuse $(pkg-config --modversion fuse3 2> /dev/null)) mounted as $fstype, writeback answered after $delay ms (exit $rc $(head -n 1 "$S/mount.err"))"
if ! fb_mounted "$M"; then
	tap_done
	exit
fi

head -c 1048576 /dev/urandom > "$M/f"
if [ "$crash" = 1 ]; then
	# The oops kills the racer with fi->lock held: every CPU that wants it
	# spins. Panic at once instead, so the host sees the console.
	echo 1 > /proc/sys/kernel/panic_on_oops
	echo 1 > /proc/sys/kernel/panic
	echo "splice: $FB_TARGET $(uname -r): racing; a kernel BUG now ends this boot" > /dev/kmsg
fi
start=$(date +%s)
timeout -k 5 300 "$racer" "$M/f" "$B/f" "$rounds" "$writers" > "$S/racer.out" 2> "$S/racer.err"
rc=$?
if [ "$crash" = 1 ]; then
	tap_check 1 "stock did not crash: $rounds rounds of $writers splice writers racing writeback ran through (exit $rc, $(($(date +%s) - start)) s; expected: kernel BUG at fs/fuse/dir.c in fuse_set_nowrite)"
else
	tap_check $rc "$rounds rounds: $writers splice writers on O_DIRECT opens (FOPEN_DIRECT_IO|FOPEN_PARALLEL_DIRECT_WRITES) racing shared-mmap writeback, a direct reader and truncate; every spliced byte in the backing file (exit $rc in $(($(date +%s) - start)) s $(head -n 1 "$S/racer.err"))"
fi

# generic/095's mix: the same file through every engine at once; writeback
# answered after 5 ms (150 ms makes fio's mmap and buffered jobs crawl).
unmixd && mixd 5
tap_check $? "remounted, writeback answered after 5 ms (exit $rc $(head -n 1 "$S/mount.err"))"
cat > "$S/mix.fio" << JOB
[global]
filename=$M/fio
size=4m
bs=4k
runtime=$fiosec
time_based
group_reporting=0
[splice-direct]
ioengine=splice
direct=1
rw=randwrite
numjobs=2
[mmap]
ioengine=mmap
rw=randrw
[psync-direct]
ioengine=psync
direct=1
rw=randrw
[sync-buffered]
ioengine=sync
rw=randwrite
fsync=16
[splice-read]
ioengine=splice
direct=1
rw=randread
JOB
head -c 4194304 /dev/urandom > "$M/fio"
start=$(date +%s)
timeout -k 5 $((fiosec + 120)) fio --output="$S/fio.out" "$S/mix.fio" > /dev/null 2> "$S/fio.err"
rc=$?
jobs=$(grep -c ': (groupid=' "$S/fio.out")
errs=$(grep -c 'err= *[1-9]' "$S/fio.out")
[ "$rc" = 0 ] && [ "$jobs" = 6 ] && [ "$errs" = 0 ]
tap_check $? "fio ${fiosec} s: splice direct writes (2 jobs), mmap, psync direct, buffered sync with fsync, splice reads on one file: $jobs jobs, $errs with errors (exit $rc in $(($(date +%s) - start)) s $(head -n 1 "$S/fio.err"))"
if [ "$crash" = 1 ]; then
	tap_check 1 "stock did not crash under fio either"
fi

fb_drop_caches
cmp -s "$M/fio" "$B/fio" && cmp -s "$M/f" "$B/f"
tap_check $? "after the races: both files read through the mount equal the backing files byte for byte"

unmixd
tap_check $? "unmount; the daemon exits"
tap_done
