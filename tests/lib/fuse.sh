# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Guest-side helpers: which FUSE a target means, loading our module, and
# mounting the test daemon. Sourced by the suites and the demo.
#
# Environment: FB_TOP (repository), FB_TARGET (stock, ours, unpatched),
# FB_MODDIR (directory with our built .ko files, for ours/unpatched),
# FB_SCRATCH (writable scratch space, default /tmp/fb).
# The helpers' own variables are named fb_*, so that they leave a caller's
# loop counters alone.

FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
FB_DAEMON=${FB_DAEMON:-$FB_TOP/tests/daemon/fbtestd}
FB_SCRATCH=${FB_SCRATCH:-/tmp/fb}
FB_MNT=$FB_SCRATCH/mnt
FB_BACK=${FB_BACK:-$FB_SCRATCH/back}
FB_STATS=$FB_SCRATCH/stats
FB_PIDFILE=$FB_SCRATCH/daemon.pid

# fb_copy_for UID PROG...: copies of the checkout's programs PROG... that
# uid UID can run, their paths printed one a line. A test that runs one of
# our programs as another user runs the copy: the checkout may sit under a
# directory only its owner can enter (a clone under /root, mode 0700), and
# in the VM it always does (tests/vm/guest/suites.sh closes it). The copies
# go to FB_SCRATCH/progs; a copy UID cannot run is an error, one line on
# stderr.
fb_copy_for() {
	fb_cu=$1
	shift
	fb_cd=$FB_SCRATCH/progs
	mkdir -p "$fb_cd" && chmod 755 "$fb_cd" || return 1
	for fb_cp; do
		fb_cc=$fb_cd/${fb_cp##*/}
		cp "$fb_cp" "$fb_cc" && chmod 755 "$fb_cc" || return 1
		if ! setpriv --reuid="$fb_cu" --regid="$fb_cu" --clear-groups test -x "$fb_cc"; then
			echo "fb_copy_for: uid $fb_cu cannot run $fb_cc (a directory above it is closed to it)" >&2
			return 1
		fi
		echo "$fb_cc"
	done
}

# Which module a target's .ko files make: "renamed PREFIX" or "dropin".
fb_flavor_of() {
	if [ -f "$1/fuse.ko" ]; then
		echo dropin
	else
		for fb_k in "$1"/*.ko; do
			fb_k=${fb_k##*/}
			[ -f "$1/$fb_k" ] && echo "${fb_k%.ko}" && return
		done
		echo none
	fi
}

