#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Boot a Debian kernel in QEMU and run one command in it as root.
#
# usage: tests/vm/boot.sh [--kver KVER | --kdir TREE] [--cpus N] [--mem MB]
#                        [--timeout SEC] [--log FILE] [--rw | --root DIR]
#                        [--icount SHIFT] -- CMD [ARGS...]
#
#   --kver KVER    Debian kernel to boot (default 6.12.95+deb12-amd64); fetched
#                  through tests/vm/kernel.sh when not installed
#   --kdir TREE    boot the kernel built in the source tree TREE instead (the
#                  debug kernel, dev/debug-kernel.sh), with its modules from
#                  the tree; nothing of it is installed on the host
#   --cpus N       vCPUs (default 2; multi-threaded TCG, so they run in parallel)
#   --icount SHIFT the guest's clocks count instructions, not host time: QEMU
#                  -icount shift=SHIFT,sleep=off,align=off (one instruction is
#                  2^SHIFT ns of virtual time; an idle guest jumps to its next
#                  timer at once), -rtc clock=vm, and single-threaded TCG
#                  (icount needs it: the vCPUs take turns on one host thread)
#   --mem MB       guest memory in MiB (default 2048)
#   --timeout SEC  kill the guest after SEC seconds, boot included (default 900)
#   --log FILE     the run's log (default $FB_OUT/run.XXXXXX/vm.log; the last
#                  one is also linked as $FB_OUT/last.log)
#   --rw           share the host's whole root read-write (default: read-only)
#   --root DIR     the guest's root is DIR, another system's root (a Debian 13
#                  one: dev/guest-root.sh), read-only, not the host's (vng
#                  --root); not with --kdir or --rw. Before the boot, the
#                  booted kernel's /lib/modules/KVER is hard-linked into
#                  DIR/usr/lib/modules/KVER (again when the host's modules.dep
#                  is another file), and the mount points of the shared
#                  directories below are made in DIR. The repository this
#                  script is in is shared at its own path, read-write when
#                  the results directory is in it (then that is the one
#                  share), else read-only beside the results directory
#
# Exit status: CMD's own. 124 when the timeout hit, 125 when the guest did not
# boot or died (panic) before CMD ended, 130 when interrupted, 2 on bad usage,
# 1 when the kernel cannot be had. Those failures print one line starting
# with "vm: " on stderr; nothing else of the runner's own reaches stdout.
#
# In the guest:
#   - the host's root is the guest's root, over 9p, read-only (writes to /etc,
#     /usr, /var, /home, ... land in throw-away overlays); with --rw it is the
#     host's root read-write, so the guest can change the host: use with care;
#     with --root DIR it is DIR, read-only with the same overlays, and of the
#     host only the repository and the results directory are seen;
#   - ${FB_OUT:-/tmp/fb-vm} is shared read-write at the same path: results
#     written there are on the host after the run ($FB_RUNDIR is this run's
#     directory in it);
#   - /tmp is a fresh tmpfs, HOME=/tmp/fb-home, the working directory is the
#     host's one when it is visible (a directory under the host's /tmp other
#     than $FB_OUT is not), else /;
#   - FB_KVER (and the file /run/fb-kver) give `uname -r`; FB_VM=1; the host's
#     PATH (Debian's directories first), LANG, LC_ALL, CI and every FB_*
#     variable are passed on;
#   - modules of the booted kernel load by name (modprobe xfs), from the host's
#     /lib/modules/KVER; dmesg works;
#   - stdin is empty; CMD's stdout and stderr both go to the runner's stdout
#     and to the log.
# The log holds vng's messages, the guest console (kernel messages of level
# warning and above, live: a panic shows there), CMD's output and, after CMD,
# the guest's full dmesg.
#
# Why vng (virtme-ng): it boots Debian's unmodified kernels with the host's
# root over 9p, builds the initramfs with the 9p/virtio modules itself, sets
# /lib/modules up for modprobe and passes CMD's exit status back. A hand-made
# initramfs boots faster (~7 s vs ~15 s) but would redo all of that. Cheap
# savings applied: no default QEMU devices (-nodefaults: no CD-ROM, no NIC;
# vng adds no network or sound unless asked) and no udev autoloading of
# modules useless here (KVM, AHCI, watchdogs, input, ...) through
# modprobe.blacklist, which only affects autoloading: `modprobe NAME` still
# loads any of them. KVM is not used (there is none on the CI machines).
#
# Needs on the host: virtme-ng (vng), qemu-system-x86, udev (virtme-init
# runs udevd in the guest), busybox-static, kmod, util-linux, coreutils.
set -u

