#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prove the VM runner (tests/vm/boot.sh) on real Debian kernels. TAP output
# (tests/lib/tap.sh), then "vm-selftest: N passed, N failed, N skipped"; exit 0 only if nothing failed. Needs root.
#
# usage: tests/vm/selftest.sh [KVER...]     (default: 6.12.95+deb12-amd64)
#
# Each kernel: fetched through kernel.sh if needed, booted three times (exit 0,
# exit 7 with output on both streams, one boot running guest/selftest.sh's
# checks). The first kernel also gets the failure cases: a hung guest
# (--timeout 60), a panicking guest, an unknown kernel. About 4 min for one
# kernel plus 1.5 min per further kernel on an idle 2-core TCG host (several
# times that when other work loads the host).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo" || exit 1
[ $# -gt 0 ] || set -- 6.12.95+deb12-amd64

FB_OUT=${FB_OUT:-/tmp/fb-vm}
export FB_OUT
mkdir -p "$FB_OUT" || exit 1
work=$(mktemp -d "$FB_OUT/selftest.XXXXXX") || exit 1

tap_suite=vm-selftest
. "$repo/tests/lib/tap.sh"
tap() { # ok|fail|skip DESCRIPTION [REASON]
	case $1 in
	ok) tap_check 0 "$2" ;;
	skip) tap_skip "$2" "$3" ;;
	*) tap_check 1 "$2" ;;
	esac
}
is() { # DESCRIPTION COMMAND... : one test from a command's success
	d=$1
	shift
	if "$@"; then tap ok "$d"; else tap fail "$d"; fi
}
show() { # FILE : a failed run's output, as TAP comments
	sed 's/^/#   /' "$1"
}

# vm NAME RUN.SH-ARGS... : run the runner; sets rc and secs; leaves
# $work/NAME.out (stdout), NAME.err (stderr) and NAME.log.
vm() {
	name=$1
	shift
	t0=$(date +%s)
	"$here/boot.sh" --log "$work/$name.log" "$@" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	secs=$(($(date +%s) - t0))
}
# The guest's uptime when CMD started, from the run's log.
booted() { sed -n 's/.*CMD started at guest uptime \([0-9.?]*\) s.*/\1/p' "$1" | tail -n 1; }

first=1
for kver in "$@"; do
	echo "# kernel $kver"
	if vmlinuz=$("$here/kernel.sh" "$kver" 2>"$work/kernel.err"); then
		tap ok "$kver: kernel.sh gives $vmlinuz"
	else
		tap fail "$kver: kernel.sh: $(tail -n 1 "$work/kernel.err")"
		continue
	fi

	vm true --kver "$kver" -- true
	is "$kver: \`true\` in the guest gives exit status 0" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || show "$work/true.err"
	echo "# $kver: boot to CMD $(booted "$work/true.log") s guest uptime; whole run $secs s wall"

	vm exit7 --kver "$kver" -- sh -c 'echo out-marker; echo err-marker >&2; exit 7'
	is "$kver: \`sh -c 'exit 7'\` gives exit status 7" [ "$rc" = 7 ]
	r=fail
	[ "$(cat "$work/exit7.out")" = "out-marker
err-marker" ] && [ ! -s "$work/exit7.err" ] && r=ok
	tap $r "$kver: CMD's stdout and stderr reach the runner's stdout, nothing else does"

	token=$(date +%s).$$.$tap_n
	token_file=$work/token.$tap_n
	vm guest --kver "$kver" -- sh "$here/guest/selftest.sh" "$kver" "$repo" "$token_file" "$token"
	# The busy-loop timing needs the host's 2 cores for the 2 vCPUs: with
	# other work on the host (load above our own VM's 2), a miss is a skip.
	load=$(cut -d' ' -f1 /proc/loadavg)
	busy=$(awk -v l="$load" 'BEGIN { print (l > 3.0) ? 1 : 0 }')
	if grep -q '^CHECK ' "$work/guest.out"; then
		while read -r tag res desc; do
			case $tag in
			CHECK)
				case $res/$busy/$desc in
				fail/1/"2 busy loops"*)
					tap skip "$kver: guest: $desc" "host busy (load $load)" ;;
				*) tap "$res" "$kver: guest: $desc" ;;
				esac
				;;
			'#') echo "# $kver: guest: $res $desc" ;;
			esac
		done <"$work/guest.out"
	else
		tap fail "$kver: guest checks ran (rc $rc)"
		show "$work/guest.err"
	fi
	is "$kver: the guest checks' run exits 0" [ "$rc" = 0 ]
	is "$kver: the guest's write to \$FB_OUT is on the host" \
		[ "$(cat "$token_file" 2>/dev/null)" = "$token" ]
	r=fail
	grep -q "Linux version $kver" "$work/guest.log" &&
		grep -q -- '---- guest dmesg after CMD' "$work/guest.log" && r=ok
	tap $r "$kver: the log has the guest console and its dmesg"

	[ $first = 1 ] || continue
	first=0

	vm hang --kver "$kver" --timeout 60 -- sleep 1000
	r=fail
	[ "$rc" = 124 ] && [ "$secs" -lt 100 ] && r=ok
	tap $r "hung guest (--timeout 60 -- sleep 1000): exit $rc (want 124) after $secs s"
	r=fail
	[ "$(wc -l <"$work/hang.err")" = 1 ] && grep -q '^vm: timeout after 60 s' "$work/hang.err" && r=ok
	tap $r "hung guest: one line 'vm: timeout after 60 s ...' on stderr"

	vm panic --kver "$kver" --timeout 300 -- sh -c 'echo c >/proc/sysrq-trigger; sleep 600'
	r=fail
	[ "$rc" != 0 ] && [ "$secs" -lt 250 ] && r=ok
	tap $r "panicking guest: exit $rc (want non-zero) after $secs s, before the 300 s timeout"
	r=fail
	[ "$(wc -l <"$work/panic.err")" = 1 ] && grep -q '^vm: .*kernel panic' "$work/panic.err" && r=ok
	tap $r "panicking guest: one line 'vm: ... (kernel panic)' on stderr"

	vm nokernel --kver 0.0.0-no-such-kernel-amd64 -- true
	r=fail
	[ "$rc" != 0 ] && [ "$(wc -l <"$work/nokernel.err")" = 1 ] &&
		grep -q '^vm: boot failed' "$work/nokernel.err" && r=ok
	tap $r "unknown kernel: exit $rc (want non-zero), one line 'vm: boot failed: ...' on stderr"
done

for f in "$work"/*.err; do
	[ -s "$f" ] && { echo "# ${f##*/}:" && show "$f"; }
done
echo "# logs in $work"
tap_done
