#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Data integrity through the FUSE under test, in each daemon mode (cached,
# direct, parallel, passthrough, pt-parallel). TAP.
#
#   1. fio on ONE shared file, prefilled with 8 MiB: 2 (then 4) jobs doing
#      random non-extending overwrites of their own range (offset_increment)
#      while one more job appends past EOF; every job verifies its own blocks
#      (crc32c). O_DIRECT except in cached mode. After each run the size
#      through the mount must be the backing file's; after the last, caches
#      dropped, the bytes read through the mount must be the backing file's.
#      The independent model: after each run the file system is unmounted
#      and mounted again (a new daemon, nothing cached) and fio re-reads
#      every block the run wrote (verify_only, with the run's verify state
#      files): a lost, misplaced or stale write fails there even when the
#      backing file and the mount agree. The same re-read runs on the
#      backing file directly, not through FUSE (in passthrough modes the
#      mount's reads are the backing file's own).
#   2. The race the project's patches must survive: 3 jobs overwrite the last
#      MiB of a 4 MiB file (with the byte 0x5a) while a loop truncates it
#      smaller and back (and reads its tail): no write, truncate or read
#      error, and afterwards the size and bytes seen through the mount equal
#      the backing file's. Then it is truncated to 3.5 MiB and back to 4,
#      unmounted, mounted again, and checked against a model kept outside
#      FUSE (tests/bin/fbblocks): the first 3 MiB are the original bytes,
#      every 4 KiB block up to 3.5 MiB is all zero or all 0x5a, the rest zero;
#      then the backing file read directly against the same model.
#
# usage: sh tests/suites/integrity.sh
# Environment (set by the caller): FB_TOP, FB_TARGET, FB_DEV, FB_FSTYPE,
# FB_CTL, FB_SCRATCH, FB_XFS (backing files go there when set). Optional:
# FB_INTEGRITY_MODES (default: all five), FB_SUITE_BUDGET (seconds, default
# 900: a mode not started by then fails, "did not finish in N s"),
# FB_DAEMON_ARGS (extra daemon options, e.g. --fault write-lost).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/lib/tap.sh
. "$FB_TOP/tests/lib/tap.sh"
# shellcheck source=tests/lib/fuse.sh
. "$FB_TOP/tests/lib/fuse.sh"

# The modes our series changes first: a time budget cut skips the others.
modes=${FB_INTEGRITY_MODES:-pt-parallel passthrough parallel direct cached}
budget=${FB_SUITE_BUDGET:-900}
blocks=$FB_TOP/tests/bin/fbblocks
t0=$(date +%s)
mib=1048576
prefill=8		# MiB, the shared file before the first run
append=1		# MiB appended by each run's append job
racesz=4		# MiB, the truncate race's file

mkdir -p "$FB_SCRATCH"
trap 'fb_cleanup' EXIT
trap 'fb_cleanup; exit 1' INT TERM HUP
fb_backing_base integrity
base=$FB_BASE
command -v fio > /dev/null || {
	tap_skip "integrity suite" "fio is not installed"
	tap_done
	exit
}
tap_diag "$(fio --version), target ${FB_TARGET:-?}, $FB_FSTYPE on $FB_DEV"


# same MOUNTFILE BACKFILE: the file read through the mount (1 MiB reads: a
# direct-mode read(2) is a request) equals the backing file; what differs
# is in $FB_SCRATCH/cmp.out.
same() {
	timeout -k 5 60 dd if="$1" bs=1M status=none 2> "$FB_SCRATCH/dd.err" |
		cmp - "$2" > "$FB_SCRATCH/cmp.out" 2>&1
	crc=$?
	if [ -s "$FB_SCRATCH/dd.err" ]; then
		cat "$FB_SCRATCH/dd.err" >> "$FB_SCRATCH/cmp.out"
		crc=1
	fi
	return $crc
}

