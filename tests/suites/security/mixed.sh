# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Part of the security suite (sourced by tests/suites/security.sh, with its
# helpers: mount_pt, uwrite, rwrite, mode_of, dcaps, set_privcache, $nobody,
# $shadow, $capv2): sections 10 and 11.
# shellcheck disable=SC2154 # nobody, shadow, capv2: set by security.sh

# 10. The privilege cache under mixed concurrency. On the
# guest's XFS (O_DIRECT), so that passthrough writes by uid 65534 run under
# the shared inode lock with S_NOSEC pinned (FOPEN_PARALLEL_DIRECT_WRITES, a
# non-extending O_DIRECT write, the cache trusted: the parallel suite shows
# such writes running side by side). Meanwhile, on another open, root
# changes the privileges; they must be removed as stock removes them: a
# change seen by the kernel (chmod, setcap through the mount) by the next
# unprivileged write, whatever
# privcache_ms (60 s here, so that only the change itself can end the
# cache), and one never seen (security.capability set on the backing file)
# within privcache_ms. And the writers lose no byte (tests/bin/fbwriters:
# every block of the file, through the mount and in the backing file, is
# its last acknowledged write). Stock passes these (it checks on every
# write, under the exclusive lock); each failed on a module built with the
# cache's invalidation or the window broken (a module patched for the red
# run, never committed), or with its own check broken (make check-red,
# knob FB_SEC_CHECKBREAK).
wr=$FB_TOP/tests/bin/fbwriters
# uid 65534 runs the writers and, in 11a, the test daemon: copies it can
# reach (fb_copy_for); where none can be made, the checkout's, whose exec
# then fails the test
wr_u=$wr dm_u=$FB_DAEMON
if [ -x "$wr" ]; then
	wr_u=$(fb_copy_for 65534 "$wr") || wr_u=$wr
fi
dm_u=$(fb_copy_for 65534 "$FB_DAEMON") || dm_u=$FB_DAEMON
mix_n=10
# FB_SEC_CHECKBREAK=1: the red run of these checks themselves, with the
# module unchanged: the writers' model claims a write that was not made
# (FB_WRITERS_BREAK), root's opens in 10b are
# passthrough (so its write beside the writers is made), the daemons of
# 10d and 10e never show suid (their writer B makes another file than the
# one the daemon watches), and 11c's first test makes its idmapped mount of the
# guest's XFS instead of the FUSE mount. Each of those tests must fail.
mix_cached=0:cached idm_first="" tr_fake=suid
if [ "${FB_SEC_CHECKBREAK:-0}" = 1 ]; then
	FB_WRITERS_BREAK=1
	export FB_WRITERS_BREAK
	mix_cached=1:cached idm_first=${FB_XFS:-/nonexistent} tr_fake=not-watched
	tap_diag "FB_SEC_CHECKBREAK=1: the checks of sections 10 and 11 are broken on purpose"
