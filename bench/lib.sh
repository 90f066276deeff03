# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# In the guest: what the benchmarks share (bench/run-guest.sh, ab-guest.sh).
#   bench_devices            XFS on two memory-backed null_blk devices through
#                            configfs: /tmp/nbdelay (completion delay 50 us)
#                            and /tmp/nbfast (none)
#   bench_fio DIR WORKLOAD NUMJOBS   write IOPS of one fio run on DIR/file:
#                            randwrite 4k direct (the same offsets in every
#                            run: fio's fixed seed, randrepeat=1), WORKLOAD lat (psync) or aio
#                            (libaio iodepth 64), $bench_runtime seconds;
#                            latfiles: as lat, each job on a file of its
#                            own, DIR/file.JOB (JOB 0 to NUMJOBS - 1)
#   bench_jobs_ok LIST       LIST is numjobs separated by spaces, at least
#                            one, each 1 to 64 (also on the host: ab.sh)
#   bench_names_ok NAMES LIST   LIST is words of NAMES separated by
#                            spaces, at least one
#   bench_clock_ok CLOCK     CLOCK is wall, icount or icount:SHIFT (0-10);
#                            prints icount's shift ($bench_shift by default)
#   bench_knobs_check EMPTY  checks FB_BENCH_WORKLOADS, FB_BENCH_VARIANTS,
#                            FB_BENCH_ORDER, FB_BENCH_CLOCK, FB_BENCH_JOBS,
#                            FB_BENCH_DAEMONS
#                            and FB_BENCH_PERF_JOBS (with latfiles: each
#                            numjobs of the two at most 8), in that order, for run.sh
#                            (before it builds) and bench.sh; prints the
#                            first bad one's line (without "bench: ") and
#                            returns 1. EMPTY: what a list knob set but
#                            empty (FB_BENCH_WORKLOADS, FB_BENCH_VARIANTS,
#                            FB_BENCH_DAEMONS)
#                            means: "refuse" (the host) or "unset" (the
#                            guest, which may be handed them empty)
#   bench_overlay XFS DIR    overlayfs on DIR: its upper dir XFS/ovl/upper
#                            holds a hard link to XFS/file and to each
#                            XFS/file.JOB (the same inodes raw writes), its
#                            lower dir an empty one
#   bench_overlay_off XFS DIR   unmounts it and removes XFS/ovl
#   bench_perf DIR WORKLOAD NUMJOBS OUT   one more fio run as bench_fio's,
#                            not counted, under `perf record -a` (cpu-clock,
#                            999 Hz, both vCPUs, kernel call chains), which
#                            starts fio once it records (so the samples
#                            cover the run, however long perf takes to
#                            start); OUT: its IOPS, the samples and their
#                            time span, the tasks with at least 1% of the
#                            samples, the symbols with at least 0.5% (self)
#                            and the kernel symbols with at least 1% with
#                            what they call (children)
# Sourced after tests/lib/fuse.sh; needs FB_SCRATCH.
bench_size=256M
# latfiles: the same 256 MiB as one file per job, for up to 8 jobs
bench_size_job=32M
bench_files_max=8
bench_runtime=${FB_BENCH_RUNTIME:-4}
# FB_BENCH_CLOCK=icount's shift: one instruction is 2^0 = 1 ns of the
# guest's time, the fastest virtual CPU QEMU offers, the nearest to real
# hardware's (TCG itself runs far fewer instructions a second)
bench_shift=0
bench_nb=/sys/kernel/config/nullb

bench_jobs_ok() {
	case $1 in
	*[!0-9\ ]*) return 1 ;;
	esac
	bench_n=0
	for bench_j in $1; do
		case $bench_j in
		0* | ???*) return 1 ;;
		esac
		[ "$bench_j" -le 64 ] || return 1
		bench_n=$((bench_n + 1))
	done
	[ $bench_n -gt 0 ]
}

# bench_clock_ok CLOCK: wall, icount or icount:SHIFT (0 to 10); prints
# the icount shift (none for wall)
bench_clock_ok() {
	case $1 in
	wall) ;;
	icount) echo $bench_shift ;;
	icount:[0-9] | icount:10) echo "${1#icount:}" ;;
	*) return 1 ;;
	esac
}

bench_names_ok() {
	bench_n=0
	for bench_v in $2; do
		case " $1 " in
		*" $bench_v "*) bench_n=$((bench_n + 1)) ;;
		*) return 1 ;;
		esac
	done
	[ $bench_n -gt 0 ]
}