# fio_shared MODE DIRECT NJOBS COMPARE: overwrite jobs + append job,
# verified; then the sizes through the mount and of the backing file, and
# with COMPARE=yes the bytes too, caches dropped.
fio_shared() {
	m=$1 direct=$2 nj=$3
	reg=$((prefill / nj))
	job=$FB_SCRATCH/int-$m-$nj.fio
	out=$FB_SCRATCH/int-$m-$nj.out
	size0=$(stat -c %s "$FB_BACK/shared")
	cat > "$job" <<-EOF
		[global]
		filename=$FB_MNT/shared
		ioengine=psync
		direct=$direct
		bsrange=4k-64k
		verify=crc32c
		verify_fatal=1
		verify_state_save=1
		fallocate=none
		create_on_open=1
		runtime=90
		[ow]
		rw=randwrite
		numjobs=$nj
		offset=0
		size=${reg}M
		offset_increment=${reg}M
		[app]
		rw=write
		offset=$size0
		size=${append}M
	EOF
	# fio keeps its verify state files in its working directory
	vdir=$FB_SCRATCH/vstate-$m-$nj
	rm -rf "$vdir"
	mkdir -p "$vdir"
	ta=$(date +%s)
	(cd "$vdir" && exec timeout -k 5 150 fio --output="$out" "$job") > /dev/null 2>&1
	rc=$?
	tb=$(date +%s)
	nerr=$(grep -c 'err= *[1-9]' "$out" 2> /dev/null)
	[ $rc = 0 ] && [ "${nerr:-0}" = 0 ]
	tap_check $? "[$m] fio: $nj jobs overwrite their ranges of one file while 1 appends (direct=$direct), crc32c verify of every block"
	if [ $rc != 0 ]; then
		tap_diag "fio exit $rc$([ $rc = 124 ] && echo ' (timeout)')"
		grep -iE 'verify|error|err=|bad' "$out" 2> /dev/null | head -n 8 | sed 's/^/    /' | while IFS= read -r l; do tap_diag "$l"; done
	fi
	if [ "$4" = yes ]; then
		fb_drop_caches
		sm=$(stat -c %s "$FB_MNT/shared" 2> /dev/null)
		sb=$(stat -c %s "$FB_BACK/shared")
		same "$FB_MNT/shared" "$FB_BACK/shared"
		crc=$?
		[ $crc = 0 ] && [ "$sm" = "$sb" ] && [ "$sb" -gt "$size0" ]
		tap_check $? "[$m] after the $nj-job run, caches dropped: the file through the mount equals the backing file (size $size0 -> mount $sm, backing $sb)"
		[ $crc != 0 ] && tap_diag "cmp: $(head -n 2 "$FB_SCRATCH/cmp.out" | tr '\n' ' ')"
	else
		sm=$(stat -c %s "$FB_MNT/shared" 2> /dev/null)
		sb=$(stat -c %s "$FB_BACK/shared")
		[ "$sm" = "$sb" ] && [ "$sb" -gt "$size0" ]
		tap_check $? "[$m] after the $nj-job run: the size through the mount is the backing file's, grown by the appends (size $size0 -> mount $sm, backing $sb)"
	fi
	tap_diag "[$m] $nj jobs: fio $((tb - ta)) s, compare $(($(date +%s) - tb)) s"
	# the model: a new mount, fio re-reads what its state files say it wrote
	tc=$(date +%s)
	vrc=1
	if remount; then
		sed -e 's/^verify_state_save=1/verify_state_load=1\nverify_only=1/' "$job" > "$job.verify"
		(cd "$vdir" && exec timeout -k 5 150 fio --output="$out.verify" "$job.verify") > /dev/null 2>&1
		vrc=$?
	fi
	tap_check $vrc "[$m] after unmount and mount: fio verify_only re-reads every block the $nj-job run wrote (its verify state), crc32c and block headers"
	if [ $vrc != 0 ]; then
		grep -iE 'verify|bad|err=' "$out.verify" 2> /dev/null | head -n 4 | while IFS= read -r l; do tap_diag "    $l"; done
	fi
	# the same model against the backing file read directly, not through
	# FUSE: in passthrough modes the mount's reads are the backing file's
	# own, so only this shows the bytes landed where the daemon keeps them
	brc=1
	if [ $vrc = 0 ]; then
		sed -e "s|^filename=.*|filename=$FB_BACK/shared|" "$job.verify" > "$job.backing"
		(cd "$vdir" && exec timeout -k 5 150 fio --output="$out.backing" "$job.backing") > /dev/null 2>&1
		brc=$?
	fi
	tap_check $brc "[$m] the backing file read directly, not through FUSE: fio verify_only passes every block the $nj-job run wrote"
	if [ $brc != 0 ]; then
		grep -iE 'verify|bad|err=' "$out.backing" 2> /dev/null | head -n 4 | while IFS= read -r l; do tap_diag "    $l"; done
	fi
	tap_diag "[$m] $nj jobs: remount and verify $(($(date +%s) - tc)) s"
}

# remount: unmount (the daemon exits) and mount the same backing directory
# again with the same options: nothing of the old mount's caches is left.
remount() {
	fb_umount || tap_diag "remount: the daemon did not exit"
	# shellcheck disable=SC2086 # several options
	fb_mount $margs --threads 4 2> "$FB_SCRATCH/daemon.err" && return 0
	tap_diag "remount failed: $(head -n 1 "$FB_SCRATCH/daemon.err")"
	return 1
}

