#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Privilege removal on passthrough writes (guest). An unprivileged write must
# clear suid/sgid and remove security.capability, on stock and on ours; after
# the daemon changes them out of band and notifies the kernel, the next write
# clears them again; ours asks the daemon for security.capability once per
# inode instead of once per write; and with a FUSE_HANDLE_KILLPRIV_V2 daemon
# suid must not survive an unprivileged write (upstream lets it survive).
#
# The privilege cache's contract (patch 0003): set only on a definite answer
# (a GETXATTR error or a killed writer leaves it unset), trusted only until
# the attribute timeout (an out-of-band suid is removed after it, under a
# steady write stream), not undone by our own ctime changes (a stat loop
# beside the writers costs at most about one GETXATTR per timeout), used by
# passthrough writes only (cached writes, fallocate and copy_file_range
# check as upstream does), and KILLPRIV_V2 servers that allow chmod only to
# the owner: the write succeeds and suid goes. Each of these failed on the
# series before fb2 (docs/design.md, "The privilege cache and its security rule").
# Since fb4 (each failed on fb3): the cache has a window of its own
# (privcache_ms, default 1 s) whatever the attribute timeout, privcache_ms=0
# asks on every write as upstream, and S_NOSEC is set only where the check
# proved there is nothing to remove, so an unprivileged truncate during a
# root write that kept suid removes it.
# Issue 27, item 3: per write, ours sends no more GETATTR and no more
# GETXATTR than stock, with attr_timeout 0 and on a KILLPRIV_V2 mount.
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
mkdir -p "$FB_SCRATCH"
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
writes=20

for t in setpriv setcap getcap getfattr setfattr fio xfs_io fallocate; do
	command -v $t > /dev/null || { tap_skip "security suite" "$t is not installed"; tap_done; exit; }
done

# uwrite OFFSET: one byte written by uid 65534 through the mount.
uwrite() {
	$nobody dd if=/dev/zero of="$FB_MNT/f" bs=1 count=1 seek="$1" conv=notrunc status=none
}
mode_of() { stat -c %a "$FB_BACK/f"; }
# delta BEFORE AFTER: AFTER - BEFORE, nothing when either figure is missing
# (fb_statn: no fresh statistics), which no bound accepts
delta() { [ -n "$1" ] && [ -n "$2" ] && echo $(($2 - $1)); }
# --caps-in-daemon keeps security.capability as this xattr of the backing
# file, which no write to the backing file strips (a server whose storage
# keeps xattrs elsewhere): only the kernel's file_remove_privs() removes it.
shadow=trusted.fbtestd.capability
capv2=0x0100000200200000000000000000000000000000	# cap_net_raw+ep, v2
dcaps() {
	if getfattr -n $shadow --absolute-names "$FB_BACK/f" > /dev/null 2>&1; then
		echo set
	else
		echo none
	fi
}
# rwrite OFFSET: one byte written by root through the mount
rwrite() {
	dd if=/dev/zero of="$FB_MNT/f" bs=1 count=1 seek="$1" conv=notrunc status=none
}
# ufio NAME ARGS...: fio as uid 65534, random 4 KiB writes to the test file
ufio() {
	fio_name=$1
	shift
	$nobody fio --name="$fio_name" --filename="$FB_MNT/f" --rw=randwrite \
		--bs=4k --ioengine=psync --fallocate=none \
		--group_reporting "$@" > "$FB_SCRATCH/$fio_name.fio" 2>&1
}
caps_of() { getcap "$FB_BACK/f" 2> /dev/null | sed 's/^[^ ]* //'; }
# privcache: our module's privcache_ms parameter file, none on stock
privcache() {
	for m in fuse fusebp; do
		[ -w /sys/module/$m/parameters/privcache_ms ] &&
			echo /sys/module/$m/parameters/privcache_ms && return
	done
}
# set_privcache MS: set it where there is one
set_privcache() {
	pc=$(privcache)
	[ -z "$pc" ] || echo "$1" > "$pc"
}

# mount_pt [DAEMON-ARGS]: passthrough mount with a world-writable test file.
mount_pt() {
	rm -rf "$FB_BACK"
	if ! fb_mount --mode passthrough --parallel "$@" 2> "$FB_SCRATCH/mount.err"; then
		tap_skip "passthrough mount" "$(head -n 1 "$FB_SCRATCH/mount.err")"
		return 1
	fi
	head -c 8192 /dev/zero > "$FB_MNT/f"
	chmod 0777 "$FB_MNT/f"
}

if mount_pt; then
	chmod 4777 "$FB_MNT/f" && setcap cap_net_raw+ep "$FB_MNT/f"
	tap_check $? "set suid and security.capability through the mount ($(mode_of), $(caps_of))"
	uwrite 1
	tap_check $? "unprivileged passthrough write succeeds"
	[ "$(mode_of)" = 777 ]
	tap_check $? "suid cleared by the unprivileged write (mode $(mode_of))"
	[ -z "$(caps_of)" ]
	tap_check $? "security.capability removed by the unprivileged write ($(caps_of))"

	# One process, one open file, $writes write(2) calls of one byte:
	# quick enough that no attribute refresh (1 s) falls in between, since
	# a refresh that shows a new ctime rightly makes the kernel ask again.
	before=$(fb_statn op_GETXATTR)
	$nobody dd if=/dev/zero of="$FB_MNT/f" bs=1 count=$writes seek=2 conv=notrunc status=none
	rc=$?
	after=$(fb_statn op_GETXATTR)
	n=$(delta "$before" "$after")
	tap_diag "$writes unprivileged writes sent $n GETXATTR to the daemon"
	[ $rc = 0 ] && [ -n "$n" ] && [ "$n" -le 1 ]
	r=$?
	# stock: the writes succeed, each asking (one GETXATTR a write at least)
	[ $rc = 0 ] && [ -n "$n" ] && [ "$n" -ge $writes ]
	tap_stock $r $? "at most one GETXATTR for $writes writes to one inode (got ${n:-no statistics})" \
		"upstream asks the daemon for security.capability on every write"

	# Out of band, then the daemon notifies (NOTIFY_INVAL_INODE).
	chmod 4777 "$FB_BACK/f" && setcap cap_net_raw+ep "$FB_BACK/f" &&
		kill -USR2 "$(cat "$FB_PIDFILE")" && sleep 0.5
	[ "$(stat -c %a "$FB_MNT/f")" = 4777 ]
	tap_check $? "out-of-band suid visible through the mount after the notify"
	uwrite 3
	[ "$(mode_of)" = 777 ] && [ -z "$(caps_of)" ]
	tap_check $? "after out-of-band change + notify, the next write clears suid and the capability again ($(mode_of) $(caps_of))"

	# sgid with group-execute is cleared too; a root write keeps suid.
	chmod 2777 "$FB_MNT/f" && uwrite 4
	[ "$(mode_of)" = 777 ]
	tap_check $? "sgid (with group exec) cleared by an unprivileged write (mode $(mode_of))"
	chmod 4777 "$FB_MNT/f" && dd if=/dev/zero of="$FB_MNT/f" bs=1 count=1 seek=5 conv=notrunc status=none
	[ "$(mode_of)" = 4777 ]
	tap_check $? "a write by root (CAP_FSETID) keeps suid (mode $(mode_of))"
	fb_umount