here=$(cd "$(dirname "$0")" && pwd -P)
prog=vm

usage() {
	sed -n '5,7p' "$0" | sed 's/^# //' >&2
	exit 2
}
bad() {
	echo "$prog: $*" >&2
	exit 2
}
posint() {
	case $2 in
	'' | *[!0-9]* | 0*) bad "$1 needs a positive integer, not '$2'" ;;
	esac
}

kver=6.12.95+deb12-amd64
kdir=
cpus=2
mem=2048
tmo=900
log=
rw=0
root=
icount=
while [ $# -gt 0 ]; do
	case $1 in
	--kver | --kdir | --cpus | --mem | --timeout | --log | --root | --icount)
		[ $# -ge 2 ] || bad "$1 needs a value"
		case $1 in
		--icount) icount=$2 ;;
		--root) root=$2 ;;
		--kver) kver=$2 ;;
		--kdir) kdir=$2 ;;
		--cpus) cpus=$2 ;;
		--mem) mem=$2 ;;
		--timeout) tmo=$2 ;;
		--log) log=$2 ;;
		esac
		shift 2
		;;
	--kver=*) kver=${1#*=} && shift ;;
	--kdir=*) kdir=${1#*=} && shift ;;
	--cpus=*) cpus=${1#*=} && shift ;;
	--mem=*) mem=${1#*=} && shift ;;
	--timeout=*) tmo=${1#*=} && shift ;;
	--log=*) log=${1#*=} && shift ;;
	--root=*) root=${1#*=} && shift ;;
	--icount=*) icount=${1#*=} && shift ;;
	--rw) rw=1 && shift ;;
	--) shift && break ;;
	-h | --help) usage ;;
	*) bad "unknown option '$1' (CMD goes after --)" ;;
	esac
done
[ $# -gt 0 ] || usage
posint --cpus "$cpus"
posint --mem "$mem"
posint --timeout "$tmo"
case $icount in
'' | [0-9] | 10) ;;
*) bad "--icount needs a shift from 0 to 10, not '$icount'" ;;
esac
if [ -n "$root" ]; then
	[ -z "$kdir" ] || bad "--root and --kdir cannot be used together"
	[ "$rw" = 0 ] || bad "--root and --rw cannot be used together"
	d=$(cd "$root" 2> /dev/null && pwd -P) || bad "--root: no directory '$root'"
	root=$d
	case $root in
	/) bad "--root /: that is the default" ;;
	*[[:space:]=,]*) bad "--root $root cannot be shared (no blanks, '=' or ',')" ;;
	esac
	# vng would fetch an Ubuntu image into a directory that does not exist,
	# and boots nothing useful from one without a shell.
	if [ ! -x "$root/bin/sh" ] || [ ! -d "$root/etc" ]; then
		bad "--root $root is not a system's root (no bin/sh or etc)"
	fi
fi

for t in vng timeout mkfifo tee; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "$prog: boot failed: $t not found on the host" >&2
		exit 125
	}
done

# The results directory shared read-write with the guest.
out=${FB_OUT:-/tmp/fb-vm}
if ! mkdir -p "$out" || ! out=$(cd "$out" && pwd -P); then
	bad "cannot create $out"
fi
case $out in
/ | /tmp | *[[:space:]=,]*) bad "FB_OUT=$out cannot be shared (not / or /tmp, no blanks, '=' or ',')" ;;
esac
rundir=$(mktemp -d "$out/run.XXXXXX") || bad "cannot create a run directory in $out"
if [ -z "$log" ]; then
	log=$rundir/vm.log
	ln -sfn "${rundir#"$out"/}/vm.log" "$out/last.log" 2>/dev/null
