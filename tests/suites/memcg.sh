#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Memory pressure: writers in a cgroup v2 whose
# memory.max is far smaller than what they write through the FUSE under
# test, so that the file's page cache must be reclaimed (and written back
# first) many times over. TAP.
#
# In each mode the daemon (fbtestd) runs outside the cgroup; the writers,
# inside it, write one file of FB_MEMCG_FILE_MIB (default 384 MiB, 8 times
# the limit) through the mount with a pattern that is a function of the
# byte offset alone (tests/bin/fbpattern), fsync it and close it. Modes:
#   writeback    cached with FUSE_WRITEBACK_CACHE: the dirty FUSE pages go
#                to the daemon later, by writeback (one buffered writer)
#   passthrough  the backing file's own page cache, charged to the
#                writer's cgroup (one buffered writer, extending the file)
#   pt-parallel  passthrough with FOPEN_PARALLEL_DIRECT_WRITES: four
#                writers, one open each, on their own quarter of a file
#                created at its full size: two O_DIRECT (no write extends
#                the file: the shared-lock path of our series), two buffered
#                (the pressure, beside them)
# Eight tests a mode:
#   1. every writer exits 0 (each wrote all its bytes, its fsync and close
#      succeeded), in the cgroup;
#   2. the cgroup's memory.events says oom_kill 0;
#   3. the limit was reached: memory.events "max" above 0 (or memory.peak
#      within 1/16 of memory.max): a run that never met the limit proves
#      nothing;
#   4. the backing file, read directly (not through FUSE), equals the model
#      (the pattern generated again by fbpattern check, apart from the
#      writers);
#   5. the page cache dropped, the file read through the mount equals the
#      model;
#   6. the daemon is alive;
#   7. the data took the mode's path: writeback, the daemon got WRITE
#      requests from writeback (FUSE_WRITE_CACHE) and granted
#      FUSE_WRITEBACK_CACHE; passthrough, passthrough opens and no WRITE
#      request;
#   8. the unmount, and the daemon exits.
# The kernel log of the suite is scanned by tests/vm/guest/suites.sh (an
# OOM kill's report is a hit there too). During the suite vm.dirty_bytes is
# a quarter of memory.max (see "The system's dirty limits" below).
#
# usage: sh tests/suites/memcg.sh
# Environment (set by the caller): FB_TOP, FB_TARGET, FB_DEV, FB_FSTYPE,
# FB_SCRATCH, FB_XFS (backing files go there when set: a tmpfs backing
# file cannot be reclaimed without swap). Optional: FB_MEMCG_MODES
# (default "writeback passthrough pt-parallel"), FB_MEMCG_MIB (memory.max,
# default 48), FB_MEMCG_FILE_MIB (the file, default 384),
# FB_MEMCG_DIRTY_MIB (vm.dirty_bytes, default a quarter of FB_MEMCG_MIB; 0
# leaves the guest's), FB_MEMCG_BREAK
# (red runs: "model", the model's byte in the middle of the file is
# changed; "oom", a process in the cgroup touches twice the limit of
# anonymous memory beside the writers).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/lib/tap.sh
. "$FB_TOP/tests/lib/tap.sh"
# shellcheck source=tests/lib/fuse.sh
. "$FB_TOP/tests/lib/fuse.sh"

modes=${FB_MEMCG_MODES:-writeback passthrough pt-parallel}
limit=${FB_MEMCG_MIB:-48}
filemib=${FB_MEMCG_FILE_MIB:-384}
dirtymib=${FB_MEMCG_DIRTY_MIB:-$((limit / 4))}
brk=${FB_MEMCG_BREAK:-}
pattern=$FB_TOP/tests/bin/fbpattern
mib=1048576
size=$((filemib * mib))
per_mode=8
t0=$(date +%s)

case $limit$filemib$dirtymib in
*[!0-9]* | 0*) echo "memcg: FB_MEMCG_MIB, FB_MEMCG_FILE_MIB and FB_MEMCG_DIRTY_MIB take a number of MiB" >&2; exit 2 ;;
esac
case $brk in
'' | model | oom) ;;
*) echo "memcg: FB_MEMCG_BREAK takes model or oom, not '$brk'" >&2; exit 2 ;;
esac