fi

if mount_pt --killpriv-v2; then
	chmod 4777 "$FB_MNT/f"
	uwrite 1
	tap_check $? "KILLPRIV_V2 daemon: unprivileged passthrough write succeeds"
	m=$(mode_of)
	tap_diag "KILLPRIV_V2 daemon: mode after an unprivileged passthrough write: $m"
	[ "$m" = 777 ]
	r=$?
	# stock: suid survives, the mode untouched
	[ "$m" = 4777 ]
	tap_stock $r $? "KILLPRIV_V2 daemon: suid does not survive an unprivileged passthrough write (mode $m)" \
		"passthrough writes never reach a KILLPRIV_V2 server, and the kernel leaves suid to it"
	fb_umount
fi

# 1. A GETXATTR error is no answer: the cache stays unset, and the next
# unprivileged write removes the capability as upstream's does.
for flt in err-eio err-enomem; do
	mount_pt --caps-in-daemon --attr-timeout 60 --fault $flt \
		--fault-op GETXATTR --fault-uid 65534 || continue
	setcap cap_net_raw+ep "$FB_MNT/f"
	c0=$(dcaps)
	uwrite 1
	rc1=$?
	uwrite 2
	rc2=$?
	c=$(dcaps)
	tap_diag "$flt on the first GETXATTR of uid 65534: capability $c0 before, writes exit $rc1 $rc2, then $c"
	[ "$c0" = set ] && [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$c" = none ]
	tap_check $? "GETXATTR answered with $flt once: that write succeeds as upstream's does (exit $rc1), the next unprivileged one removes security.capability ($c)"
	fb_umount
done
if mount_pt --caps-in-daemon --attr-timeout 60 --fault stall-eintr \
	--fault-op GETXATTR --fault-uid 65534; then
	setcap cap_net_raw+ep "$FB_MNT/f"
	uwrite 1 &
	wpid=$!
	sleep 1
	kill -9 $wpid
	wait $wpid
	krc=$?
	uwrite 2
	rc=$?
	c=$(dcaps)
	tap_diag "writer killed during its GETXATTR (exit $krc), the daemon answered EINTR; next write exit $rc, capability $c"
	[ $krc = 137 ] && [ $rc = 0 ] && [ "$c" = none ]
	tap_check $? "a writer killed while its GETXATTR is pending: the next unprivileged write removes security.capability ($c)"
	fb_umount
fi

# 2. Out of band and never notified: suid set on the backing file under a
# steady stream of unprivileged passthrough writes from one open file (no
# lookup, no stat) is gone once the attributes (1 s) have expired. 16 MiB:
# fio does not get round the file (and reopen it) in 8 s of 500 writes/s.
if mount_pt --attr-timeout 1; then
	head -c 16M /dev/zero > "$FB_MNT/f"
	uwrite 1
	m0=$(stat -c %y "$FB_BACK/f")
	ufio oob --size=16m --time_based --runtime=8 --thinktime=2000 &
	fpid=$!
	# fio has the file open once its first write shows in the backing file
	i=0
	while [ "$(stat -c %y "$FB_BACK/f")" = "$m0" ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	chmod 4777 "$FB_BACK/f"
	wait $fpid
	frc=$?
	m=$(mode_of)
	tap_diag "fio exit $frc; mode after its writes: $m (first write seen after $i polls)"
	[ $frc = 0 ] && [ "$m" = 777 ]
	r=$?
	# stock: the writes succeed and suid survives them
	[ $frc = 0 ] && [ "$m" = 4777 ]
	tap_stock $r $? "suid added out of band under a steady write stream: removed after the attribute timeout (mode $m)" \
		"upstream decides with the cached mode, which nothing refreshes during the writes"
	fb_umount
fi

# 3. Our own writes change ctime; a stat loop beside 4 writers refreshes the
# attributes all the time. At most one GETXATTR per attribute timeout (1 s)
# and inode. The writers pause 200 ms between writes: a refresh whose reply
# crosses a write is dropped as stale, so without pauses almost none would
# be applied.
# The limit is a fixed figure, from fio's runtime, not from the wall time
# measured around fio (which grows with a slow machine and would let a slow
# run pass with more asks): one file, so one inode; each of the 4 jobs
# writes for sec_runtime seconds (fio's --runtime counts from the job's
# start, its start-up before that writes nothing and asks nothing); the
# privilege cache holds an answer for 1 s (the attribute timeout and
# privcache_ms 1000), so the writes of those seconds ask at most once a
# second: sec_runtime; plus the first check (uwrite's answer has mostly
# expired when fio writes); plus one for the second in which the jobs start
# (they do not start at the same instant) and one for the second in which
# they stop (each stops sec_runtime after its own start). 4 s: at most 7.
# Stock asks on every write: 4 jobs writing about 5 times a second each
# for 4 s, tens of asks.
sec_runtime=4
if mount_pt --attr-timeout 1; then
	uwrite 1
	# until the writers are done: fio may take seconds to start
	(
		while :; do
			stat -c %Z "$FB_MNT/f" > /dev/null
		done
	) &
	spid=$!
	before=$(fb_statn op_GETXATTR)
	t0=$(date +%s)
	ufio statloop --size=8k --numjobs=4 --time_based --runtime=$sec_runtime \
		--thinktime=200000
	frc=$?
	t1=$(date +%s)
	after=$(fb_statn op_GETXATTR)
	kill $spid
	wait $spid
	n=$(delta "$before" "$after")
	# fixed, whatever the wall time: see above
	limit=$((sec_runtime + 1 + 2))
	iops=$(sed -n 's/.*IOPS=\([^,]*\),.*/\1/p' "$FB_SCRATCH/statloop.fio" | head -n 1)
	tap_diag "4 writers beside a stat loop, $((t1 - t0)) s: $n GETXATTR (limit $limit), $iops IOPS (fio exit $frc)"
	[ $frc = 0 ] && [ -n "$n" ] && [ "$n" -le $limit ]
	r=$?
	# stock: fio succeeds, and every write asks: more than the limit
	[ $frc = 0 ] && [ -n "$n" ] && [ "$n" -gt $limit ]
	tap_stock $r $? "writers beside a stat loop: at most one GETXATTR per attribute timeout, $limit for ${sec_runtime} s of writes (got ${n:-no statistics} in $((t1 - t0)) s)" \
		"upstream asks the daemon for security.capability on every write"
	fb_umount
fi

# 3b. The same without timing: one writer alternates write(2) and stat(2),
# attributes valid for 60 s. Each stat refreshes the attributes, whose ctime
# our own write changed: that alone must not make the next write ask again.
if mount_pt --attr-timeout 60; then
	# the property is about ctime, not the window: make it the longest
	set_privcache 60000
	uwrite 1
	before=$(fb_statn op_GETXATTR)
	i=0
	while [ $i -lt 20 ]; do
		uwrite $((i + 2)) && stat -c %Z "$FB_MNT/f" > /dev/null
		i=$((i + 1))
	done
	after=$(fb_statn op_GETXATTR)
	set_privcache 1000
	n=$(delta "$before" "$after")
	tap_diag "20 writes, each followed by a stat: $n GETXATTR"
	[ -n "$n" ] && [ "$n" -le 1 ]
	r=$?
	# stock: a GETXATTR for each of the 20 writes at least
	[ -n "$n" ] && [ "$n" -ge 20 ]
	tap_stock $r $? "20 writes, each followed by a stat that shows the new ctime: at most one GETXATTR (got ${n:-no statistics})" \
		"upstream asks the daemon for security.capability on every write"
	fb_umount
fi

# 3c. A stream of writes without pauses, nothing else on the inode: when the
# attributes expire, the write that finds the cache expired refreshes them
# (one GETATTR) and checks (one GETXATTR). The kernel takes attributes as
# valid through their last jiffy (fuse_update_get_attr()); a cache expiring
# a jiffy earlier made every write in that jiffy ask the daemon (the series
# before fb3: 5 to 7 GETXATTR per GETATTR on 7.3.4 at 4,000 writes/s).
# At least two refreshes, so that the bound is not met by an idle stream.
if mount_pt --attr-timeout 1; then
	uwrite 1
	ops() { [ -n "$1" ] && [ -n "$2" ] && echo $(($1 + $2)); }
	getx0=$(fb_statn op_GETXATTR)
	geta0=$(ops "$(fb_statn op_GETATTR)" "$(fb_statn op_STATX)")
	ufio stream --size=8k --time_based --runtime=5
	frc=$?
	getx=$(delta "$getx0" "$(fb_statn op_GETXATTR)")
	geta=$(delta "$geta0" "$(ops "$(fb_statn op_GETATTR)" "$(fb_statn op_STATX)")")
	iops=$(sed -n 's/.*IOPS=\([^,]*\),.*/\1/p' "$FB_SCRATCH/stream.fio" | head -n 1)
	tap_diag "one writer, 5 s without pauses: $getx GETXATTR, $geta GETATTR/STATX, $iops IOPS (fio exit $frc)"
	[ $frc = 0 ] && [ -n "$getx" ] && [ -n "$geta" ] && [ "$geta" -ge 2 ] && [ "$getx" -le $((geta + 1)) ]
	r=$?
	# stock: fio succeeds, and its writes ask far more often than the
	# attributes are refreshed
	[ $frc = 0 ] && [ -n "$getx" ] && [ -n "$geta" ] && [ "$getx" -gt $((geta + 1)) ]
	tap_stock $r $? "a steady write stream: at most one GETXATTR per attribute refresh (got $getx for $geta)" \
		"upstream asks the daemon for security.capability on every write"
	fb_umount
fi

# 4. The cache is for passthrough writes only: warm it with root's
# passthrough writes, add the capability out of band (unseen, attributes
# valid for 60 s), then uid 65534 opens the same inode in cached or direct
# mode. Cached writes, fallocate and copy_file_range remove it as upstream
# does; direct writes leave it to the server, as upstream does.
for how in cached fallocate copy_range direct; do
	mode=cached
	[ $how = direct ] && mode=direct
	mount_pt --caps-in-daemon --attr-timeout 60 --mode-for-uid 65534:$mode || continue
	head -c 4096 /dev/urandom > "$FB_MNT/src" && chmod 0644 "$FB_MNT/src"
	rwrite 1 && rwrite 2 && setfattr -n $shadow -v $capv2 "$FB_BACK/f"
	c0=$(dcaps)
	case $how in
	cached | direct) uwrite 3 ;;
	fallocate) $nobody fallocate -o 0 -l 4096 "$FB_MNT/f" ;;
	copy_range)
		$nobody xfs_io -c "copy_range -s 0 -d 0 -l 4096 $FB_MNT/src" "$FB_MNT/f"
		;;
	esac
	rc=$?
	c=$(dcaps)
	want=none
	[ $how = direct ] && want="set"
	tap_diag "$how ($mode open): capability $c0 before, exit $rc, then $c"
	[ "$c0" = set ] && [ $rc = 0 ] && [ "$c" = $want ]
	tap_check $? "cache warm from passthrough writes, then an unprivileged $how: security.capability $c, as upstream ($want)"
	fb_umount