fi
: >"$log" || bad "cannot write the log $log"
case $log in /*) ;; *) log=$(pwd)/$log ;; esac

# A built tree: vng boots its bzImage and takes its modules from the tree
# (TREE/.virtme_mods, made on first use). The guest mounts a tmpfs over
# /var/cache, where the debug kernel is kept: the tree is shared read-only
# at its own path so that its modules stay visible.
kdir_opt=
if [ -n "$kdir" ]; then
	d=$(cd "$kdir" 2>/dev/null && pwd -P) || bad "--kdir: no directory '$kdir'"
	kdir=$d
	case $kdir in
	*[[:space:]=,]*) bad "--kdir $kdir cannot be shared (no blanks, '=' or ',')" ;;
	esac
	if [ ! -f "$kdir/arch/x86/boot/bzImage" ] || [ ! -f "$kdir/include/config/kernel.release" ]; then
		echo "$prog: boot failed: $kdir is not a built kernel tree (no arch/x86/boot/bzImage)" >&2
		exit 1
	fi
	kver=$(cat "$kdir/include/config/kernel.release")
	vmlinuz=$kdir
	kdir_opt=--rodir=$kdir=$kdir
# kernel.sh's messages (apt's, when it fetches) go to the log; its error line,
# if any, becomes ours.
elif ! vmlinuz=$("$here/kernel.sh" "$kver" 2>>"$log"); then
	echo "$prog: boot failed: $(tail -n 1 "$log")" >&2
	exit 1
fi

# Another root: the kernel's modules in it (virtme-init uses the root's
# /lib/modules with --root), hard links where the file system allows; the
# mount points of what is shared (a read-only 9p root cannot get them in
# the guest).
top=$(cd "$here/../.." && pwd -P)
if [ -n "$root" ]; then
	gm=$root/lib/modules/$kver
	if [ "$(stat -L -c %d:%i "$gm/modules.dep" 2> /dev/null)" != "$(stat -L -c %d:%i "/lib/modules/$kver/modules.dep")" ]; then
		rm -rf --one-file-system "$gm"
		if ! mkdir -p "$gm" || ! { cp -al "/lib/modules/$kver/." "$gm/" 2> /dev/null || cp -a "/lib/modules/$kver/." "$gm/"; }; then
			echo "$prog: boot failed: cannot put /lib/modules/$kver into $root" >&2
			exit 1
		fi
	fi
	if ! mkdir -p "$root$top" "$root$out"; then
		echo "$prog: boot failed: cannot make the mount points $top and $out in $root" >&2
		exit 1
	fi
fi

# Single-quote a word for sh, keeping any trailing newlines.
shq() {
	q=$(printf '%sx' "$1" | sed "s/'/'\\\\''/g")
	printf "'%s'" "${q%x}"
}

# CMD for the guest.
{
	printf 'set --'
	for a in "$@"; do
		printf ' %s' "$(shq "$a")"
	done
	printf '\n'
} >"$rundir/cmd"

# Environment for the guest.
cwd=$(pwd -P 2>/dev/null || echo /)
{
	for v in PATH LANG LC_ALL CI $(env | sed -n 's/^\(FB_[A-Za-z0-9_]*\)=.*/\1/p'); do
		eval "isset=\${$v+y}"
		[ -n "$isset" ] || continue
		eval "val=\$$v"
		# Debian's own directories first: a host's pyenv or cargo shims
		# ahead of /usr/bin cost ~20 s per python3 start under TCG, and
		# the guest needs Debian's python3 (standard library only).
		[ "$v" = PATH ] && val=/usr/sbin:/usr/bin:/sbin:/bin:$val
		# shellcheck disable=SC2154 # val is set by the eval above
		printf 'export %s=%s\n' "$v" "$(shq "$val")"
	done
	printf 'export FB_OUT=%s FB_CWD=%s\n' "$(shq "$out")" "$(shq "$cwd")"
} >"$rundir/env"

# log_buf_len: the suites scan the kernel log from a marker (tests/lib/fuse.sh);
# a ring buffer that wraps during a long suite (TCG prints "hpet: Lost RTC
# interrupts" under load) would lose it.
# Autoloading only; explicit `modprobe NAME` is not affected.
thread=multi
[ -z "$icount" ] || thread=single
blacklist=kvm,kvm_amd,kvm_intel,ccp,ahci,libahci,psmouse,pcspkr,iTCO_wdt,i2c_i801,lpc_ich,serio_raw,evdev,i6300esb,button,qemu_fw_cfg,intel_pmc_bxt

