#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The connection going away under load, and mount/module life cycles. TAP.
#
#   1. SIGKILL of the daemon while 4 fio jobs write one file in parallel
#      (O_DIRECT, daemon in parallel mode): the writers fail with errors,
#      none hangs past a bound, umount works, the connection goes away.
#   2. The same with an abort through the control file system
#      ($FB_CTL/<conn>/abort) instead of the kill; the daemon exits too.
#   3. umount -l while the writers run: the mount vanishes at once, the
#      writers finish without an error, the daemon exits after them.
#   4. 50 mount/unmount cycles (cached, direct, parallel in turn), each
#      writing a file and reading it back, and reading the previous cycle's
#      file after the fresh mount.
#   4b. SIGKILL, abort and umount -l under 4 writers in pt-parallel mode
#      (O_DIRECT: the shared-lock path) and cached mode (fsync after each
#      write): every acknowledged write is in the backing file.
#   5. 20 unload/load cycles of our module (FB_TARGET ours or unpatched),
#      each followed by a mount with a write and read check.
#   6. rmmod while a mount or an open device holds the module: refused as
#      in use; then, nothing holding it, it goes.
#
# usage: sh tests/suites/faults.sh
# Environment (set by the caller): FB_TOP, FB_TARGET, FB_DEV, FB_FSTYPE,
# FB_CTL, FB_MODNAME, FB_MODDIR, FB_SCRATCH. Optional: FB_FAULTS_CYCLES
# (default 50), FB_FAULTS_MODCYCLES (default 20), FB_CYCLES_BUDGET (seconds
# for each kind of cycles, default 400: cycles not started by then are a
# failure, "did not finish in N s").
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/lib/tap.sh
. "$FB_TOP/tests/lib/tap.sh"
# shellcheck source=tests/lib/fuse.sh
. "$FB_TOP/tests/lib/fuse.sh"

bound=30		# seconds any I/O may take to end after the event
ncycles=${FB_FAULTS_CYCLES:-50}
nmod=${FB_FAULTS_MODCYCLES:-20}
budget=${FB_CYCLES_BUDGET:-400}
t0=$(date +%s)
base=$FB_SCRATCH/faults
mkdir -p "$FB_SCRATCH"
trap 'fb_cleanup' EXIT
trap 'fb_cleanup; exit 1' INT TERM HUP
tap_diag "target ${FB_TARGET:-?}, $FB_FSTYPE on $FB_DEV, control fs $FB_CTL"
have_fio=yes
command -v fio > /dev/null || have_fio=no

fresh_back() {	# fresh_back NAME: empty backing dir with a 4 MiB file "io"
	FB_BACK=$base/$1
	rm -rf "$FB_BACK"
	mkdir -p "$FB_BACK"
	head -c 4194304 /dev/urandom > "$FB_BACK/io"
}

# start_io NAME RUNTIME: 4 fio jobs, O_DIRECT 4 KiB random writes on one
# file, in the background ($iopid: the timeout around fio)
start_io() {
	io_out=$FB_SCRATCH/$1.out
	rm -f "$io_out"
	timeout -k 5 $(($2 + bound)) fio --name="$1" --filename="$FB_MNT/io" \
		--numjobs=4 --rw=randwrite --norandommap=1 --bs=4k --size=4M \
		--direct=1 --ioengine=psync --fallocate=none --create_on_open=1 \
		--time_based=1 --runtime="$2" --output="$io_out" > /dev/null 2>&1 &
	iopid=$!
}

# io_running: the daemon served a few WRITEs of start_io (bounded: 20 s)
io_running() {
	n=0
	while [ $n -lt 100 ]; do
		w=$(fb_stat op_WRITE)
		[ "${w:-0}" -gt 20 ] && return 0
		kill -0 "$iopid" 2> /dev/null || return 1
		sleep 0.2
		n=$((n + 1))
	done
	return 1
}

# wait_io: wait for start_io's fio; sets io_rc and io_secs (since $tev)
wait_io() {
	wait "$iopid"
	io_rc=$?
	io_secs=$(($(date +%s) - tev))
}