done

# 5. A KILLPRIV_V2 server that allows chmod only to the owner: the kernel
# must not chmod with the writer's credentials (the write would fail), and
# suid must still go (FATTR_KILL_SUIDGID).
if mount_pt --killpriv-v2 --chmod-owner-only; then
	chmod 4777 "$FB_MNT/f"
	uwrite 1
	rc=$?
	m=$(mode_of)
	tap_diag "owner-only chmod, KILLPRIV_V2: write exit $rc, mode $m"
	[ $rc = 0 ]
	tap_check $? "KILLPRIV_V2 server, chmod for the owner only: the unprivileged passthrough write succeeds (exit $rc)"
	[ "$m" = 777 ]
	r=$?
	# stock: suid survives, the mode untouched
	[ "$m" = 4777 ]
	tap_stock $r $? "KILLPRIV_V2 server, chmod for the owner only: suid removed (mode $m)" \
		"passthrough writes never reach a KILLPRIV_V2 server, and the kernel leaves suid to it"
	fb_umount
fi
# 6. The cache's own window (privcache_ms, 1 s by default), whatever the
# attribute timeout: a capability added out of band, unseen, attributes
# valid for a day, is removed by the first unprivileged write after the
# window. fb3 trusted the cache for the whole attribute timeout.
if mount_pt --caps-in-daemon --attr-timeout 86400; then
	uwrite 1 && uwrite 2 && setfattr -n $shadow -v $capv2 "$FB_BACK/f"
	c0=$(dcaps)
	sleep 1.5
	uwrite 3
	rc=$?
	c=$(dcaps)
	tap_diag "attr_timeout 86400: capability $c0 after the out-of-band setcap, write 1.5 s later exit $rc, then $c"
	[ "$c0" = set ] && [ $rc = 0 ] && [ "$c" = none ]
	tap_check $? "attr_timeout 86400: an out-of-band security.capability is removed by the first unprivileged write after privcache_ms ($c)"
	fb_umount
