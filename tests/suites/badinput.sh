#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Malformed replies from the daemon: the kernel must refuse them or contain
# the damage, never hang, and the mount must still come off. TAP.
#
# For each row of the table below (one per fault of `fbtestd --list-faults`):
# mount with --fault NAME (passthrough mode for pt-*/bo-*), run the trigger
# that makes the kernel send the faulted request, and check the reaction:
#   caller  what the triggering command gets: ok (it works and its output is
#           right), an errno name (it fails with that error), err (it fails)
#   daemon  what the daemon's write of the bad reply got (fault_write_errno):
#           0 (accepted), an errno name, or bo:ERRNO for the errno of the
#           FUSE_DEV_IOC_BACKING_OPEN the fault made (fault_backing_open_errno);
#           - (not checked)
# A row must expect an error on at least one side, except rows whose trigger
# checks what the catalogue says the kernel does instead (lstrunc, write64k).
# Then: the daemon is still alive, the mount unmounts and the daemon exits.
#
# usage: sh tests/suites/badinput.sh
# Environment (set by the caller): FB_TOP, FB_TARGET, FB_DEV, FB_FSTYPE,
# FB_SCRATCH. Optional: FB_BADINPUT_FAULTS (only these faults).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/lib/tap.sh
. "$FB_TOP/tests/lib/tap.sh"
# shellcheck source=tests/lib/fuse.sh
. "$FB_TOP/tests/lib/fuse.sh"
LC_ALL=C
export LC_ALL

# Triggers: fstat  open the file, wait for its attributes to expire (1 s),
#                  fstat it (GETATTR; the daemon faults regular files only)
#           stat   stat the file on a fresh mount (LOOKUP)
#           cat    cat the file (OPEN, READ)
#           write  write 4 KiB into the file (OPEN, WRITE)
#           statfs stat -f on the mount (STATFS)
#           ls     list the root directory (OPENDIR, READDIR)
#           init   stat the file (the first request waits for the INIT reply)
#           lstrunc  ls must succeed with a truncated listing, and a second
#                  ls (fault used up) must list everything
#           write64k 64 KiB in one write(2) must work and reach the daemon
#                  as 4 KiB WRITEs at most (>= 16 of them)
#           getxattr getfattr -n user.fb on the file (GETXATTR)
#           lost   write 4 KiB: the write must succeed and the backing file
#                  must NOT have the data (the fault the data suites catch)
table='
# fault                 mode         trigger   caller        daemon
hdr-short-write         cached       fstat     ok            EINVAL
len-lt-header           cached       fstat     ok            EINVAL
len-gt-written          cached       fstat     ok            EINVAL
len-huge                cached       fstat     ok            EINVAL
zero-write              cached       fstat     ok            EINVAL
unknown-unique          cached       fstat     ok            ENOENT
dup-unique              cached       fstat     ok            ENOENT
error-positive          cached       fstat     ok            EINVAL
error-huge-neg          cached       fstat     ok            EINVAL
error-erestartsys       cached       fstat     ok            EINVAL
error-payload           cached       fstat     EIO           EINVAL
short-getattr           cached       fstat     EIO           EINVAL
short-lookup            cached       stat      EIO           EINVAL
short-open              cached       cat       EIO           EINVAL
short-write             cached       write     EIO           EINVAL
short-statfs            cached       statfs    EIO           EINVAL
short-init              cached       init      EIO           0
long-reply              cached       fstat     EIO           EINVAL
lookup-nodeid0          cached       stat      ENOENT        0
lookup-root-nodeid      cached       stat      EIO           0
lookup-root-wrongtype   cached       stat      EIO           0
attr-bad-mode           cached       stat      EIO           0
attr-size-huge          cached       stat      EIO           0
write-too-many          cached       write     EIO           0
read-too-long           direct       cat       EIO           EINVAL
dirent-namelen0         cached       ls        EIO           0
dirent-namelen-huge     cached       ls        EIO           0
dirent-namelen-overrun  cached       lstrunc   ok            0
dirent-slash            cached       ls        EIO           0
init-major6             cached       init      ECONNREFUSED  0
init-minor0             cached       init      EIO           0
init-maxwrite0          cached       write64k  ok            0
write-lost              cached       lost      ok            -
notify-bogus-code       cached       fstat     ok            EINVAL
notify-inval-unknown    cached       fstat     ok            ENOENT
pt-backing-id0          passthrough  cat       EIO           0
pt-backing-unknown      passthrough  cat       EIO           0
pt-backing-closed       passthrough  cat       EIO           0
bo-dir                  passthrough  cat       EISDIR        bo:EISDIR
bo-fifo                 passthrough  cat       EINVAL        bo:EINVAL
bo-flags                passthrough  cat       EINVAL        bo:EINVAL
bo-padding              passthrough  cat       EINVAL        bo:EINVAL
bo-nocap                passthrough  cat       EPERM         bo:EPERM
bo-nested               passthrough  cat       ELOOP         bo:ELOOP
bo-badfd                passthrough  cat       EBADF         bo:EBADF
err-eio                 cached       getxattr  EIO           0
err-enomem              cached       getxattr  ENOMEM        0
stall-eintr             cached       getxattr  EINTR         0
'