io_errors() {	# the errors fio's jobs ended with ("err=N (... error=TEXT)"), one line
	sed -n 's/.* err= *\([1-9][0-9]*\) (.*error=\([^)]*\)).*/\1 \2/p' "$io_out" 2> /dev/null |
		sort | uniq -c | sort -rn | head -n 3 | sed 's/^ *\([0-9]*\) /\1x /' |
		tr '\n' ';'
}
# io_lost: fio's jobs ended with errors, and only with the two a lost
# connection gives: ECONNABORTED (103, requests in flight) and ENOTCONN (107,
# requests after it)
io_lost() {
	il=$(sed -n 's/.* err= *\([0-9][0-9]*\) .*/\1/p' "$io_out" 2> /dev/null | grep -v '^0$' | sort -u | tr '\n' ' ')
	[ -n "$il" ] && ! echo "$il" | tr ' ' '\n' | grep -q -v -x -e 103 -e 107 -e ''
}

gone() {	# gone PID: PID exits within 10 s
	fb_wait_while 100 fb_alive "$1"
}

over_budget() {	# the cycles started at $tc ran out of time
	[ $(($(date +%s) - tc)) -gt "$budget" ]
}

ctl_ok() {	# the control fs is mounted
	[ -n "${FB_CTL:-}" ] && mountpoint -q "$FB_CTL" 2> /dev/null
}

# after_loss WHAT: the checks shared by the kill and the abort test
after_loss() {
	[ "$io_rc" != 0 ] && [ "$io_rc" != 124 ] && [ "$io_rc" != 137 ] && io_lost
	tap_check $? "$1: the writers fail with ECONNABORTED or ENOTCONN, nothing else (fio exit $io_rc: $(io_errors))"
	[ "$io_rc" != 124 ] && [ "$io_rc" != 137 ] && [ "$io_secs" -le $bound ]
	tap_check $? "$1: no writer hangs: all ended ${io_secs} s after it (bound ${bound} s)"
	timeout -k 2 20 umount "$FB_MNT" 2> "$FB_SCRATCH/umount.err"
	urc=$?
	! fb_mounted "$FB_MNT" && [ $urc = 0 ]
	tap_check $? "$1: plain umount works afterwards (exit $urc $(head -n 1 "$FB_SCRATCH/umount.err"))"
	if ctl_ok && [ -n "$conn" ]; then
		[ ! -e "$FB_CTL/$conn" ]
		tap_check $? "$1: connection $conn gone from $FB_CTL"
	else
		tap_skip "$1: connection gone from the control fs" "control fs not mounted at ${FB_CTL:-?}"
	fi
	fb_cleanup
}

# ---- 1. SIGKILL of the daemon during parallel I/O
if [ $have_fio = no ]; then
	tap_skip "SIGKILL of the daemon during parallel I/O" "fio is not installed"
elif fresh_back kill && fb_mount --mode direct --parallel --delay-us 1000 2> "$FB_SCRATCH/daemon.err"; then
	conn=$(fb_conn "$FB_MNT")
	dpid=$(fb_daemon_pid)
	start_io kill 25
	io_running
	tap_check $? "SIGKILL: 4 parallel writers are running (WRITEs served: ${w:-0})"
	tev=$(date +%s)
	kill -9 "$dpid"
	wait_io
	after_loss "SIGKILL of the daemon"
else
	tap_check 1 "SIGKILL test: mount in parallel mode: $(head -n 1 "$FB_SCRATCH/daemon.err")"
	fb_cleanup
fi

# ---- 2. abort through the control fs during parallel I/O
if [ $have_fio = no ]; then
	tap_skip "abort through the control fs during parallel I/O" "fio is not installed"
elif ! ctl_ok; then
	tap_skip "abort through the control fs during parallel I/O" "control fs not mounted at ${FB_CTL:-?}"
