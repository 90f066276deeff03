#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest: two builds of our module side by side, "a" (FB_MODDIR, this
# tree) and "b" (FB_MODDIR_UNPATCHED's slot: another revision's build, see
# bench/ab.sh), with raw XFS beside them. Each repetition runs raw, a
# and b in turn, so that drift in the host hits all three alike:
#   aio  libaio iodepth 64, null_blk without delay, numjobs
#        FB_BENCH_AB_AIO_JOBS (default "1 4")
#   lat  psync, null_blk completion 50 us, numjobs FB_BENCH_AB_LAT_JOBS
#        (default "4")
# xattr daemon, passthrough, FOPEN_PARALLEL_DIRECT_WRITES, attr_timeout 1 s.
# Writes workload,variant,numjobs,rep,iops and, per variant and device,
# workload,variant,getxattr,rep,COUNT (the daemon's GETXATTR over that mount:
# all of that workload's numjobs in that repetition).
#
# usage: bench/ab-guest.sh OUT.csv
# environment: FB_MODDIR, FB_MODDIR_UNPATCHED, FB_BENCH_REPS (3),
#              FB_BENCH_RUNTIME (4), FB_BENCH_AB_AIO_JOBS ("1 4"),
#              FB_BENCH_AB_LAT_JOBS ("4"): space-separated numjobs lists
out=${1:?usage: bench/ab-guest.sh OUT.csv}
FB_TOP=$(cd "$(dirname "$0")/.." && pwd)
export FB_TOP
. "$FB_TOP/tests/lib/fuse.sh"
. "$FB_TOP/bench/lib.sh"
reps=${FB_BENCH_REPS:-3}
aio_jobs=${FB_BENCH_AB_AIO_JOBS:-1 4}
lat_jobs=${FB_BENCH_AB_LAT_JOBS:-4}

die() { echo "bench-ab: $*" >&2; exit 1; }

# bench/ab.sh checks the lists before it builds; checked again here
# for a direct run.
bench_jobs_ok "$aio_jobs" || die "FB_BENCH_AB_AIO_JOBS must be numjobs (1-64) separated by spaces, not '$aio_jobs'"
bench_jobs_ok "$lat_jobs" || die "FB_BENCH_AB_LAT_JOBS must be numjobs (1-64) separated by spaces, not '$lat_jobs'"

bench_devices || die "cannot make the null_blk devices (null_blk with configfs, XFS)"
bench_prewrite /tmp/nbfast
bench_prewrite /tmp/nbdelay
mkdir -p "$FB_SCRATCH"
: > "$out"

# one VARIANT REP DEVICE: the runs of one variant on one device.
one() {
	case $3 in
	nbfast) w=aio jobs=$aio_jobs ;;
	nbdelay) w=lat jobs=$lat_jobs ;;
	esac
	dir=/tmp/$3
	if [ "$1" != raw ]; then
		slot=ours
		[ "$1" = b ] && slot=unpatched
		fb_use $slot > /dev/null 2>&1 || die "cannot load $1 ($slot)"
		FB_BACK=/tmp/$3
		fb_mount --mode passthrough --parallel --threads 4 2> "$FB_SCRATCH/mount.err" ||
			die "mount $1: $(cat "$FB_SCRATCH/mount.err")"
		dir=$FB_MNT
	fi
	for n in $jobs; do
		iops=$(bench_fio "$dir" "$w" "$n")
		[ -n "$iops" ] || die "fio failed ($w $1 $n): $(head -n 3 "$FB_SCRATCH/fio.err")"
		echo "$w,$1,$n,$2,$iops" >> "$out"
		echo "bench-ab: $w $1 numjobs=$n rep=$2: $iops IOPS"
	done
	if [ "$1" != raw ]; then
		echo "$w,$1,getxattr,$2,$(fb_stat op_GETXATTR)" >> "$out"
		fb_umount
	fi
}

r=1
while [ $r -le "$reps" ]; do
	for v in raw a b; do
		one $v $r nbfast
		one $v $r nbdelay
	done
	r=$((r + 1))
done
fb_unload_ours