# trunc_race MODE DIRECT
trunc_race() {
	m=$1 direct=$2
	f=$FB_MNT/race
	full=$((racesz * mib))
	lo=$(((racesz - 1) * mib))
	job=$FB_SCRATCH/race-$m.fio
	out=$FB_SCRATCH/race-$m.out
	cat > "$job" <<-EOF
		[global]
		filename=$f
		ioengine=psync
		direct=$direct
		bs=4k
		rw=randwrite
		buffer_pattern=0x5a
		norandommap=1
		offset=$lo
		size=1M
		fallocate=none
		create_on_open=1
		time_based=1
		runtime=5
		[ow]
		numjobs=3
	EOF
	ta=$(date +%s)
	timeout -k 5 60 fio --output="$out" "$job" > /dev/null 2>&1 &
	fiopid=$!
	n=0 bad=0
	: > "$FB_SCRATCH/race.err"
	while kill -0 "$fiopid" 2> /dev/null; do
		small=$((lo + (n % 16) * 65536))
		truncate -s "$small" "$f" 2>> "$FB_SCRATCH/race.err" || bad=$((bad + 1))
		dd if="$f" of=/dev/null bs=65536 skip=$((lo / 65536 - 8)) 2>> "$FB_SCRATCH/race.err" ||
			bad=$((bad + 1))
		truncate -s "$full" "$f" 2>> "$FB_SCRATCH/race.err" || bad=$((bad + 1))
		n=$((n + 1))
	done
	wait "$fiopid"
	rc=$?
	tb=$(date +%s)
	grep -v -e 'records in' -e 'records out' -e 'bytes' "$FB_SCRATCH/race.err" > "$FB_SCRATCH/race.err2"
	nerr=$(grep -c 'err= *[1-9]' "$out" 2> /dev/null)
	[ $rc = 0 ] && [ "${nerr:-0}" = 0 ] && [ $bad = 0 ] && [ $n -ge 3 ]
	tap_check $? "[$m] truncate race: 3 jobs overwrite the last MiB while the file is truncated down and back $n times: no write/truncate/read error"
	[ $rc != 0 ] && tap_diag "fio exit $rc$([ $rc = 124 ] && echo ' (timeout)'): $(grep -m 3 -iE 'error|err=' "$out" | tr '\n' ' ')"
	[ $bad != 0 ] && tap_diag "$bad truncate/read failures: $(head -n 3 "$FB_SCRATCH/race.err2" | tr '\n' ' ')"
	# the attributes the kernel holds right now (attr_valid is 1 s), then
	# after a refresh
	sm=$(stat -c %s "$f" 2> /dev/null)
	sb=$(stat -c %s "$FB_BACK/race")
	same "$f" "$FB_BACK/race"
	crc=$?
	[ $crc = 0 ] && [ "$sm" = "$sb" ] && [ "$sb" = "$full" ]
	tap_check $? "[$m] truncate race: size and bytes through the mount equal the backing file at once (mount $sm, backing $sb, want $full)"
	[ $crc != 0 ] && tap_diag "cmp: $(head -n 2 "$FB_SCRATCH/cmp.out" | tr '\n' ' ')"
	fb_drop_caches
	sm=$(stat -c %s "$f" 2> /dev/null)
	same "$f" "$FB_BACK/race"
	crc=$?
	[ $crc = 0 ] && [ "$sm" = "$sb" ]
	tap_check $? "[$m] truncate race: and again with caches dropped (mount $sm)"
	[ $crc != 0 ] && tap_diag "cmp: $(head -n 2 "$FB_SCRATCH/cmp.out" | tr '\n' ' ')"
	# the last truncation point, for race_model
	mid=$((lo + mib / 2))
	truncate -s "$mid" "$f" && truncate -s "$full" "$f"
	tap_check $? "[$m] truncate race: final truncate to $mid and back to $full"
	tap_diag "[$m] race: fio $((tb - ta)) s, compare $(($(date +%s) - tb)) s"
}