elif fresh_back abort && fb_mount --mode direct --parallel --delay-us 1000 2> "$FB_SCRATCH/daemon.err"; then
	conn=$(fb_conn "$FB_MNT")
	dpid=$(fb_daemon_pid)
	[ -n "$conn" ] && [ -f "$FB_CTL/$conn/abort" ]
	tap_check $? "abort: $FB_CTL/${conn:-?}/abort exists for the mount"
	start_io abort 25
	io_running
	tap_check $? "abort: 4 parallel writers are running (WRITEs served: ${w:-0})"
	tev=$(date +%s)
	if echo 1 > "$FB_CTL/$conn/abort"; then arc=0; else arc=1; fi
	tap_check $arc "abort: write 1 to $FB_CTL/$conn/abort"
	wait_io
	gone "$dpid"
	tap_check $? "abort: the daemon notices and exits"
	after_loss "abort through the control fs"
else
	tap_check 1 "abort test: mount in parallel mode: $(head -n 1 "$FB_SCRATCH/daemon.err")"
	fb_cleanup
fi

# ---- 3. lazy unmount while the writers run
if [ $have_fio = no ]; then
	tap_skip "umount -l during parallel I/O" "fio is not installed"
elif fresh_back lazy && fb_mount --mode direct --parallel --delay-us 1000 2> "$FB_SCRATCH/daemon.err"; then
	dpid=$(fb_daemon_pid)
	start_io lazy 6
	io_running
	tap_check $? "umount -l: 4 parallel writers are running (WRITEs served: ${w:-0})"
	tev=$(date +%s)
	umount -l "$FB_MNT"
	urc=$?
	! fb_mounted "$FB_MNT" && [ $urc = 0 ]
	tap_check $? "umount -l during the writes: the mount vanishes at once (exit $urc)"
	wait_io
	[ "$io_rc" = 0 ] && ! grep -qiE 'err= *[1-9]|io_u error' "$io_out"
	tap_check $? "umount -l: the writers finish through their open file without an error (fio exit $io_rc after ${io_secs} s $(io_errors))"
	gone "$dpid"
	tap_check $? "umount -l: the daemon exits once the last file is closed"
	[ ! -e "$FB_MNT/io" ]
	tap_check $? "umount -l: nothing wrote to the bare mount point directory"
	fb_cleanup
	rm -f "$FB_MNT/io"
else
	tap_check 1 "umount -l test: mount in parallel mode: $(head -n 1 "$FB_SCRATCH/daemon.err")"
	fb_cleanup
fi

# ---- 4. mount/unmount cycles
# cycle_io I: write file cI through the mount, check it (mount and backing)
# and the file of cycle I-1 (written before the last unmount)
ref=$FB_SCRATCH/ref64k
head -c 65536 /dev/urandom > "$ref"
content() {
	printf 'cycle %s\n' "$1"
	cat "$ref"
}
cycle_io() {
	cyc_exp=$FB_SCRATCH/cyc.$(($1 % 2))
	cyc_prev=$FB_SCRATCH/cyc.$((($1 + 1) % 2))
	[ "$1" -gt 1 ] || rm -f "$cyc_prev"
	content "$1" > "$cyc_exp"
	# one bounded shell for all of it: every exec costs ~0.15 s in a TCG
	# guest
	# shellcheck disable=SC2016 # for the inner shell
	timeout -k 2 30 sh -c '
		if [ -f "$4" ]; then cmp -s "$4" "$1/c$(($3 - 1))" || exit 1; fi
		cp "$5" "$1/c$3" && cmp -s "$5" "$1/c$3" && cmp -s "$5" "$2/c$3"
	' sh "$FB_MNT" "$FB_BACK" "$1" "$cyc_prev" "$cyc_exp"
}

nconn() {
	if ctl_ok; then
		find "$FB_CTL" -mindepth 1 -maxdepth 1 | wc -l
	else
		echo -
	fi
}

FB_BACK=$base/cycles
rm -rf "$FB_BACK"
mkdir -p "$FB_BACK"
conns0=$(nconn)
fm=0 fd=0 fu=0 first=""
tc=$(date +%s)
i=1
while [ $i -le "$ncycles" ]; do
	over_budget && break
	case $((i % 3)) in
	0) m=cached ;;
	1) m=direct ;;
	2) m=parallel ;;
	esac
	# shellcheck disable=SC2046 # several options
	if ! fb_mount $(fb_mode_args "$m") 2> "$FB_SCRATCH/daemon.err"; then
		fm=$((fm + 1))
		first=${first:-"cycle $i ($m): mount: $(head -n 1 "$FB_SCRATCH/daemon.err")"}
		fb_cleanup
		i=$((i + 1))
		continue
	fi
	if ! cycle_io $i; then
		fd=$((fd + 1))
		first=${first:-"cycle $i ($m): data"}
	fi
	if ! fb_umount || fb_mounted "$FB_MNT"; then
		fu=$((fu + 1))
		first=${first:-"cycle $i ($m): unmount"}
		fb_cleanup
	fi
	i=$((i + 1))