fi

# 7. privcache_ms=0: every write checks, as upstream: one GETXATTR per
# write, no more (the check that proves nothing is left lets the write skip
# the backing file helpers' second one), no less. fb3 had no such
# parameter and asked once.
if mount_pt --attr-timeout 60; then
	set_privcache 0
	uwrite 1
	before=$(fb_statn op_GETXATTR)
	$nobody dd if=/dev/zero of="$FB_MNT/f" bs=1 count=$writes seek=2 conv=notrunc status=none
	rc=$?
	after=$(fb_statn op_GETXATTR)
	set_privcache 1000
	n=$(delta "$before" "$after")
	tap_diag "privcache_ms=0 (parameter: ${pc:-none}): $writes unprivileged writes sent $n GETXATTR"
	[ $rc = 0 ] && [ -n "$n" ] && [ "$n" -eq $writes ]
	tap_check $? "privcache_ms=0: $writes unprivileged writes send $writes GETXATTR, as upstream (got ${n:-no statistics})"
	fb_umount
fi

# 8. S_NOSEC only where the check proved there is nothing to remove. Root
# (CAP_FSETID) writes to a 04777 file, keeping suid, from a userfaultfd page
# that stalls the copy with the inode lock held; meanwhile uid 65534
# truncates the file. do_truncate() decides on privilege removal before it
# takes the inode lock: it must see suid, as on stock (fb3 had S_NOSEC
# pinned for the root write: suid stayed). O_DIRECT: on the guest's XFS.
if [ -n "${FB_XFS:-}" ] && [ -d "$FB_XFS" ]; then
	sec_back=$FB_BACK
	FB_BACK=$FB_XFS/secback
	if mount_pt; then
		chmod 4777 "$FB_MNT/f"
		FB_UFFD_CMD="$nobody truncate -s 0 $FB_MNT/f" timeout -k 5 90 \
			"$FB_TOP/tests/parallel/uffd_pwrite" -t 2000 "$FB_MNT/f:cmd:any" \
			> "$FB_SCRATCH/trunc.out" 2>&1
		rc=$?
		m=$(mode_of)
		sed -n 's/^# //p' "$FB_SCRATCH/trunc.out" | while IFS= read -r l; do tap_diag "$l"; done
		tap_diag "root write stalled in its copy, truncate by uid 65534 meanwhile: uffd_pwrite exit $rc, mode $m"
		[ $rc = 0 ] && [ "$m" = 777 ]
		tap_check $? "a truncate by uid 65534 during a root (CAP_FSETID) passthrough write removes suid, as upstream (mode $m)"
		fb_umount
	fi
	FB_BACK=$sec_back
else
	tap_skip "truncate during a root passthrough write" "no XFS scratch (FB_XFS) for O_DIRECT"
