#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Turn the benchmark's CSV (bench/run-guest.sh) into a Markdown table of
# medians with their spread and the ratios ours/unpatched and ours/raw (for
# an interleaved run, FB_BENCH_ORDER=interleave, also each run against raw's
# of the same repetition), and
# a PNG plot (IOPS against numjobs, a line per variant) when gnuplot exists;
# the CSV of bench/ab.sh (a against b) as its own table. The hp
# workload (passthrough_hp) gets its own table, the daemon's version and
# command line from the run's meta.txt beside RAW.csv (bench/run.sh).
#
# usage: bench/report.sh RAW.csv OUTDIR TITLE
set -eu
csv=${1:?usage: report.sh RAW.csv OUTDIR TITLE}
outdir=${2:?usage: report.sh RAW.csv OUTDIR TITLE}
title=${3:-fuse-backport bench}
[ -s "$csv" ] || { echo "bench-report: no results in $csv" >&2; exit 1; }
mkdir -p "$outdir"

# workload,variant,daemon,numjobs -> median min max (IOPS), from the reps;
# GETXATTR counts per variant/daemon (bench/lib.sh).
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_medians "$csv" > "$outdir/medians.csv"
getx() { bench_getxattr "$csv" "$@"; }

med() { awk -F, -v w="$1" -v v="$2" -v d="$3" -v n="$4" '$1 == w && $2 == v && $3 == d && $4 == n { print $5; exit }' "$outdir/medians.csv"; }
cell() {
	awk -F, -v w="$1" -v v="$2" -v d="$3" -v n="$4" '$1 == w && $2 == v && $3 == d && $4 == n {
		spread = $5 ? 100 * ($7 - $6) / $5 : 0
		printf "%d ±%d%%", $5, spread / 2 + 0.5; found = 1; exit }
		END { if (!found) printf "–" }' "$outdir/medians.csv"
}
ratio() {
	if [ -n "$1" ] && [ -n "$2" ] && [ "$2" != 0 ]; then
		awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'
	else
		printf '–'
	fi
}
# hp_intro: the hp table's heading, with the daemon's version and command
# line from the run's meta.txt (bench/run.sh)
hp_intro() {
	hp_meta=$(dirname "$csv")/meta.txt
	hp_v=$(sed -n 's/^passthrough_hp: //p' "$hp_meta" 2> /dev/null)
	hp_c=$(sed -n 's/^passthrough_hp command: //p' "$hp_meta" 2> /dev/null)
	echo "**libfuse's passthrough_hp** (latency-bound as above: null_blk completion 50 µs, psync),"
	echo "on the Debian 13 guest root. stock: the built-in FUSE (our module loaded, the takeover"
	echo "off); ours: the same \`-t fuse\` mount served by ours through the takeover. Each mount was"
	echo "checked to be served by the module named (else the run ends without a table) and to be"
	echo "in passthrough mode. passthrough_hp sets parallel_direct_writes on every open but, in"
	echo "passthrough mode, not direct_io: the built-in FUSE drops FOPEN_PARALLEL_DIRECT_WRITES"
	echo "without FOPEN_DIRECT_IO and holds the inode lock exclusively around each passthrough"
	echo "write; ours keeps the flag in passthrough mode and holds the lock shared for"
	echo "non-extending O_DIRECT writes. Ratios of medians."
	echo
	echo "- daemon: built from ${hp_v:-(version not recorded)}"
	echo "- command: \`${hp_c:-not recorded}\` (no options: passthrough on, attribute and entry"
	echo "  timeout 86400 s, libfuse's default worker threads)"
}

# ab's layout (bench/ab.sh): a against b, raw XFS beside them; no plot.
if [ "$(awk -F, 'NR == 1 { print NF; exit }' "$csv")" = 5 ]; then
	{
		echo "### $title"
		echo
		echo "fio randwrite 4k direct on one shared pre-written file, XFS on memory-backed"
		echo "null_blk; a and b in passthrough mode, xattr daemon, attr_timeout 1 s."
		echo "IOPS: median of $(awk -F, '{ print $8 }' "$outdir/medians.csv" | sort -n | tail -n 1) runs of ${FB_BENCH_RUNTIME:-4} s ±half the min–max spread, raw, a and b in turn"
		echo "in each repetition."
		echo
		echo "| workload | jobs | raw XFS | a | b | a/b | a/raw | b/raw |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|"
		# every numjobs the run has (FB_BENCH_AB_AIO_JOBS, FB_BENCH_AB_LAT_JOBS)
		for w in aio lat; do
			awk -F, -v w=$w '$1 == w { print $4 }' "$outdir/medians.csv" | sort -nu | while read -r n; do
				r=$(med $w raw - "$n") a=$(med $w a - "$n") b=$(med $w b - "$n")
				echo "| $w | $n | $(cell $w raw - "$n") | $(cell $w a - "$n") | $(cell $w b - "$n") |" \
					"$(ratio "$a" "$b") | $(ratio "$a" "$r") | $(ratio "$b" "$r") |"
			done
		done
		echo
		echo "GETXATTR the daemon saw (all runs of a workload, every numjobs): aio a $(getx aio a - 0), b $(getx aio b - 0); lat a $(getx lat a - 0), b $(getx lat b - 0)."
	} > "$outdir/table.md"
	cat "$outdir/table.md"
	exit 0
