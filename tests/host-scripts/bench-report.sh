# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: make bench's report (bench/report.sh) on
# a fake interleaved run of the workload latfiles (a file per job) beside
# lat: latfiles gets its own section, its paired ratios worked out by hand
# below, and overlayfs's note for separate files, not lat's "one at a
# time". Sourced by it, in its shell and its TAP count ($top, $work, ok,
# notok). FB_REPORT (a red run): another report.sh.
# shellcheck shell=sh disable=SC2154

br=$work/bench-report
mkdir -p "$br"
printf '%s\n' latfiles,raw,-,4,1,1000 latfiles,overlayfs,-,4,1,900 latfiles,stock,xattr,4,1,920 \
	latfiles,ours,xattr,4,1,940 lat,raw,-,4,1,1000 lat,ours,xattr,4,1,950 > "$br/raw.csv"
FB_BENCH_ORDER=interleave sh "${FB_REPORT:-$top/bench/report.sh}" "$br/raw.csv" "$br/out" fake \
	> /dev/null 2> "$work/err"
# the latfiles section: from its heading to the next workload's, if any
awk '/^\*\*Latency-bound, a file per job\*\*/ { f = 1 } /^\*\*(Published|libfuse)/ { f = 0 } f' \
	"$br/out/table.md" > "$br/latfiles.md" 2> /dev/null
# against raw: overlayfs 900/1000, stock 920/1000, ours 940/1000; against
# overlayfs: stock 920/900 = 1.022, ours 940/900 = 1.044 (one repetition:
# the median, its min and max alike)
br_want1='| 4 | 0.90× [0.90–0.90] | 0.92× [0.92–0.92] | 0.94× [0.94–0.94] |'
br_want2='| 4 | 1.02× [1.02–1.02] | 1.04× [1.04–1.04] |'
if [ ! -s "$br/latfiles.md" ]; then
	echo "no section 'Latency-bound, a file per job' in $br/out/table.md ($(head -n 3 "$work/err"))" > "$work/err"
	notok "bench report: latfiles gets its own section, paired against raw and overlayfs"
elif ! grep -qxF "$br_want1" "$br/latfiles.md" || ! grep -qxF "$br_want2" "$br/latfiles.md"; then
	{
		echo "want '$br_want1' and '$br_want2' in:"
		cat "$br/latfiles.md"
	} > "$work/err"
	notok "bench report: latfiles gets its own section, paired against raw and overlayfs"
else
	ok "bench report: latfiles gets its own section, paired against raw and overlayfs: $br_want1"
fi
if grep -q 'inode lock of its own' "$br/latfiles.md" && ! grep -q 'one at a time' "$br/latfiles.md"; then
	ok "bench report: latfiles' overlayfs note says each file has its own inode lock"
else
	cp "$br/latfiles.md" "$work/err"
	notok "bench report: latfiles' overlayfs note says each file has its own inode lock"
fi
