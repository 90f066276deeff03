#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# In the guest: the benchmark. XFS on memory-backed null_blk devices, fio on
# ONE shared pre-written file, through each variant:
#   raw        XFS itself
#   raw2       XFS itself again: the A/A control of the paired ratios
#              (interleaved runs only, raw beside it)
#   stock      the kernel's own FUSE, passthrough + FOPEN_PARALLEL_DIRECT_WRITES;
#              where it has no passthrough (6.1): "stock-dio", FOPEN_DIRECT_IO +
#              FOPEN_PARALLEL_DIRECT_WRITES, the fastest write path it offers,
#              the daemon writing O_DIRECT to the backing file as the kernel
#              does in passthrough (fbtestd --backing-direct)
#   unpatched  our module without the series (same daemon flags)
#   ours       our module with the series
#   overlayfs  an overlayfs mount whose upper dir holds a hard link to the
#              same file (latfiles: files) on the same XFS: a reference
#              with no FUSE in it
#              whose writes take the same upstream path as passthrough's
#              (fs/backing-file.c, backing_file_write_iter()), under its
#              inode lock held exclusively (ovl_write_iter())
# and daemon flavors: xattr (getxattr answered from the backing file),
# killpriv2 (FUSE_HANDLE_KILLPRIV_V2), noxattr (ENOSYS for xattrs).
# Workloads:
#   lat   null_blk completion delay 50 us (irqmode=2): psync randwrite 4k
#         direct, numjobs 1 2 4 8 (latency-bound: a serialized path stays flat)
#   latfiles  as lat, but each job writes a pre-written file of its own
#         (32 MiB, file.0 to file.7 beside the shared file): no two writers
#         share an inode, so no variant's inode lock serializes them, and
#         stock and overlayfs show what the stacked path itself costs at
#         every numjobs; not in the default list
#   aio   no delay: libaio iodepth 64 randwrite 4k direct, numjobs 1 2 4
#   (both: every variant and daemon flavor, overlayfs beside raw)
#   stat  as lat with numjobs 4 and the xattr daemon (attr_timeout 1 s), each
#         FUSE variant without ("nostat") and with ("statloop") a process
#         stat(2)ing the file once a millisecond (tests/bin/fbstatloop):
#         our writes change ctime, and the privilege cache must survive
#         the refreshes (GETXATTR counted)
#   hp    as lat, through libfuse's passthrough_hp (built unmodified from
#         Debian 13's fuse3 source, run with its defaults: passthrough on)
#         instead of the test daemon, daemon "passthrough_hp" in the CSV:
#         raw, stock = the built-in FUSE (our module loaded, the takeover
#         off), ours = the takeover on; each mount is checked to be served
#         by the one it is named for and to be in passthrough mode, else
#         the run dies (no table). Needs the renamed flavor (the takeover)
#         and the Debian 13 guest root (bench/run.sh boots it); not
#         in the default list. Writes OUT.hp: the daemon's version and
#         command line
# Writes one CSV line per run: workload,variant,daemon,numjobs,rep,iops;
# and per FUSE variant and daemon the requests its daemon saw over all its
# runs: numjobs "getxattr" (GETXATTR) and "getattr" (GETATTR + STATX), rep 0
#
# usage: bench/run-guest.sh OUT.csv
# environment: FB_MODDIR, FB_MODDIR_UNPATCHED, FB_BENCH_REPS (3),
#              FB_BENCH_RUNTIME (seconds per run, 4), FB_BENCH_QUICK=1,
#              FB_BENCH_WORKLOADS ("lat aio stat"; latfiles too; or hp),
#              FB_BENCH_VARIANTS ("raw overlayfs stock unpatched ours": the
#              variants of the lat and aio workloads, run in that order;
#              raw2 is raw XFS again, the A/A control: interleaved as
#              "raw2 raw ours" with FB_BENCH_DAEMONS=xattr, raw2 and
#              ours are raw's neighbours on either side, and swap sides
#              in every repetition (an even FB_BENCH_REPS balances
#              them), so raw2/raw is the noise floor of ours/raw),
#              FB_BENCH_ORDER (blocks: every run of one variant/daemon
#              in a row, on one mount; interleave: at each numjobs, each
#              repetition runs every variant/daemon in turn, a mount each,
#              the order reversed in every second repetition),
#              FB_BENCH_JOBS (the numjobs of lat, latfiles and aio,
#              space-separated, instead of their own lists; latfiles at
#              most 8),
#              FB_BENCH_DAEMONS ("xattr killpriv2 noxattr": the daemon
#              flavors of the FUSE variants, where a variant has them),
#              FB_BENCH_PERF ("": none; e.g. "raw/- overlayfs/- ours/xattr
#              stock/noxattr": after the counted runs of each such
#              variant/daemon, one more at each numjobs of
#              FB_BENCH_PERF_JOBS (default: the workload's first) under
#              perf, its profile in
#              OUT.perf/WORKLOAD-VARIANT-DAEMON-jNUMJOBS.txt)
# The knobs are checked by bench_knobs_check (bench/lib.sh), as
# bench/run.sh does before it builds; here a list set but empty
# counts as unset.
# FB_TAKEOVER_RED=off (hp's red run: the takeover is never turned on, so
# the first ours mount must end the run).
out=${1:?usage: bench.sh OUT.csv}
FB_TOP=$(cd "$(dirname "$0")/.." && pwd)
export FB_TOP
. "$FB_TOP/tests/lib/fuse.sh"
. "$FB_TOP/bench/lib.sh"
reps=${FB_BENCH_REPS:-3}