fi
# 9. Requests per write against stock (issue 27, item 3): ours never asks
# the daemon more often than stock does. Stock's figures come from a model,
# asserted when the suite runs on stock (tap_stock): a passthrough write
# never refreshes the attributes (no GETATTR or STATX), and its
# file_remove_privs() sends GETXATTR("security.capability") unless S_NOSEC
# is set; S_NOSEC is set only on a FUSE_HANDLE_KILLPRIV_V2 mount (SB_NOSEC),
# by the first write's check, and stays until an attribute refresh, which
# nothing here makes. So for $pw_n writes, stock sends:
#   attr_timeout 0:  $pw_n GETXATTR, 0 GETATTR (one check a write);
#   KILLPRIV_V2:     1 GETXATTR, 0 GETATTR (the first write sets S_NOSEC).
# The file (mode 0777, no capability) is opened once and left alone for
# 1.2 s, so that attributes valid for 1 s have expired; then $pw_n writes
# of one byte, 0.3 s apart, through that one descriptor (no open, no stat
# in between): they span more than privcache_ms and the attribute timeout.
# The writes must not reach the daemon (passthrough: no WRITE request).
pw_n=6
# pw_ops KEY...: the sum of fbtestd's counters KEY..., nothing when any is
# missing
pw_ops() {
	pw_sum=0
	for pw_k in "$@"; do
		pw_v=$(fb_statn "$pw_k") || return 1
		pw_sum=$((pw_sum + pw_v))
	done
	echo $pw_sum
}
for pw_cfg in attr0 killpriv2; do
	for pw_who in 65534 root; do
		case $pw_cfg in
		attr0)
			pw_args="--attr-timeout 0" pw_label="attr_timeout 0"
			pw_getx=$pw_n
			;;
		killpriv2)
			pw_args="--killpriv-v2" pw_label="KILLPRIV_V2"
			pw_getx=1
			;;
		esac
		pw_as=""
		[ $pw_who = root ] || pw_as=$nobody
		# shellcheck disable=SC2086 # several options
		mount_pt $pw_args || continue
		# the numbers stay empty (a failure) if the open fails
		pw_rc=open pw_a="" pw_x="" pw_w=""
		{
			sleep 1.2
			pw_a0=$(pw_ops op_GETATTR op_STATX)
			pw_x0=$(fb_statn op_GETXATTR)
			pw_w0=$(fb_statn op_WRITE)
			# shellcheck disable=SC2086,SC2016 # setpriv and its options, or nothing; the writer's own script
			$pw_as sh -c 'i=0
				while [ $i -lt "$1" ]; do
					[ $i = 0 ] || sleep 0.3
					printf x || exit 1
					i=$((i + 1))
				done' writer $pw_n >&3
			pw_rc=$?
			pw_a=$(delta "$pw_a0" "$(pw_ops op_GETATTR op_STATX)")
			pw_x=$(delta "$pw_x0" "$(fb_statn op_GETXATTR)")
			pw_w=$(delta "$pw_w0" "$(fb_statn op_WRITE)")
		} 3<> "$FB_MNT/f"
		tap_diag "$pw_label, uid $pw_who: $pw_n writes (exit $pw_rc) sent ${pw_x:-no statistics} GETXATTR, ${pw_a:-no statistics} GETATTR/STATX, ${pw_w:-no statistics} WRITE; stock's model: $pw_getx GETXATTR, 0 GETATTR"
		[ $pw_rc = 0 ] && [ -n "$pw_x" ] && [ -n "$pw_a" ] && [ "$pw_w" = 0 ] &&
			[ "$pw_x" -le "$pw_getx" ] && [ "$pw_a" -le 0 ]
		pw_r=$?
		# stock: exactly the model's figures
		[ $pw_rc = 0 ] && [ "$pw_w" = 0 ] && [ "$pw_x" = "$pw_getx" ] && [ "$pw_a" = 0 ]
		tap_stock $pw_r $? "$pw_label, $pw_n passthrough writes by uid $pw_who to a file without privileges: no more GETXATTR ($pw_x) or GETATTR ($pw_a) than stock ($pw_getx and 0)" \
			"stock's own figures, the model: $pw_getx GETXATTR and 0 GETATTR for $pw_n writes"
		fb_umount
	done
done
# 10. Issue 30, item 14: the privilege cache under mixed concurrency. On the
# guest's XFS (O_DIRECT), so that passthrough writes by uid 65534 run under
# the shared inode lock with S_NOSEC pinned (FOPEN_PARALLEL_DIRECT_WRITES, a
# non-extending O_DIRECT write, the cache trusted: the parallel suite shows
# such writes running side by side). Meanwhile, on another open, root
# changes the privileges; they must be removed as stock removes them: a
# change seen by the kernel (chmod, setcap through the mount; a notified
# out-of-band change) by the next unprivileged write or truncate, whatever
# privcache_ms (60 s here, so that only the change itself can end the
# cache), and one never seen (security.capability set on the backing file)
# within privcache_ms. And the writers lose no byte (tests/bin/fbwriters:
# every block of the file, through the mount and in the backing file, is
# its last acknowledged write). Stock passes these (it checks on every
# write, under the exclusive lock); each failed on a module built with the
# cache's invalidation, the truncate's second decision or the window broken
# (results/red-runs/issue30-items14-15/).
wr=$FB_TOP/tests/bin/fbwriters
mix_n=7
# FB_SEC_CHECKBREAK=1: the red run of these checks themselves, with the
# module unchanged: the writers' model claims a write that was not made
# (FB_WRITERS_BREAK), 10a's model has other bytes, root's opens in 10b are
# passthrough (so its write beside the writers is made), and 11c's first
# test makes its idmapped mount of the guest's XFS instead of the FUSE
# mount. Each of those tests must fail.
mix_cached=0:cached mix_fill=A idm_first=""
if [ "${FB_SEC_CHECKBREAK:-0}" = 1 ]; then
	FB_WRITERS_BREAK=1
	export FB_WRITERS_BREAK
	mix_cached=1:cached mix_fill=B idm_first=${FB_XFS:-/nonexistent}
	tap_diag "FB_SEC_CHECKBREAK=1: the checks of sections 10 and 11 are broken on purpose"