done
ran=$((i - 1))
tap_diag "$ran mount cycles: $(($(date +%s) - tc)) s${first:+; first failure: $first}"
if [ $i -le "$ncycles" ]; then
	tap_check 1 "mount cycles did not finish in $budget s (FB_CYCLES_BUDGET): cycles $i to $ncycles did not run"
fi
if [ $ran -gt 0 ]; then
	tap_check "$fm" "$ran mount cycles: every mount works ($fm failed)"
	tap_check "$fd" "$ran mount cycles: every file written reads back, also after the remount ($fd failed)"
	tap_check "$fu" "$ran mount cycles: every unmount works and its daemon exits ($fu failed)"
fi
conns1=$(nconn)
if [ "$conns0" = - ]; then
	tap_skip "mount cycles leave no connection behind" "control fs not mounted at ${FB_CTL:-?}"
else
	[ "$conns1" = "$conns0" ]
	tap_check $? "mount cycles leave no connection behind in $FB_CTL ($conns0 before, $conns1 after)"
fi

# ---- 4b. faults during the code the series changed:
# SIGKILL of the daemon, abort through the control fs and umount -l while 4
# writers overwrite their regions of one file (tests/faults/ackwriter.py):
# in pt-parallel mode with O_DIRECT (the shared-lock passthrough path), in
# cached mode with an fsync after each write (the writeback path). Every
# write acknowledged, before the fault or after it, must be in the backing
# file read directly afterwards, and the writers must end in time.
af_start=90	# seconds python3 may take to start the writers in a guest
af_not_going() {	# af_not_going ACKDIR: a writer is not under way yet
	for af_w in 0 1 2 3; do
		[ -e "$1/$af_w.go" ] || return 0
	done
	return 1
}
ack_fault() {	# ack_fault MODE FAULT
	af_opt=--fsync
	[ "$1" = pt-parallel ] && af_opt=--direct
	af_name="[$1] $2 during 4 writers ($af_opt): every acknowledged write is in the backing file, no writer hangs"
	FB_BACK=$ack_base/ack-$1-$2
	af_ack=$FB_SCRATCH/ack-$1-$2
	rm -rf "$FB_BACK" "$af_ack"
	mkdir -p "$FB_BACK"
	head -c 16777216 /dev/zero > "$FB_BACK/f"
	# shellcheck disable=SC2046 # the mode's options
	if ! fb_mount $(fb_mode_args "$1") 2> "$FB_SCRATCH/daemon.err"; then
		if [ "${FB_TARGET:-ours}" = stock ] && grep -q 'did not offer FUSE_PASSTHROUGH in INIT' "$FB_SCRATCH/daemon.err"; then
			tap_skip "$af_name" "mount: $(grep -m 1 FUSE_PASSTHROUGH "$FB_SCRATCH/daemon.err")"
		else
			tap_check 1 "$af_name (mount: $(head -n 1 "$FB_SCRATCH/daemon.err"))"
		fi
		fb_cleanup
		return
	fi
	conn=$(fb_conn "$FB_MNT")
	dpid=$(fb_daemon_pid)
	# The writers' bound counts from the fault, not from the start of
	# python3, which alone takes about 20 s in a TCG guest (6.1.0-57,
	# idle host: 26 s from the start to the last of 4096 records, written
	# in under 8 s); 8 + 30 s from the start left it 10 s under load.
	timeout -k 5 $((af_start + 8 + bound)) python3 "$FB_TOP/tests/faults/ackwriter.py" write "$FB_MNT/f" "$af_ack" 8 $af_opt \
		> "$FB_SCRATCH/ack.out" 2>&1 &
	af_pid=$!
	# all 4 writers are under way (5 acknowledged writes each); shell
	# builtins only, so that the polling keeps up with them
	fb_wait_while $((af_start * 10)) af_not_going "$af_ack"
	af_ev=ok
	af_tev=$(date +%s)
	case $2 in
	SIGKILL) kill -9 "$dpid" || af_ev="kill failed" ;;
	abort) { ctl_ok && [ -n "$conn" ] && echo 1 > "$FB_CTL/$conn/abort"; } || af_ev="no abort file for the mount" ;;
	"umount -l") umount -l "$FB_MNT" || af_ev="umount -l failed" ;;
	esac
	af_going=$(cat "$af_ack"/[0-9] 2> /dev/null | wc -l)
	wait "$af_pid"
	af_rc=$?
	af_secs=$(($(date +%s) - af_tev))
	fb_cleanup
	af_out=$(python3 "$FB_TOP/tests/faults/ackwriter.py" check "$FB_BACK/f" "$af_ack" 2>&1)
	af_crc=$?
	tap_diag "[$1] $2 (at about $af_going acknowledged records): writers exit $af_rc ${af_secs} s after it; $af_out"
	[ "$af_ev" = ok ] || af_name="$af_name ($af_ev)"
	[ "$af_ev" = ok ] && [ $af_rc = 0 ] && [ $af_crc = 0 ] && [ "$af_secs" -le $((8 + bound)) ]
	tap_check $? "$af_name"
	rm -rf "$FB_BACK" "$af_ack"
}
# The backing files on the guest's XFS when there is one: before 6.6 tmpfs
# has no O_DIRECT, so the passthrough open (and the daemon's) would fail.
fb_backing_base faults-ack
ack_base=$FB_BASE
for af_m in pt-parallel cached; do
	for af_f in SIGKILL abort "umount -l"; do
		ack_fault "$af_m" "$af_f"
	done
