#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make docs`: render what the docs say about kernels and results from the
# pins (backports/*/pin), docs/distributions.tsv and results/, never typed
# by hand. Each block lies between "<!-- BEGIN generated: NAME (make docs) -->"
# and "<!-- END generated: NAME -->"; only the blocks are rewritten:
#   README.md            "range": the kernels served, from the pins;
#                        "distributions": by distribution, how ours serves
#                        it (pins) and how far it is shown (results/vm,
#                        results/check-build, the newest make check run's
#                        tools section); "status": an excerpt of the newest
#                        recorded `fuse-backport status` (results/status)
#   docs/design.md       "kernels": the bases, from the pins and the builds
#   docs/testing.md      "times": the section times of the newest full
#                        default-tier run under results/check/
#   docs/benchmarks.md   docs/benchmarks.md.in with, at @RESULTS@, the
#                        newest run of each kernel and workload and the
#                        pools; "verdict": each target against the newest
#                        pool; "aa" and "latfiles": the pools' tables
# and whole: docs/coverage.md (kernel x base x flavor x build x VM, each
# cell with the file under results/ it comes from, then coverage.md.in).
# Deterministic: the same inputs give the same bytes (no time of its own,
# C-locale sorts). tests/docs/check.sh renders into a copy and compares.
#
# Results are read in the layout of tests/lib/results.sh:
#   results/check-build/TIER/RUN-ID/table.md   (dev/check-build.sh)
#   results/vm/KVER/RUN-ID/report.md           (tests/vm/report.sh)
#   results/bench/KVER/RUN-ID/table.md         (bench/run.sh)
#   results/bench-ab/KVER/RUN-ID/table.md      (bench/ab.sh)
#   results/bench-pool/KVER/RUN-ID/table.md    (bench/pool.sh)
#   results/status/KVER/RUN-ID/status.tap      (tests/suites/status.sh's
#                                              TAP from a VM run, kept)
#   .../meta.txt                               (how the run was made)
# RUN-ID starts with the run's UTC time, so the newest run sorts last.
#
# usage: dev/docs.sh [--out DIR]   (DIR: where to write, default the tree)
set -eu
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top
case ${1:-} in
--out) out=${2:?usage: dev/docs.sh [--out DIR]} ;;
"") ;;
*) echo "usage: dev/docs.sh [--out DIR]" >&2; exit 2 ;;
esac
die() { echo "docs: $*" >&2; exit 1; }
res=$top/results
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# pin BASE KEY: the value of KEY= in backports/BASE/pin, unquoted
pin() {
	v=$(sed -n "s/^$2=//p" "$top/backports/$1/pin" | tail -n 1)
	v=${v#\"}
	v=${v%\"}
	[ -n "$v" ] || die "backports/$1/pin has no $2="
	echo "$v"
}
bases=$(for p in "$top"/backports/*/pin; do [ -f "$p" ] && basename "$(dirname "$p")"; done | sort -V)
[ -n "$bases" ] || die "no backports/*/pin"
for b in $bases; do
	for k in UPSTREAM_VERSION KERNEL_MIN KERNEL_MAX FB_RELEASE COMPAT DEBIAN_PACKAGE DEBIAN_VERSION; do
		pin "$b" "$k" > /dev/null
	done
done

# $tmp/pins: base TAB KERNEL_MIN TAB KERNEL_MAX TAB module version
for b in $bases; do
	printf '%s\t%s\t%s\t%s+fb%s\n' "$b" "$(pin "$b" KERNEL_MIN)" "$(pin "$b" KERNEL_MAX)" \
		"$(pin "$b" UPSTREAM_VERSION)" "$(pin "$b" FB_RELEASE)"
done > "$tmp/pins"
# In awk: sv(SERIES) orders "major.minor"; base_of(KVER) needs lo[], hi[]
# and bl[1..nb] from $tmp/pins.
awk_base='
	function sv(x,  v) { split(x, v, "."); return v[1] * 1000 + v[2] }
	function base_of(k,  s, i) {
		if (!match(k, /^[0-9]+\.[0-9]+/)) return ""
		s = sv(substr(k, 1, RLENGTH))
		for (i = 1; i <= nb; i++)
			if (sv(lo[bl[i]]) <= s && s <= sv(hi[bl[i]])) return bl[i]
		return ""
	}'
# base_of KVER: the base whose KERNEL_MIN..KERNEL_MAX holds KVER's series
base_of() {
	b=$(awk -F'\t' -v k="$1" "$awk_base"'
		{ nb++; bl[nb] = $1; lo[$1] = $2; hi[$1] = $3 }
		END { print base_of(k) }' "$tmp/pins")
	[ -n "$b" ] && echo "$b"
}
modver() { awk -F'\t' -v b="$1" '$1 == b { print $4 }' "$tmp/pins"; }
flavor_name() {
	case $1 in
	dropin) echo drop-in ;;
	*) echo "$1" ;;
	esac
}
# meta DIR KEY: the value of "KEY: " in DIR/meta.txt, or nothing
meta() { sed -n "s/^$2: //p" "$1/meta.txt" 2> /dev/null | head -n 1; }
# newest_run: of the run directories on stdin (one a line), the newest by
# its RUN-ID (the directory's name), relative to the tree; nothing for none
newest_run() {
	while IFS= read -r nr_d; do
		echo "${nr_d##*/} ${nr_d#"$top"/}"
	done | sort | tail -n 1 | cut -d ' ' -f 2-
}
# runs KIND KVER FILE: the run directories of results/KIND/KVER that hold
# FILE, oldest first
runs() {
	for d in "$res/$1/$2"/*/; do
		[ -f "$d$3" ] && basename "$d"
	done | sort
}
kvers() {
	for d in "$res/$1"/*/; do
		[ -d "$d" ] && basename "$d"
	done | sort -V
}
# write FILE: stdin to FILE, replaced in one rename
write() {
	mkdir -p "$(dirname "$1")"
	cat > "$1.new.$$"
	mv "$1.new.$$" "$1"
}
notice() {
	echo "<!-- Generated by \`make docs\` (dev/docs.sh) from $1: edit those, not this file. -->"
}

# The build matrix: kernel TAB headers-from TAB base TAB flavor TAB result
# TAB source, from the newest run of any tier that built the kernel.
for t in "$res"/check-build/*/*/table.md; do
	[ -f "$t" ] || continue
	r=${t%/table.md}
	echo "${r##*/} ${t#"$top"/}"
done | sort | while read -r _ t; do
	awk -v src="$t" '
		/^\| / && !/^\| kernel \|/ && !/^\|---/ {
			n = split($0, c, "|")
			for (i = 2; i < n; i++) { gsub(/^ +| +$/, "", c[i]); if (c[i] == "") c[i] = "-" }
			print c[2] "\t" c[3] "\t" c[4] "\t" c[5] "\t" c[6] "\t" src
		}' "$top/$t"
done | awk -F'\t' '{ row[$1] = $0 } END { for (k in row) print row[k] }' | sort -V > "$tmp/build"

# The VM runs: kernel TAB result TAB plan TAB source, the newest run each.
for k in $(kvers vm); do
	r=$(runs vm "$k" report.md | tail -n 1)
	[ -n "$r" ] || continue
	f=results/vm/$k/$r/report.md
	line=$(grep -E '^[A-Za-z0-9_.+-]*: [0-9]+ passed, [0-9]+ failed' "$top/$f" | tail -n 1)
	[ -n "$line" ] || line="x: no result line"
	plan=""
	[ -f "$top/results/vm/$k/$r/plan" ] && plan=$(tr '\n' ' ' < "$top/results/vm/$k/$r/plan" | sed 's/ *$//')
	printf '%s\t%s\t%s\t%s\n' "$k" "${line#*: }" "${plan:-?}" "$f"
done > "$tmp/vm"

# newest_check: the newest results/check run of every section
# (FB_CHECK_SECTIONS=*) in the default tier (FB_CHECK_FULL=0), relative to
# the tree; nothing for none
newest_check() {
	for s in "$res"/check/*/*/summary.txt; do
		[ -f "$s" ] || continue
		d=${s%/summary.txt}
		[ "$(meta "$d" command)" != "tests/check.sh (make check; FB_CHECK_FULL=0, FB_CHECK_SECTIONS=*)" ] ||
			echo "$d"
	done | newest_run
}
check_run=$(newest_check)
# section_result SECTION: "N passed, N failed" of SECTION in $check_run
section_result() {
	[ -n "$check_run" ] || return 0
	awk -v s="$1" '$1 == s && $3 == "passed" && $5 == "failed" { print $2 " passed, " $4 " failed" }' \
		"$top/$check_run/summary.txt"
}

# --- README.md: the kernel range and the table by distribution ---
range_block() {
	echo '<!-- BEGIN generated: range (make docs) -->'
	rg=$(for b in $bases; do
		lo=$(pin "$b" KERNEL_MIN) hi=$(pin "$b" KERNEL_MAX)
		if [ "$lo" = "$hi" ]; then printf '%s, ' "$lo"; else printf '%s to %s, ' "$lo" "$hi"; fi
	done)
	rg=${rg%, }
	case $rg in
	*,*) rg="${rg%, *} and ${rg##*, }" ;;
	esac
	echo "**Kernels served: Linux $rg** ([the table below](#distributions))."
	echo '<!-- END generated: range -->'
}
# proven GLOB: how far the recorded runs prove the kernels named by GLOB
proven() {
	pv=$(while IFS="	" read -r k line plan f; do
		# shellcheck disable=SC2254 # GLOB is a pattern
		case $k in $1) ;; *) continue ;; esac
		case $line in *" 0 failed"*) ;; *) continue ;; esac
		su=$(echo "$plan" | tr ' ' '\n' | sed -n 's/^ours=//p' | tr ',' ' ')
		n=$(echo "$su" | wc -w)
		[ "$n" -gt 2 ] && su="$n suites"
		np=${line%% passed*}
		echo "booted: $np VM tests passed on \`$k\` (ours: $su; [report](${f}))"
	done < "$tmp/vm" | tail -n 1)
	[ -n "$pv" ] && { echo "$pv"; return; }
	pv=$(while IFS="	" read -r k _ _ _ r f; do
		# shellcheck disable=SC2254 # GLOB is a pattern
		case $k in $1) ;; *) continue ;; esac
		case $r in built*) echo "built for \`$k\`, not booted ([build](${f}))" ;; esac
	done < "$tmp/build" | tail -n 1)
	echo "${pv:-no record}"
}
distro_block() {
	echo '<!-- BEGIN generated: distributions (make docs) -->'
	echo "| distribution | kernel | our module | how it serves FUSE | shown |"
	echo "|---|---|---|---|---|"
	dkms_dep=$(sed -n 's/^Depends: \(dkms ([^)]*)\).*/\1/p' "$top/debian/control" | head -n 1)
	grep -v -e '^#' -e '^$' "$top/docs/distributions.tsv" |
		while IFS="	" read -r dist series cfg ev note; do
			b=$(base_of "$series" || true)
			if [ -z "$b" ]; then
				how="refused: no base serves $series (one line, no module)"
				case $note in
				*dkms*) how="$how; the .deb needs \`$dkms_dep\`, $note" ;;
				?*) how="$how; $note" ;;
				esac
				echo "| $dist | $series | – | $how | – |"
				continue
			fi
			case $cfg in
			m) how="replaces the kernel's \`fuse.ko\`" ;;
			y) how="takes over the built-in FUSE" ;;
			*) die "docs/distributions.tsv: $dist: CONFIG_FUSE_FS '$cfg' is not m or y" ;;
			esac
			case $ev in
			"kernels "*) shown=$(proven "${ev#kernels }") ;;
			"test "*)
				grep -F -e "${ev#test }" "$top/tests/host-scripts/run.sh" | grep -q 'ok "' ||
					die "docs/distributions.tsv: $dist: no ok line of tests/host-scripts/run.sh holds '${ev#test }'"
				r=$(section_result tools)
				case $r in
				*" 0 failed") shown="compiled only, on Debian's headers changed to its API ([\`tools\` section]($check_run/summary.txt): $r)" ;;
				*) shown="no record" ;;
				esac
				;;
			*) shown="no record" ;;
			esac
			echo "| $dist | $series | \`$(modver "$b")\` | $how | $shown |"
		done
	echo '<!-- END generated: distributions -->'
}
# --- README.md: the kernel table ---
readme_block() {
	echo '<!-- BEGIN generated: kernels (make docs) -->'
	echo "| base | serves kernels | module version | fs/fuse from | Debian's kernels built (flavor) |"
	echo "|---|---|---|---|---|"
	for b in $bases; do
		lo=$(pin "$b" KERNEL_MIN) hi=$(pin "$b" KERNEL_MAX)
		serves="$lo to $hi"
		[ "$lo" = "$hi" ] && serves=$lo
		# Debian's kernels of this base by series and flavor; a FUSE=m
		# copy of headers made by the matrix (-fbfusem-) is no Debian kernel
		fl=$(awk -F'\t' -v b="$b" '$3 == b && $1 !~ /-fbfusem-/ && $5 ~ /^built/ {
				split($1, v, "."); print v[1] "." v[2] "\t" $4 }' "$tmp/build" |
			sort -V -u | while IFS="	" read -r s f; do
				printf '%s (%s), ' "$s" "$(flavor_name "$f")"
			done)
		fl=${fl%, }
		compat=""
		[ "$(pin "$b" COMPAT)" = shared ] && compat=", with the compat shims for older kernels"
		echo "| $b | $serves | \`$(modver "$b")\` | Linux $(pin "$b" UPSTREAM_VERSION), Debian's \`$(pin "$b" DEBIAN_PACKAGE)\` $(pin "$b" DEBIAN_VERSION)$compat | ${fl:-none recorded} |"
	done
	echo
	echo "Where the kernel has \`CONFIG_FUSE_FS=m\` the **drop-in** flavor builds (our"
	echo "\`fuse.ko\` replaces the kernel's); where it has \`=y\`, the **renamed** one"
	echo "(\`fusebp.ko\`: fs type \`fusebp\`, \`/dev/fusebp\`, beside the built-in FUSE,"
	echo "or taking it over: [takeover](#takeover-of-a-built-in-fuse))."
	echo "Build and VM results per kernel: [coverage.md](coverage.md)."
	echo '<!-- END generated: kernels -->'
}
# A sample of `fuse-backport status`: the healthy report of the newest
# recorded status suite run (results/status/KVER/RUN-ID/status.tap, the
# TAP of tests/suites/status.sh on ours): the "# " lines the suite shows
# before its test "installed: the kernel list shows it", as printed; in
# the README the first line, our module's block and the verdict
status_block() {
	echo '<!-- BEGIN generated: status (make docs) -->'
	sr=$(for l in "$res"/status/*/*/status.tap; do
		[ -f "$l" ] && echo "${l%/status.tap}"
	done | newest_run)
	smp=""
	[ -n "$sr" ] && smp=$(awk '
		/^# fuse-backport [^ ]+ on kernel / { n = 0; keep = 1 }
		keep && /^# ?/ { sub(/^# ?/, ""); b[++n] = $0; next }
		keep { keep = 0 }
		/^ok [0-9]+ - installed: the kernel list shows it/ { for (i = 1; i <= n; i++) out = out b[i] "\n"; done = 1; exit }
		END { if (done) printf "%s", out }' "$top/$sr/status.tap" |
		awk 'NR == 1 { print; next }
			/^-t / { ours = ($0 ~ /: ours/) }
			ours && /^(-t |  (version|parallel passthrough writes):)/ { print }
			/^status: / { print }')
	if [ -z "$smp" ]; then
		echo "No recorded \`fuse-backport status\` output under \`results/status/\`."
	else
		echo "An excerpt, from the status suite on $(meta "$top/$sr" kernel) ([full output]($sr/status.tap)):"
		echo
		echo '```'
		echo "$smp"
		echo '```'
	fi
	echo '<!-- END generated: status -->'
}
# put_block FILE NAME BLOCK: FILE (under the tree) with the lines between
# "<!-- BEGIN generated: NAME (make docs) -->" and "<!-- END generated:
# NAME -->" replaced by the file BLOCK (which holds both lines), to $out
put_block() {
	pb_b="<!-- BEGIN generated: $2 (make docs) -->"
	pb_e="<!-- END generated: $2 -->"
	# a file already rendered to $out (another block of it) is the input
	pb_f=$out/$1
	[ -f "$pb_f" ] || pb_f=$top/$1
	[ -f "$pb_f" ] || die "no $1"
	nb=$(grep -c -x -F -e "$pb_b" "$pb_f" || true)
	ne=$(grep -c -x -F -e "$pb_e" "$pb_f" || true)
	{ [ "$nb" = 1 ] && [ "$ne" = 1 ]; } ||
		die "$1 needs the line '$pb_b' and, after it, '$pb_e', once each (found $nb and $ne)"
	awk -v b="$pb_b" -v e="$pb_e" -v blk="$3" '
		$0 == b { while ((getline l < blk) > 0) print l; skip = 1; next }
		$0 == e { if (!skip) { bad = 1; exit } skip = 0; next }
		!skip { print }
		END { if (bad || skip) exit 1 }' "$pb_f" > "$tmp/put_block" ||
		die "$1: '$pb_e' comes before '$pb_b'"
	write "$out/$1" < "$tmp/put_block"
}
readme_block > "$tmp/block"
put_block docs/design.md kernels "$tmp/block"
range_block > "$tmp/block"
put_block README.md range "$tmp/block"
distro_block > "$tmp/block"
put_block README.md distributions "$tmp/block"
status_block > "$tmp/block"
put_block README.md status "$tmp/block"

# --- docs/testing.md: the section times of the newest default-tier run ---
# The newest results/check run of every section (FB_CHECK_SECTIONS=*) in
# the default tier (FB_CHECK_FULL=0): its summary as a table.
times_block() {
	echo '<!-- BEGIN generated: times (make docs) -->'
	tr=$check_run
	if [ -z "$tr" ]; then
		echo "No full run of the default tier is recorded under \`results/check/\`."
	else
		echo "| section | passed | failed | skipped | time (s) |"
		echo "|---|---|---|---|---|"
		awk '/^[a-z][^ ]* +[0-9]+ passed +[0-9]+ failed +[0-9]+ skipped +[0-9]+ s$/ {
			printf "| `%s` | %s | %s | %s | %s |\n", $1, $2, $4, $6, $8 }' "$top/$tr/summary.txt"
		echo
		grep '^check: ' "$top/$tr/summary.txt" | tail -n 1 | sed 's/^check: /In all: /; s/$/./'
		echo
		echo "From [\`$tr/\`](../$tr/) ([summary.txt](../$tr/summary.txt),"
		echo "[meta.txt](../$tr/meta.txt): commit $(meta "$top/$tr" commit | cut -c1-12), $(meta "$top/$tr" nproc) CPUs,"
		echo "host kernel $(meta "$top/$tr" 'host kernel'), recorded $(meta "$top/$tr" date), at the end of the run)."
	fi
	echo '<!-- END generated: times -->'
}
times_block > "$tmp/block"
put_block docs/testing.md times "$tmp/block"