nents=20		# directory entries besides "file"
t0=$(date +%s)
base=$FB_SCRATCH/badinput
inner=$FB_SCRATCH/inner
mkdir -p "$FB_SCRATCH" "$base" "$FB_MNT"
inner_up=no

cleanup() {
	fb_cleanup
	if fb_mounted "$inner"; then
		umount "$inner" 2> /dev/null || umount -l "$inner"
	fi
}
trap 'cleanup' EXIT
trap 'cleanup; exit 1' INT TERM HUP
tap_diag "target ${FB_TARGET:-?}, $FB_FSTYPE on $FB_DEV"

errtext() {
	case $1 in
	EPERM) echo "Operation not permitted" ;;
	ENOENT) echo "No such file or directory" ;;
	EIO) echo "Input/output error" ;;
	EBADF) echo "Bad file descriptor" ;;
	EISDIR) echo "Is a directory" ;;
	EINVAL) echo "Invalid argument" ;;
	ELOOP) echo "Too many levels of symbolic links" ;;
	ECONNREFUSED) echo "Connection refused" ;;
	ENOMEM) echo "Cannot allocate memory" ;;
	EINTR) echo "Interrupted system call" ;;
	*) echo "errno $1" ;;
	esac
}
errnum() {
	case $1 in
	0) echo 0 ;;
	EPERM) echo 1 ;;
	ENOENT) echo 2 ;;
	EIO) echo 5 ;;
	EBADF) echo 9 ;;
	EISDIR) echo 21 ;;
	EINVAL) echo 22 ;;
	ELOOP) echo 40 ;;
	ECONNREFUSED) echo 111 ;;
	*) echo "?" ;;
	esac
}
errname() {	# errno number -> name, for messages
	for e in EPERM ENOENT EIO EBADF EISDIR EINVAL ELOOP ECONNREFUSED; do
		[ "$(errnum $e)" = "$1" ] && echo "$e" && return
	done
	echo "$1"
}

head -c 4096 /dev/urandom > "$FB_SCRATCH/ref4k"
head -c 65536 /dev/urandom > "$FB_SCRATCH/ref64k"

fresh_back() {
	FB_BACK=$base/back
	rm -rf "$FB_BACK"
	mkdir -p "$FB_BACK"
	echo hello > "$FB_BACK/file"
	i=1
	while [ $i -le $nents ]; do
		: > "$FB_BACK/e$i"
		i=$((i + 1))
	done
}