set -- vng --run "$vmlinuz" --disable-kvm --disable-microvm --force-9p \
	--cpus "$cpus" --memory "${mem}M" \
	--verbose --append "loglevel=5" --append "log_buf_len=8M" --append "modprobe.blacklist=$blacklist" \
	--qemu-opts=-nodefaults --qemu-opts=-accel --qemu-opts=tcg,thread="$thread" \
	--exec "sh $(shq "$here/init.sh") $(shq "$rundir")"
[ -n "$kdir_opt" ] && set -- "$@" "$kdir_opt"
[ -n "$icount" ] && set -- "$@" --qemu-opts=-icount --qemu-opts="shift=$icount,sleep=off,align=off" \
	--qemu-opts=-rtc --qemu-opts=clock=vm
# With --rw the results directory is writable as part of the root; vng also
# refuses --rwdir then.
if [ "$rw" = 1 ]; then
	set -- "$@" --rw
elif [ -n "$root" ]; then
	# vng mounts every --rwdir before any --rodir: the results directory in
	# the repository is reached through the repository's one share.
	case $out/ in
	"$top"/*) set -- "$@" --root "$root" --rwdir "$top=$top" ;;
	*) set -- "$@" --root "$root" --rodir "$top=$top" --rwdir "$out=$out" ;;
	esac
else
	set -- "$@" --rwdir "$out=$out"
fi

{
	echo "$prog: kernel $kver ($vmlinuz), $cpus vCPUs${icount:+ (icount shift=$icount)}, ${mem} MiB, timeout ${tmo} s, root $([ "$rw" = 1 ] && echo rw || echo ro)${root:+ $root}, results $out"
	echo "$prog: cwd $cwd; CMD: $(sed 's/^set -- //' "$rundir/cmd")"
} >>"$log"

# vng's stdout (CMD's output) goes to the log and our stdout, its stderr
# (vng's messages, the guest console) to the log only. FIFOs rather than
# pipelines, so that we know the pid of timeout and get vng's status. Both
# writers append: QEMU reopens its stdout/stderr, and truncates files it opens.
mkfifo "$rundir/out.fifo" "$rundir/err.fifo" || bad "mkfifo failed in $rundir"
tee -a "$log" <"$rundir/out.fifo" &
teepid=$!
cat >>"$log" <"$rundir/err.fifo" &
catpid=$!

start=$(date +%s)
# timeout runs vng (and so QEMU) in a process group of its own and signals
# the whole group when the time is up; SIGKILL 15 s later if still alive.
timeout -k 15 "$tmo" "$@" </dev/null >"$rundir/out.fifo" 2>"$rundir/err.fifo" &
vpid=$!
interrupted=0
trap 'interrupted=1; kill -TERM "$vpid" 2>/dev/null' INT TERM HUP
while :; do
	wait "$vpid" 2>/dev/null # no "Terminated" from sh when interrupted
	vrc=$?
	# wait returns early when a trapped signal arrives.
	kill -0 "$vpid" 2>/dev/null || break
done
trap - INT TERM HUP
wait "$teepid" "$catpid"
end=$(date +%s)
rm -f "$rundir/out.fifo" "$rundir/err.fifo"

if [ -f "$rundir/dmesg" ]; then
	{
		echo "---- guest dmesg after CMD ----"
		cat "$rundir/dmesg"
	} >>"$log"
fi
boot=$(cat "$rundir/uptime" 2>/dev/null || echo '?')
echo "$prog: vng exit $vrc after $((end - start)) s wall; CMD started at guest uptime $boot s" >>"$log"

fail() {
	echo "$prog: $1 (kernel $kver; log: $log)" | tee -a "$log" >&2
	exit "$2"
}
panic=
grep -q 'Kernel panic' "$log" && panic=" (kernel panic)"
if [ "$interrupted" = 1 ]; then
	fail "interrupted" 130
elif [ "$vrc" = 124 ] || [ "$vrc" = 137 ]; then
	fail "timeout after $tmo s$panic" 124
elif [ -f "$rundir/status" ]; then
	rc=$(cat "$rundir/status")
	case $rc in
	'' | *[!0-9]*) fail "guest wrote a bad status '$rc'" 125 ;;
	esac
	exit "$rc"
elif [ -f "$rundir/started" ]; then
	fail "guest died while running CMD$panic, vng exit $vrc" 125
else
	fail "boot failed$panic, vng exit $vrc" 125
fi