# race_model MODE: after unmount and mount, the race file against the model
# (run after the mode's unmount; unmounts again)
race_model() {
	m=$1
	full=$((racesz * mib))
	lo=$(((racesz - 1) * mib))
	mid=$((lo + mib / 2))
	# shellcheck disable=SC2086 # several options
	if fb_mount $margs --threads 4 2> "$FB_SCRATCH/daemon.err"; then
		timeout -k 5 60 "$blocks" "$FB_MNT/race" "$full" "0:$lo:file=$FB_SCRATCH/rand.race" \
			"$lo:$mid:zero|0x5a" "$mid:$full:zero" > "$FB_SCRATCH/blocks.out" 2>&1
		rc=$?
	else
		echo "mount failed: $(head -n 1 "$FB_SCRATCH/daemon.err")" > "$FB_SCRATCH/blocks.out"
		rc=1
	fi
	tap_check $rc "[$m] truncate race, after unmount and mount, against the model: the original bytes before $lo, 4 KiB blocks of zeros or 0x5a up to $mid, zeros to $full"
	[ $rc != 0 ] && tap_diag "fbblocks: $(grep -v ': ok$' "$FB_SCRATCH/blocks.out" | head -n 2 | tr '\n' ' ')"
	fb_umount
	# and the backing file read directly, not through FUSE
	timeout -k 5 60 "$blocks" "$FB_BACK/race" "$full" "0:$lo:file=$FB_SCRATCH/rand.race" \
		"$lo:$mid:zero|0x5a" "$mid:$full:zero" > "$FB_SCRATCH/blocks.out" 2>&1
	rc=$?
	tap_check $rc "[$m] truncate race: the backing file read directly, not through FUSE, against the same model"
	[ $rc != 0 ] && tap_diag "fbblocks: $(grep -v ': ok$' "$FB_SCRATCH/blocks.out" | head -n 2 | tr '\n' ' ')"
}

# big_file MODE (passthrough modes): a sparse file over
# 4 GiB through the mount: 1 MiB of random bytes written across the 4 GiB
# boundary, then a 64 KiB punch-hole across the boundary and a 64 KiB
# zero-range after it (fallocate -p, -z: FUSE_FALLOCATE). The size, the
# zeros before the window and the window itself must be the model's (the
# same writes on a scratch file, without the mount), through the mount and
# in the backing file read directly; the backing file stays sparse.
big_file() {
	g=$((4096 * mib))
	woff=$((g - mib / 2)) poff=$((g - 32768)) zoff=$((g + 131072))
	bsize=$((g + mib / 2))
	model=$FB_SCRATCH/big.model
	rm -f "$model"
	head -c "$mib" /dev/urandom > "$FB_SCRATCH/rand.big"
	if ! { dd if="$FB_SCRATCH/rand.big" of="$model" bs=64k seek=$((woff / 65536)) conv=notrunc status=none &&
		dd if=/dev/zero of="$model" bs=32k seek=$((poff / 32768)) count=2 conv=notrunc status=none &&
		dd if=/dev/zero of="$model" bs=32k seek=$((zoff / 32768)) count=2 conv=notrunc status=none; }; then
		tap_check 1 "[$1] over 4 GiB: the model file in $FB_SCRATCH"
		return
	fi
	# shellcheck disable=SC2086 # several options
	if ! fb_mount $margs 2> "$FB_SCRATCH/daemon.err"; then
		tap_check 1 "[$1] over 4 GiB: mount: $(head -n 1 "$FB_SCRATCH/daemon.err")"
		return
	fi
	f=$FB_MNT/big
	r0="$((woff - mib / 2)):$woff:zero" r1="$woff:$bsize:file=$model"
	dd if="$FB_SCRATCH/rand.big" of="$f" bs=64k seek=$((woff / 65536)) conv=notrunc status=none &&
		fallocate -p -o $poff -l 65536 "$f" && fallocate -z -o $zoff -l 65536 "$f" &&
		fb_drop_caches &&
		timeout -k 5 60 "$blocks" "$f" $bsize "$r0" "$r1" > "$FB_SCRATCH/big.out" 2>&1
	tap_check $? "[$1] over 4 GiB: 1 MiB across the 4 GiB boundary, a punch-hole and a zero-range in it: size $bsize and the window equal the model through the mount"
	[ -s "$FB_SCRATCH/big.out" ] && grep -v ': ok$' "$FB_SCRATCH/big.out" | head -n 2 | while IFS= read -r l; do tap_diag "$l"; done
	fb_umount
	alloc=$(($(stat -c '%b * %B' "$FB_BACK/big") / mib))
	timeout -k 5 60 "$blocks" "$FB_BACK/big" $bsize "$r0" "$r1" > "$FB_SCRATCH/big.out" 2>&1 &&
		[ "$alloc" -lt 64 ]
	tap_check $? "[$1] over 4 GiB: the backing file read directly equals the model, and stays sparse ($alloc MiB allocated)"
	rm -f "$FB_BACK/big" "$model"
}