fi
if [ -n "${FB_XFS:-}" ] && [ -d "$FB_XFS" ] && [ -x "$wr" ]; then
	sec_back=$FB_BACK
	FB_BACK=$FB_XFS/mixback
	# mix_start: 4 writers by uid 65534 (fbwriters, one open each, 16
	# blocks each), running once they print "started"
	mix_start() {
		$nobody "$wr_u" "$FB_MNT/f" "$FB_BACK/f" 4 16 > "$FB_SCRATCH/mix.w" 2>&1 &
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
	# privcache_ms 1000, writers running all along: gone within 3 s, a
	# fixed figure: privcache_ms (1 s), plus 2 s for the writers' next
	# write to check (GETXATTR) and remove it (REMOVEXATTR) on a slow
	# kernel (stock: the next write). A cache that outlives its window by
	# 2 s fails. The set and the polls are tests/bin/fbxwait's, one
	# process polling every 10 ms, so that the polls add no time of their
	# own; five polls of the shell loop this test had before (sleep 0.1,
	# then getfattr) are timed beside the writers afterwards, for the
	# diagnostics only (what each costs, on the debug kernel most).
	# FB_SEC_WINDOW_MS (the red run of this bound, default 1000): our
	# module's privcache_ms for this test; 5000, a cache that lives 5 s,
	# must fail it.
	win=${FB_SEC_WINDOW_MS:-1000}
	case $win in '' | *[!0-9]*) echo "security: FB_SEC_WINDOW_MS=$win is not a number of ms" >&2; exit 2 ;; esac
	if [ -x "$FB_TOP/tests/bin/fbxwait" ] && mount_pt --caps-in-daemon --attr-timeout 86400; then
		head -c 262144 /dev/zero > "$FB_MNT/f"
		[ "$win" = 1000 ] || { set_privcache "$win"; tap_diag "FB_SEC_WINDOW_MS: privcache_ms $win for this test"; }
		mix_start
		sleep 1
		xw=$("$FB_TOP/tests/bin/fbxwait" "$FB_BACK/f" "$shadow" "$capv2" 10000 2>&1)
		xrc=$?
		gone=$(echo "$xw" | sed -n 's/^gone at \([0-9]*\) ms,.*/\1/p')
		t1=$(date +%s%N) i=0
		while [ $i -lt 5 ]; do
			sleep 0.1
			[ -n "$(dcaps)" ] || break
			i=$((i + 1))
		done
		tap_diag "a shell poll (sleep 0.1, getfattr) beside the writers: $((($(date +%s%N) - t1) / 5000000)) ms each (5 polls)"
		mix_stop
		wrc=$?
		set_privcache 1000
		tap_diag "out-of-band security.capability beside the writers: fbxwait exit $xrc: $xw; writers exit $wrc"
		[ $xrc = 0 ] && [ -n "$gone" ] && [ "$gone" -le 3000 ] && [ $wrc = 0 ]
		tap_check $? "security.capability set out of band beside the shared-lock writers: removed within 3000 ms, privcache_ms (1 s) plus 2 s for the writers' next check (${gone:-not gone}${gone:+ ms}), no byte lost (writers exit $wrc)"
		fb_umount
	else
		tap_skip "mixed concurrency: out of band" "no passthrough mount, or no tests/bin/fbxwait"
	fi

	# 10d. A truncate while a writer holds S_NOSEC. do_truncate() decides
	# on privilege removal before it takes the inode lock, so it may see
	# S_NOSEC pinned by a passthrough write in flight while suid is
	# already visible (fuse_inode_clear_nosec() leaves the clearing to the
	# last pinned writer): fuse_setattr() decides again for a size change
	# (patch 0003). Root's O_DIRECT write A within EOF, on a warm cache
	# (the shared-lock path: S_NOSEC pinned; on the exclusive one our own
	# check pins it too), is stalled in its copy by userfaultfd
	# (tests/parallel/uffd_pwrite); meanwhile, in
	# tests/suites/security/truncate-b.sh, fbtestd starts showing suid in
	# its replies only (--fake-suid: a change of the backing file would
	# wait for the backing inode's lock, which the stalled write holds),
	# the kernel is told (NOTIFY_INVAL_INODE) and a stat shows 4777, then
	# uid 65534 truncates the file. The precondition, a test of its own,
	# is also required by the second: the truncate sleeps in do_truncate()
	# on the inode lock while A is stalled, nothing of it reaches the
	# daemon before A is released. The oracle is the daemon's log, not the
	# module: the truncate's SETATTR must set the mode without suid
	# (FATTR_MODE; this mount is not a KILLPRIV one), as stock's does.
	# tr_run DIR [ROOT-SIZE]: on a mount made with --fake-suid DIR/suid
	# --log DIR/daemon.log, A stalled by uffd_pwrite and B
	# (truncate-b.sh DIR ... ROOT-SIZE) beside it; sets pre (0: the
	# precondition holds for uid 65534's truncate) and tr_pre (its words)
	tr_run() {
		set_privcache 60000
		# B's programs read once before (the guest's root is 9p, slow
		# under TCG); A is released when B asks (FB_UFFD_RELEASE_ON) or
		# after 90 s
		$nobody truncate --version > /dev/null
		stat --version > /dev/null
		# B never has A's file open (FB_UFFD_CMD=external): on 6.12 a
		# close of it, even an exec's close-on-exec, waits behind A
		sh "$FB_TOP/tests/suites/security/truncate-b.sh" "$1" "$FB_MNT/f" "$(fb_daemon_pid)" "$1/$tr_fake" ${2:+"$2"} &
		bpid=$!
		FB_UFFD_CMD=external FB_UFFD_STALLED=$1/stalled FB_UFFD_RELEASE_ON=$1/release \
			timeout -k 5 110 "$FB_TOP/tests/parallel/uffd_pwrite" -t 90000 "$FB_MNT/f:cmd:any" \
			> "$1/uffd.out" 2>&1
		urc=$?
		: > "$1/release"
		wait $bpid
		set_privcache 1000
		sed -n 's/^# //p' "$1/uffd.out" | while IFS= read -r l; do tap_diag "uffd_pwrite: $l"; done
		[ -f "$1/b.out" ] || echo "seen=(B did not run)" > "$1/b.out"
		while IFS= read -r l; do tap_diag "B: $l"; done < "$1/b.out"
		seen=$(b_val "$1" seen) bst=$(b_val "$1" state) btop=$(b_val "$1" top)
		bset=$(b_val "$1" setattr) trc=$(b_val "$1" trc)
		rel=$(sed -n 's/.*B completed \([0-9]*\) ms after A was released.*/\1/p' "$1/uffd.out")
		grep -q "B was still waiting" "$1/uffd.out"
		bwait=$?
		pre=1
		[ $urc = 0 ] && [ "$seen" = 4777 ] && [ "$bst" = D ] && [ "$bset" = 0 ] &&
			[ $bwait = 0 ] && [ -n "$rel" ] && [ "$trc" = 0 ] && in_lock "$btop" && pre=0
		tr_pre="root's O_DIRECT passthrough write stalled in its copy (uffd_pwrite exit $urc), suid shown by the daemon and seen through the mount ($seen), a truncate by uid 65534 sleeps in do_truncate() on the inode lock (state $bst, on top $btop) with none of its SETATTRs at the daemon ($bset) until the write is released; it ends ${rel:-?} ms after (exit $trc)"
	}
	# b_val DIR KEY: the value of KEY in B's report
	b_val() { sed -n "s/^$2=//p" "$1/b.out"; }
	# in_lock TOP: TOP is a frame of do_truncate() sleeping in inode_lock()
	in_lock() {
		case $1 in
		do_truncate | down_write | rwsem_down_write_slowpath) true ;;
		*) false ;;
		esac
	}
	# tr_kill DIR: 0 when uid 65534's truncate, its one SETATTR at the
	# daemon, set the mode without suid (FATTR_MODE 1, FATTR_SIZE 8; this
	# mount is not a KILLPRIV one) and the mount shows 777 after; tr_what:
	# what it did
	tr_kill() {
		grep '^SETATTR .* uid=65534 ' "$1/daemon.log" > "$1/setattr"
		sa_n=$(wc -l < "$1/setattr")
		sa_valid=$(sed -n '1s/.* valid=\(0x[0-9a-f]*\) .*/\1/p' "$1/setattr")
		sa_mode=$(sed -n '1s/.* mode=\(0[0-7]*\) .*/\1/p' "$1/setattr")
		sa_size=$(sed -n '1s/.* size=\([0-9]*\) .*/\1/p' "$1/setattr")
		m_after=$(stat -c %a "$FB_MNT/f")
		tap_diag "the truncate's SETATTRs at the daemon ($sa_n): $(cat "$1/setattr"); mode through the mount after: $m_after"
		tr_what="its SETATTR sets the mode without it (valid ${sa_valid:-none}, mode ${sa_mode:-none}, size ${sa_size:-none}; mode after $m_after)"
		[ "$sa_n" = 1 ] && [ -n "$sa_valid" ] && [ -n "$sa_mode" ] &&
			[ $((sa_valid & 9)) = 9 ] && [ "$sa_size" = 0 ] &&
			[ $((sa_mode & 07777)) = $((0777)) ] && [ "$m_after" = 777 ]
	}
	# tr_mount DIR: a fresh DIR, and the mount tr_run wants
	tr_mount() {
		rm -rf "$1"
		mkdir -p "$1"
		mount_pt --attr-timeout 60 --fake-suid "$1/suid" --log "$1/daemon.log"
	}
	# tr_judge PRE DIR WHAT: the test of tr_kill DIR, failed also when the
	# precondition PRE did not hold; then unmount
	tr_judge() {
		tr_kill "$2"
		tk=$?
		[ "$1" = 0 ] && [ $tk = 0 ]
		tap_check $? "$3: $tr_what"
		fb_umount
	}
	tr=$FB_SCRATCH/trunc
	if tr_mount "$tr"; then
		tr_run "$tr"
		tap_check $pre "precondition: $tr_pre"
		tr_judge $pre "$tr" "a truncate by uid 65534 that saw S_NOSEC pinned by the stalled writer while suid was visible removes suid, as stock"
	else
		tap_skip_n 2 "mixed concurrency: truncate beside a stalled writer" "no passthrough mount"
	fi

	# 10e. As 10d, with root's truncate (CAP_FSETID: it kills nothing)
	# queued on the inode lock before uid 65534's: B starts it once suid
	# is seen and starts uid 65534's once root's sleeps in do_truncate()
	# on the lock, so root's setattr runs first when A is released (the
	# lock's waiters are served in order), then uid 65534's. Patch 0003
	# once decided again in fuse_setattr() only for the first size
	# change after S_NOSEC was set (a one-shot flag), which root's took:
	# uid 65534's truncate, which had seen S_NOSEC, then kept suid. Stock
	# passes (its writes hold the inode lock exclusively and S_NOSEC is
	# never set: uid 65534's do_truncate() sees suid).
	tr=$FB_SCRATCH/trunc-root
	if tr_mount "$tr"; then
		tr_run "$tr" 8192
		rst=$(b_val "$tr" rstate) rtop=$(b_val "$tr" rtop) rtrc=$(b_val "$tr" rtrc)
		# the line numbers of root's truncate's SETATTR (size 8192) and of
		# uid 65534's in the daemon's log
		ln_r=$(grep -n '^SETATTR .* size=8192 uid=0 ' "$tr/daemon.log" | head -n 1 | cut -d: -f1)
		ln_u=$(grep -n '^SETATTR .* uid=65534 ' "$tr/daemon.log" | head -n 1 | cut -d: -f1)
		[ $pre = 0 ] && [ "$rst" = D ] && in_lock "$rtop" && [ "$rtrc" = 0 ] &&
			[ -n "$ln_r" ] && [ -n "$ln_u" ] && [ "$ln_r" -lt "$ln_u" ]
		rpre=$?
		tap_check $rpre "precondition: $tr_pre; root's truncate slept on the inode lock before it (state $rst, on top $rtop) and its SETATTR reached the daemon first (log lines ${ln_r:-none} and ${ln_u:-none}, exit $rtrc)"
		tr_judge $rpre "$tr" "a truncate by uid 65534 that saw S_NOSEC pinned while suid was visible removes suid after root's truncate took the inode lock first, as stock"
	else
		tap_skip_n 2 "mixed concurrency: root's truncate before uid 65534's beside a stalled writer" "no passthrough mount"
	fi
	FB_BACK=$sec_back
else
	tap_skip_n $mix_n "mixed concurrency" "no XFS scratch (FB_XFS) for O_DIRECT, or no tests/bin/fbwriters"
fi

# 11. User namespaces and idmapped mounts.
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
' sh "$dm_u" "$ns" "$FB_DEV" "$FB_FSTYPE" "$FB_CTL" "$wr_u" > "$FB_SCRATCH/userns.out" 2>&1
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