# --- docs/coverage.md ---
{
	notice "backports/*/pin and results/"
	echo "# Coverage: kernels, bases, flavors, build and VM results"
	echo
	echo "One row per kernel that a recorded run built or booted. Base and flavor"
	echo "are what \`scripts/flavor.sh\` chose for the build (for a kernel only"
	echo "booted, the base serving its series by the pins). **build**: the newest"
	echo "build matrix run that built it (\`make check-build\`,"
	echo "\`dev/check-build.sh\`); **VM**: the closing line of the newest VM"
	echo "report (\`make check-vm\`, \`make check\`: \`tests/vm/report.sh\`), with the"
	echo "targets and suites its plan gave. **from**: the files under \`results/\`."
	echo "A kernel with no recorded VM run shows \"–\": it was built, not booted,"
	echo "as far as \`results/\` knows."
	echo
	echo "| kernel | base | flavor | headers from | build | VM | VM plan | from |"
	echo "|---|---|---|---|---|---|---|---|"
	{ cut -f1 "$tmp/build"; cut -f1 "$tmp/vm"; } | sort -V -u > "$tmp/kernels"
	awk -F'\t' -v P="$tmp/pins" -v B="$tmp/build" -v V="$tmp/vm" "$awk_base"'
		FILENAME == P { nb++; bl[nb] = $1; lo[$1] = $2; hi[$1] = $3; next }
		FILENAME == B { b[$1] = $0; next }
		FILENAME == V { v[$1] = $0; next }
		{
			k = $1; from = ""
			if (k in b) {
				split(b[k], c, "\t")
				base = c[3]; fl = c[4] == "dropin" ? "drop-in" : c[4]
				hf = c[2]; build = c[5]; from = "[build](../" c[6] ")"
			} else {
				base = base_of(k); if (base == "") base = "outside every base"
				fl = hf = build = "–"
			}
			if (k in v) {
				split(v[k], c, "\t")
				vm = c[2]; plan = c[3]; from = from (from == "" ? "" : ", ") "[VM](../" c[4] ")"
			} else
				vm = plan = "–"
			print "| " k " | " base " | " fl " | " hf " | " build " | " vm " | " plan " | " from " |"
		}' "$tmp/pins" "$tmp/build" "$tmp/vm" "$tmp/kernels"
	echo
	echo "Build runs (those a row above comes from):"
	echo
	cut -f6 "$tmp/build" | sort -u | while read -r t; do
		d=$top/${t%/table.md}
		n=$(grep -c '^| [^k-]' "$top/$t" || true)
		c=$(meta "$d" command)
		echo "- [\`${d#"$top"/}/\`](../${d#"$top"/}/): $n kernels${c:+; \`$c\`} ([meta.txt](../${d#"$top"/}/meta.txt))"
	done
	if [ -s "$tmp/vm" ]; then
		echo
		echo "VM runs (the newest of each kernel):"
		echo
		cut -f4 "$tmp/vm" | while read -r f; do
			d=${f%/report.md}
			echo "- [\`$d/\`](../$d/) ([report.md](../$f), [meta.txt](../$d/meta.txt))"
		done
	fi
	# By distribution: prose kept by hand beside this file, with no figures.
	if [ -f "$top/docs/coverage.md.in" ]; then
		echo
		cat "$top/docs/coverage.md.in"
	fi
} | write "$out/docs/coverage.md"

