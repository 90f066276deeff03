#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest (`make demo`): load our module next to the kernel's FUSE (or
# instead of its modular one), mount the test daemon through it, round-trip
# a file byte for byte; where FUSE is built in, take it over and mount
# Debian's bindfs, unmodified, with -t fuse on ours; then the main job, measured in this boot: parallel
# O_DIRECT writes to one shared file through the stock FUSE and through ours
# in turn, the same daemon and flags (passthrough + FOPEN_PARALLEL_DIRECT_WRITES),
# on XFS on a memory-backed null_blk device with a 50 us completion delay
# (bench/lib.sh, the latency-bound workload of `make bench`: psync
# randwrite 4k, 1 and 4 writers). TAP, with the figures as diagnostics.
#
# usage: dev/demo-guest.sh MODDIR
# environment: FB_BENCH_RUNTIME (seconds per fio run, default 4)
FB_MODDIR=${1:?usage: demo.sh MODDIR}
FB_TOP=$(cd "$(dirname "$0")/.." && pwd)
export FB_MODDIR FB_TOP
tap_suite=demo
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
. "$FB_TOP/bench/lib.sh"
mkdir -p "$FB_SCRATCH"
trap fb_cleanup EXIT

fb_klog_mark demo
builtin=no
grep -q '^fuse ' /proc/modules || { grep -qw fuse /proc/filesystems && builtin=yes; }
tap_diag "kernel $(uname -r); FUSE built in: $builtin"

fb_use ours
tap_check $? "load our module from $FB_MODDIR"
m=$FB_MODNAME
tap_diag "module $m: version $(cat /sys/module/"$m"/version 2> /dev/null)"
[ -c "$FB_DEV" ] && grep -qw "$FB_FSTYPE" /proc/filesystems
tap_check $? "$FB_DEV is a character device, file system type $FB_FSTYPE registered"
if [ $builtin = yes ]; then
	grep -qw fuse /proc/filesystems && [ -c /dev/fuse ]
	tap_check $? "the built-in fuse and /dev/fuse are still there"
fi

fb_mount --mode cached
tap_check $? "mount -t $FB_FSTYPE with the test daemon"
head -c 8388608 /dev/urandom > "$FB_SCRATCH/ref"
cp "$FB_SCRATCH/ref" "$FB_MNT/file" && sync && cmp "$FB_SCRATCH/ref" "$FB_BACK/file"
tap_check $? "8 MiB written through $FB_FSTYPE land byte for byte in the backing file"
echo 3 > /proc/sys/vm/drop_caches
cmp "$FB_SCRATCH/ref" "$FB_MNT/file"
tap_check $? "and read back byte for byte"
fb_umount
tap_check $? "unmount; the daemon exits"

# The takeover (FUSE built in): ours serves -t fuse and /dev/fuse, and an
# unmodified daemon from Debian's archive, bindfs, mounts as it always does.
# Ours: the mount's connection is in our control fs.
if [ $builtin = yes ]; then
	p=/sys/module/$m/parameters/takeover
	echo 1 > "$p" && [ "$(cat "$p")" = 1 ]
	tap_check $? "takeover on: $(dmesg | grep -o "$m: takeover: .*" | tail -n 1)"
	b=$FB_SCRATCH/bindfs
	mkdir -p "$b/src" "$b/mnt" && echo "bindfs on $m" > "$b/src/hello"
	bindfs "$b/src" "$b/mnt" 2> "$b.err"
	c=$(fb_conn "$b/mnt")
	t=$(fb_fstype "$b/mnt")
	[ "$t" = fuse ] && [ -n "$c" ] && [ -d "$FB_CTL/$c" ] && [ "$(cat "$b/mnt/hello")" = "bindfs on $m" ]
	tap_check $? "Debian's bindfs $(bindfs --version 2>&1 | sed -n 's/^bindfs //p' | head -n 1), unmodified, mounts -t ${t:-?} on ours (connection ${c:-?} in $FB_CTL)$([ -s "$b.err" ] && echo ": $(head -n 1 "$b.err")")"
	umount "$b/mnt"
	echo 0 > "$p" && [ "$(cat "$p")" = 0 ]
	tap_check $? "takeover off: -t fuse and /dev/fuse are the built-in's again"
fi

# The parallel-write figure: stock and ours in turn for each writer count
# (so that a slower spell of the host hits both alike), each on a fresh
# mount over the same pre-written file.
if bench_devices; then
	bench_prewrite /tmp/nbdelay
	for n in 1 4; do
		for t in stock ours; do
			if ! fb_use $t > "$FB_SCRATCH/use.err" 2>&1; then
				tap_check 1 "load $t: $(head -n 1 "$FB_SCRATCH/use.err")"
				continue
			fi
			FB_BACK=/tmp/nbdelay
			if ! fb_mount --mode passthrough --parallel --threads 4 2> "$FB_SCRATCH/mount.err"; then
				tap_check 1 "mount -t $FB_FSTYPE ($t) in passthrough mode: $(head -n 1 "$FB_SCRATCH/mount.err")"
				continue
			fi
			iops=$(bench_fio "$FB_MNT" lat "$n")
			[ -n "$iops" ] && [ "$iops" -gt 0 ] 2> /dev/null
			tap_check $? "fio, $n writer(s) through $t ($FB_FSTYPE): ${iops:-no result} IOPS$([ -n "$iops" ] || echo ": $(head -n 1 "$FB_SCRATCH/fio.err")")"
			echo "$t $n ${iops:-0}" >> "$FB_SCRATCH/figures"
			fb_umount
		done
	done
else
	tap_check 1 "XFS on null_blk for the parallel-write figure (modprobe null_blk, configfs, mkfs.xfs)"
fi
fb_unload_ours
tap_check $? "rmmod $m"
fb_klog_clean demo
tap_check $? "kernel log has no WARNING/BUG/Oops"
[ -s "$FB_SCRATCH/klog.hits" ] && sed 's/^/# /' "$FB_SCRATCH/klog.hits"

# The figure, from the runs above.
if [ -s "$FB_SCRATCH/figures" ]; then
	echo "#"
	echo "# parallel O_DIRECT writes to one shared file, measured in this boot"
	echo "# (fio psync randwrite 4k, ${bench_runtime} s a run; passthrough + FOPEN_PARALLEL_DIRECT_WRITES;"
	echo "#  XFS on null_blk, 50 us completion delay; QEMU TCG, so compare, don't quote):"
	awk '{ v[$1, $2] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
		END {
			printf "#   %-8s %12s %12s %12s\n", "writers", "stock IOPS", "ours IOPS", "ours/stock"
			for (i = 1; i <= k; i++) {
				n = order[i]; s = v["stock", n]; o = v["ours", n]
				r = (s > 0 && o > 0) ? sprintf("%.2fx", o / s) : "-"
				printf "#   %-8s %12s %12s %12s\n", n, s + 0, o + 0, r
			}
		}' "$FB_SCRATCH/figures"
fi
tap_done