# bench_names_check KNOB SET NAMES VALUE: when SET is not empty, VALUE
# (KNOB's) is words of NAMES (bench_names_ok), else one line
bench_names_check() {
	[ -z "$2" ] || bench_names_ok "$3" "$4" ||
		{ echo "$1 must be names from '$3', not '$4'" && return 1; }
}

# bench_files_ok KNOB LIST: each numjobs of LIST has a latfiles file, else
# one line naming KNOB
bench_files_ok() {
	for bench_j in $2; do
		[ "$bench_j" -le $bench_files_max ] ||
			{ echo "$1: workload latfiles has a file for each of up to $bench_files_max jobs, not numjobs $bench_j" && return 1; }
	done
}

bench_knobs_check() {
	case $1 in
	refuse) bench_vs=${FB_BENCH_VARIANTS+x} bench_ds=${FB_BENCH_DAEMONS+x} ;;
	unset) bench_vs=${FB_BENCH_VARIANTS:+x} bench_ds=${FB_BENCH_DAEMONS:+x} ;;
	*) echo "bench_knobs_check: EMPTY must be refuse or unset, not '$1'" && return 1 ;;
	esac
	bench_ws=${FB_BENCH_WORKLOADS+x}
	[ "$1" = unset ] && bench_ws=${FB_BENCH_WORKLOADS:+x}
	bench_names_check FB_BENCH_WORKLOADS "$bench_ws" "lat latfiles aio stat hp" "${FB_BENCH_WORKLOADS:-}" &&
		bench_names_check FB_BENCH_VARIANTS "$bench_vs" "raw raw2 overlayfs stock unpatched ours" \
			"${FB_BENCH_VARIANTS:-}" || return 1
	case ${FB_BENCH_ORDER:-blocks} in
	blocks | interleave) ;;
	*) echo "FB_BENCH_ORDER must be blocks or interleave, not '$FB_BENCH_ORDER'" && return 1 ;;
	esac
	# raw2, the A/A control, means something only paired with raw's runs
	case " ${FB_BENCH_VARIANTS:-} " in
	*" raw2 "*)
		case " $FB_BENCH_VARIANTS " in
		*" raw "*) ;;
		*) echo "FB_BENCH_VARIANTS: raw2, the A/A control, is paired with raw's runs: list raw too, not '$FB_BENCH_VARIANTS'" && return 1 ;;
		esac
		[ "${FB_BENCH_ORDER:-blocks}" = interleave ] ||
			{ echo "FB_BENCH_VARIANTS: raw2, the A/A control, needs FB_BENCH_ORDER=interleave (its ratios pair runs made side by side)" && return 1; }
		;;
	esac
	bench_clock_ok "${FB_BENCH_CLOCK:-wall}" > /dev/null ||
		{ echo "FB_BENCH_CLOCK must be wall, icount or icount:SHIFT (SHIFT 0 to 10), not '$FB_BENCH_CLOCK'" && return 1; }
	if [ -n "${FB_BENCH_JOBS:-}" ] && ! bench_jobs_ok "$FB_BENCH_JOBS"; then
		echo "FB_BENCH_JOBS must be numjobs (1-64) separated by spaces, not '$FB_BENCH_JOBS'"
		return 1
	fi
	bench_names_check FB_BENCH_DAEMONS "$bench_ds" "xattr killpriv2 noxattr" "${FB_BENCH_DAEMONS:-}" || return 1
	if [ -n "${FB_BENCH_PERF_JOBS:-}" ] && ! bench_jobs_ok "$FB_BENCH_PERF_JOBS"; then
		echo "FB_BENCH_PERF_JOBS must be numjobs (1-64) separated by spaces, not '$FB_BENCH_PERF_JOBS'"
		return 1
	fi
	# latfiles: the files are written beforehand, one a job
	case " ${FB_BENCH_WORKLOADS:-} " in
	*" latfiles "*)
		bench_files_ok FB_BENCH_JOBS "${FB_BENCH_JOBS:-}" &&
			bench_files_ok FB_BENCH_PERF_JOBS "${FB_BENCH_PERF_JOBS:-}" || return 1
		;;
	esac
	return 0
}

bench_devices() {
	modprobe null_blk nr_devices=0 > /dev/null 2>&1 || return 1
	mount -t configfs none /sys/kernel/config 2> /dev/null
	[ -d $bench_nb ] && bench_blk nbdelay 2 && bench_blk nbfast 0
}