die() { echo "bench: $*" >&2; exit 1; }

bench_m=$(bench_knobs_check unset) || die "$bench_m"
variants=${FB_BENCH_VARIANTS:-raw overlayfs stock unpatched ours}
bench_devices || die "cannot make the null_blk devices (null_blk with configfs, XFS)"

mkdir -p "$FB_SCRATCH"
: > "$out"

# The stock variant's mode, once: passthrough when the kernel's own FUSE
# offers it (a probe mount), else direct.
fb_use stock > /dev/null 2>&1 || die "cannot load stock"
FB_BACK=/tmp/nbfast
if fb_mount --mode passthrough --parallel 2> "$FB_SCRATCH/probe.err"; then
	fb_umount
	stock_mode=passthrough
elif grep -q 'did not offer FUSE_PASSTHROUGH' "$FB_SCRATCH/probe.err"; then
	stock_mode=direct
else
	die "stock probe mount: $(cat "$FB_SCRATCH/probe.err")"
fi
workloads=${FB_BENCH_WORKLOADS:-lat aio stat}
order=${FB_BENCH_ORDER:-blocks}

# daemons_of VARIANT: its daemon flavors ("-": none), FB_BENCH_DAEMONS kept
daemons_of() {
	case $1 in
	raw | raw2 | overlayfs) echo - && return ;;
	unpatched) dl=xattr ;;
	stock) dl="xattr killpriv2 noxattr" && [ "$stock_mode" = direct ] && dl=xattr ;;
	*) dl="xattr killpriv2 noxattr" ;;
	esac
	dk=""
	for dd in $dl; do
		case " ${FB_BENCH_DAEMONS:-$dl} " in *" $dd "*) dk="$dk $dd" ;; esac
	done
	echo "$dk"
}

# on VARIANT DAEMON XFS: loads (when another target is loaded) and mounts
# what VARIANT/DAEMON writes through, on XFS; sets dir (where fio writes)
# and vname (the variant's name in the CSV)
loaded=""
on() {
	vname=$1
	case $1 in
	raw | raw2) dir=$3 ;;
	overlayfs)
		dir=$FB_SCRATCH/ovl
		bench_overlay "$3" "$dir" 2> "$FB_SCRATCH/mount.err" ||
			die "mount overlayfs: $(cat "$FB_SCRATCH/mount.err")"
		;;
	*)
		if [ "$2" = passthrough_hp ]; then
			hp_on "$1" "$3"
			return
		fi
		# blocks: loaded afresh for every series, as before interleave
		if [ "$order" = blocks ] || [ "$loaded" != "$1" ]; then
			fb_use "$1" > /dev/null 2>&1 || die "cannot load $1"
			loaded=$1
		fi
		FB_BACK=$3
		case $2 in
		xattr) extra="" ;;
		killpriv2) extra="--killpriv-v2" ;;
		noxattr) extra="--no-xattr" ;;
		esac
		mode=passthrough
		if [ "$1" = stock ]; then
			mode=$stock_mode
			# the daemon honours O_DIRECT as passthrough does:
			# both reach the delayed device
			[ "$mode" = direct ] && vname=stock-dio extra="$extra --backing-direct"
		fi
		# shellcheck disable=SC2086
		fb_mount --mode $mode --parallel --threads 4 $extra 2> "$FB_SCRATCH/mount.err" ||
			die "mount $1/$2: $(cat "$FB_SCRATCH/mount.err")"
		dir=$FB_MNT
		;;
	esac
}