fi
if [ -n "${FB_XFS:-}" ] && [ -d "$FB_XFS" ] && [ -x "$wr" ]; then
	sec_back=$FB_BACK
	FB_BACK=$FB_XFS/mixback
	# mix_start: 4 writers by uid 65534 (fbwriters, one open each, 16
	# blocks each), running once they print "started"
	mix_start() {
		$nobody "$wr" "$FB_MNT/f" "$FB_BACK/f" 4 16 > "$FB_SCRATCH/mix.w" 2>&1 &
		mix_pid=$!
		# shellcheck disable=SC2016 # the inner shell's own argument
		fb_wait_while 100 sh -c '! grep -q started "$1"' sh "$FB_SCRATCH/mix.w"
	}
	# mix_stop: stop them; 0 when no write failed and the bytes are right
	mix_stop() {
		kill -TERM $mix_pid
		wait $mix_pid
		mix_rc=$?
		sed -n 's/^# //p' "$FB_SCRATCH/mix.w" | while IFS= read -r l; do tap_diag "writers: $l"; done
		return $mix_rc
	}

	# 10a. Deterministic: root's O_DIRECT passthrough write stalls in its
	# copy (tests/parallel/uffd_pwrite: a userfaultfd page) under the
	# shared lock with S_NOSEC pinned. Just before it, suid and
	# security.capability were set on the backing file, not yet seen (the
	# cache, 60 s here, lets the write skip its check; stock's write
	# removes the capability then). During the stall uid 65534 writes a
	# page of 'P' with O_DIRECT on another open: on ours its bytes are in
	# the backing file 2 s later (the lock is shared; its close then waits
	# for the inode lock in FLUSH, so it runs in the background), on stock
	# not (every passthrough write takes the lock exclusively). Then the
	# daemon notifies (NOTIFY_INVAL_INODE), a stat shows 4777, and uid 65534
	# truncates the file (to 2 MiB, keeping every byte). do_truncate()
	# decides before it takes the inode lock, and sees S_NOSEC:
	# fuse_setattr() must decide again (FUSE_I_NOSEC_SET), as stock decides.
	# Nothing touches the backing file's inode during the stall: the stalled
	# direct write holds its lock (a chmod there would wait for the write).
	if mount_pt --caps-in-daemon --attr-timeout 60; then
		set_privcache 60000
		pid=$(fb_daemon_pid)
		head -c 4096 /dev/zero | tr '\0' P > "$FB_SCRATCH/mix.p"
		chmod 0644 "$FB_SCRATCH/mix.p"
		probe="$nobody dd if=$FB_SCRATCH/mix.p of=$FB_MNT/f bs=4096 count=1 seek=32 oflag=direct conv=notrunc status=none"
		FB_UFFD_BEFORE_A="chmod 4777 $FB_BACK/f && setfattr -n $shadow -v $capv2 $FB_BACK/f" \
		FB_UFFD_CMD="$probe & sleep 2; if cmp -s -n 4096 -i 0:131072 $FB_SCRATCH/mix.p $FB_BACK/f; then echo through; else echo waiting; fi > $FB_SCRATCH/mix.probe; kill -USR2 $pid && sleep 0.5 && stat -c %a $FB_MNT/f > $FB_SCRATCH/mix.seen && $nobody truncate -s 2M $FB_MNT/f; rc=\$?; wait; exit \$rc" \
			timeout -k 5 90 "$FB_TOP/tests/parallel/uffd_pwrite" -t 6000 "$FB_MNT/f:cmd:any" \
			> "$FB_SCRATCH/mixtrunc.out" 2>&1
		rc=$?
		set_privcache 1000
		m=$(mode_of)
		c=$(dcaps)
		probe=$(cat "$FB_SCRATCH/mix.probe" 2> /dev/null)
		seen=$(cat "$FB_SCRATCH/mix.seen" 2> /dev/null)
		# the model: A's page, zeros, the probe's page; zeros to 2 MiB
		{
			head -c 4096 /dev/zero | tr '\0' $mix_fill
			head -c 126976 /dev/zero
			cat "$FB_SCRATCH/mix.p"
		} > "$FB_SCRATCH/mix.model"
		"$FB_TOP/tests/bin/fbblocks" "$FB_BACK/f" 2097152 "0:135168:file=$FB_SCRATCH/mix.model" \
			"135168:2097152:zero" > "$FB_SCRATCH/mix.blocks" 2>&1
		brc=$?
		sed -n 's/^# //p' "$FB_SCRATCH/mixtrunc.out" | while IFS= read -r l; do tap_diag "$l"; done
		tap_diag "root write stalled under the lock; uid 65534's write on another open 2 s later: ${probe:-no answer}; mode seen before the truncate ${seen:-none}; uffd_pwrite exit $rc; then mode $m, capability $c; bytes: $(tr '\n' ' ' < "$FB_SCRATCH/mix.blocks")"
		# the truncate was waiting for the lock when A was released: it
		# ended within 1 s of A's release
		late=$(sed -n 's/^# evidence: B completed \([0-9]*\) ms after A was released$/\1/p' "$FB_SCRATCH/mixtrunc.out")
		[ $rc = 0 ] && [ "$seen" = 4777 ] && [ "$m" = 777 ] && [ "$c" = none ] && [ $brc = 0 ] &&
			[ -n "$late" ] && [ "$late" -lt 1000 ]
		r=$?
		# stock: the second write waits for the stalled one, the
		# outcome is the same
		[ "$probe" = waiting ] && [ $r = 0 ]
		srcd=$?
		[ $r = 0 ] && [ "$probe" = through ]
		tap_stock $? $srcd "suid and security.capability set and seen while a shared-lock writer holds S_NOSEC (another writer got through: ${probe:-no answer}): a truncate by uid 65534 removes both, as stock, no byte lost (mode $m, capability $c)" \
			"every passthrough write takes the inode lock exclusively, so the second writer waits; the truncate removes both"
		fb_umount
	else
		tap_skip "mixed concurrency: truncate" "no passthrough mount"
	fi

	# 10b. Writers running all along; on another open root changes the
	# privileges through the mount, 1 s apart: each change must be gone
	# at the end of that second. A cached open (root's opens are cached,
	# --mode-for-uid) is refused while passthrough opens exist (EIO, the
	# kernel's I/O modes, as stock): no cached write can run beside them.
	if mount_pt --caps-in-daemon --attr-timeout 60 --mode-for-uid $mix_cached; then
		set_privcache 60000
		head -c 262144 /dev/zero > "$FB_MNT/f"
		mix_start
		sleep 1
		chmod 4777 "$FB_MNT/f"
		sleep 1
		m1=$(mode_of)
		setcap cap_net_raw+ep "$FB_MNT/f"
		sc=$?
		sleep 1
		c2=$(dcaps)
		chmod 2777 "$FB_MNT/f"
		sleep 1
		m3=$(mode_of)
		dd if=/dev/zero of="$FB_MNT/f" bs=1 count=1 conv=notrunc status=none 2> "$FB_SCRATCH/mix.cached"
		crc=$?
		sleep 0.5
		mix_stop
		wrc=$?
		set_privcache 1000
		tap_diag "writers exit $wrc; after chmod u+s: mode $m1; after setcap (exit $sc): capability $c2; after chmod g+s: mode $m3; cached write exit $crc: $(cat "$FB_SCRATCH/mix.cached")"
		[ "$m1" = 777 ]
		tap_check $? "chmod u+s through the mount beside 4 shared-lock writers of uid 65534: removed by their next writes, as stock (mode $m1)"
		[ $sc = 0 ] && [ "$c2" = none ]
		tap_check $? "setcap through the mount beside the writers: removed by their next writes, as stock ($c2)"
		[ "$m3" = 777 ]
		tap_check $? "chmod g+s through the mount beside the writers: removed by their next writes, as stock (mode $m3)"
		[ $crc != 0 ] && grep -q "Input/output error" "$FB_SCRATCH/mix.cached"
		tap_check $? "a cached open beside the passthrough writers is refused (EIO), as stock: no cached write runs beside them (exit $crc)"
		[ $wrc = 0 ]
		tap_check $? "the writers lost no byte and no write failed (exit $wrc)"
		fb_umount
	else
		tap_skip_n 5 "mixed concurrency: changes through the mount" "no passthrough mount"
	fi

	# 10c. Never seen: security.capability set on the backing file (the
	# daemon keeps it aside, --caps-in-daemon), attributes valid for a day,
	# privcache_ms 1000, writers running all along: gone within
	# privcache_ms, plus 2 s for the guest's polls (stock: the next write).
	if mount_pt --caps-in-daemon --attr-timeout 86400; then
		head -c 262144 /dev/zero > "$FB_MNT/f"
		mix_start
		sleep 1
		t0=$(date +%s%N)
		setfattr -n $shadow -v $capv2 "$FB_BACK/f"
		c="set" i=0
		while [ "$c" = set ] && [ $i -lt 50 ]; do
			sleep 0.1
			c=$(dcaps)
			i=$((i + 1))
		done
		ms=$((($(date +%s%N) - t0) / 1000000))
		mix_stop
		wrc=$?
		tap_diag "out-of-band security.capability beside the writers: $c after $ms ms; writers exit $wrc"
		[ "$c" = none ] && [ $ms -le 3000 ] && [ $wrc = 0 ]
		tap_check $? "security.capability set out of band beside the shared-lock writers: removed within privcache_ms (1 s, plus 2 s for the polls: $ms ms), no byte lost (writers exit $wrc)"
		fb_umount
	else
		tap_skip "mixed concurrency: out of band" "no passthrough mount"
	fi
	FB_BACK=$sec_back