# bench_blk NAME IRQMODE: one device (IRQMODE 2: the completion delay), its
# XFS mounted on /tmp/NAME
bench_blk() {
	mkdir "$bench_nb/$1" || return 1
	echo 2048 > "$bench_nb/$1/size"
	echo 1 > "$bench_nb/$1/memory_backed"
	echo 4096 > "$bench_nb/$1/blocksize"
	echo "$2" > "$bench_nb/$1/irqmode"
	[ "$2" = 2 ] && echo 50000 > "$bench_nb/$1/completion_nsec"
	echo 64 > "$bench_nb/$1/hw_queue_depth"
	echo 1 > "$bench_nb/$1/power"
	bench_dev=/dev/$1
	bench_i=0
	while [ ! -b "$bench_dev" ] && [ $bench_i -lt 50 ]; do
		sleep 0.1
		bench_i=$((bench_i + 1))
	done
	mkfs.xfs -q -f "$bench_dev" > /dev/null && mkdir -p "/tmp/$1" &&
		mount -t xfs "$bench_dev" "/tmp/$1"
}

bench_fio() {
	bench_file="--filename=file --size=$bench_size"
	case $2 in
	lat) bench_eng="--ioengine=psync" ;;
	latfiles)
		bench_eng="--ioengine=psync"
		# fio's job numbers start at 0
		bench_file="--filename_format=file.\$jobnum --size=$bench_size_job"
		;;
	aio) bench_eng="--ioengine=libaio --iodepth=64" ;;
	esac
	# shellcheck disable=SC2086 # bench_file, bench_eng: options;
	# bench_wrap: a command fio runs under (bench_perf's), none for a
	# counted run
	${bench_wrap:-} fio --name=b --directory="$1" $bench_file --rw=randwrite --bs=4k --direct=1 \
		$bench_eng --numjobs="$3" --runtime="$bench_runtime" --time_based --randrepeat=1 --group_reporting \
		--output-format=terse --terse-version=3 2> "$FB_SCRATCH/fio.err" |
		awk -F';' 'NR == 1 { print $49 }'
}

bench_overlay() {
	modprobe overlay > /dev/null 2>&1
	rm -rf "$1/ovl" && mkdir -p "$1/ovl/lower" "$1/ovl/upper" "$1/ovl/work" "$2" || return 1
	for bench_f in "$1"/file "$1"/file.*; do
		[ ! -f "$bench_f" ] || ln "$bench_f" "$1/ovl/upper/${bench_f##*/}" || return 1
	done
	mount -t overlay overlay -o "lowerdir=$1/ovl/lower,upperdir=$1/ovl/upper,workdir=$1/ovl/work" "$2"
}

bench_overlay_off() {
	umount "$2" && rm -rf "$1/ovl"
}

bench_perf() {
	rm -f "$FB_SCRATCH/perf.data"
	# perf record starts fio itself once its events are on: started
	# beside it (as `perf record -a -- sleep`), its setup under TCG can
	# outlast a 4-second run, and it samples the idle loop after it
	bench_wrap="perf record -q -N -a -g --kernel-callchains -e cpu-clock -F 999 -o $FB_SCRATCH/perf.data --"
	bench_pi=$(bench_fio "$1" "$2" "$3")
	bench_wrap=""
	# each report at most 20 s (TCG is slow), so that a profile cannot
	# hold up the run
	bench_pr="timeout 20 perf report -i $FB_SCRATCH/perf.data --stdio -n -g none"
	{
		echo "fio $2 numjobs=$3 on $1 under perf record -a -g -e cpu-clock -F 999: ${bench_pi:-no} IOPS"
		timeout 20 perf report -i "$FB_SCRATCH/perf.data" --header-only 2>&1 |
			grep -E '^# (time of first sample|time of last sample|sample duration) *:' | sed 's/^# //'
		echo "by task, samples (at least 1%):"
		$bench_pr --no-children --sort comm 2>&1 |
			awk '/^# Total Lost Samples:/ { sub(/^# /, ""); l = $0 } /^#/ || !NF { next }
				{ n += $2 } $1 + 0 >= 1 && k < 12 { print; k++ }
				END { print "samples: " n + 0 "; " l }'
		echo "by symbol, self, samples (at least 0.5%):"
		$bench_pr --no-children --sort sym --percent-limit 0.5 2>&1 |
			grep -v -e '^#' -e '^$' | head -n 60
		echo "kernel symbols with what they call (children, self, samples; at least 1%):"
		$bench_pr --children --sort sym --percent-limit 1 2>&1 |
			grep -F '[k]' | head -n 100
		head -n 3 "$FB_SCRATCH/fio.err"
	} > "$4"
}