# bo-nested's other FUSE mount, in passthrough mode
inner_mount() {
	[ $inner_up = yes ] && return 0
	mkdir -p "$inner" "$FB_SCRATCH/innerb"
	"$FB_DAEMON" --dev "$FB_DEV" --fstype "$FB_FSTYPE" \
		--backing "$FB_SCRATCH/innerb" --mode passthrough \
		--pidfile "$FB_SCRATCH/inner.pid" "$inner" 2> "$FB_SCRATCH/inner.err" &&
		inner_up=yes
}

# trig TRIGGER: run it (bounded); sets trc, tout (stdout, one line), terr
# (stderr, one line), good (yes when the output is the right one)
trig() {
	f=$FB_MNT/file
	good=no
	case $1 in
	fstat)
		# shellcheck disable=SC2016 # for the inner shell
		timeout -k 2 20 sh -c 'exec < "$1"; sleep 1.2; exec stat -c %s -' sh "$f"
		;;
	stat | init)
		timeout -k 2 20 stat -c %s "$f"
		;;
	cat)
		timeout -k 2 20 cat "$f"
		;;
	write | lost)
		timeout -k 2 20 dd if="$FB_SCRATCH/ref4k" of="$f" bs=4096 count=1 \
			conv=notrunc status=none
		;;
	write64k)
		timeout -k 2 20 dd if="$FB_SCRATCH/ref64k" of="$f" bs=65536 count=1 \
			conv=notrunc,fsync status=none
		;;
	statfs)
		timeout -k 2 20 stat -f -c %b "$FB_MNT"
		;;
	getxattr)
		timeout -k 2 20 getfattr -n user.fb --only-values "$f"
		;;
	ls | lstrunc)
		timeout -k 2 20 ls -A "$FB_MNT" > "$FB_SCRATCH/ls.out"
		;;
	esac > "$FB_SCRATCH/t.out" 2> "$FB_SCRATCH/t.err"
	trc=$?
	tout=$(head -n 1 "$FB_SCRATCH/t.out")
	terr=$(head -n 1 "$FB_SCRATCH/t.err")
	[ $trc = 0 ] || return 0
	case $1 in
	fstat | stat | init) [ "$tout" = 6 ] && good=yes ;;
	cat) [ "$tout" = hello ] && good=yes ;;
	write)
		cmp -s -n 4096 "$FB_SCRATCH/ref4k" "$FB_BACK/file" && good=yes
		tout="4 KiB written"
		;;
	write64k)
		cmp -s "$FB_SCRATCH/ref64k" "$FB_BACK/file" && good=yes
		tout="64 KiB written"
		;;
	lost)
		cmp -s -n 4096 "$FB_SCRATCH/ref4k" "$FB_BACK/file" || good=yes
		tout="4 KiB written, $([ $good = yes ] && echo "not in the backing file" || echo "yet in the backing file")"
		;;
	statfs) [ "${tout:-x}" -ge 0 ] 2> /dev/null && good=yes ;;
	ls | lstrunc)
		tout="$(wc -l < "$FB_SCRATCH/ls.out") entries"
		[ "$tout" = "$((nents + 1)) entries" ] && good=yes
		;;
	esac
}

# the caller side of the reaction: "" when as expected, else what went wrong
caller_check() {	# caller_check EXPECTED TRIGGER
	case $trc in
	124 | 137) echo "the caller hung (killed after 20 s)" && return ;;
	esac
	case $1 in
	ok)
		case $2 in
		lstrunc)
			# the catalogue: parsing stops silently, no error
			[ $trc = 0 ] && [ $good = no ] ||
				echo "ls should succeed with a truncated listing: exit $trc, $tout"
			;;
		*)
			[ $trc = 0 ] && [ $good = yes ] ||
				echo "the caller should be unaffected: exit $trc, ${terr:-$tout}"
			;;
		esac
		;;
	err)
		[ $trc != 0 ] || echo "the caller should fail, got: $tout"
		;;
	*)
		if [ $trc = 0 ]; then
			echo "the caller should get $1, got success: $tout"
		else
			case $terr in
			*"$(errtext "$1")"*) ;;
			*) echo "the caller should get $1 ($(errtext "$1")), got: $terr" ;;
			esac
		fi
		;;
	esac
}