else
	tap_skip_n $mix_n "mixed concurrency" "no XFS scratch (FB_XFS) for O_DIRECT, or no tests/bin/fbwriters"
fi

# 11. Issue 30, item 15: user namespaces and idmapped mounts.
idm=$FB_TOP/tests/bin/fbidmap
# 11a. A rootless mount: uid 65534 in a user namespace of its own (unshare
# --user --map-root-user --mount) mounts the test daemon (direct I/O with
# FOPEN_PARALLEL_DIRECT_WRITES: passthrough needs CAP_SYS_ADMIN outside),
# served by the target's FUSE (its type and its control fs), and 1 MiB
# written through it and 4 parallel writers' blocks are in the backing
# file. The device node is made 0666 for the test (udev does that for
# /dev/fuse; no rule ships for ours) and given its mode back.
ns=$FB_SCRATCH/userns
rm -rf "$ns"
mkdir -p "$ns/mnt" "$ns/back"
head -c 1048576 /dev/urandom > "$ns/src"
chown -R 65534:65534 "$ns"
dev_mode=$(stat -c %a "$FB_DEV")
tap_diag "$FB_DEV has mode $dev_mode: 0666 for this test"
chmod 0666 "$FB_DEV"
# shellcheck disable=SC2016 # the namespace's own script
$nobody unshare --user --map-root-user --mount sh -c '
	d=$1 ns=$2
	"$d" --dev "$3" --fstype "$4" --backing "$ns/back" --pidfile "$ns/pid" \
		--mode direct --parallel "$ns/mnt" || { echo "mount failed"; exit 10; }
	conn=$(awk -v m="$ns/mnt" '"'"'$5 == m { split($3, d, ":"); print d[1] * 1048576 + d[2]; exit }'"'"' /proc/self/mountinfo)
	type=$(awk -v m="$ns/mnt" '"'"'$5 == m { for (i = 7; i < NF; i++) if ($i == "-") { print $(i + 1); exit } }'"'"' /proc/self/mountinfo)
	echo "type $type, connection $conn"
	[ "$type" = "$4" ] && [ -n "$conn" ] && [ -d "$5/$conn" ] || { echo "not served by $4"; umount "$ns/mnt"; exit 11; }
	cp "$ns/src" "$ns/mnt/data" && cmp "$ns/src" "$ns/back/data" || { echo "bytes differ"; umount "$ns/mnt"; exit 12; }
	head -c 262144 /dev/zero > "$ns/mnt/w"
	"$6" "$ns/mnt/w" "$ns/back/w" 4 16 > "$ns/w.out" 2>&1 &
	w=$!
	sleep 2
	kill -TERM $w
	wait $w
	wrc=$?
	sed -n "s/^# //p" "$ns/w.out"
	umount "$ns/mnt" || { echo "umount failed"; exit 13; }
	[ $wrc = 0 ] || { echo "writers exit $wrc"; exit 14; }
	echo done
' sh "$FB_DAEMON" "$ns" "$FB_DEV" "$FB_FSTYPE" "$FB_CTL" "$wr" > "$FB_SCRATCH/userns.out" 2>&1
rc=$?
chmod "$dev_mode" "$FB_DEV"
while IFS= read -r l; do tap_diag "userns: $l"; done < "$FB_SCRATCH/userns.out"
tap_check $rc "a rootless mount in a user namespace: served by $FB_FSTYPE, 1 MiB and 4 parallel writers' blocks in the backing file, unmounted (exit $rc)"

# 11b. CAP_FSETID in a user namespace (tests/bin/fbidmap run: uids and gids
# 0-65535 inside are 100000-165535 outside). A write keeps suid and sgid
# (with group execute) only for a writer with CAP_FSETID in the initial
# namespace (setattr_should_drop_suidgid(): capable()); FUSE removes sgid
# only with group execute (fuse_setattr()). So root's write keeps them,
# which proves nothing for the cache, and the next write, by the root of a
# user namespace that maps the file's owner and group (CAP_FSETID there),
# removes them, as stock. On a FUSE_HANDLE_KILLPRIV_V2 mount too: ours asks
# the server (FATTR_KILL_SUIDGID); stock leaves them to a server that never
# sees a passthrough write, so they stay.
for kp in "" --killpriv-v2; do
	# shellcheck disable=SC2086 # empty, or one option
	mount_pt --attr-timeout 60 $kp || continue
	set_privcache 60000
	chown 100005:100007 "$FB_MNT/f" && chmod 6777 "$FB_MNT/f"
	rwrite 1
	r1=$?
	m1=$(mode_of)
	"$idm" run "0 100000 65536" -- dd if=/dev/zero of="$FB_MNT/f" bs=1 count=1 seek=2 conv=notrunc status=none
	r2=$?
	m2=$(mode_of)
	set_privcache 1000
	what="${kp:+KILLPRIV_V2 daemon: }root's write keeps suid and sgid ($m1), the next, by the root of a user namespace that maps the file's owner and group (CAP_FSETID there only), removes them ($m2)"
	tap_diag "file 100005:100007 mode 6777: root's write exit $r1, mode $m1; the user namespace's root: exit $r2, mode $m2"
	[ $r1 = 0 ] && [ "$m1" = 6777 ] && [ $r2 = 0 ] && [ "$m2" = 777 ]
	r=$?
	if [ -z "$kp" ]; then
		tap_check $r "$what, as stock"
	else
		# stock: both writes succeed and suid and sgid stay
		[ $r1 = 0 ] && [ "$m1" = 6777 ] && [ $r2 = 0 ] && [ "$m2" = 6777 ]
		tap_stock $r $? "$what" \
			"passthrough writes never reach a KILLPRIV_V2 server, and the kernel leaves suid and sgid to it"
	fi
	fb_umount