# bench_prewrite DIR [WORKLOAD]: the file written once, so that every
# benchmark write is a non-extending overwrite; latfiles: each job's file
bench_prewrite() {
	if [ "${2:-}" != latfiles ]; then
		dd if=/dev/zero of="$1/file" bs=1M count=256 conv=fsync 2> /dev/null
		return
	fi
	bench_i=0
	while [ $bench_i -lt $bench_files_max ]; do
		dd if=/dev/zero of="$1/file.$bench_i" bs=1M count=${bench_size_job%M} conv=fsync 2> /dev/null || return 1
		bench_i=$((bench_i + 1))
	done
}

# On the host: the aggregation bench/report.sh and ab.sh share, over
# either CSV layout: the guest's (bench/run-guest.sh,
# workload,variant,daemon,numjobs,rep,iops) and ab's (bench/ab-guest.sh,
# workload,variant,numjobs,rep,iops, read with daemon "-"). A request-count
# line has "getxattr" (GETXATTR) or "getattr" (GETATTR + STATX) for numjobs
# and the count for iops.
#   bench_rows CSV           the lines in the guest's layout
#   bench_medians CSV        workload,variant,daemon,numjobs,median,min,max,reps
#                            per point, sorted (request-count lines left out)
#   bench_getxattr CSV WORKLOAD VARIANT DAEMON [NONE]
#                            the GETXATTR count, summed over the lines of
#                            that variant; NONE (default "–") when there is none
#   bench_count CSV KIND WORKLOAD VARIANT DAEMON [NONE]
#                            the same for KIND getxattr or getattr
#   bench_writes CSV WORKLOAD VARIANT DAEMON
#                            the writes of that variant's runs, from their IOPS
#                            and FB_BENCH_RUNTIME (4)
bench_rows() {
	awk -F, -v OFS=, 'NF == 5 { print $1, $2, "-", $3, $4, $5; next } { print }' "$1"
}

bench_medians() {
	bench_rows "$1" | awk -F, '$4 != "getxattr" && $4 != "getattr"' | LC_ALL=C sort -t, -k1,1 -k2,2 -k3,3 -k4,4n -k6,6n | awk -F, '
		function flush() {
			if (key == "") return
			med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			printf "%s,%d,%d,%d,%d\n", key, med, v[1], v[n], n
		}
		{
			k = $1 "," $2 "," $3 "," $4
			if (k != key) { flush(); key = k; n = 0 }
			v[++n] = $6
		}
		END { flush() }'
}

bench_getxattr() {
	bench_count "$1" getxattr "$2" "$3" "$4" "${5-–}"
}

bench_count() {
	bench_rows "$1" | awk -F, -v k="$2" -v w="$3" -v v="$4" -v d="$5" -v none="${6-–}" '
		$1 == w && $2 == v && $3 == d && $4 == k { s += $6; f = 1 }
		END { if (f) print s; else print none }'
}

bench_writes() {
	bench_rows "$1" | awk -F, -v w="$2" -v v="$3" -v d="$4" -v t="${FB_BENCH_RUNTIME:-4}" '
		$1 == w && $2 == v && $3 == d && $4 != "getxattr" && $4 != "getattr" { s += $6 * t }
		END { print s + 0 }'
}