# fb_use TARGET: load what TARGET needs and set FB_DEV, FB_FSTYPE, FB_CTL
# (control fs connections dir) and FB_MODNAME (loaded module, empty for a
# built-in FUSE).
fb_use() {
	FB_TARGET=$1
	fb_unload_ours
	case $FB_TARGET in
	stock)
		# By path: modprobe would prefer a DKMS build under updates/.
		if ! grep -qw fuse /proc/filesystems; then
			for fb_k in /lib/modules/"$(uname -r)"/kernel/fs/fuse/fuse.ko*; do
				[ -f "$fb_k" ] && insmod "$fb_k" 2> /dev/null
			done
		fi
		grep -qw fuse /proc/filesystems || { echo "fb_use: no stock FUSE" >&2; return 1; }
		FB_DEV=/dev/fuse FB_FSTYPE=fuse FB_MODNAME=""
		[ -d /sys/module/fuse/sections ] && FB_MODNAME=fuse
		;;
	ours | unpatched)
		fb_dir=$FB_MODDIR
		[ "$FB_TARGET" = unpatched ] && fb_dir=$FB_MODDIR_UNPATCHED
		fb_fl=$(fb_flavor_of "$fb_dir")
		case $fb_fl in
		none) echo "fb_use: no modules in $fb_dir" >&2; return 1 ;;
		dropin)
			# cuse and virtiofs import fuse's symbols: all three go,
			# after whatever still holds the stock one (its control fs).
			umount -a -t fuse,fuseblk,fusectl,virtiofs 2> /dev/null
			for fb_m in virtiofs cuse fuse; do
				rmmod "$fb_m" 2> /dev/null
			done
			insmod "$fb_dir/fuse.ko" || return 1
			for fb_m in cuse virtiofs; do
				[ -f "$fb_dir/$fb_m.ko" ] && { insmod "$fb_dir/$fb_m.ko" || return 1; }
			done
			FB_DEV=/dev/fuse FB_FSTYPE=fuse FB_MODNAME=fuse
			;;
		*)
			insmod "$fb_dir/$fb_fl.ko" || return 1
			FB_DEV=/dev/$fb_fl FB_FSTYPE=$fb_fl FB_MODNAME=$fb_fl
			;;
		esac
		;;
	*) echo "fb_use: unknown target $FB_TARGET" >&2; return 1 ;;
	esac
	FB_CTL=/sys/fs/${FB_FSTYPE}/connections
	mountpoint -q "$FB_CTL" || mount -t "${FB_FSTYPE}ctl" none "$FB_CTL" 2> /dev/null
	# devtmpfs creates the node asynchronously.
	fb_wait_while 50 [ ! -c "$FB_DEV" ] || { echo "fb_use: $FB_DEV did not appear" >&2; return 1; }
	export FB_TARGET FB_DEV FB_FSTYPE FB_MODNAME FB_CTL
}

# Unload whatever of ours is loaded (renamed: by prefix; drop-in: fuse.ko
# whose version is ours), and give a drop-in kernel its stock module back.
fb_unload_ours() {
	# shell builtins only: every exec costs ~0.15 s in a TCG guest
	for fb_d in /sys/module/*; do
		[ -f "$fb_d/version" ] || continue
		fb_v=""
		read -r fb_v < "$fb_d/version"
		case $fb_v in
		*+fb*) ;;
		*) continue ;;
		esac
		fb_m=${fb_d##*/}
		if [ "$fb_m" = fuse ]; then
			rmmod virtiofs cuse 2> /dev/null
		fi
		# The control fs holds the module too.
		umount -a -t "$fb_m,${fb_m}blk,${fb_m}ctl" 2> /dev/null
		rmmod "$fb_m" || return 1
	done
}

# fb_depmod_tree DIR KVER KO...: DIR/lib/modules/KVER/ holds the KOs under
# updates/dkms and modprobe's index of them, as DKMS's depmod leaves it for
# our modules: depmod of a tree that holds only them (a whole depmod reads
# every module of the kernel over 9p, minutes under TCG). The caller copies
# the index over the kernel's. depmod's errors on stderr.
fb_depmod_tree() {
	fb_b=$1 fb_k=$2
	fb_r=$1/lib/modules/$2
	shift 2
	mkdir -p "$fb_r/updates/dkms" && cp "$@" "$fb_r/updates/dkms/" || return 1
	for fb_f in modules.order modules.builtin modules.builtin.modinfo; do
		[ ! -f "/lib/modules/$fb_k/$fb_f" ] || cp "/lib/modules/$fb_k/$fb_f" "$fb_r/" || return 1
	done
	depmod -b "$fb_b" "$fb_k"
}

# fb_mount DAEMON-ARGS...: mount the test daemon on $FB_MNT over $FB_BACK.
# FB_DAEMON_ARGS: options added to every such mount, for the red runs of
# the data suites (FB_DAEMON_ARGS="--fault write-lost").
fb_mount() {
	if [ ! -d "$FB_MNT" ] || [ ! -d "$FB_BACK" ]; then
		mkdir -p "$FB_MNT" "$FB_BACK"
	fi
	[ ! -e "$FB_STATS" ] || rm -f "$FB_STATS"
	# shellcheck disable=SC2086 # several options
	"$FB_DAEMON" --dev "$FB_DEV" --fstype "$FB_FSTYPE" --backing "$FB_BACK" \
		--stats "$FB_STATS" --pidfile "$FB_PIDFILE" ${FB_DAEMON_ARGS:-} "$@" "$FB_MNT"
}