# counts VARIANT WORKLOAD DAEMON: the requests its daemon saw on this mount
# (rep 0: report.sh sums them per variant and daemon)
counts() {
	case $1/$3 in
	raw/* | raw2/* | overlayfs/* | */passthrough_hp) return ;;
	esac
	getx=$(fb_stat op_GETXATTR)
	geta=$(fb_stat op_GETATTR) statx=$(fb_stat op_STATX)
	geta=$((${geta:-0} + ${statx:-0}))
	[ "$order" = blocks ] && echo "bench: $2 $vname $3: daemon saw ${getx:-0} GETXATTR, $geta GETATTR/STATX"
	echo "$2,$vname,$3,getxattr,0,${getx:-0}" >> "$out"
	echo "$2,$vname,$3,getattr,0,$geta" >> "$out"
}

# off VARIANT XFS DAEMON: unmounts what on mounted
off() {
	case $1/$3 in
	raw/* | raw2/*) ;;
	overlayfs/*) bench_overlay_off "$2" "$dir" || die "cannot unmount the overlayfs on $dir" ;;
	*/passthrough_hp) hp_off ;;
	*) fb_umount ;;
	esac
}

# fio_of WORKLOAD: the fio workload of bench/lib.sh it runs
fio_of() {
	case $1 in
	hp) echo lat ;;
	*) echo "$1" ;;
	esac
}

# The hp workload: libfuse's passthrough_hp as the Debian 13 guest root has
# it (dev/guest-root.sh), mounted -t fuse on /dev/fuse over the XFS, on
# hp_mnt; stock and ours differ only in the takeover parameter, switched
# while no mount is alive (tests/suites/takeover.sh).
hp=/usr/local/libexec/fuse-backport-test/passthrough_hp
hp_mnt=$FB_SCRATCH/hp
hp_p=""
# hp_setup: ours loaded (with the takeover off it serves nothing of -t
# fuse), the built-in's control fs mounted, the daemon's record in OUT.hp
hp_setup() {
	if [ ! -x "$hp" ] || [ ! -s "$hp.source" ]; then
		die "workload hp: no $hp in this guest's root (the Debian 13 root: bench/run.sh boots it)"
	fi
	fb_use ours > /dev/null 2>&1 || die "cannot load ours"
	loaded=ours
	hp_p=/sys/module/$FB_MODNAME/parameters/takeover
	if [ "$FB_FSTYPE" = fuse ] || [ ! -f "$hp_p" ]; then
		die "workload hp: ours is fs type $FB_FSTYPE here, with no takeover ($hp_p): FUSE is a module on this kernel"
	fi
	BICTL=/sys/fs/fuse/connections
	mountpoint -q "$BICTL" || mount -t fusectl none "$BICTL" 2> /dev/null
	mkdir -p "$hp_mnt"
	{
		echo "passthrough_hp: $(sed -n 's/^source: //p' "$hp.source"); $(sed -n '/sha256/p' "$hp.source"); on libfuse3-4 $(dpkg-query -W -f '${Version}' libfuse3-4 2> /dev/null)"
		echo "passthrough_hp command: $hp $xfs $hp_mnt"
	} > "${out%.csv}.hp"
}
# hp_set 0|1: the takeover parameter, written only when it changes (a
# second enable is refused)
hp_set() {
	read -r hp_v < "$hp_p"
	[ "$hp_v" = "$1" ] && return
	echo "$1" > "$hp_p" 2> "$FB_SCRATCH/takeover.err"
	read -r hp_v < "$hp_p"
	[ "$hp_v" = "$1" ] || die "cannot set the takeover to $1: $(head -n 1 "$FB_SCRATCH/takeover.err")"
}
# hp_on VARIANT XFS: passthrough_hp over XFS, served by the built-in FUSE
# (stock) or ours (ours), in passthrough mode; else the run dies
hp_on() {
	hp_who=builtin
	if [ "$1" = ours ]; then
		hp_who=ours
		if [ "${FB_TAKEOVER_RED:-}" = off ]; then
			echo "bench: FB_TAKEOVER_RED=off: the takeover is not turned on (a red run)"
		else
			hp_set 1
		fi
	else
		hp_set 0
	fi
	timeout 60 "$hp" "$2" "$hp_mnt" > "$FB_SCRATCH/hp.out" 2>&1 ||
		die "passthrough_hp did not mount on $hp_mnt: $(head -n 1 "$FB_SCRATCH/hp.out")"
	case $(fb_fstype "$hp_mnt") in
	fuse | fuse.*) ;;
	*) die "passthrough_hp's mount on $hp_mnt is $(fb_fstype "$hp_mnt"), not -t fuse" ;;
	esac
	read -r hp_v < "$hp_p"
	fb_served_by $hp_who "$hp_mnt" ||
		die "$1: passthrough_hp's mount (connection $(fb_conn "$hp_mnt"), takeover $hp_v) is not served by $hp_who: the wrong module, no table"
	# passthrough in effect (tests/lib/fuse.sh)
	fb_passthrough_live "$hp_mnt/pt" "$2/pt" ||
		die "$1: passthrough_hp's mount is not in passthrough mode: 64 KiB rewritten as b in the backing file, read through the mount: $fb_pl_got"
	dir=$hp_mnt
}
# hp_off: unmount; the daemon exits
hp_off() {
	hp_pid=$(pgrep -x passthrough_hp | head -n 1)
	timeout -k 2 20 umount "$hp_mnt" || die "cannot unmount passthrough_hp on $hp_mnt"
	[ -z "$hp_pid" ] || fb_wait_while 100 fb_alive "$hp_pid" ||
		die "passthrough_hp (pid $hp_pid) did not exit after its unmount"
}

