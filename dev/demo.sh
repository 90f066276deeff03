#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `make demo`: install only what the demo needs (dev/deps.sh demo), fetch
# Debian's KVER (image: tests/vm/kernel.sh; headers, unpacked, not
# installed: dev/headers.sh unpack) and the pinned base's source (make
# import), build our module for KVER alone, boot KVER in QEMU and run
# dev/demo-guest.sh there: our module beside the kernel's FUSE, a file
# round-tripped through it, and parallel writes through stock and ours
# measured side by side in that boot. Each phase is timed; the times go to
# stdout and build/demo-times.
#
# usage: dev/demo.sh KVER
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: dev/demo.sh KVER}
sh "$top/tests/vm/not-in-tmp.sh" demo || exit 1
cd "$top" || exit 1
mkdir -p build || exit 1
logs=$top/build
times=$logs/demo-times
# The previous run's total wall time here, for the intro (no typed estimate).
last=$(awk '{ t += $2 } END { if (NR) print t }' "$times" 2> /dev/null)
: > "$times"

t0=$(date +%s)
tp=$t0
# cpu: sets c to the CPU seconds (user + system) of the children waited for
# so far, from `times` (run in this shell: in a subshell it would count
# nothing)
cpu() {
	times > "$logs/.demo-times"
	c=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
		printf "%d\n", t }' "$logs/.demo-times")
}
cpu
cp=$c
# phase NAME: wall and CPU time since the previous phase, on stdout and in
# $times ("NAME WALL CPU")
phase() {
	tn=$(date +%s)
	cpu
	cn=$c
	echo "   ($1: $((tn - tp)) s, CPU $((cn - cp)) s)"
	echo "$1 $((tn - tp)) $((cn - cp))" >> "$times"
	tp=$tn cp=$cn
}
# fail LOG WHAT: the end of LOG and a one-line reason, exit 1
fail() {
	tail -n 15 "$1" | sed 's/^/   | /' >&2
	echo "demo: $2 (log: ${1#"$top"/})" >&2
	exit 1
}

cat << EOF
make demo: our FUSE module on Debian's $kver kernel, in QEMU on this machine.
It installs only what the demo needs (compiler, kmod, pahole, qemu, virtme-ng,
fio, xfsprogs, busybox, bindfs: dev/deps.sh demo), fetches that kernel's image
and headers into /var/cache/fuse-backport (unpacked there, not installed) and
the pinned linux-source (fs/fuse is imported from it), builds our module for
that kernel alone, boots it, loads our module beside the built-in FUSE,
round-trips a file through it, takes over -t fuse and mounts Debian's bindfs,
unmodified, on ours, then times parallel O_DIRECT writes to one file through
stock FUSE and through ours in the same boot and prints ours/stock.
$([ -n "$last" ] && echo "The last run on this machine took $last s; each" || echo "A first run downloads the kernel image, its headers and linux-source; each") phase prints its time, and its log is in build/demo-*.log.

EOF

echo "== packages the demo needs"
[ "$(id -u)" = 0 ] || { echo "demo: run as root (it installs Debian packages and boots a VM)" >&2; exit 1; }
sh dev/deps.sh demo > "$logs/demo-deps.log" 2>&1 || fail "$logs/demo-deps.log" "installing the packages failed"
sed -n 's/^deps: installing/   installed:/p' "$logs/demo-deps.log"
phase deps

echo "== Debian's $kver (image in the background) and the pinned source"
tests/vm/kernel.sh "$kver" > "$logs/demo-kernel.log" 2>&1 &
kpid=$!
make -s import > "$logs/demo-import.log" 2>&1 || fail "$logs/demo-import.log" "make import failed"
sed 's/^/   /' "$logs/demo-import.log"
kdir=$(sh dev/headers.sh unpack "$kver" 2> "$logs/demo-headers.log") || fail "$logs/demo-headers.log" "no headers for $kver"
echo "   headers: $kdir"
phase source+headers

echo "== our module for $kver, and the test daemon"
# scripts/build.sh directly (as `make modules` runs it), so that kbuild gets
# every core
MAKEFLAGS=-j$(nproc) sh scripts/build.sh "$kver" "$kdir" > "$logs/demo-build.log" 2>&1 ||
	fail "$logs/demo-build.log" "building the module failed"
make -s -C tests daemon >> "$logs/demo-build.log" 2>&1 ||
	fail "$logs/demo-build.log" "building tests/daemon failed"
for m in build/"$kver"/*.ko; do
	echo "   $m: $(modinfo -F version "$m"), flavor $(modinfo -F flavor "$m")"
done
phase build
if ! wait "$kpid"; then
	fail "$logs/demo-kernel.log" "cannot fetch the kernel $kver"
fi
echo "   kernel: $(tail -n 1 "$logs/demo-kernel.log")"
phase kernel-wait

echo "== in a VM booting Debian's $kver"
FB_OUT=$top/build/vm "$top/tests/vm/boot.sh" --kver "$kver" --timeout 600 --log "$logs/demo-vm.log" -- \
	sh "$top/dev/demo-guest.sh" "$top/build/$kver"
rc=$?
phase vm

echo "== times (s): $(awk '{ t += $2; c += $3; s = s (s ? ", " : "") $1 " " $2 } END { print s "; total " t " (CPU " c ")" }' "$times")"
[ $rc = 0 ] || echo "demo: the VM run ended with status $rc (log: build/demo-vm.log)" >&2
exit $rc