mkdir -p "$FB_SCRATCH"
cg_root="" cg_mounted="" cg="" ctl_added="" vm_saved=""
vm=/proc/sys/vm
cleanup() {
	fb_cleanup
	if [ -n "$vm_saved" ]; then
		# a ratio written back also sets its bytes to 0
		for k in dirty background; do
			eval "b=\$vm_${k}_bytes r=\$vm_${k}_ratio"
			kk=dirty_
			[ $k = background ] && kk=dirty_background_
			# shellcheck disable=SC2154 # b and r: by the eval
			if [ "$b" != 0 ]; then
				echo "$b" > "$vm/${kk}bytes"
			else
				echo "$r" > "$vm/${kk}ratio"
			fi
		done
	fi
	[ -n "$cg" ] && [ -d "$cg" ] && rmdir "$cg" 2> /dev/null
	for c in $ctl_added; do
		echo "-$c" > "$cg_root/cgroup.subtree_control" 2> /dev/null
	done
	[ -n "$cg_mounted" ] && umount "$cg_root" 2> /dev/null
}
trap 'cleanup' EXIT
trap 'cleanup; exit 1' INT TERM HUP
fb_backing_base memcg
base=$FB_BASE
tap_diag "target ${FB_TARGET:-?}, $FB_FSTYPE on $FB_DEV; memory.max $limit MiB, file $filemib MiB ($((filemib / limit))x the limit)${brk:+; FB_MEMCG_BREAK=$brk}"

# fail_mode MODE WHY: the mode's tests, each failed for WHY
fail_mode() {
	fm_i=0
	while [ $fm_i -lt $per_mode ]; do
		fm_i=$((fm_i + 1))
		tap_check 1 "[$1] test $fm_i: $2"
	done
}

# The cgroup v2 hierarchy: where it is mounted, or a mount of our own; the
# memory controller for the children of its root, and the io controller
# (cgroup writeback: the dirty pages of the backing file count against the
# cgroup's own dirty limit, not only the system's).
setup=""
cg_root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg_root" ]; then
	cg_root=$FB_SCRATCH/cgroup2
	mkdir -p "$cg_root"
	if mount -t cgroup2 fbmemcg "$cg_root" 2> "$FB_SCRATCH/cg.err"; then
		cg_mounted=1
	else
		setup="mount -t cgroup2: $(head -n 1 "$FB_SCRATCH/cg.err")"
	fi
fi
if [ -z "$setup" ]; then
	ctls=$(cat "$cg_root/cgroup.controllers" 2> /dev/null)
	on=$(cat "$cg_root/cgroup.subtree_control" 2> /dev/null)
	case " $ctls " in
	*" memory "*)
		for c in memory io; do
			case " $on " in *" $c "*) continue ;; esac
			case " $ctls " in *" $c "*) ;; *) continue ;; esac
			if echo "+$c" > "$cg_root/cgroup.subtree_control" 2> "$FB_SCRATCH/cg.err"; then
				ctl_added="$c $ctl_added"
			elif [ $c = memory ]; then
				setup="+memory in $cg_root/cgroup.subtree_control: $(head -n 1 "$FB_SCRATCH/cg.err")"
			else
				tap_diag "+io in $cg_root/cgroup.subtree_control: $(head -n 1 "$FB_SCRATCH/cg.err") (no cgroup writeback)"
			fi
		done
		;;
	*) setup="no memory controller on cgroup v2 ($cg_root/cgroup.controllers: ${ctls:-empty})" ;;
	esac