# --- docs/benchmarks.md ---
[ -f "$top/docs/benchmarks.md.in" ] || die "no docs/benchmarks.md.in"
grep -q -x '@RESULTS@' "$top/docs/benchmarks.md.in" || die "docs/benchmarks.md.in has no line '@RESULTS@'"
# sel_runs KIND: the runs of results/KIND that docs/benchmarks.md shows,
# "KVER RUN-ID" a line: for each kernel, the newest run of each workload
# (the first field of raw.csv); of bench-ab, the newest of each revision b
# (the RUN-ID's "-b-REV"); of bench-pool, also the pools design's blocks
# read (pool_pick). Older runs are superseded and not kept in results/.
sel_runs() {
	for k in $(kvers "$1"); do
		for r in $(runs "$1" "$k" table.md); do
			case $1 in
			bench-ab) echo "$k ${r##*-b-} $r" ;;
			*) cut -d, -f1 "$res/$1/$k/$r/raw.csv" 2> /dev/null | sort -u | sed "s|^|$k |; s|$| $r|" ;;
			esac
		done
	done | sort | awk '{ last[$1 " " $2] = $1 " " $3 } END { for (x in last) print last[x] }'
	if [ "$1" = bench-pool ]; then
		for pat in '^lat,raw2,' '^latfiles,overlayfs,'; do
			pp=$(pool_pick "$pat")
			[ -n "$pp" ] && echo "$pp" | awk -F/ '{ print $3 " " $4 }'
		done
	fi
}
# pool_pick PATTERN: the newest results/bench-pool run whose raw.csv has a
# line matching PATTERN, relative to the tree
pool_pick() {
	for c in "$res"/bench-pool/*/*/raw.csv; do
		! grep -q "$1" "$c" 2> /dev/null || echo "${c%/raw.csv}"
	done | newest_run
}
bench_results() {
	for kind in bench bench-ab bench-pool; do
		case $kind in
		bench) what="\`make bench\`" ;;
		bench-ab) what="\`make bench-ab\` (our module from this tree, a, against another revision's, b)" ;;
		bench-pool) what="\`make bench-pool\` (the paired ratios of several interleaved \`make bench\` runs, pooled)" ;;
		esac
		sel_runs "$kind" | sort -u > "$tmp/sel"
		cut -d ' ' -f 1 "$tmp/sel" | sort -V -u > "$tmp/selk"
		while IFS= read -r k; do
			rs=$(awk -v k="$k" '$1 == k { print $2 }' "$tmp/sel" | sort -r)
			echo "## $what on Debian $k"
			b=$(base_of "$k" || true)
			for r in $rs; do
				d=results/$kind/$k/$r
				echo
				cat "$top/$d/table.md"
				echo
				[ -f "$top/$d/bench.png" ] && echo "![IOPS against numjobs, $k, run $r](../$d/bench.png)" && echo
				files=""
				for f in raw.csv medians.csv meta.txt; do
					[ -f "$top/$d/$f" ] && files="$files, [$f](../$d/$f)"
				done
				# FB_BENCH_PERF's profiles (bench/run.sh)
				[ -d "$top/$d/perf" ] && files="$files, [perf profiles](../$d/perf/)"
				c=$(meta "$top/$d" command)
				case $c in
				"" | "not recorded"*) c="command not recorded" ;;
				*) c="\`$c\`" ;;
				esac
				echo "Run [\`$r\`](../$d/)$files; $c."
				m=$(meta "$top/$d" module)
				[ -z "$m" ] && m=$(meta "$top/$d" "module a")
				if [ -n "$m" ] && [ -n "$b" ] && [ "$m" != "$(modver "$b")" ]; then
					echo "This run measured $m; base $b's pin is now at $(modver "$b")."
				fi
			done
			echo
		done < "$tmp/selk"
	done
}
# The verdict against docs/benchmarks.md.in's targets, per kernel:
# latency-bound, xattr daemon, ours. Against raw XFS: the geometric mean of
# the paired ratios of the newest pool of the kernel that has them
# (raw.csv: workload,variant,daemon,jobs,rep,iops; unrounded, so that
# 0.946 is not read as 0.95); against the unpatched base: the medians of
# the newest run that has it (medians.csv: workload,variant,daemon,jobs,
# median,min,max,n).
verdict_block() {
	echo '<!-- BEGIN generated: verdict (make docs) -->'
	echo "| kernel | target | ours (latency-bound, xattr daemon) | verdict | from |"
	echo "|---|---|---|---|---|"
	for k in $(kvers bench-pool); do
		pr=$(for c in "$res/bench-pool/$k"/*/raw.csv; do
			grep -q '^lat,ours,xattr,[0-9]' "$c" 2> /dev/null && echo "${c%/raw.csv}"
		done | newest_run)
		[ -n "$pr" ] || continue
		gm=$(awk -F, '$1 == "lat" && $4 ~ /^[0-9]+$/ {
				if ($2 == "raw") raw[$4 "," $5] = $6
				else if ($2 == "ours" && $3 == "xattr") ours[$4 "," $5] = $6
			}
			END {
				for (x in ours) if (x in raw && raw[x] > 0 && ours[x] > 0) {
					split(x, j, ","); s[j[1]] += log(ours[x] / raw[x]); n[j[1]]++
				}
				for (q in n) printf "%d %.3f %d\n", q, exp(s[q] / n[q]), n[q]
			}' "$top/$pr/raw.csv" | sort -n)
		runs_in=$(meta "$top/$pr" runs)
		from="[pool](../$pr/table.md)"
		m1=$(echo "$gm" | awk '{ printf "%s%s: %s×", (NR > 1 ? ", " : ""), $1, $2 }')
		miss=$(echo "$gm" | awk '$2 < 0.95 { printf "%s%s", (m ? ", " : ""), $1; m = 1 }')
		np=$(echo "$gm" | awk 'NR == 1 { lo = hi = $3 } { if ($3 < lo) lo = $3; if ($3 > hi) hi = $3 } END { print (lo == hi ? lo : lo "–" hi) }')
		v="met at every numjobs"
		[ -n "$miss" ] && v="**missed** at numjobs $miss"
		echo "| $k | ≥ 0.95× raw XFS at numjobs 1 to 8 | $m1 (geometric means, $np pairs each; runs${runs_in:+ }$runs_in) | $v | $from |"
		m4=$(echo "$gm" | awk '$1 == 4 { print $2 }')
		if [ -n "$m4" ]; then
			v=$(awk -v x="$m4" 'BEGIN { print (x >= 0.9 ? "met" : "**missed**") }')
			echo "| $k | ≥ 0.9× raw XFS at numjobs 4 | $m4× | $v | $from |"
		fi
	done
	for k in $(kvers bench); do
		ur=$(for c in "$res/bench/$k"/*/medians.csv; do
			grep -q '^lat,unpatched,xattr,4,' "$c" 2> /dev/null && echo "${c%/medians.csv}"
		done | newest_run)
		[ -n "$ur" ] || continue
		x=$(awk -F, '$1 == "lat" && $3 == "xattr" && $4 == 4 { m[$2] = $5 }
			END { if (m["unpatched"] > 0) printf "%.2f", m["ours"] / m["unpatched"] }' "$top/$ur/medians.csv")
		[ -n "$x" ] || continue
		v=$(awk -v x="$x" 'BEGIN { print (x >= 3 ? "met" : "**missed**") }')
		echo "| $k | ≥ 3× the unpatched base at numjobs 4 | $x× (medians) | $v | [run](../$ur/table.md) |"
	done
	echo '<!-- END generated: verdict -->'
}
bench_results > "$tmp/bench"
{
	notice "docs/benchmarks.md.in and results/bench*/"
	awk -v f="$tmp/bench" '$0 == "@RESULTS@" { while ((getline l < f) > 0) print l; next } { print }' \
		"$top/docs/benchmarks.md.in" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
} | write "$out/docs/benchmarks.md"
# --- docs/benchmarks.md: the verdict and pooled tables, in their blocks ---
verdict_block > "$tmp/block"
put_block docs/benchmarks.md verdict "$tmp/block"
# pool_block BLOCK PATTERN WORKLOAD WHAT: the newest results/bench-pool run
# whose raw.csv has a line matching PATTERN, its WORKLOAD table, in the
# block BLOCK; WHAT names such a pool when there is none
pool_block() {
	echo "<!-- BEGIN generated: $1 (make docs) -->"
	ar=$(pool_pick "$2")
	if [ -z "$ar" ]; then
		echo "No pool of $4 is recorded under \`results/bench-pool/\`."
	else
		awk -v h="**$3**:" '$0 == h { f = 1; next } f && /^\|/ { print; p = 1; next } p { exit }' "$top/$ar/table.md"
		echo
		echo "From [\`$ar/\`](../$ar/table.md) (runs: $(meta "$top/$ar" runs | sed 's/^ *//'))."
	fi
	echo "<!-- END generated: $1 -->"
}
# the A/A control: runs with raw2 (raw XFS paired with itself,
# bench/run-guest.sh), their lat table
pool_block aa '^lat,raw2,' lat "runs with the A/A control" > "$tmp/block"
put_block docs/benchmarks.md aa "$tmp/block"
# a file per job: runs of the workload latfiles with overlayfs, the
# reference, their latfiles table
pool_block latfiles '^latfiles,overlayfs,' latfiles "runs of the workload latfiles with overlayfs" > "$tmp/block"
put_block docs/benchmarks.md latfiles "$tmp/block"

