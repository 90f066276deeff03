#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Asynchronous direct I/O reaches the daemon concurrently. TAP.
#
# For the daemon in direct mode (FOPEN_DIRECT_IO), parallel mode (plus
# FOPEN_PARALLEL_DIRECT_WRITES) and cached mode (O_DIRECT through
# fuse_direct_IO's async path), with --delay-us 2000 --threads 8: fio libaio,
# iodepth 32, O_DIRECT, 4 KiB random writes over a prefilled file (no write
# extends it, so none is made synchronous), then random reads of it that
# verify every block (crc32c). The daemon's max_inflight_write and
# max_inflight_read must both exceed 1, and the file read through the mount
# (caches dropped) must equal the backing file. The independent model: the
# file system is unmounted and mounted again (a new daemon) and fio
# re-reads every block the write run wrote (verify_only with its verify
# state): a lost or misplaced write fails there.
#
# usage: sh tests/suites/aio.sh
# Environment (set by the caller): FB_TOP, FB_TARGET, FB_DEV, FB_FSTYPE,
# FB_SCRATCH, FB_XFS (backing files go there when set). Optional:
# FB_AIO_MODES (default "direct parallel cached"), FB_SUITE_BUDGET (seconds,
# default 420: a mode not started by then fails, "did not finish in N s"),
# FB_DAEMON_ARGS (extra daemon options, e.g. --fault write-lost).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/lib/tap.sh
. "$FB_TOP/tests/lib/tap.sh"
# shellcheck source=tests/lib/fuse.sh
. "$FB_TOP/tests/lib/fuse.sh"

modes=${FB_AIO_MODES:-direct parallel cached}
budget=${FB_SUITE_BUDGET:-420}
t0=$(date +%s)
size=4			# MiB

mkdir -p "$FB_SCRATCH"
trap 'fb_cleanup' EXIT
trap 'fb_cleanup; exit 1' INT TERM HUP
fb_backing_base aio
base=$FB_BASE
if ! command -v fio > /dev/null; then
	tap_skip "aio suite" "fio is not installed"
	tap_done
	exit
fi
if ! fio --enghelp 2> /dev/null | grep -qw libaio; then
	tap_skip "aio suite" "this fio has no libaio engine"
	tap_done
	exit
fi
tap_diag "$(fio --version), target ${FB_TARGET:-?}, $FB_FSTYPE on $FB_DEV"

# run_fio NAME RW [FIO-OPTIONS...]: libaio, iodepth 32, O_DIRECT, 4 KiB
run_fio() {
	name=$1 rw=$2
	shift 2
	out=$FB_SCRATCH/aio-$name.out
	# fio keeps its verify state files in its working directory
	(cd "$FB_SCRATCH/vstate" && exec timeout -k 5 120 fio --name="$name" --filename="$FB_MNT/aio" --rw="$rw" \
		--size=${size}M --bs=4k --ioengine=libaio --iodepth=32 \
		--iodepth_batch_submit=8 --direct=1 --fallocate=none \
		--create_on_open=1 --runtime=90 --verify=crc32c \
		--verify_fatal=1 "$@" --output="$out") \
		> /dev/null 2>&1
	rc=$?
	nerr=$(grep -c 'err= *[1-9]' "$out" 2> /dev/null)
	[ $rc = 0 ] && [ "${nerr:-0}" = 0 ]
	rc=$?
	if [ $rc != 0 ]; then
		grep -iE 'verify|error|err=|bad' "$out" 2> /dev/null | head -n 6 |
			while IFS= read -r l; do tap_diag "    $l"; done
	fi
	bw=$(sed -n 's/^ *\(READ\|WRITE\): bw=\([^ ,]*\).*/\2/p' "$out" | head -n 1)
	return $rc
}

for m in $modes; do
	if [ $(($(date +%s) - t0)) -gt "$budget" ]; then
		tap_check 1 "[$m] aio did not finish in $budget s (FB_SUITE_BUDGET): this mode did not start"
		continue
	fi
	FB_BACK=$base/$m
	rm -rf "$FB_BACK"
	mkdir -p "$FB_BACK"
	head -c $((size * 1048576)) /dev/urandom > "$FB_BACK/aio"
	margs=$(fb_mode_args "$m") || { tap_check 1 "[$m] known mode"; continue; }
	tm=$(date +%s)
	# shellcheck disable=SC2086 # several options
	if ! fb_mount $margs --delay-us 2000 --threads 8 2> "$FB_SCRATCH/daemon.err"; then
		tap_check 1 "[$m] mount ($margs): $(head -n 1 "$FB_SCRATCH/daemon.err")"
		fb_cleanup
		continue
	fi
	rm -rf "$FB_SCRATCH/vstate"
	mkdir -p "$FB_SCRATCH/vstate"
	run_fio "aw-$m" randwrite --do_verify=0 --verify_state_save=1
	tap_check $? "[$m] fio libaio iodepth 32 O_DIRECT 4 KiB random writes ($bw)"
	w=$(fb_stat max_inflight_write)
	tap_diag "[$m] max_inflight_write=$w"
	[ "${w:-0}" -gt 1 ]
	tap_check $? "[$m] the daemon had WRITEs in flight concurrently (max_inflight_write=${w:-none} > 1)"
	run_fio "ar-$m" randread --verify_state_save=0
	tap_check $? "[$m] fio libaio iodepth 32 O_DIRECT 4 KiB random reads, each block verified ($bw)"
	r=$(fb_stat max_inflight_read)
	tap_diag "[$m] max_inflight_read=$r max_inflight_io=$(fb_stat max_inflight_io) READs=$(fb_stat op_READ) WRITEs=$(fb_stat op_WRITE)"
	[ "${r:-0}" -gt 1 ]
	tap_check $? "[$m] the daemon had READs in flight concurrently (max_inflight_read=${r:-none} > 1)"
	fb_drop_caches
	timeout -k 5 60 dd if="$FB_MNT/aio" bs=1M status=none |
		cmp - "$FB_BACK/aio" > "$FB_SCRATCH/cmp.out" 2>&1
	tap_check $? "[$m] caches dropped: the file through the mount equals the backing file $(head -n 1 "$FB_SCRATCH/cmp.out")"
	fb_umount
	tap_check $? "[$m] unmount; the daemon exits"
	# shellcheck disable=SC2086 # several options
	if fb_mount $margs --threads 8 2> "$FB_SCRATCH/daemon.err"; then
		run_fio "aw-$m" randwrite --verify_only=1 --verify_state_load=1
		vrc=$?
		fb_umount
	else
		tap_diag "[$m] remount failed: $(head -n 1 "$FB_SCRATCH/daemon.err")"
		vrc=1
	fi
	tap_check $vrc "[$m] after unmount and mount: fio verify_only re-reads every block the write run wrote (its verify state)"
	tap_diag "[$m] $(($(date +%s) - tm)) s"
	rm -rf "$FB_BACK"
done
tap_diag "aio: $(($(date +%s) - t0)) s"
fb_mounted "$FB_MNT" && tap_check 1 "nothing left mounted on $FB_MNT"
tap_done
