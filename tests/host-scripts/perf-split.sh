# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: the layers of a write that make bench's report
# reads from its perf profiles (bench/lib.sh, bench_perf_split), on
# fake profiles in the layout of bench/run-guest.sh whose rows were
# worked out by hand below: a passthrough write on the synchronous path
# (vfs_iter_write), raw XFS (no stack), an overlayfs write whose tree holds
# both VFS entry points (vfs_iocb_iter_write counts), and a profile without
# its IOPS line. Sourced by it, in its shell and its TAP count ($top, $work,
# ok, notok). FB_PERF_LIB (a red run): another lib.sh.
# shellcheck shell=sh disable=SC2154

# shellcheck source=bench/lib.sh
. "${FB_PERF_LIB:-$top/bench/lib.sh}"
ps=$work/perf-split
mkdir -p "$ps"
# ps_fake NAME IOPS-LINE MS TOTAL IDLE TREE...: a profile; TREE is "PCT SYMBOL"
ps_fake() {
	f=$ps/$1.txt
	{
		echo "$2"
		echo "time of first sample : 10.000000"
		echo "sample duration :   $3 ms"
		echo "by task, samples (at least 1%):"
		echo "    40.00%          $5  swapper        "
		echo "    60.00%          $(($4 - $5))  fio            "
		echo "samples: $4; Total Lost Samples: 0"
		echo "by symbol, self, samples (at least 0.5%):"
		echo "    39.00%          3900  [k] pv_native_safe_halt"
		echo "kernel symbols with what they call (children, self, samples; at least 1%):"
		shift 5
		for t in "$@"; do
			printf '    %s     0.10%%            10  [k] %s\n' "${t% *}" "${t#* }"
		done
	} > "$f"
}
# 1000 IOPS for 2 s: 2000 writes; 10000 samples, 4000 idle: busy 3000.0 per
# 1000 writes; trees 5000, 4000, 3000, 2500 samples: layers 500.0, 500.0,
# 250.0, XFS 1250.0; the stack 2500 of XFS's 2500: 100.0%
ps_fake lat-ours-xattr-j4 "fio lat numjobs=4 on /tmp/fb/mnt under perf record: 1000 IOPS" 2000.000 10000 4000 \
	"50.00% fuse_passthrough_write_iter" "40.00% backing_file_write_iter" "30.00% vfs_iter_write" \
	"25.00% xfs_file_write_iter"
# 2500 IOPS for 4 s: 10000 writes; 8000 samples, 2000 idle: 600.0; XFS
# 20% of 8000 = 1600: 160.0; no stack
ps_fake lat-raw---j4 "fio lat numjobs=4 on /tmp/nbdelay under perf record: 2500 IOPS" 4000.000 8000 2000 \
	"20.00% xfs_file_write_iter" "30.00% vfs_write"
# 500 IOPS for 1 s: 500 writes; 1000 samples, 500 idle: 1000.0; trees 400,
# 300, 200 (vfs_iocb_iter_write, not vfs_iter_write's 250), 100: 200.0,
# 200.0, 200.0, XFS 200.0; the stack 300 of 100: 300.0%
ps_fake aio-overlayfs---j1 "fio aio numjobs=1 on /tmp/fb/mnt under perf record: 500 IOPS" 1000.000 1000 500 \
	"40.00% ovl_write_iter" "30.00% backing_file_write_iter" "25.00% vfs_iter_write" \
	"20.00% vfs_iocb_iter_write" "10.00% xfs_file_write_iter"
ps_fake aio-ours-xattr-j1 "fio aio numjobs=1: fio failed" 1000.000 1000 500 "40.00% fuse_passthrough_write_iter"
bench_perf_split "$ps" > "$ps/out"
# ps_want NAME ROW: the row of NAME
ps_want() {
	got=$(grep -F "| $1 |" "$ps/out")
	if [ "$got" = "$2" ]; then
		ok "bench_perf_split: $1: $got"
	else
		echo "got '$got', want '$2'" > "$work/err"
		notok "bench_perf_split: $1"
	fi
}
ps_want lat-ours-xattr-j4 "| lat-ours-xattr-j4 | 1000 | 3000.0 | 500.0 | 500.0 | 250.0 | 1250.0 | 100.0% |"
ps_want lat-raw---j4 "| lat-raw---j4 | 2500 | 600.0 | – | – | – | 160.0 | – |"
ps_want aio-overlayfs---j1 "| aio-overlayfs---j1 | 500 | 1000.0 | 200.0 | 200.0 | 200.0 | 200.0 | 300.0% |"
ps_want aio-ours-xattr-j1 "| aio-ours-xattr-j1 | no IOPS or samples in the profile |||||||"