# fb_umount: unmount and wait (bounded) for the daemon to go.
fb_umount() {
	fb_pid=$(fb_daemon_pid)
	timeout -k 2 20 umount "$FB_MNT" 2> /dev/null || umount -l "$FB_MNT" 2> /dev/null
	if [ -n "$fb_pid" ] && ! fb_wait_while 100 fb_alive "$fb_pid"; then
		kill -9 "$fb_pid" 2> /dev/null
		return 1
	fi
	return 0
}

# fb_stat KEY: a statistic of the running daemon (asks it to write them).
fb_stat() {
	fb_pid=$(fb_daemon_pid)
	if [ -n "$fb_pid" ] && kill -0 "$fb_pid" 2> /dev/null; then
		rm -f "$FB_STATS"
		kill -USR1 "$fb_pid"
		fb_i=0
		while [ ! -f "$FB_STATS" ] && [ $fb_i -lt 50 ]; do
			sleep 0.1
			fb_i=$((fb_i + 1))
		done
	fi
	sed -n "s/^$1=//p" "$FB_STATS" 2> /dev/null
}

# fb_statn KEY: a counter of fbtestd's statistics, fresh: 0 when they do not
# list it (fbtestd prints only counters above 0), nothing and false when no
# fresh statistics came (the daemon gone, or no answer in 5 s), so that a
# missing figure never reads as 0.
fb_statn() {
	fb_pid=$(fb_daemon_pid)
	{ [ -n "$fb_pid" ] && kill -0 "$fb_pid" 2> /dev/null; } || return 1
	fb_sn=$(fb_stat "$1")
	[ -f "$FB_STATS" ] || return 1
	echo "${fb_sn:-0}"
}