done

# ---- 5. module unload/load cycles
case ${FB_TARGET:-} in
ours | unpatched)
	mod=$FB_MODNAME
	fl=0 fm=0 fd=0 fu=0 first=""
	tc=$(date +%s)
	FB_BACK=$base/modcycles
	rm -rf "$FB_BACK"
	mkdir -p "$FB_BACK"
	i=1
	while [ $i -le "$nmod" ]; do
		over_budget && break
		if ! fb_unload_ours > "$FB_SCRATCH/mod.err" 2>&1 || [ -d "/sys/module/$mod" ]; then
			fl=$((fl + 1))
			first=${first:-"cycle $i: unload: $(head -n 1 "$FB_SCRATCH/mod.err")"}
		fi
		if ! fb_use "$FB_TARGET" > "$FB_SCRATCH/mod.err" 2>&1 || [ ! -d "/sys/module/$FB_MODNAME" ]; then
			fl=$((fl + 1))
			first=${first:-"cycle $i: load: $(head -n 1 "$FB_SCRATCH/mod.err")"}
			i=$((i + 1))
			continue
		fi
		if ! fb_mount --mode cached 2> "$FB_SCRATCH/daemon.err"; then
			fm=$((fm + 1))
			first=${first:-"cycle $i: mount: $(head -n 1 "$FB_SCRATCH/daemon.err")"}
			fb_cleanup
			i=$((i + 1))
			continue
		fi
		# the file of the previous cycle was written through the
		# previous instance of the module
		if ! cycle_io $i; then
			fd=$((fd + 1))
			first=${first:-"cycle $i: data"}
		fi
		if ! fb_umount || fb_mounted "$FB_MNT"; then
			fu=$((fu + 1))
			first=${first:-"cycle $i: unmount"}
			fb_cleanup
		fi
		i=$((i + 1))
	done
	ran=$((i - 1))
	tap_diag "$ran module cycles ($mod): $(($(date +%s) - tc)) s${first:+; first failure: $first}"
	if [ $i -le "$nmod" ]; then
		tap_check 1 "module cycles did not finish in $budget s (FB_CYCLES_BUDGET): cycles $i to $nmod did not run"
	fi
	if [ $ran -gt 0 ]; then
		tap_check "$fl" "$ran unload/load cycles of $mod: every rmmod and insmod works ($fl failed)"
		tap_check "$fm" "$ran module cycles: every mount on the fresh module works ($fm failed)"
		tap_check "$fd" "$ran module cycles: every file written reads back, also the previous module's ($fd failed)"
		tap_check "$fu" "$ran module cycles: every unmount works and its daemon exits ($fu failed)"
	fi
	;;