# bench_perf_split DIR: the layers of a write, from the profiles of
# FB_BENCH_PERF (DIR/WORKLOAD-VARIANT-DAEMON-jN.txt, bench/run-guest.sh),
# one Markdown table row each. A layer is what a function's call tree holds
# (its "children" samples) less the tree of the next function down:
#   above the backing file: fuse_passthrough_write_iter or ovl_write_iter,
#     less backing_file_write_iter
#   fs/backing-file.c: backing_file_write_iter, less vfs_iocb_iter_write
#     (vfs_iter_write where that is absent: the synchronous path)
#   second VFS layer: that, less xfs_file_write_iter
#   XFS: xfs_file_write_iter
# in samples per 1000 writes (writes: the profiled run's IOPS times its
# sample duration), and the stack (all three layers) as a share of XFS's
# own tree, which leaves out how fast the emulated CPU ran that minute.
# A layer whose functions are under the profile's 1% floor is "–".
bench_perf_split() {
	for f in "$1"/*-j*.txt; do
		[ -f "$f" ] || continue
		awk -v name="$(basename "$f" .txt)" '
			NR == 1 && $NF == "IOPS" { iops = $(NF - 1) }
			/^sample duration/ { dur = $4 / 1000 }
			/^samples:/ { tot = $2 + 0 }
			/^by task/ { sect = "task" }
			/^by symbol/ { sect = "self" }
			/^kernel symbols with what they call/ { sect = "tree" }
			sect == "task" && NF == 3 && $3 == "swapper" { idle = $2 }
			sect == "tree" && $4 == "[k]" { tree[$5] = $1 + 0 }
			function s(fn) { return (fn in tree) ? tree[fn] * tot / 100 : -1 }
			function cell(a, b) { return (a < 0 || b < 0) ? "–" : sprintf("%.1f", (a - b) * 1000 / w) }
			END {
				w = iops * dur
				if (w <= 0 || tot <= 0) { printf "| %s | no IOPS or samples in the profile |||||||\n", name; exit }
				top = s("fuse_passthrough_write_iter")
				if (top < 0) top = s("ovl_write_iter")
				bf = s("backing_file_write_iter")
				vfs = s("vfs_iocb_iter_write")
				if (vfs < 0) vfs = s("vfs_iter_write")
				xfs = s("xfs_file_write_iter")
				stack = (top < 0 || xfs <= 0) ? "–" : sprintf("%.1f%%", 100 * (top - xfs) / xfs)
				printf "| %s | %d | %.1f | %s | %s | %s | %s | %s |\n", name, iops,
					(tot - idle) * 1000 / w, cell(top, bf), cell(bf, vfs), cell(vfs, xfs),
					cell(xfs, 0), stack
			}' "$f"
	done
}

# bench_paired CSV WORKLOAD REF [N]: the paired-ratio table of an interleaved
# run (or of several, pooled by bench/pool.sh), each run of WORKLOAD
# divided by REF's run (raw or overlayfs) of the same repetition and
# numjobs: the median of those ratios [min-max] and, from 3 on, their
# geometric mean with its 95% confidence interval (Student t on the log
# ratios); N (any word) adds the number of ratios to each cell
bench_paired() {
	bench_rows "$1" | awk -F, -v w="$2" -v ref="$3" -v shown="${4:-}" '
		# the 0.975 quantile of Student t with n degrees of freedom
		function tq(n) {
			split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", tqv, " ")
			return n <= 30 ? tqv[n] : n <= 60 ? 2.000 : n <= 120 ? 1.980 : 1.960
		}
		$1 != w || $4 == "getxattr" || $4 == "getattr" { next }
		$2 == ref { raw[$4 "," $5] = $6; if (!($4 in seen)) { seen[$4] = 1; jobs[++nj] = $4 }; next }
		# against overlayfs: the FUSE variants only
		ref != "raw" && ($2 == "raw" || $2 == "raw2") { next }
		{
			s = $2 " " $3
			if (!(s in has)) { has[s] = 1; ser[++ns] = s }
			iops[s "," $4 "," $5] = $6
		}
		END {
			h = "| jobs |"; l = "|---:|"
			for (i = 1; i <= ns; i++) { n = ser[i]; sub(/ (xattr|passthrough_hp|-)$/, "", n); h = h " " n "/" ref " |"; l = l "---:|" }
			print h; print l
			for (j = 1; j <= nj; j++) {
				row = "| " jobs[j] " |"
				for (i = 1; i <= ns; i++) {
					k = 0
					for (key in iops) {
						split(key, p, ",")
						if (p[1] != ser[i] || p[2] != jobs[j] || !((p[2] "," p[3]) in raw) || !raw[p[2] "," p[3]]) continue
						r[++k] = iops[key] / raw[p[2] "," p[3]]
					}
					# sort the k ratios
					for (a = 2; a <= k; a++) { t = r[a]; for (b = a - 1; b >= 1 && r[b] > t; b--) r[b + 1] = r[b]; r[b + 1] = t }
					if (k == 0) { row = row " – |"; continue }
					m = (k % 2) ? r[(k + 1) / 2] : (r[k / 2] + r[k / 2 + 1]) / 2
					c = sprintf(" %.2f× [%.2f–%.2f]", m, r[1], r[k])
					# the geometric mean and its 95% confidence interval
					# (Student t on the log ratios, two-sided)
					if (k >= 3) {
						ls = 0; for (a = 1; a <= k; a++) ls += log(r[a])
						lm = ls / k; ss = 0
						for (a = 1; a <= k; a++) ss += (log(r[a]) - lm) ^ 2
						e = tq(k - 1) * sqrt(ss / (k - 1) / k)
						c = c sprintf(", %.2f× (%.2f–%.2f)", exp(lm), exp(lm - e), exp(lm + e))
					}
					if (shown != "") c = c sprintf(", n %d", k)
					row = row c " |"
				}
				print row
			}
		}'
}