done

# 11c. An idmapped bind mount of a FUSE mount (tests/bin/fbidmap mount: the
# file system's ids 0 show as 3000 through it). The kernel allows one only
# where the server asks (FUSE_ALLOW_IDMAP, with default_permissions; fbtestd
# --allow-idmap), from 6.12 on (SB_I_NOIDMAP). On Debian 12's 6.1 base
# 6.12's compat layer refuses idmapped mounts (docs/known-gaps.md), as
# stock 6.1 does (neither has FS_ALLOW_IDMAP): the test asserts the
# refusal. The helper's own check: an idmapped mount of the guest's XFS.
case $(uname -r) in
[1-5].* | 6.[0-9].* | 6.1[01].*) idmap_ok=no ;;
*) idmap_ok=yes ;;
esac
idmnt=$FB_SCRATCH/idmapped
mkdir -p "$idmnt"
# idmount SRC: 0 when made (then unmounted), else the refusal's line
idmount() {
	"$idm" mount "0 3000 1" "$1" "$idmnt" > "$FB_SCRATCH/idm.out" 2>&1
	id_rc=$?
	id_out=$(head -n 1 "$FB_SCRATCH/idm.out")
	return $id_rc
}
xfs_ok=no
if [ -n "${FB_XFS:-}" ] && [ -d "$FB_XFS" ] && idmount "$FB_XFS"; then
	[ "$(stat -c %u "$idmnt")" = 3000 ] && xfs_ok=yes
	umount "$idmnt"
fi
tap_diag "idmapped mount of the guest's XFS (the helper's check): $xfs_ok ${id_out:-}"
if mount_pt; then
	idmount "${idm_first:-$FB_MNT}"
	rc=$?
	[ $rc = 0 ] && umount "$idmnt"
	tap_diag "no FUSE_ALLOW_IDMAP: fbidmap exit $rc: $id_out"
	[ $xfs_ok = yes ] && [ $rc = 3 ] && case $id_out in *EINVAL*) true ;; *) false ;; esac
	tap_check $? "idmapped bind mount of a FUSE mount whose daemon does not ask for FUSE_ALLOW_IDMAP: refused (EINVAL), as stock ($id_out)"
	fb_umount
else
	tap_skip "idmapped mount without FUSE_ALLOW_IDMAP" "no passthrough mount"
fi
if mount_pt --allow-idmap --attr-timeout 60; then
	idmount "$FB_MNT"
	rc=$?
	if [ $idmap_ok = no ]; then
		[ $rc = 0 ] && umount "$idmnt"
		[ $xfs_ok = yes ] && [ $rc = 3 ] && case $id_out in *EINVAL*) true ;; *) false ;; esac
		tap_check $? "$(uname -r): an idmapped bind mount of a FUSE mount is refused (EINVAL) even where the daemon asks for FUSE_ALLOW_IDMAP, as stock (no FS_ALLOW_IDMAP before 6.12): $id_out"
	else
		# uid 3000 through it is the file system's 0: it creates, the
		# backing file is 0's and shows as 3000's through the mount
		as3000="setpriv --reuid=3000 --regid=3000 --clear-groups"
		r=1 own=""
		if [ $rc = 0 ]; then
			$as3000 cp "$ns/src" "$idmnt/data"
			r=$?
			own="$(stat -c %u:%g "$FB_BACK/data") in the backing file, $(stat -c %u:%g "$idmnt/data") through the idmapped mount"
			cmp "$ns/src" "$FB_BACK/data" || r=1
		fi
		tap_diag "FUSE_ALLOW_IDMAP: fbidmap exit $rc ${id_out:-}; 1 MiB by uid 3000: exit $r, owner $own"
		[ $rc = 0 ] && [ $r = 0 ] && [ "$own" = "0:0 in the backing file, 3000:3000 through the idmapped mount" ]
		tap_check $? "an idmapped bind mount of a FUSE mount whose daemon asks for FUSE_ALLOW_IDMAP: made; a file created through it by uid 3000 is 0:0 in the backing file and 3000:3000 through it, its bytes the same"
		# suid through it: root's write keeps it, which proves nothing
		# for the cache; the next, by uid 3000 (the owner as the mount
		# maps it, no CAP_FSETID), removes it, as stock
		set_privcache 60000
		chmod 4777 "$FB_MNT/f"
		r1=1 r2=1 m1="" m2="" o=""
		if [ $rc = 0 ]; then
			o=$(stat -c %u "$idmnt/f")
			dd if=/dev/zero of="$idmnt/f" bs=1 count=1 seek=1 conv=notrunc status=none
			r1=$?
			m1=$(mode_of)
			$as3000 dd if=/dev/zero of="$idmnt/f" bs=1 count=1 seek=2 conv=notrunc status=none
			r2=$?
			m2=$(mode_of)
		fi
		set_privcache 1000
		tap_diag "mode 4777, owner $o through the idmapped mount: root's write exit $r1, mode $m1; uid 3000's: exit $r2, mode $m2"
		[ "$o" = 3000 ] && [ $r1 = 0 ] && [ "$m1" = 4777 ] && [ $r2 = 0 ] && [ "$m2" = 777 ]
		tap_check $? "suid through an idmapped mount: root's write keeps it ($m1), the next, by uid 3000 (its owner through the mount), removes it ($m2), as stock"
		[ $rc = 0 ] && umount "$idmnt"
	fi
	fb_umount
else
	tap_skip "idmapped mount with FUSE_ALLOW_IDMAP" "no passthrough mount"
fi
tap_done