fi

# paired WORKLOAD REF: the paired-ratio table of this run (bench/lib.sh)
paired() { bench_paired "$csv" "$1" "$2"; }

{
	echo "### $title"
	echo
	if grep -q '^latfiles,' "$csv"; then
		echo "fio randwrite 4k direct on one shared pre-written file (latfiles: a pre-written file"
		echo "per job), XFS on memory-backed null_blk; FUSE variants in passthrough mode with"
		echo "FOPEN_PARALLEL_DIRECT_WRITES."
	else
		echo "fio randwrite 4k direct on one shared pre-written file, XFS on memory-backed"
		echo "null_blk; FUSE variants in passthrough mode with FOPEN_PARALLEL_DIRECT_WRITES."
	fi
	if grep -q ',stock-dio,' "$csv"; then
		echo "The kernel's own FUSE has no passthrough here: its column is its fastest write"
		echo "path instead, FOPEN_DIRECT_IO + FOPEN_PARALLEL_DIRECT_WRITES (stock direct-io),"
		echo "its daemon writing O_DIRECT to the backing file as passthrough does."
	fi
	echo "IOPS: median of $(awk -F, '$4 != "getxattr" { print $5 }' "$csv" | sort -n | tail -n 1) runs ±half the min–max spread."
	if [ "${FB_BENCH_ORDER:-blocks}" = interleave ]; then
		echo "Runs interleaved (FB_BENCH_ORDER=interleave): at each numjobs, each repetition ran every"
		echo "variant and daemon in turn, each on a mount of its own, the order reversed in every"
		echo "second repetition."
	fi
	for w in lat latfiles aio hp; do
		grep -q "^$w," "$outdir/medians.csv" || continue
		echo
		case $w in
		lat) echo "**Latency-bound** (null_blk completion 50 µs, psync):" ;;
		latfiles) echo "**Latency-bound, a file per job** (as above, each job on a pre-written 32 MiB file of its own: no two writers share an inode or its lock):" ;;
		aio) echo "**Published configuration** (libaio iodepth 64, no device delay):" ;;
		hp) hp_intro ;;
		esac
		echo
		sv=stock sl=stock
		grep -q "^$w,stock-dio," "$outdir/medians.csv" && sv=stock-dio sl="stock direct-io"
		if [ $w = hp ]; then
			echo "| jobs | raw XFS | stock | ours | stock/raw | ours/raw | ours/stock |"
			echo "|---:|---:|---:|---:|---:|---:|---:|"
			awk -F, '$1 == "hp" { print $4 }' "$outdir/medians.csv" | sort -nu | while read -r n; do
				r=$(med hp raw - "$n") st=$(med hp stock passthrough_hp "$n") u=$(med hp ours passthrough_hp "$n")
				echo "| $n | $(cell hp raw - "$n") | $(cell hp stock passthrough_hp "$n") | $(cell hp ours passthrough_hp "$n") |" \
					"$(ratio "$st" "$r") | $(ratio "$u" "$r") | $(ratio "$u" "$st") |"
			done
		else
			echo "| jobs | raw XFS | $sl | unpatched | ours | ours/unpatched | ours/raw | ours/$sl | stock killpriv2 | ours killpriv2 | stock noxattr | ours noxattr |"
			echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
			awk -F, -v w=$w '$1 == w { print $4 }' "$outdir/medians.csv" | sort -nu | while read -r n; do
				echo "| $n | $(cell $w raw - "$n") | $(cell $w $sv xattr "$n") | $(cell $w unpatched xattr "$n") | $(cell $w ours xattr "$n") |" \
					"$(ratio "$(med $w ours xattr "$n")" "$(med $w unpatched xattr "$n")") |" \
					"$(ratio "$(med $w ours xattr "$n")" "$(med $w raw - "$n")") |" \
					"$(ratio "$(med $w ours xattr "$n")" "$(med $w $sv xattr "$n")") |" \
					"$(cell $w stock killpriv2 "$n") | $(cell $w ours killpriv2 "$n") | $(cell $w stock noxattr "$n") | $(cell $w ours noxattr "$n") |"
			done
			echo
			echo "GETXATTR requests the daemon saw in the runs above (xattr daemon): $sl $(getx $w $sv xattr), unpatched $(getx $w unpatched xattr), ours $(getx $w ours xattr)."
		fi
		# runs that counted GETATTR too (bench/run-guest.sh since the
		# overlayfs reference): per variant and daemon, and per 1000 writes
		if grep -q "^$w,[^,]*,[^,]*,getattr," "$csv"; then
			echo
			echo "Requests the daemon saw per 1000 writes (writes: IOPS × run time, summed over the runs), GETATTR (with STATX) / GETXATTR:"
			l=""
			for vd in "$sv xattr" "$sv killpriv2" "$sv noxattr" "unpatched xattr" "ours xattr" "ours killpriv2" "ours noxattr"; do
				# shellcheck disable=SC2086 # a variant and a daemon
				set -- $vd
				grep -q "^$w,$1,$2,getattr," "$csv" || continue
				l="$l${l:+; }$(echo "$1 $2" | sed 's/^stock-dio /stock direct-io /') $(awk -v a="$(bench_count "$csv" getattr $w "$1" "$2" 0)" \
					-v x="$(bench_count "$csv" getxattr $w "$1" "$2" 0)" -v n="$(bench_writes "$csv" $w "$1" "$2")" \
					'BEGIN { if (n) printf "%.2f / %.2f", 1000 * a / n, 1000 * x / n; else printf "– / –" }')"
			done
			echo "$l."
		fi
		if grep -q "^$w,overlayfs," "$outdir/medians.csv"; then
			echo
			case $w in
			latfiles)
				echo "**Reference: overlayfs** on the same files (upper dir on the same XFS, the files"
				echo "hard-linked into it; no FUSE): its writes take the same upstream"
				echo "fs/backing-file.c path as passthrough's, each under the inode lock of its own"
				echo "file, which no other writer takes. Ratios of medians:"
				;;
			lat)
				echo "**Reference: overlayfs** on the same file (upper dir on the same XFS, the file"
				echo "hard-linked into it; no FUSE): its writes take the same upstream"
				echo "fs/backing-file.c path as passthrough's (backing_file_write_iter(): credentials"
				echo "overridden, a second vfs_iter_write()), with its inode lock held exclusively"
				echo "for the whole synchronous write (ovl_write_iter()), the device's completion"
				echo "included, so its writers run one at a time; ours holds it shared. Ratios of medians:"
				;;
			*)
				echo "**Reference: overlayfs** on the same file (upper dir on the same XFS, the file"
				echo "hard-linked into it; no FUSE): its async writes take the same upstream"
				echo "fs/backing-file.c path as passthrough's, with its inode lock held exclusively"
				echo "around the submission (ovl_write_iter()); ours holds it shared. Ratios of medians:"
				;;
			esac
			echo
			echo "| jobs | raw XFS | overlayfs | ours | stock noxattr | ours noxattr | overlayfs/raw | ours/raw | stock noxattr/raw | ours noxattr/raw | ours/overlayfs |"
			echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
			awk -F, -v w=$w '$1 == w { print $4 }' "$outdir/medians.csv" | sort -nu | while read -r n; do
				r=$(med $w raw - "$n") o=$(med $w overlayfs - "$n") u=$(med $w ours xattr "$n")
				sn=$(med $w stock noxattr "$n") un=$(med $w ours noxattr "$n")
				echo "| $n | $(cell $w raw - "$n") | $(cell $w overlayfs - "$n") | $(cell $w ours xattr "$n") |" \
					"$(cell $w stock noxattr "$n") | $(cell $w ours noxattr "$n") |" \
					"$(ratio "$o" "$r") | $(ratio "$u" "$r") | $(ratio "$sn" "$r") | $(ratio "$un" "$r") | $(ratio "$u" "$o") |"
			done
		fi
		# interleaved runs: each run against raw XFS's run of the same
		# repetition and numjobs, which ran beside it
		if [ "${FB_BENCH_ORDER:-blocks}" != interleave ] || ! grep -q "^$w,raw," "$outdir/medians.csv"; then
			continue
		fi
		echo
		echo "**Paired ratios** (interleaved runs): each run divided by raw XFS's run of the same"
		echo "repetition and numjobs; median of the repetitions [min–max] and, from 3 repetitions"
		echo "on, their geometric mean (its 95% confidence interval, Student t on the log ratios):"
		echo
		paired $w raw
		grep -q "^$w,overlayfs," "$outdir/medians.csv" || continue
		echo
		echo "The same against overlayfs's run of the same repetition and numjobs (the FUSE variants):"
		echo
		paired $w overlayfs
	done
	if grep -q "^stat," "$outdir/medians.csv"; then
		echo
		echo "**Privilege cache under a stat loop** (latency-bound, numjobs 4, xattr daemon,"
		echo "attr_timeout 1 s; beside the writers a process stat(2)s the file once a millisecond;"
		echo "$(awk -F, '$1 == "stat" && $4 != "getxattr" { print $5 }' "$csv" | sort -n | tail -n 1) runs of ${FB_BENCH_RUNTIME:-4} s each way):"
		echo
		echo "| variant | IOPS | IOPS with stat loop | with/without | GETXATTR | GETXATTR with stat loop |"
		echo "|---|---:|---:|---:|---:|---:|"
		for v in stock unpatched ours; do
			grep -q "^stat,$v," "$outdir/medians.csv" || continue
			echo "| $v | $(cell stat $v nostat 4) | $(cell stat $v statloop 4) |" \
				"$(ratio "$(med stat $v statloop 4)" "$(med stat $v nostat 4)") |" \
				"$(getx stat $v nostat) | $(getx stat $v statloop) |"
		done
	fi
	if ls "$outdir"/perf/*-j*.txt > /dev/null 2>&1; then
		echo
		echo "**Where a write's time goes** (the profiles of FB_BENCH_PERF in perf/, one run each,"
		echo "not counted above): samples per 1000 writes (cpu-clock, 999 Hz, both vCPUs) of the"
		echo "run, less the idle loop, and of each layer's own call tree (a function's tree less"
		echo "that of the next one down: bench/lib.sh, bench_perf_split); the stack's three"
		echo "layers as a share of XFS's tree in the same profile:"
		echo
		echo "| profile | IOPS | busy | above the backing file | fs/backing-file.c | second VFS layer | XFS | stack/XFS |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|"
		bench_perf_split "$outdir/perf"
	fi
} > "$outdir/table.md"
cat "$outdir/table.md"

if command -v gnuplot > /dev/null; then
	plots="" np=0
	for w in lat latfiles aio hp; do
		grep -q "^$w," "$outdir/medians.csv" || continue
		case $w in
		lat) t="latency-bound: psync, 50 us device completion" ;;
		latfiles) t="latency-bound, a file per job: psync, 50 us device completion" ;;
		aio) t="libaio iodepth 64, no device delay" ;;
		hp) t="passthrough_hp, latency-bound: psync, 50 us device completion" ;;
		esac
		p=""
		for s in "raw,-,raw XFS" "raw2,-,raw XFS again (A/A control)" "stock,xattr,stock passthrough" "stock-dio,xattr,stock direct-io" "unpatched,xattr,unpatched base" \
			 "ours,xattr,ours" "ours,noxattr,ours, daemon without xattrs" "overlayfs,-,overlayfs (reference)" \
			 "stock,passthrough_hp,stock (built-in FUSE)" "ours,passthrough_hp,ours (takeover)"; do
			key=$(echo "$s" | cut -d, -f1,2)
			f=$outdir/$w.$(echo "$key" | tr ',' '-').dat
			awk -F, -v k="$w,$key" '$1 "," $2 "," $3 == k { print $4, $5, $6, $7 }' \
				"$outdir/medians.csv" > "$f"
			[ -s "$f" ] && p="$p${p:+, }\"$f\" using 1:2:3:4 with yerrorlines title \"$(echo "$s" | cut -d, -f3-)\""
		done
		xl="one shared file"
		[ $w = latfiles ] && xl="a file per job"
		[ -n "$p" ] && np=$((np + 1)) && plots="${plots}set title \"$t\" noenhanced
set xlabel \"fio numjobs ($xl)\"
plot $p
"
	done
	gnuplot <<GP
set terminal pngcairo size $((np > 2 ? 600 * np : 1200)),500 font ",10"
set output "$outdir/bench.png"
set multiplot layout 1,$((np > 2 ? np : 2)) title "$title"
set ylabel "write IOPS"
set logscale x 2
set key top left
set grid
$plots
unset multiplot
GP
	rm -f "$outdir"/*.dat
	echo
	echo "plot: $outdir/bench.png"
fi
