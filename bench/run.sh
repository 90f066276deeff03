#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: one VM boot per kernel runs bench/run-guest.sh; the table
# and plot go to results/bench/<kver>/<run-id>/ (table.md, bench.png,
# raw.csv, medians.csv, meta.txt: tests/lib/results.sh).
# Not a timed test: it measures and prints, it asserts nothing.
# FB_BENCH_WORKLOADS=hp (libfuse's passthrough_hp, ours through the
# takeover) runs alone, on the Debian 13 guest root of dev/guest-root.sh
# (made once, then reused), on a kernel whose FUSE is built in; meta.txt
# records the daemon's version and command line, which the table repeats.
#
# usage: bench/run.sh KVER...
# environment: FB_BENCH_REPS, FB_BENCH_RUNTIME, FB_BENCH_QUICK,
#   FB_BENCH_WORKLOADS, FB_BENCH_VARIANTS, FB_BENCH_ORDER, FB_BENCH_JOBS,
#   FB_BENCH_DAEMONS, FB_BENCH_PERF, FB_BENCH_PERF_JOBS, FB_BENCH_CLOCK
#   (wall: the guest's clocks follow the host's, as always; icount or
#   icount:SHIFT: they count the instructions executed, QEMU -icount,
#   tests/vm/boot.sh --icount, bench_shift in bench/lib.sh) (see
#   bench/run-guest.sh; the lists and FB_BENCH_ORDER are checked here
#   before anything is built, a list set but empty refused:
#   bench_knobs_check in bench/lib.sh)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
[ $# -gt 0 ] || { echo "usage: bench/run.sh KVER..." >&2; exit 2; }
die() { [ -n "${res:-}" ] && rmdir "$res" 2> /dev/null; echo "bench: $*" >&2; exit 1; }
# shellcheck source=tests/lib/results.sh
. "$top/tests/lib/results.sh"
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
bench_m=$(bench_knobs_check refuse) || die "$bench_m"
# FB_BENCH_CLOCK=icount: the guest's time counts instructions
# (tests/vm/boot.sh --icount), so its IOPS are a function of the code run
icount=$(bench_clock_ok "${FB_BENCH_CLOCK:-wall}")
clock="" clockname=""
[ -z "$icount" ] || clock="--icount $icount" clockname=", icount shift=$icount"
# the knobs set, in the command meta.txt records (as bench/ab.sh)
bench_env=""
for v in FB_BENCH_REPS FB_BENCH_RUNTIME FB_BENCH_QUICK FB_BENCH_WORKLOADS FB_BENCH_VARIANTS \
	FB_BENCH_ORDER FB_BENCH_CLOCK FB_BENCH_JOBS FB_BENCH_DAEMONS FB_BENCH_PERF FB_BENCH_PERF_JOBS; do
	eval "l=\${$v:-}"
	[ -n "$l" ] && bench_env="$bench_env$v=\"$l\" "
done
mkdir -p build
# hp_modular KVER: workload hp refused on a kernel whose FUSE is a module
hp_modular() {
	die "workload hp: FUSE is a module on $1 (CONFIG_FUSE_FS=m: our module is the drop-in, with no takeover): hp needs a kernel whose FUSE is built in"
}
# workload hp (bench/run-guest.sh): the Debian 13 guest root, with
# passthrough_hp in it
root=""
case " ${FB_BENCH_WORKLOADS:-} " in
*" hp "*)
	[ "$(printf %s "$FB_BENCH_WORKLOADS" | tr -d ' ')" = hp ] ||
		die "workload hp boots the Debian 13 guest root: run it alone (FB_BENCH_WORKLOADS=hp), not with '$FB_BENCH_WORKLOADS'"
	[ -z "${FB_BENCH_PERF:-}" ] || die "FB_BENCH_PERF: the Debian 13 guest root of workload hp has no perf"
	# a kernel whose config is here: at once (else after its build, below)
	for k in "$@"; do
		c=$(cat "/boot/config-$k" "/lib/modules/$k/config" 2> /dev/null | grep -m 1 '^CONFIG_FUSE_FS=')
		[ "$c" != CONFIG_FUSE_FS=m ] || hp_modular "$k"
	done
	root=$(sh dev/guest-root.sh make) || die "workload hp: no Debian 13 guest root (dev/guest-root.sh make failed)"
	hp=/usr/local/libexec/fuse-backport-test/passthrough_hp
	if [ ! -x "$root$hp" ] || [ ! -s "$root$hp.source" ]; then
		die "workload hp: the Debian 13 guest root $root has no passthrough_hp ($hp)"
	fi
	;;