# run WORKLOAD VARIANT DAEMON NUMJOBS REP: one counted fio run on $dir (hp:
# lat's)
run() {
	iops=$(bench_fio "$dir" "$(fio_of "$1")" "$4")
	[ -n "$iops" ] || die "fio failed ($1 $2 $3 $4): $(head -n 3 "$FB_SCRATCH/fio.err")"
	echo "$1,$vname,$3,$4,$5,$iops" >> "$out"
	echo "bench: $1 $vname $3 numjobs=$4 rep=$5: $iops IOPS"
}

# profile WORKLOAD VARIANT DAEMON NUMJOBS...: FB_BENCH_PERF's uncounted
# runs, one at each NUMJOBS
profile() {
	case " ${FB_BENCH_PERF:-} " in
	*" $vname/$3 "*) ;;
	*) return ;;
	esac
	mkdir -p "${out%.csv}.perf"
	pw=$1 pd=$3
	shift 3
	for pn in "$@"; do
		bench_perf "$dir" "$pw" "$pn" "${out%.csv}.perf/$pw-$vname-$pd-j$pn.txt"
		echo "bench: $pw $vname $pd numjobs=$pn: perf profile in ${out%.csv}.perf/$pw-$vname-$pd-j$pn.txt"
	done
}

for w in lat latfiles aio hp; do
	case " $workloads " in *" $w "*) ;; *) continue ;; esac
	case $w in
	lat | latfiles | hp) xfs=/tmp/nbdelay jobs="1 2 4 8" ;;
	aio) xfs=/tmp/nbfast jobs="1 2 4" ;;
	esac
	[ "${FB_BENCH_QUICK:-0}" = 1 ] && jobs="1 4"
	[ -n "${FB_BENCH_JOBS:-}" ] && jobs=$FB_BENCH_JOBS
	# the profiled runs' numjobs: FB_BENCH_PERF_JOBS, else the first
	# shellcheck disable=SC2086
	pjobs=${FB_BENCH_PERF_JOBS:-$(set -- $jobs && echo "$1")}
	bench_prewrite "$xfs" $w || die "cannot write the files of workload $w on $xfs"
	[ $w = hp ] && hp_setup
	# the series of this workload, variant/daemon, in run order
	series=""
	for v in $variants; do
		if [ $w = hp ]; then
			case $v in
			raw | raw2) series="$series $v/-" ;;
			stock | ours) series="$series $v/passthrough_hp" ;;
			esac
			continue
		fi
		for d in $(daemons_of "$v"); do
			series="$series $v/$d"
		done
	done
	if [ "$order" = interleave ]; then
		# at each numjobs, each repetition runs every series in turn,
		# each on a mount of its own; the order is reversed in every
		# second repetition, so that a drift of the guest over the
		# boot hits every series alike
		for n in $jobs; do
			r=1
			while [ $r -le "$reps" ]; do
				list=$series
				[ $((r % 2)) = 0 ] && list=$(for s in $series; do echo "$s"; done | sed -n '1!G;h;$p')
				for s in $list; do
					on "${s%/*}" "${s#*/}" "$xfs"
					run $w "${s%/*}" "${s#*/}" "$n" $r
					counts "${s%/*}" $w "${s#*/}"
					off "${s%/*}" "$xfs" "${s#*/}"
				done
				r=$((r + 1))
			done
		done
		# after the counted runs: the profiled ones
		for s in $series; do
			[ -n "${FB_BENCH_PERF:-}" ] || break
			on "${s%/*}" "${s#*/}" "$xfs"
			# shellcheck disable=SC2086 # numjobs
			profile $w "${s%/*}" "${s#*/}" $pjobs
			off "${s%/*}" "$xfs" "${s#*/}"
		done
		continue
	fi
	# blocks: every run of one series in a row, on one mount
	for s in $series; do
		on "${s%/*}" "${s#*/}" "$xfs"
		for n in $jobs; do
			r=1
			while [ $r -le "$reps" ]; do
				run $w "${s%/*}" "${s#*/}" "$n" $r
				r=$((r + 1))
			done
		done
		counts "${s%/*}" $w "${s#*/}"
		# after the counts: the profiled run is not one of the counted
		# shellcheck disable=SC2086 # numjobs
		profile $w "${s%/*}" "${s#*/}" $pjobs
		off "${s%/*}" "$xfs" "${s#*/}"
	done