fi
# The system's dirty limits, below the cgroup's memory.max (FB_MEMCG_DIRTY_MIB,
# default a quarter of it; 0 leaves them). With the guest's own (20% of its
# memory) a passthrough writer's cgroup filled with dirty pages of the
# backing file and the OOM killer killed the writer (6.12.95+deb12, ours,
# a 2 GiB guest); likely (from the code) because the backing file's inode
# belongs to the cgroup writeback of the daemon that created it, so the
# writer's cgroup's own dirty limit does not apply.
if [ "$dirtymib" != 0 ] && [ -z "$setup" ]; then
	vm_dirty_bytes=$(cat $vm/dirty_bytes) vm_dirty_ratio=$(cat $vm/dirty_ratio)
	vm_background_bytes=$(cat $vm/dirty_background_bytes) vm_background_ratio=$(cat $vm/dirty_background_ratio)
	vm_saved=1
	echo $((dirtymib * mib)) > $vm/dirty_bytes &&
		echo $((dirtymib * mib / 4)) > $vm/dirty_background_bytes ||
		setup="vm.dirty_bytes $dirtymib MiB: cannot set"
	tap_diag "vm.dirty_bytes $dirtymib MiB, vm.dirty_background_bytes $((dirtymib / 4)) MiB (were: bytes $vm_dirty_bytes ratio $vm_dirty_ratio, background bytes $vm_background_bytes ratio $vm_background_ratio)"
fi

[ -z "$setup" ] && [ ! -x "$pattern" ] && setup="$pattern is not built (make -C tests bin)"
[ -z "$setup" ]
tap_check $? "a cgroup v2 with the memory controller (${cg_root:-none}: controllers for its children: $(cat "$cg_root/cgroup.subtree_control" 2> /dev/null)); vm.dirty_bytes $(cat $vm/dirty_bytes)${setup:+: $setup}"

# new_cgroup: a fresh cgroup (events and peak from zero) with memory.max
new_cgroup() {
	cg=$cg_root/fbmemcg
	[ -d "$cg" ] && { rmdir "$cg" || return 1; }
	mkdir "$cg" && echo $((limit * mib)) > "$cg/memory.max" || return 1
	# no swap in the guest; none either where there is
	[ ! -f "$cg/memory.swap.max" ] || echo 0 > "$cg/memory.swap.max"
}

# events KEY: a counter of the cgroup's memory.events
events() {
	awk -v k="$1" '$1 == k { print $2 }' "$cg/memory.events"
}

# in_cg CMD...: CMD in the cgroup (the shell moves itself there, sees that
# it is there, and execs CMD)
in_cg() {
	# shellcheck disable=SC2016 # expanded by that shell
	sh -c 'echo $$ > "$1/cgroup.procs" || exit 1
		grep -qx "0::/${1##*/}" /proc/self/cgroup || { echo "not in $1: $(cat /proc/self/cgroup)" >&2; exit 1; }
		shift && exec "$@"' in_cg "$cg" "$@"
}