*)
	if [ -z "${FB_MODNAME:-}" ]; then
		why="stock FUSE is built in"
	else
		why="only our module is cycled (target ${FB_TARGET:-?})"
	fi
	tap_skip "$nmod unload/load cycles of the module" "$why"
	;;
esac

# ---- 6. rmmod while in use: refused cleanly while a
# mount with its daemon holds the module, and while /dev is open with
# nothing mounted; then, with nothing holding it, it goes. What else holds
# it (the control fs; cuse and virtiofs, which import the drop-in's symbols)
# goes first, so that only the mount or the open device can be the reason.
# strip_holders: that, for the loaded target
strip_holders() {
	[ -z "${FB_CTL:-}" ] || umount "$FB_CTL" 2> /dev/null
	[ "$FB_MODNAME" != fuse ] || rmmod virtiofs cuse 2> /dev/null
	return 0
}
busy() {	# busy WHAT: rmmod is refused as "in use", the module stays
	rmmod "$FB_MODNAME" > "$FB_SCRATCH/rmmod.err" 2>&1
	b_rc=$?
	[ $b_rc != 0 ] && grep -q 'in use' "$FB_SCRATCH/rmmod.err" && [ -d "/sys/module/$FB_MODNAME" ]
}
case ${FB_TARGET:-} in
ours | unpatched)
	FB_BACK=$base/busy
	rm -rf "$FB_BACK"
	mkdir -p "$FB_BACK"
	if fb_mount --mode direct --parallel 2> "$FB_SCRATCH/daemon.err"; then
		echo busy > "$FB_MNT/b"
		strip_holders
		busy && [ "$(cat "$FB_MNT/b")" = busy ] && echo more >> "$FB_MNT/b" &&
			[ "$(cat "$FB_BACK/b")" = "$(printf 'busy\nmore')" ]
		tap_check $? "rmmod $FB_MODNAME with a mount and its daemon alive: refused (exit $b_rc: $(head -n 1 "$FB_SCRATCH/rmmod.err")), the mount serves on"
		fb_umount
	else
		tap_check 1 "rmmod while mounted: mount: $(head -n 1 "$FB_SCRATCH/daemon.err")"
	fi
	strip_holders
	# a process that holds the device open (an exec redirection that
	# failed would end this shell)
	sleep 60 3<> "$FB_DEV" &
	hold=$!
	fb_wait_while 50 [ ! -e "/proc/$hold/fd/3" ]
	r=1
	[ -e "/proc/$hold/fd/3" ] && busy && r=0
	kill "$hold" 2> /dev/null
	wait "$hold" 2> /dev/null
	tap_check $r "rmmod $FB_MODNAME with $FB_DEV open, nothing mounted: refused (exit ${b_rc:-?}: $(head -n 1 "$FB_SCRATCH/rmmod.err"))"
	rmmod "$FB_MODNAME" > "$FB_SCRATCH/rmmod.err" 2>&1 && [ ! -d "/sys/module/$FB_MODNAME" ]
	tap_check $? "then, nothing holding it: rmmod $FB_MODNAME works ($(head -n 1 "$FB_SCRATCH/rmmod.err"))"
	fb_use "$FB_TARGET" > "$FB_SCRATCH/mod.err" 2>&1 ||
		tap_diag "reload after the rmmod tests: $(head -n 1 "$FB_SCRATCH/mod.err")"
	;;
*)
	tap_skip "rmmod while in use" "only our module is unloaded (target ${FB_TARGET:-?})"
	;;
esac

tap_diag "faults: $(($(date +%s) - t0)) s"
fb_mounted "$FB_MNT" && tap_check 1 "nothing left mounted on $FB_MNT"
tap_done