done
# after hp, no mount alive: the takeover off again
[ -z "$hp_p" ] || hp_set 0
# the stat loop: tests/bin/fbstatloop, one stat(2) a millisecond (far more
# often than the 1 s attribute timeout expires), no fork per call, so it
# takes little CPU from the writers
statloop=$FB_TOP/tests/bin/fbstatloop
[ -x "$statloop" ] || die "no $statloop (make -C tests bin)"
case " $workloads " in
*" stat "*)
	xfs=/tmp/nbdelay
	bench_prewrite "$xfs"
	for v in stock unpatched ours; do
		[ "$v" = stock ] && [ "$stock_mode" = direct ] && continue
		fb_use "$v" > /dev/null 2>&1 || die "cannot load $v"
		FB_BACK=$xfs
		fb_mount --mode passthrough --parallel --threads 4 2> "$FB_SCRATCH/mount.err" ||
			die "mount $v (stat): $(cat "$FB_SCRATCH/mount.err")"
		for s in nostat statloop; do
			g0=$(fb_stat op_GETXATTR)
			r=1
			while [ $r -le "$reps" ]; do
				spid=""
				if [ $s = statloop ]; then
					"$statloop" "$FB_MNT/file" 1000 > "$FB_SCRATCH/statloop.out" &
					spid=$!
				fi
				iops=$(bench_fio "$FB_MNT" lat 4)
				calls=""
				if [ -n "$spid" ]; then
					kill "$spid"
					wait "$spid" 2> /dev/null
					calls=" ($(cat "$FB_SCRATCH/statloop.out"))"
				fi
				[ -n "$iops" ] || die "fio failed (stat $v $s): $(head -n 3 "$FB_SCRATCH/fio.err")"
				echo "stat,$v,$s,4,$r,$iops" >> "$out"
				echo "bench: stat $v $s numjobs=4 rep=$r: $iops IOPS$calls"
				r=$((r + 1))
			done
			g1=$(fb_stat op_GETXATTR)
			echo "stat,$v,$s,getxattr,0,$((${g1:-0} - ${g0:-0}))" >> "$out"
			echo "bench: stat $v $s: daemon saw $((${g1:-0} - ${g0:-0})) GETXATTR"
		done
		fb_umount
	done
	;;
esac
fb_unload_ours