# fb_klog_mark NAME / fb_klog_clean NAME: the kernel log since the mark has
# none of the patterns that mean the kernel was hurt (FB_KLOG_RE, tests/lib/klog.sh: warnings,
# oopses, lockdep, hung tasks, RCU stalls, call traces, busy inodes at
# unmount), and /proc/sys/kernel/tainted gained no flag other than O and E
# (loading our out-of-tree, unsigned module sets those). A mark that is not
# in the log any more (dmesg -C, a wrapped ring buffer) is a failure: the
# window cannot be scanned. The hits go to $FB_SCRATCH/klog.hits.
. "$FB_TOP/tests/lib/klog.sh"
# fb_taint_who: raw taint value and the modules that carry a taint flag
fb_taint_who() {
	fb_tw="raw $(cat /proc/sys/kernel/tainted)"
	for fb_d in /sys/module/*/taint; do
		fb_tv=""
		[ -f "$fb_d" ] && read -r fb_tv < "$fb_d"
		[ -n "$fb_tv" ] && fb_tw="$fb_tw, ${fb_d%/taint}: $fb_tv"
	done
	echo "${fb_tw#, }" | sed 's|/sys/module/||g'
}
# taint flags that loading our module sets: O (4096), E (8192)
fb_taint() {
	fb_t=$(cat /proc/sys/kernel/tainted)
	echo "$((fb_t - (fb_t & 4096) - (fb_t & 8192)))"
}
fb_klog_mark() {
	mkdir -p "$FB_SCRATCH"
	fb_taint > "$FB_SCRATCH/taint.mark"
	echo "fuse-backport: begin $1" > /dev/kmsg
}
fb_klog_clean() {
	dmesg > "$FB_SCRATCH/klog.all"
	if ! grep -q "fuse-backport: begin $1\$" "$FB_SCRATCH/klog.all"; then
		echo "the scan marker 'fuse-backport: begin $1' is not in the kernel log (cleared or wrapped): the suite's log cannot be scanned" > "$FB_SCRATCH/klog.hits"
	else
		sed -n "/fuse-backport: begin $1\$/,\$p" "$FB_SCRATCH/klog.all" |
			grep -E "$FB_KLOG_RE" > "$FB_SCRATCH/klog.hits"
	fi
	fb_t0=$(cat "$FB_SCRATCH/taint.mark" 2> /dev/null)
	fb_t1=$(fb_taint)
	if [ "${fb_t0:-x}" != "$fb_t1" ]; then
		echo "/proc/sys/kernel/tainted changed during the suite: ${fb_t0:-unknown} -> $fb_t1 (O and E masked; $(fb_taint_who))" >> "$FB_SCRATCH/klog.hits"
	fi
	rm -f "$FB_SCRATCH/klog.all"
	[ ! -s "$FB_SCRATCH/klog.hits" ]
}

# fb_mode_args MODE: the daemon options of a suite's I/O mode: cached, direct,
# parallel (direct + FOPEN_PARALLEL_DIRECT_WRITES), passthrough, pt-parallel,
# writeback (cached + FUSE_WRITEBACK_CACHE).
fb_mode_args() {
	case $1 in
	cached) echo "--mode cached" ;;
	writeback) echo "--mode cached --writeback-cache" ;;
	direct) echo "--mode direct" ;;
	parallel) echo "--mode direct --parallel" ;;
	passthrough) echo "--mode passthrough" ;;
	pt-parallel) echo "--mode passthrough --parallel" ;;
	*) echo "fb_mode_args: unknown mode $1" >&2; return 1 ;;
	esac
}

# fb_wait_while TENTHS CMD [ARGS...]: polls CMD every 0.1 s while it
# succeeds, TENTHS times at most; fails when CMD still succeeds at the end.
fb_wait_while() {
	fb_ww=$1
	shift
	while "$@"; do
		[ "$fb_ww" -gt 0 ] || return 1
		sleep 0.1
		fb_ww=$((fb_ww - 1))
	done
}

# fb_alive PID: PID runs (a zombie waiting for a slow reaper does not: the
# daemon is reparented when its parent returns from fb_mount).
fb_alive() {
	kill -0 "$1" 2> /dev/null || return 1
	# /proc/PID/stat: pid (comm) state ...; fbtestd's comm has no blank
	read -r _ _ fb_st _ < "/proc/$1/stat" 2> /dev/null || return 1
	[ "$fb_st" != Z ]
}

# fb_daemon_pid: pid of the daemon serving $FB_MNT (empty when none).
fb_daemon_pid() {
	fb_dp=""
	[ -f "$FB_PIDFILE" ] && read -r fb_dp < "$FB_PIDFILE"
	echo "$fb_dp"
}

# fb_mounted DIR: DIR is a mount point. Reads /proc/mounts (with builtins),
# so it cannot hang on a dead or stuck FUSE mount.
fb_mounted() {
	while read -r _ fb_mp _; do
		[ "$fb_mp" = "$1" ] && return 0
	done < /proc/mounts
	return 1
}

# fb_conn DIR: the control fs connection of the FUSE mount on DIR, i.e. the
# name of its directory under $FB_CTL: the kernel dev_t of the superblock
# (MAJOR << 20 | MINOR, from /proc/self/mountinfo).
fb_conn() {
	awk -v m="$1" '$5 == m { split($3, d, ":"); c = d[1] * 1048576 + d[2] }
		END { if (c != "") print c }' /proc/self/mountinfo
}

# fb_served_by WHO DIR: whether the FUSE mount on DIR is served by ours
# (WHO "ours": its connection is in our control fs, $FB_CTL, and not in the
# kernel's own, $BICTL, default /sys/fs/fuse/connections) or by the
# built-in FUSE (WHO "builtin": the other way round); for the renamed
# flavor, whose control fs is another than the built-in's
fb_served_by() {
	fsb_c=$(fb_conn "$2")
	[ -n "$fsb_c" ] || return 1
	fsb_bi=${BICTL:-/sys/fs/fuse/connections}/$fsb_c
	case $1 in
	ours) [ -d "$FB_CTL/$fsb_c" ] && [ ! -d "$fsb_bi" ] ;;
	builtin) [ -d "$fsb_bi" ] && [ ! -d "$FB_CTL/$fsb_c" ] ;;
	*) return 2 ;;
	esac
}

# fb_fstype DIR: the file system type of the mount on DIR, the field after
# mountinfo's "-" (the optional fields before it vary in number).
fb_fstype() {
	awk -v m="$1" '$5 == m { for (i = 7; i < NF; i++) if ($i == "-") { print $(i + 1); exit } }' /proc/self/mountinfo
}

# fb_passthrough_live MNT_FILE BACKING_FILE: whether FUSE passthrough is in
# effect for MNT_FILE, a new file on a FUSE mount whose daemon keeps it as
# BACKING_FILE. 64 KiB of "a" are written and read through the mount (a
# FUSE page cache now holds them), then rewritten as "b" in BACKING_FILE
# directly, and must read as 64 KiB of "b" through the mount at once: a
# passthrough read is the backing file's own. Without passthrough the read
# is the mount's page cache, still "a", if the daemon keeps that cache at
# open (FOPEN_KEEP_CACHE), without direct_io, within its attribute timeout:
# libfuse's passthrough_hp by default (keep_cache, 86400 s), which with
# --nopassthrough gives 65536 "a" (passthrough_hp of fuse3 3.17.2 on the
# host: 65536 "b" with passthrough, 65536 "a" with --nopassthrough). For
# a daemon without keep_cache, or with direct_io, it proves nothing: those
# read "b" too (fbtestd --mode cached, direct). Sets fb_pl_got to what the
# mount gave; MNT_FILE is removed.
fb_passthrough_live() {
	fb_pl_got="nothing read"
	head -c 65536 /dev/zero | tr '\0' a > "$1" && cat "$1" > /dev/null &&
		head -c 65536 /dev/zero | tr '\0' b | dd of="$2" conv=notrunc status=none &&
		fb_pl_got="$(stat -c %s "$1") bytes, $(tr -d b < "$1" | wc -c) not b, the first $(head -c 1 "$1")"
	rm -f "$1"
	[ "$fb_pl_got" = "65536 bytes, 0 not b, the first b" ]
}

# fb_backing_base NAME: sets FB_BASE to where a suite keeps its backing
# files, NAME under the guest's XFS ($FB_XFS) when there is one, else under
# $FB_SCRATCH, and says which (a TAP diagnostic: needs tests/lib/tap.sh).
# shellcheck disable=SC2034 # FB_BASE is for the suites
fb_backing_base() {
	if [ -n "${FB_XFS:-}" ] && [ -d "$FB_XFS" ]; then
		FB_BASE=$FB_XFS/$1
		tap_diag "backing files on XFS ($FB_XFS)"
	else
		FB_BASE=$FB_SCRATCH/$1
		tap_diag "no FB_XFS: backing files on $(stat -f -c %T "$FB_SCRATCH")"
	fi
}

# fb_drop_caches: write back and drop the page cache, dentries and inodes.
fb_drop_caches() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# fb_cleanup: for a suite's exit trap: detach whatever is mounted on $FB_MNT
# and kill its daemon.
fb_cleanup() {
	fb_cleanup_pid=$(fb_daemon_pid)
	while fb_mounted "$FB_MNT"; do
		umount -l "$FB_MNT" 2> /dev/null || break
	done
	# a pid file left by a killed daemon may name a reused pid
	[ -n "$fb_cleanup_pid" ] &&
		[ "$(cat "/proc/$fb_cleanup_pid/comm" 2> /dev/null)" = fbtestd ] &&
		kill -9 "$fb_cleanup_pid" 2> /dev/null
	rm -f "$FB_PIDFILE"
}