ntests_mode=16
[ -x "$blocks" ] || { tap_check 1 "$blocks is built (make -C tests bin)"; tap_done; exit 1; }
head -c $((prefill * mib)) /dev/urandom > "$FB_SCRATCH/rand.shared"
head -c $((racesz * mib)) /dev/urandom > "$FB_SCRATCH/rand.race"
for m in $modes; do
	if [ $(($(date +%s) - t0)) -gt "$budget" ]; then
		tap_check 1 "[$m] integrity did not finish in $budget s (FB_SUITE_BUDGET): this mode did not start"
		continue
	fi
	case $m in
	cached) direct=0 ;;
	*) direct=1 ;;
	esac
	tm=$(date +%s)
	FB_BACK=$base/$m
	rm -rf "$FB_BACK"
	mkdir -p "$FB_BACK"
	cp "$FB_SCRATCH/rand.shared" "$FB_BACK/shared"
	cp "$FB_SCRATCH/rand.race" "$FB_BACK/race"
	margs=$(fb_mode_args "$m") || { tap_check 1 "[$m] known mode"; continue; }
	# shellcheck disable=SC2086 # several options
	if ! fb_mount $margs --threads 4 2> "$FB_SCRATCH/daemon.err"; then
		if grep -q 'did not offer FUSE_PASSTHROUGH in INIT' "$FB_SCRATCH/daemon.err"; then
			why="mount: $(grep -m 1 'did not offer FUSE_PASSTHROUGH' "$FB_SCRATCH/daemon.err")"
			nt=$ntests_mode
			case $m in passthrough | pt-parallel) nt=$((ntests_mode + 2)) ;; esac
			tap_skip_n $nt "[$m]" "$why"
		else
			tap_check 1 "[$m] mount ($margs): $(head -n 1 "$FB_SCRATCH/daemon.err")"
		fi
		fb_cleanup
		continue
	fi
	tf=$(date +%s)
	# Passthrough: the kernel allows one backing file per inode at a time;
	# a daemon that registers a new one for every open makes the second
	# concurrent open of a file fail (EIO), and every test below opens the
	# file concurrently.
	conc=ok
	case $m in
	passthrough | pt-parallel)
		# shellcheck disable=SC2094 # fd 3 only holds the file open
		if ! head -c 1 "$FB_MNT/shared" > /dev/null 2> "$FB_SCRATCH/probe.err"; then
			conc="a single open fails: $(head -n 1 "$FB_SCRATCH/probe.err")"
		elif ! { head -c 1 "$FB_MNT/shared" > /dev/null 2> "$FB_SCRATCH/probe.err"; } 3< "$FB_MNT/shared"; then
			conc="the daemon gives each open of a file its own backing id and the kernel refuses a second backing file on an open inode ($(sed 's/.*: //' "$FB_SCRATCH/probe.err" | head -n 1) on the second concurrent open): fix fbtestd to share one backing id per inode"
		fi
		;;
	esac
	if [ "$conc" = ok ]; then
		fio_shared "$m" "$direct" 2 no
		fio_shared "$m" "$direct" 4 yes
		trunc_race "$m" "$direct"
	else
		tap_check 1 "[$m] concurrent opens of one passthrough file: $conc"
		fb_umount
		continue
	fi
	fb_umount
	tap_check $? "[$m] unmount; the daemon exits"
	case $m in
	passthrough | pt-parallel)
		po=$(sed -n 's/^passthrough_opens=//p' "$FB_STATS")
		nw=$(sed -n 's/^op_WRITE=//p' "$FB_STATS")
		[ "${po:-0}" -gt 0 ] && [ "${nw:-0}" = 0 ]
		tap_check $? "[$m] the I/O bypassed the daemon (passthrough opens ${po:-0}, WRITE requests ${nw:-0})"
		;;
	*)
		nw=$(sed -n 's/^op_WRITE=//p' "$FB_STATS")
		[ "${nw:-0}" -gt 0 ]
		tap_check $? "[$m] the writes went through the daemon (WRITE requests ${nw:-0})"
		;;
	esac
	race_model "$m"
	case $m in passthrough | pt-parallel) big_file "$m" ;; esac
	tap_diag "[$m] $(($(date +%s) - tm)) s (setup $((tf - tm)) s)"
	rm -rf "$FB_BACK"
done
tap_diag "integrity: $(($(date +%s) - t0)) s"
fb_mounted "$FB_MNT" && tap_check 1 "nothing left mounted on $FB_MNT"
tap_done