# the daemon side: "" when as expected, else what went wrong
daemon_check() {	# daemon_check EXPECTED
	case $1 in
	-) ;;
	bo:*)
		want=$(errnum "${1#bo:}")
		[ "$fbo" = "$want" ] ||
			echo "BACKING_OPEN should fail with ${1#bo:}, got errno $fbo"
		;;
	*)
		want=$(errnum "$1")
		[ "$fwe" = "$want" ] ||
			echo "the bad reply's write should get $1, got $(errname "$fwe")"
		;;
	esac
}

have() {	# the daemon's catalogue has fault $1
	printf '%s\n' "$catalogue" | grep -q "^$1 "
}
catalogue=$("$FB_DAEMON" --list-faults 2> /dev/null)
[ -n "$catalogue" ]
tap_check $? "the daemon lists its fault catalogue ($(printf '%s\n' "$catalogue" | grep -c .) faults)"

only=${FB_BADINPUT_FAULTS:-}
intable=""
pt_missing=""
printf '%s\n' "$table" | grep -v -e '^#' -e '^$' > "$FB_SCRATCH/table"
while read -r name mode trigger caller daemon <&3; do
	intable="$intable $name "
	if [ -n "$only" ]; then
		case " $only " in
		*" $name "*) ;;
		*) continue ;;
		esac
	fi
	op=$(printf '%s\n' "$catalogue" | awk -v n="$name" '$1 == n { print $2 }')
	if ! have "$name"; then
		tap_skip "$name" "not in this fbtestd's fault catalogue"
		continue
	fi
	# a row that asserts no error must have a trigger that checks something
	# else; otherwise the test could not fail
	case $caller/$daemon/$trigger in
	ok/0/lstrunc | ok/0/write64k | ok/-/lstrunc | ok/-/write64k | ok/-/lost) ;;
	ok/0/* | ok/-/*)
		tap_check 1 "$name: table row expects no reaction at all"
		continue
		;;
	esac
	if [ -n "$pt_missing" ] && [ "$mode" = passthrough ]; then
		tap_skip "$name ($op)" "$pt_missing"
		tap_skip "$name: unmount" "$pt_missing"
		continue
	fi
	extra=""
	if [ "$name" = bo-nested ]; then
		if ! inner_mount; then
			tap_skip "$name ($op)" "cannot mount the other FUSE in passthrough mode: $(head -n 1 "$FB_SCRATCH/inner.err")"
			tap_skip "$name: unmount" "no other FUSE mount"
			continue
		fi
		extra="--backing-nested $inner"
	fi
	fresh_back
	# shellcheck disable=SC2046,SC2086 # several options
	timeout -k 2 30 "$FB_DAEMON" --dev "$FB_DEV" --fstype "$FB_FSTYPE" \
		--backing "$FB_BACK" --stats "$FB_STATS" --pidfile "$FB_PIDFILE" \
		$(fb_mode_args "$mode") --fault "$name" $extra "$FB_MNT" \
		2> "$FB_SCRATCH/daemon.err"
	mrc=$?
	if [ $mrc != 0 ]; then
		if grep -q 'did not offer FUSE_PASSTHROUGH in INIT' "$FB_SCRATCH/daemon.err"; then
			pt_missing="mount: $(grep -m 1 'did not offer FUSE_PASSTHROUGH' "$FB_SCRATCH/daemon.err")"
			tap_skip "$name ($op)" "$pt_missing"
			tap_skip "$name: unmount" "$pt_missing"
		else
			tap_check 1 "$name: mount with the fault: exit $mrc $(head -n 1 "$FB_SCRATCH/daemon.err")"
		fi
		fb_cleanup
		continue
	fi
	dpid=$(fb_daemon_pid)
	trig "$trigger"
	why=$(caller_check "$caller" "$trigger")
	# the daemon records a fault after its write, which may already have
	# released the caller: look again for a while
	n=0
	while [ $n -lt 10 ]; do
		fb_stat faults_sent > /dev/null
		fs=$(sed -n 's/^faults_sent=//p' "$FB_STATS")
		fwe=$(sed -n 's/^fault_write_errno=//p' "$FB_STATS")
		fbo=$(sed -n 's/^fault_backing_open_errno=//p' "$FB_STATS")
		nwr=$(sed -n 's/^op_WRITE=//p' "$FB_STATS")
		dwhy=$(daemon_check "$daemon")
		[ "${fs:-0}" -ge 1 ] || dwhy="the fault was never sent (trigger $trigger)"
		[ -z "$dwhy" ] && break
		sleep 0.2
		n=$((n + 1))
	done
	why=${why:-$dwhy}
	if [ "$trigger" = write64k ] && [ -z "$why" ] && [ "${nwr:-0}" -lt 16 ]; then
		why="64 KiB should take >= 16 WRITEs of <= 4 KiB, took ${nwr:-0}"
	fi
	case $caller in
	ok) side="daemon-error" ;;
	*) side="caller-error" ;;
	esac
	case $daemon in
	0 | -) ;;
	*) [ "$caller" != ok ] && side=both ;;
	esac
	case $trigger in
	lstrunc) side="listing truncated silently" ;;
	write64k) side="writes split to 4 KiB" ;;
	esac
	[ -z "$why" ]
	tap_check $? "$name ($op): $side: caller ${caller}, daemon ${daemon}${why:+ -- $why}"
	if [ -n "$why" ]; then
		tap_diag "got: exit $trc, out '$tout', err '$terr', faults_sent ${fs:-?}, fault_write_errno ${fwe:-?}, fault_backing_open_errno ${fbo:-?}"
		grep -m 3 'fault' "$FB_SCRATCH/daemon.err" | while IFS= read -r l; do tap_diag "daemon: $l"; done
	fi
	# what the catalogue says happens next
	case $name in
	lookup-root-wrongtype)
		timeout -k 2 20 stat -c %s "$FB_MNT/file" > /dev/null 2> "$FB_SCRATCH/t.err"
		rc=$?
		[ $rc != 0 ] && [ $rc != 124 ] && grep -q "$(errtext EIO)" "$FB_SCRATCH/t.err"
		tap_check $? "$name: the root inode is bad now: a second stat fails with EIO too ($(head -n 1 "$FB_SCRATCH/t.err"))"
		;;
	dirent-namelen-overrun)
		trig ls
		[ $good = yes ]
		tap_check $? "$name: the next listing (fault used up) has all $((nents + 1)) entries ($tout)"
		;;
	esac
	alive=yes
	fb_alive "$dpid" || alive=no
	fb_umount
	urc=$?
	[ $alive = yes ] && [ $urc = 0 ] && ! fb_mounted "$FB_MNT"
	tap_check $? "$name: the daemon survived, the mount comes off, the daemon exits (alive $alive, fb_umount $urc)"
	fb_cleanup
done 3< "$FB_SCRATCH/table"

# faults of the catalogue the table does not know: loud
printf '%s\n' "$catalogue" | while read -r name _; do
	[ -z "$name" ] && continue
	case $intable in
	*" $name "*) ;;
	*) echo "$name" ;;
	esac
done > "$FB_SCRATCH/untested"
while read -r name; do
	tap_skip "$name" "fault of the catalogue without a row in badinput.sh's table"
done < "$FB_SCRATCH/untested"

tap_diag "badinput: $(($(date +%s) - t0)) s"
fb_mounted "$FB_MNT" && tap_check 1 "nothing left mounted on $FB_MNT"
tap_done