esac

for kver in "$@"; do
	sh dev/build-for.sh "$kver" all > "build/bench-modules.log" 2>&1 ||
		die "cannot build our module for $kver (build/bench-modules.log)"
	# the drop-in (fuse.ko, CONFIG_FUSE_FS=m) has no takeover
	[ -z "$root" ] || [ ! -f "build/$kver/fuse.ko" ] || hp_modular "$kver"
	# the unpatched base only for a run that measures it (the stat
	# workload always does, hp never)
	case ${root:+hp}" ${FB_BENCH_VARIANTS:-unpatched} ${FB_BENCH_WORKLOADS:-stat} " in
	hp*) ;;
	*" unpatched "* | *" stat "*)
		sh dev/build-for.sh "$kver" none >> "build/bench-modules.log" 2>&1 ||
			die "cannot build the unpatched base for $kver"
		;;
	esac
	make -s -C tests daemon bin > /dev/null || die "cannot build fbtestd and tests/bin (make -C tests daemon bin)"

	out=$top/build/vm
	res=$(fb_results_dir bench "$kver") || die "cannot make the results directory"
	mkdir -p "$out" "$res"
	csv=$out/bench-$kver.csv
	rm -rf "$csv" "${csv%.csv}.perf" "${csv%.csv}.hp"
	bootroot=""
	[ -n "$root" ] && bootroot="--root $root"
	# shellcheck disable=SC2086 # bootroot, clock: an option and its value
	FB_OUT=$out FB_MODDIR="$top/build/$kver" FB_MODDIR_UNPATCHED="$top/build/$kver-unpatched" \
		"$top/tests/vm/boot.sh" --kver "$kver" $bootroot $clock --timeout 3600 --log "$out/bench-$kver.log" -- \
		sh "$top/bench/run-guest.sh" "$csv" ||
		die "the benchmark VM run failed (log: $out/bench-$kver.log)"
	[ -z "$root" ] || [ -s "${csv%.csv}.hp" ] ||
		die "the guest wrote no ${csv%.csv}.hp (passthrough_hp's version and command line)"
	cp "$csv" "$res/raw.csv"
	# FB_BENCH_PERF's profiles (bench/run-guest.sh)
	[ -d "${csv%.csv}.perf" ] && cp -r "${csv%.csv}.perf" "$res/perf"
	# meta.txt before the report: for hp, the report repeats its lines on
	# the daemon (the guest's OUT.hp)
	mod=$(modinfo -F version "$(find "$top/build/$kver" -maxdepth 1 -name "*.ko" | head -n 1)")
	if [ -n "$root" ]; then
		fb_meta_write "$res" "${bench_env}make bench KVER=$kver (bench/run.sh $*)" "module: $mod" \
			"guest root: $root (Debian $(cat "$root/etc/debian_version"))" \
			"$(sed -n 1p "${csv%.csv}.hp")" "$(sed -n 2p "${csv%.csv}.hp")"
	else
		fb_meta_write "$res" "${bench_env}make bench KVER=$kver (bench/run.sh $*)" "module: $mod"
	fi
	sh bench/report.sh "$res/raw.csv" "$res" "fuse-backport $mod on Debian $kver${root:+ (Debian 13 guest root)}, QEMU TCG 2 vCPUs$clockname" ||
		die "cannot make the report"
	res=""
done