run_mode() {
	m=$1
	case $m in
	writeback | passthrough) spec=b ;;
	pt-parallel) spec=dbdb ;;
	*) fail_mode "$m" "unknown mode (writeback, passthrough, pt-parallel)"; return ;;
	esac
	margs=$(fb_mode_args "$m") || { fail_mode "$m" "unknown mode"; return; }
	FB_BACK=$base/$m
	rm -rf "$FB_BACK"
	mkdir -p "$FB_BACK"
	tm=$(date +%s)
	# shellcheck disable=SC2086 # several options
	if ! fb_mount $margs --threads 4 2> "$FB_SCRATCH/daemon.err"; then
		if grep -q 'did not offer FUSE_PASSTHROUGH in INIT' "$FB_SCRATCH/daemon.err"; then
			tap_skip_n $per_mode "[$m]" "mount: $(grep -m 1 'did not offer FUSE_PASSTHROUGH' "$FB_SCRATCH/daemon.err")"
		else
			fail_mode "$m" "mount ($margs): $(head -n 1 "$FB_SCRATCH/daemon.err")"
		fi
		fb_cleanup
		return
	fi
	if ! new_cgroup 2> "$FB_SCRATCH/cg.err"; then
		fail_mode "$m" "cgroup $cg_root/fbmemcg with memory.max $limit MiB: $(head -n 1 "$FB_SCRATCH/cg.err")"
		fb_umount
		return
	fi
	f=$FB_MNT/data
	nw=${#spec}
	hog=""
	if [ "$brk" = oom ]; then
		in_cg "$pattern" hog $((2 * limit)) > "$FB_SCRATCH/hog.out" 2>&1 &
		hog=$!
	fi
	ta=$(date +%s)
	in_cg timeout -k 5 300 "$pattern" write "$f" "$size" --writers "$spec" > "$FB_SCRATCH/write.out" 2> "$FB_SCRATCH/write.err"
	rc=$?
	tb=$(date +%s)
	[ -n "$hog" ] && wait "$hog"
	tap_check $rc "[$m] $nw writer(s) ($spec: b buffered, d O_DIRECT) in a cgroup of memory.max $limit MiB write $filemib MiB through the mount, fsync and close: exit 0"
	if [ $rc != 0 ]; then
		tap_diag "writer exit $rc$([ $rc = 124 ] && echo ' (timeout)'): $(head -n 3 "$FB_SCRATCH/write.err" | tr '\n' ' ')"
	fi
	grep -h '^writer' "$FB_SCRATCH/write.out" | while IFS= read -r l; do tap_diag "[$m] $l"; done
	nmax=$(events max) noom=$(events oom) nkill=$(events oom_kill)
	peak=$(cat "$cg/memory.peak" 2> /dev/null)
	peakmib=$((${peak:-0} / mib))
	[ "${nkill:-x}" = 0 ]
	tap_check $? "[$m] memory.events of the cgroup: oom_kill ${nkill:-missing} (oom ${noom:-missing})"
	[ "${nmax:-0}" -gt 0 ] || [ "${peak:-0}" -ge $((limit * mib * 15 / 16)) ]
	tap_check $? "[$m] the limit was reached: memory.events max ${nmax:-missing}, memory.peak ${peakmib} MiB of memory.max $limit MiB (file $filemib MiB)"
	flip=""
	[ "$brk" = model ] && flip="--flip $((size / 2 + 4097))"
	# shellcheck disable=SC2086 # an option and its value
	timeout -k 5 120 "$pattern" check "$FB_BACK/data" "$size" $flip > "$FB_SCRATCH/check.out" 2>&1
	tap_check $? "[$m] the backing file read directly, not through FUSE: $(head -n 1 "$FB_SCRATCH/check.out")"
	fb_drop_caches
	# shellcheck disable=SC2086 # an option and its value
	timeout -k 5 120 "$pattern" check "$f" "$size" $flip > "$FB_SCRATCH/check.out" 2>&1
	tap_check $? "[$m] caches dropped, through the mount: $(head -n 1 "$FB_SCRATCH/check.out")"
	tc=$(date +%s)
	pid=$(fb_daemon_pid)
	[ -n "$pid" ] && fb_alive "$pid"
	tap_check $? "[$m] the daemon (pid ${pid:-none}) is alive"
	case $m in
	writeback)
		wg=$(fb_stat writeback_granted)
		wc=$(fb_statn writes_cache)
		nwr=$(fb_statn op_WRITE)
		[ "$wg" = 1 ] && [ "${wc:-0}" -gt 0 ]
		tap_check $? "[$m] FUSE_WRITEBACK_CACHE granted (${wg:-?}); the daemon got ${wc:-?} WRITE requests from writeback (FUSE_WRITE_CACHE) of ${nwr:-?}"
		;;
	*)
		po=$(fb_statn passthrough_opens)
		nwr=$(fb_statn op_WRITE)
		[ "${po:-0}" -gt 0 ] && [ "${nwr:-x}" = 0 ]
		tap_check $? "[$m] the I/O bypassed the daemon (passthrough opens ${po:-?}, WRITE requests ${nwr:-?})"
		;;
	esac
	fb_umount
	tap_check $? "[$m] unmount; the daemon exits"
	rmdir "$cg" 2> /dev/null
	rm -rf "$FB_BACK"
	tap_diag "[$m] $(($(date +%s) - tm)) s (write $((tb - ta)) s, checks $((tc - tb)) s)"
}

for m in $modes; do
	if [ -n "$setup" ]; then
		fail_mode "$m" "no cgroup: $setup"
		continue
	fi
	run_mode "$m"
done
tap_diag "memcg: $(($(date +%s) - t0)) s"
fb_mounted "$FB_MNT" && tap_check 1 "nothing left mounted on $FB_MNT"
tap_done
