#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Host tests of the userspace tool that need no module of ours: `status`
# finds our module where each package installs it, fails with exit 2 when
# modinfo fails, runs modinfo from the system's PATH as root, and prints
# hostile mount names (fsname) without control bytes, as valid JSON;
# `status --prometheus` holds the exposition format (promcheck.awk) and
# agrees with --json, and its timer's service writes its file by a rename;
# `run` refuses option injection (before it needs the module, which the
# host lacks).
# Runs as root in a private mount namespace (tmpfs over /lib/modules, a
# FUSE mount nobody serves, mounted with mount -i: no mount.fuse helper); the module is a fake: an ELF object with our
# .modinfo. TAP output (tests/lib/tap.sh), then "tools-user: N passed, N failed, N skipped".
# environment: FB_TOOL (the binary, default tools/fuse-backport)
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
tool=${FB_TOOL:-$top/tools/fuse-backport}
tap_suite=tools-user
. "$top/tests/lib/tap.sh"
ok() { tap_check 0 "$1"; }
notok() { tap_check 1 "$1"; }
check() { if [ "$1" = 0 ]; then ok "$2"; else notok "$2"; fi; }
skip_all() {
	tap_skip "host tool tests" "$1"
	tap_done
	exit 0
}

[ -x "$tool" ] || skip_all "$tool is not built (make -C tools)"
[ "$(id -u)" = 0 ] || skip_all "needs root (a private mount namespace)"
for c in unshare jq setpriv modinfo iconv cc; do
	command -v "$c" > /dev/null || skip_all "$c is missing"
done
if [ -z "${FB_TOOLS_USER_NS:-}" ]; then
	FB_TOOLS_USER_NS=1 exec unshare -m sh "$0" "$@"
fi
mount --make-rprivate / || skip_all "cannot make / private in a new mount namespace"

work=$(mktemp -d "${TMPDIR:-/tmp}/fb-tools-user.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
chmod 755 "$work"
cp "$tool" "$work/fuse-backport"
tool=$work/fuse-backport
# shellcheck source=/dev/null
. "$top/backports/6.12/pin"
ver=$UPSTREAM_VERSION+fb$FB_RELEASE
printf 'static const char m[] __attribute__((section(".modinfo"), used)) =\n"version=%s\\0srcversion=0123456789ABCDEF\\0flavor=renamed\\0fb_base=%s\\0license=GPL";\n' \
	"$ver" "$UPSTREAM_VERSION" > "$work/m.c"
cc -c -o "$work/fusebp.ko" "$work/m.c" || skip_all "cannot build the fake module"
kver=$(uname -r)
mount -t tmpfs none /lib/modules || skip_all "cannot mount a tmpfs over /lib/modules"
# No package defaults of this host (fuse-backport-tools may be installed):
# an empty tmpfs over /usr/lib/fuse-backport; the tests that want defaults
# put them there.
mkdir_lib=""
[ -d /usr/lib/fuse-backport ] || { mkdir /usr/lib/fuse-backport && mkdir_lib=1; }
mount -t tmpfs none /usr/lib/fuse-backport || skip_all "cannot mount a tmpfs over /usr/lib/fuse-backport"
# layout DIR: the running kernel with our module under DIR, in modules.dep
layout() {
	rm -rf /lib/modules/*
	mkdir -p "/lib/modules/$kver/kernel" "/lib/modules/$kver/$1"
	: > "/lib/modules/$kver/modules.order"
	cp "$work/fusebp.ko" "/lib/modules/$kver/$1/fusebp.ko"
	echo "$1/fusebp.ko:" > "/lib/modules/$kver/modules.dep"
}

# 1-3: where the packages install our module.
for d in updates/dkms extra updates/fuse-backport; do
	layout "$d"
	"$tool" status --json --no-probe > "$work/st.json" 2> "$work/st.err"
	f=$(jq -r '.kernels[] | select(.running) | .ours_file' "$work/st.json" 2> /dev/null)
	[ "$f" = "/lib/modules/$kver/$d/fusebp.ko" ]
	check $? "status finds our module under $d (ours_file: ${f:-none})"
done

# 4: modinfo fails: exit 2 (the state cannot be read).
layout updates/dkms
mkdir -p "$work/stub"
printf '#!/bin/sh\ntouch %s/stub-ran\nexit 1\n' "$work" > "$work/stub/modinfo"
chmod 755 "$work/stub" "$work/stub/modinfo"
setpriv --reuid=65534 --regid=65534 --clear-groups env PATH="$work/stub:$PATH" \
	"$tool" status --no-probe > /dev/null 2> "$work/st.err"
rc=$?
[ "$rc" = 2 ] && grep -q modinfo "$work/st.err"
check $? "status as a user whose modinfo fails: exit $rc, want 2 ($(head -n 1 "$work/st.err"))"

# 5: as root, modinfo from the system's PATH, not the caller's.
rm -f "$work/stub-ran"
PATH="$work/stub:$PATH" "$tool" status --no-probe > /dev/null 2> "$work/st.err"
rc=$?
[ ! -e "$work/stub-ran" ] && [ "$rc" != 2 ]
check $? "status as root ignores a modinfo early in PATH (exit $rc)"

# 6-7: a FUSE mount with a hostile fsname (nobody serves it: closed at once).
evil=$(printf 'ev\033[2Jil\nFUSE mounts: spoofed\377\376')
mkdir -p "$work/mnt"
if grep -qw fuse /proc/filesystems && [ -c /dev/fuse ] &&
	exec 7<> /dev/fuse && mount -i -t fuse -o fd=7,rootmode=40000,user_id=0,group_id=0 "$evil" "$work/mnt"; then
	"$tool" status --no-probe > "$work/st.txt" 2> /dev/null
	"$tool" status --no-probe --json > "$work/st.json" 2> /dev/null
	exec 7>&-
	umount -l "$work/mnt"
	! grep -q "$(printf '\033')" "$work/st.txt" && ! grep -q '^FUSE mounts: spoofed' "$work/st.txt" &&
		grep -q 'ev\\x1b\[2Jil\\x0aFUSE mounts: spoofed\\xff\\xfe' "$work/st.txt"
	check $? "status text: the fsname's ESC, newline and invalid UTF-8 escaped ($(grep -a 'spoofed' "$work/st.txt" | head -n 1 | tr -d '\033'))"
	jq -e '.mounts[] | select(.source | startswith("ev"))' "$work/st.json" > /dev/null 2>&1 &&
		iconv -f UTF-8 -t UTF-8 "$work/st.json" > /dev/null 2>&1
	check $? "status --json: valid JSON and valid UTF-8 with that fsname"
else
	exec 7>&- 2> /dev/null
	tap_skip "hostile fsname" "no FUSE on this host"
fi

# 8-11: run's parsing, before it needs the module.
if grep -qw fusebp /proc/filesystems; then
	tap_skip "run parsing" "fusebp is loaded on this host"
else
	mkdir -p "$work/b" "$work/m"
	# run_says REGEX LABEL ARGS...: run ARGS exits 125 saying REGEX
	run_says() {
		re=$1 label=$2
		shift 2
		"$tool" run "$@" > /dev/null 2> "$work/run.err"
		rc=$?
		[ "$rc" = 125 ] && grep -Eq "$re" "$work/run.err"
		check $? "$label (exit $rc: $(head -n 1 "$work/run.err"))"
	}
	run_says 'comma' "run -o 'max_read=4096\\,fd=0': refused, no second fd= for the kernel" \
		-o 'max_read=4096\,fd=0' -- true "$work/b" "$work/m"
	run_says 'subtype' "run -o 'subtype=x\\,allow_other': refused" \
		-o 'subtype=x\,allow_other' -- true "$work/b" "$work/m"
	run_says 'SUBTYPE' "run -t 'fusebp.x,allow_other': refused" \
		-t 'fusebp.x,allow_other' -- true "$work/b" "$work/m"
	ln -sf "$(command -v true)" "$work/d,allow_other"
	run_says 'subtype' "a daemon named 'd,allow_other': refused as a subtype" \
		-- "$work/d,allow_other" "$work/b" "$work/m"
fi

# 12-13: the throwaway-mount probe never hangs status. /dev, in a mount
# namespace of its own, is fbstall's FUSE directory: status's stat of
# /dev/fuse is answered, the probe child's look-up of it never is, so the
# child cannot die of SIGKILL. status must give up on it ("probe stuck")
# after its bounded wait (10 s, then 2 s after SIGKILL), not hang.
if ! grep -qw fuse /proc/filesystems || [ ! -c /dev/fuse ]; then
	tap_skip "probe time limit" "no FUSE on this host"
elif ! make -s -C "$top/tests" host-tools > "$work/cc.err" 2>&1; then
	tap_skip "probe time limit" "cannot build fbstall ($(head -n 1 "$work/cc.err"))"
else
	layout updates/dkms
	t0=$(date +%s)
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --make-rprivate / || exit 99
		"$1" /dev & echo $! > "$2/stall.pid"
		i=0
		while ! grep -q " /dev [^ ]* .*- fuse.fbstall " /proc/self/mountinfo; do
			i=$((i + 1)); [ $i -gt 50 ] && exit 98; sleep 0.1
		done
		timeout -k 5 40 "$3" status > "$2/stall.out" 2> "$2/stall.err"' \
		sh "$top/tests/host-tools/fbstall" "$work" "$tool"
	rc=$?
	t=$(($(date +%s) - t0))
	kill "$(cat "$work/stall.pid")" 2> /dev/null
	[ "$rc" != 124 ] && [ "$rc" != 137 ] && [ "$rc" -lt 98 ] && [ "$t" -le 30 ]
	check $? "status with a probe that cannot die: returns in ${t}s (exit $rc), want at most 30 s"
	grep -q 'protocol:.*probe stuck: process [0-9]* does not die' "$work/stall.out"
	check $? "status reports the probe as stuck ($(grep -m1 'protocol:' "$work/stall.out" | sed 's/^ *//'))"
fi

# 14-: -o fallback on this host's FUSE (fusebp is not there): a daemon
# that does not take /dev/fd/N, the supervisor's SIGPIPE, and fstab.
if grep -qw fusebp /proc/filesystems || ! grep -qw fuse /proc/filesystems || [ ! -c /dev/fuse ]; then
	tap_skip "-o fallback" "needs the kernel's FUSE and no fusebp on this host"
else
	# no module to load (modprobe fusebp fails), fallback notes in a
	# private /run (syslog goes nowhere)
	rm -rf /lib/modules/*
	mount -t tmpfs none /run
	mkdir -p "$work/b" "$work/m"
	nofd=$top/tests/libfuse/fbnofd.sh
	# mounted_on DIR: the type mounted on DIR, if any
	mounted_on() {
		awk -v m="$1" '$5 == m { sub(/.* - /, ""); split($0, f, " "); t = f[1] } END { print t }' /proc/self/mountinfo
	}
	# alive PIDFILE: the process it names runs
	alive() {
		[ -s "$1" ] && kill -0 "$(cat "$1")" 2> /dev/null
	}
	# unstray: what a run that missed the daemon's own mount leaves
	unstray() {
		[ -s "$work/nofd.pid" ] && kill -9 "$(cat "$work/nofd.pid")" 2> /dev/null
		rm -f "$work/nofd.pid"
		while [ -n "$(mounted_on /dev/fuse)" ]; do umount -l /dev/fuse || break; done
		while [ -n "$(mounted_on "$work/m")" ]; do umount -l "$work/m" || break; done
		sleep 0.2
	}
	# ours_says FILE REGEX: besides the fallback warning, one line, matching REGEX
	ours_says() {
		[ "$(grep -vc 'warning: fusebp cannot be loaded' "$1")" = 1 ] &&
			grep -v 'warning: fusebp cannot be loaded' "$1" | grep -Eq "$2"
	}
	for fg in "" -f; do
		FBNOFD_PIDFILE=$work/nofd.pid timeout -k 2 20 "$tool" run -o fallback -- \
			"$nofd" nofd "$work/m" $fg > /dev/null 2> "$work/nofd.err"
		rc=$?
		sleep 0.2
		stray=$(mounted_on /dev/fuse) ours=$(mounted_on "$work/m")
		left=$(alive "$work/nofd.pid" && ps -o pid=,stat=,args= -p "$(cat "$work/nofd.pid")")
		notes=$(ls /run/fuse-backport/fallback 2> /dev/null)
		[ "$rc" = 125 ] && ours_says "$work/nofd.err" 'libfuse >= 3.3' && [ -z "$stray" ] && [ -z "$ours" ] &&
			[ -z "$left" ] && [ -z "$notes" ]
		check $? "run${fg:+ (daemon in the foreground)}: a daemon that mounts the kernel's FUSE on /dev/fd/N itself is refused: exit $rc, want 125; one line ($(grep -v 'warning: fusebp' "$work/nofd.err" | head -n 1)); left mounted: /dev/fuse ${stray:-nothing}, $work/m ${ours:-nothing}; left running: ${left:-nothing}; fallback notes: ${notes:-none}"
		unstray
	done

	# A mount on the device node that another process made (here: by hand;
	# as well another run's daemon) is not ours to judge: a daemon run
	# serves in the foreground (holds its /dev/fd/N) is left alone.
	printf '#!/bin/sh\necho $$ > %s/hold.pid\nexec sleep 600\n' "$work" > "$work/holdd"
	chmod 755 "$work/holdd"
	mkdir -p "$work/m2"
	rm -f "$work/hold.pid"
	"$tool" run -o fallback -- "$work/holdd" src "$work/m2" -f > /dev/null 2>&1 &
	h=$!
	i=0
	while [ ! -s "$work/hold.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	FBNOFD_PIDFILE=$work/nofd.pid "$nofd" other /dev/fuse
	# a daemon of its own would be stopped within 1 + 2 s
	sleep 4
	other=$(mounted_on /dev/fuse)
	alive "$work/hold.pid" && [ "$(mounted_on "$work/m2")" = fuse.holdd ] && [ "$other" = fuse.fbnofd ]
	check $? "a foreground daemon whose run sees another process mount fuse on /dev/fuse: left serving ($(mounted_on "$work/m2") on $work/m2), the other mount left alone (${other:-gone})"
	unstray
	[ -s "$work/hold.pid" ] && kill "$(cat "$work/hold.pid")" 2> /dev/null
	wait "$h"
	while [ -n "$(mounted_on "$work/m2")" ]; do umount -l "$work/m2" || break; done

	# Such a mount left on the device node from before: the device cannot
	# be opened (a nodev mount); run says why and what to do.
	FBNOFD_PIDFILE=$work/nofd.pid "$nofd" stray /dev/fuse
	"$tool" run -o fallback -- true src "$work/m" > /dev/null 2> "$work/cover.err"
	rc=$?
	[ "$rc" = 125 ] && ours_says "$work/cover.err" 'fuse.fbnofd is mounted on the device node itself.*umount /dev/fuse first' &&
		[ -z "$(mounted_on "$work/m")" ]
	check $? "run with the kernel's FUSE mounted on /dev/fuse itself: exit $rc, want 125, saying so ($(grep -v 'warning: fusebp' "$work/cover.err" | head -n 1))"
	unstray

	# SIGPIPE: the command is killed before the daemon goes to the
	# background; the supervisor's report then meets a pipe without a
	# reader. It must survive that, and still unmount when the daemon goes.
	printf '#!/bin/sh\nsleep 1\nsleep 600 < /dev/null > /dev/null 2>&1 &\necho $! > %s/slow.pid\n' "$work" > "$work/slowd"
	chmod 755 "$work/slowd"
	rm -f "$work/slow.pid"
	"$tool" run -o fallback -- "$work/slowd" src "$work/m" > /dev/null 2>&1 &
	p=$!
	sleep 0.3
	kill -9 $p
	i=0
	while [ ! -s "$work/slow.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.5
	before=$(mounted_on "$work/m")
	[ -s "$work/slow.pid" ] && kill "$(cat "$work/slow.pid")"
	i=0
	while [ -n "$(mounted_on "$work/m")" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	after=$(mounted_on "$work/m")
	[ "$before" = fuse.slowd ] && [ -z "$after" ]
	check $? "run killed before its daemon went to the background (the report meets a closed pipe): the supervisor lives on and unmounts when the daemon ends (mounted before: ${before:-nothing}, after: ${after:-nothing})"
	while [ -n "$(mounted_on "$work/m")" ]; do umount -l "$work/m" || break; done

	# fstab with -o fallback: mount(8) runs mount.fusebp (through an overlay
	# on /usr/sbin), which falls back to the kernel's FUSE with one warning
	# line; status reports the mount degraded; the daemon serves.
	fbb=$top/tests/libfuse/fbbacking
	if ! pkg-config --exists fuse3 ||
		! make -s -C "$top/tests" libfuse > "$work/cc.err" 2>&1; then
		tap_skip "fstab -o fallback" "cannot build fbbacking (libfuse3-dev, pkg-config)"
	elif ! { mkdir -p "$work/sbin" && ln -s "$tool" "$work/sbin/mount.fusebp" &&
		mount -t overlay overlay -o "lowerdir=$work/sbin:/usr/sbin" /usr/sbin; }; then
		tap_skip "fstab -o fallback" "no overlay for mount.fusebp on /usr/sbin"
	else
		{ cat /etc/fstab; echo "$fbb#$work/b $work/m fusebp noauto,fallback 0 0"; } > "$work/fstab"
		mount --bind "$work/fstab" /etc/fstab
		mount "$work/m" > /dev/null 2> "$work/mount.err"
		rc=$?
		t=$(mounted_on "$work/m")
		[ "$rc" = 0 ] && [ "$t" = fuse.fbbacking ] && [ "$(wc -l < "$work/mount.err")" = 1 ] &&
			grep -q 'warning: fusebp cannot be loaded: -o fallback' "$work/mount.err" &&
			echo fstab > "$work/m/f" && [ "$(cat "$work/b/f")" = fstab ]
		check $? "fstab 'fbbacking#B M fusebp noauto,fallback': mount M falls back to the kernel's FUSE and serves (exit $rc, $t, one line: $(head -n 1 "$work/mount.err"))"
		"$tool" status --no-probe > "$work/st.txt" 2> /dev/null
		rc=$?
		[ "$rc" = 1 ] && grep -q "problem: fallback: $work/m is served by the kernel's own FUSE" "$work/st.txt" &&
			grep -q "fuse.fbbacking on $work/m .*\[fallback\]" "$work/st.txt"
		check $? "status: the fstab fallback mount is listed [fallback] and makes it degraded (exit $rc: $(grep -m1 'problem: fallback' "$work/st.txt"))"
		umount "$work/m"
		i=0
		while pgrep -f "${fbb}[# ]$work/b" > /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		! pgrep -f "${fbb}[# ]$work/b" > /dev/null && [ -z "$(mounted_on "$work/m")" ] &&
			[ -z "$(ls /run/fuse-backport/fallback 2> /dev/null)" ]
		check $? "umount: the daemon and its supervisor end, the fallback note goes"
		# mount.fusebp with a daemon that mounts on the device node itself
		FBNOFD_PIDFILE=$work/nofd.pid mount -t fusebp "$nofd#nofd" "$work/m" -o fallback > /dev/null 2> "$work/mount.err"
		rc=$?
		sleep 0.2
		stray=$(mounted_on /dev/fuse) ours=$(mounted_on "$work/m")
		[ "$rc" = 32 ] && ours_says "$work/mount.err" 'libfuse >= 3.3' && [ -z "$stray" ] && [ -z "$ours" ] &&
			! alive "$work/nofd.pid"
		check $? "mount -t fusebp 'fbnofd.sh#nofd' M -o fallback: refused, exit $rc (want 32), one line ($(grep -v 'warning: fusebp' "$work/mount.err" | head -n 1)); left mounted: /dev/fuse ${stray:-nothing}, M ${ours:-nothing}"
		unstray
		umount /etc/fstab /usr/sbin
	fi
fi

# Every base: beside the running kernel (our module of this release), a 7.2
# and a 7.3 kernel with their bases' modules (this release's: no note), a
# 6.1 kernel with a module of another release (a note naming this release's
# 6.12 module), a 7.1 kernel, which no base serves, with a module of ours
# left (a note that this release does not build it), and the newest, 7.4,
# outside every base (the warning and its reason, which lists what the
# pins serve).
# fake_ko VERSION FILE: an object with our .modinfo of VERSION
fake_ko() {
	printf 'static const char m[] __attribute__((section(".modinfo"), used)) =\n"version=%s\\0srcversion=0123456789ABCDEF\\0flavor=renamed\\0license=GPL";\n' \
		"$1" > "$work/mv.c" && cc -c -o "$2" "$work/mv.c"
}
# modver BASE: the module version its pin gives; served: every pin's range
# shellcheck source=backports/7.3/pin
modver() { (. "$top/backports/$1/pin" && echo "$UPSTREAM_VERSION+fb$FB_RELEASE"); }
ver72=$(modver 7.2) ver73=$(modver 7.3)
served=$(for p in "$top"/backports/*/pin; do
	# shellcheck source=backports/7.3/pin
	(. "$p" && echo "$KERNEL_MIN to $KERNEL_MAX")
done | sort -V | paste -sd, - | sed 's/,/, /g')
layout updates/dkms
for k in 7.1.0-1-amd64 7.2.12+deb13-amd64 7.3.4+deb13-amd64 6.1.0-57-amd64 7.4.0-1-amd64; do
	mkdir -p "/lib/modules/$k/kernel"
	: > "/lib/modules/$k/modules.order"
done
for k in 7.1.0-1-amd64 7.2.12+deb13-amd64 7.3.4+deb13-amd64 6.1.0-57-amd64; do
	mkdir -p "/lib/modules/$k/updates/dkms"
	echo "updates/dkms/fusebp.ko:" > "/lib/modules/$k/modules.dep"
done
if ! fake_ko "$ver72" /lib/modules/7.2.12+deb13-amd64/updates/dkms/fusebp.ko ||
	! fake_ko "$ver73" /lib/modules/7.3.4+deb13-amd64/updates/dkms/fusebp.ko ||
	! fake_ko 6.12.117+fb1 /lib/modules/6.1.0-57-amd64/updates/dkms/fusebp.ko ||
	! fake_ko 7.1.1+fb1 /lib/modules/7.1.0-1-amd64/updates/dkms/fusebp.ko; then
	notok "cannot build the fake modules"
fi
"$tool" status --no-probe > "$work/st.txt" 2> /dev/null
"$tool" status --no-probe --json > "$work/st.json" 2> /dev/null
for kbv in "7.2.12+deb13-amd64 7.2 $ver72" "7.3.4+deb13-amd64 7.3 $ver73"; do
	read -r k b v <<-EOF
	$kbv
	EOF
	grep -q "$k.*ours: .*$v" "$work/st.txt" && ! grep -q "kernel $k has our" "$work/st.txt"
	check $? "status: a $b kernel with base $b's module ($v) is this release's (no note)"
done
grep -q "note: kernel 6.1.0-57-amd64 has our 6.12.117+fb1, this release's for it is $ver" "$work/st.txt"
check $? "status: a 6.1 kernel with another release's module: $(grep -m1 'kernel 6.1.0-57-amd64 has our' "$work/st.txt")"
grep -q "note: kernel 7.1.0-1-amd64 has our 7.1.1+fb1, which this release does not build: 7.1.0-1-amd64 is outside every base (it serves $served)" "$work/st.txt"
check $? "status: a 7.1 kernel (outside every base) with a module of ours left: $(grep -m1 'kernel 7.1.0-1-amd64 has our' "$work/st.txt")"
why=$(jq -r '.kernels[] | select(.kernel == "7.4.0-1-amd64") | .why_none' "$work/st.json" 2> /dev/null)
[ "$why" = "outside every base this release has (it serves $served)" ] &&
	grep -q "WARNING: the newest installed kernel 7.4.0-1-amd64 has no module of ours (outside every base" "$work/st.txt"
check $? "status: the newest kernel, 7.4, is outside every base: warned (why_none: ${why:-none})"

# A served 6.1 kernel whose build of this release failed in the kernel hook
# (scripts/kernel-hook.sh's record in /var/lib/fuse-backport, on a tmpfs
# over /var/lib in a mount namespace of its own): why_none says so, and
# how to try again; a record of another release is stale, not said.
pv=$("$tool" --version | awk '{ print $2 }')
for k in 6.1.0-998-fbfail-amd64 6.1.0-997-fbstale-amd64; do
	mkdir -p "/lib/modules/$k/kernel" "/lib/modules/$k/build"
	: > "/lib/modules/$k/modules.order"
	echo CONFIG_FUSE_FS=m > "/lib/modules/$k/build/.config"
done
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /var/lib || exit 99
	mkdir -p /var/lib/fuse-backport/build-failed &&
	printf "%s\tmodpost: file_write_and_wait_range (not exported by this kernel)\n" "$2" \
		> /var/lib/fuse-backport/build-failed/6.1.0-998-fbfail-amd64 &&
	printf "2026.1.0\tan old error\n" > /var/lib/fuse-backport/build-failed/6.1.0-997-fbstale-amd64 &&
	"$1" status --no-probe --json' _ "$tool" "$pv" > "$work/st.json" 2> /dev/null
why=$(jq -r '.kernels[] | select(.kernel == "6.1.0-998-fbfail-amd64") | .why_none' "$work/st.json" 2> /dev/null)
stale=$(jq -r '.kernels[] | select(.kernel == "6.1.0-997-fbstale-amd64") | .why_none' "$work/st.json" 2> /dev/null)
[ "$why" = "its build of $pv failed: modpost: file_write_and_wait_range (not exported by this kernel); the stock FUSE stays in use (to try again: dpkg-reconfigure fuse-backport-dkms, or dnf reinstall fuse-backport-dkms)" ] &&
	case $stale in "not built "*) true ;; *) false ;; esac
check $? "status: a kernel the kernel hook left to the stock module says why and how to retry (why_none: ${why:-none}; another release's record: ${stale:-none})"
rm -rf /lib/modules/6.1.0-998-fbfail-amd64 /lib/modules/6.1.0-997-fbstale-amd64

# Last: a module of ours loaded that is not the installed one (a fake
# /sys/module/fusebp on a tmpfs, in a mount namespace of its own; the
# running kernel has FUSE built in by its modules.builtin). Older than the
# installed: an upgrade waiting for a reboot, the reboot-required note named;
# newer: a rollback; the same version, another srcversion: reload it.
layout updates/dkms
echo kernel/fs/fuse/fuse.ko > "/lib/modules/$kver/modules.builtin"
# loaded_says VERSION SRCVERSION: status --json with that fusebp "loaded":
# the problem about it on stdout, the exit status in $work/ld.rc
loaded_says() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /sys/module || exit 99
		mkdir /sys/module/fusebp && echo live > /sys/module/fusebp/initstate &&
		echo "$1" > /sys/module/fusebp/version && echo "$2" > /sys/module/fusebp/srcversion &&
		"$3" status --json --no-probe' sh "$1" "$2" "$tool" > "$work/ld.json" 2> "$work/ld.err"
	echo $? > "$work/ld.rc"
	jq -r '.problems[]' "$work/ld.json" 2> /dev/null | grep 'the loaded fusebp' | head -n 1
}
inst=/lib/modules/$kver/updates/dkms/fusebp.ko
old=${ver%fb*}fb$((${ver##*fb} - 1))
p=$(loaded_says "$old" FEDCBA9876543210)
rc=$(cat "$work/ld.rc")
case $p in
"the loaded fusebp ($old, srcversion FEDCBA9876543210) is older than the installed $inst ($ver, srcversion 0123456789ABCDEF): an upgrade is installed and not in use yet: reboot"*"reboot-required note (/var/run/reboot-required)") r=$rc ;;
*) r=0 ;;
esac
[ "$r" = 1 ]
check $? "status with an older fusebp $old loaded than the installed $ver: degraded, says older, reboot, the reboot-required note (exit $rc: ${p:-no such problem})"
new=${ver%fb*}fb$((${ver##*fb} + 1))
p=$(loaded_says "$new" FEDCBA9876543210)
rc=$(cat "$work/ld.rc")
case $p in
"the loaded fusebp ($new, srcversion FEDCBA9876543210) is newer than the installed $inst ($ver, srcversion 0123456789ABCDEF): a rollback"*"reboot-required note"*) r=$rc ;;
*) r=0 ;;
esac
[ "$r" = 1 ]
check $? "status with a newer fusebp $new loaded (a rollback): degraded, says newer (exit $rc: ${p:-no such problem})"
p=$(loaded_says "$ver" FEDCBA9876543210)
rc=$(cat "$work/ld.rc")
case $p in
"the loaded fusebp ($ver, srcversion FEDCBA9876543210) is not the installed $inst ($ver, srcversion 0123456789ABCDEF): another build of the same version; reload it"*) r=$rc ;;
*) r=0 ;;
esac
[ "$r" = 1 ]
check $? "status with another build of $ver loaded: degraded, says reload (exit $rc: ${p:-no such problem})"

# The takeover configured (TAKEOVER=yes in /etc/fuse-backport/fuse-backport.conf,
# on a tmpfs of the namespace) on this built-in-FUSE kernel with the
# installed fusebp loaded and its takeover parameter 0: degraded, says so;
# TAKEOVER=no: no such problem.
takeover_says() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /sys/module &&
		mount -t tmpfs none /etc/fuse-backport || exit 99
		mkdir -p /sys/module/fusebp/parameters && echo live > /sys/module/fusebp/initstate &&
		echo "$1" > /sys/module/fusebp/version && echo 0123456789ABCDEF > /sys/module/fusebp/srcversion &&
		echo 0 > /sys/module/fusebp/parameters/takeover &&
		echo "TAKEOVER=$2" > /etc/fuse-backport/fuse-backport.conf &&
		"$3" status --json --no-probe' sh "$ver" "$1" "$tool" > "$work/to.json" 2> "$work/to.err"
	echo $? > "$work/to.rc"
	jq -r '.problems[]' "$work/to.json" 2> /dev/null | grep 'takeover is configured' | head -n 1
}
mkdir_etc=""
[ -d /etc/fuse-backport ] || { mkdir /etc/fuse-backport && mkdir_etc=1; }
p=$(takeover_says yes)
rc=$(cat "$work/to.rc")
[ "$rc" = 1 ] && case $p in "takeover is configured (TAKEOVER=yes in /etc/fuse-backport/fuse-backport.conf) but not active"*) true ;; *) false ;; esac
check $? "status, TAKEOVER=yes and fusebp loaded with takeover=0 on a built-in FUSE: degraded, configured but not active (exit $rc: ${p:-no such problem} $(head -n 1 "$work/to.err"))"
p=$(takeover_says no)
rc=$(cat "$work/to.rc")
[ "$rc" != 99 ] && [ -z "$p" ] && jq -e '.takeover.configured == "no"' "$work/to.json" > /dev/null
check $? "status, TAKEOVER=no: no takeover problem, configured no (exit $rc)"

# FB_PREFIX= of the config file is the name DKMS builds the renamed module
# with (scripts/prefix.sh); these tools serve the one they were built with
# (fusebp). Another name, or one that is no module name: degraded, one
# problem that says so. The shipped file (#FB_PREFIX=fusebp): none.
prefix_says() { # prefix_says FILE: status with FILE as the config file
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /etc/fuse-backport || exit 99
		cp "$1" /etc/fuse-backport/fuse-backport.conf &&
		"$2" status --json --no-probe' sh "$1" "$tool" > "$work/px.json" 2> "$work/px.err"
	echo $? > "$work/px.rc"
	jq -r '.problems[]' "$work/px.json" 2> /dev/null | grep 'FB_PREFIX=' | head -n 1
}
printf 'TAKEOVER=yes\nFB_PREFIX=acmefs\n' > "$work/px-acme.conf"
p=$(prefix_says "$work/px-acme.conf")
rc=$(cat "$work/px.rc")
[ "$rc" = 1 ] || [ "$rc" = 2 ]
r=$?
case $p in "FB_PREFIX=acmefs in /etc/fuse-backport/fuse-backport.conf: DKMS builds the renamed module as acmefs, but these tools serve fusebp"*) ;; *) r=1 ;; esac
check $r "status, FB_PREFIX=acmefs in the config file: degraded, DKMS builds acmefs, these tools serve fusebp (exit $rc: ${p:-no such problem})"
printf 'TAKEOVER=yes\nFB_PREFIX="Acme-FS"\n' > "$work/px-bad.conf"
p=$(prefix_says "$work/px-bad.conf")
rc=$(cat "$work/px.rc")
[ "$rc" = 1 ] || [ "$rc" = 2 ]
r=$?
case $p in "FB_PREFIX=Acme-FS in /etc/fuse-backport/fuse-backport.conf is not a module name"*) ;; *) r=1 ;; esac
check $r "status, FB_PREFIX=\"Acme-FS\" in the config file: degraded, not a module name (exit $rc: ${p:-no such problem})"
p=$(prefix_says "$top/tools/fuse-backport.conf")
rc=$(cat "$work/px.rc")
[ "$rc" != 99 ] && [ -z "$p" ] && grep -qx '#FB_PREFIX=fusebp' "$top/tools/fuse-backport.conf"
check $? "status, the shipped config file (#FB_PREFIX=fusebp): no FB_PREFIX problem (exit $rc)"
# The two files: the package's defaults (/usr/lib/fuse-backport, the
# shipped tools/fuse-backport.conf) and the admin's /etc file over them,
# each on a tmpfs of a mount namespace. The tool and the scripts
# (scripts/when-ahead.sh, scripts/prefix.sh, pointed at the same two files)
# take the same value from the same file.
conf2_says() { # conf2_says ADMIN-TEXT: takeover's line, then status's when_ahead
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /etc/fuse-backport &&
		mount -t tmpfs none /usr/lib/fuse-backport || exit 99
		cp "$1" /usr/lib/fuse-backport/fuse-backport.conf &&
		if [ -n "$2" ]; then printf "%b" "$2" > /etc/fuse-backport/fuse-backport.conf; fi &&
		"$3" takeover && "$3" status --json --no-probe | jq -r ".when_ahead.value, .when_ahead.evidence"' \
		sh "$top/tools/fuse-backport.conf" "$1" "$tool" 2> /dev/null | tr '\n' '|'
}
c2=$(conf2_says "")
case $c2 in "takeover: configured yes (TAKEOVER=yes in /usr/lib/fuse-backport/fuse-backport.conf), "*"|serve|WHEN_AHEAD=serve in /usr/lib/fuse-backport/fuse-backport.conf|") r=0 ;; *) r=1 ;; esac
check $r "settings: the package's defaults alone: TAKEOVER=yes and WHEN_AHEAD=serve from /usr/lib/fuse-backport ($c2)"
c2=$(conf2_says '# mine\nTAKEOVER=no\n WHEN_AHEAD="stock"\r\n')
sa=$(printf '# mine\nTAKEOVER=no\n WHEN_AHEAD="stock"\r\n' > "$work/admin.conf" &&
	FB_CONF_DEFAULTS="$top/tools/fuse-backport.conf" FB_CONF_FILE="$work/admin.conf" sh "$top/scripts/when-ahead.sh" 2> /dev/null)
case $c2 in "takeover: configured no (TAKEOVER=no in /etc/fuse-backport/fuse-backport.conf), "*"|stock|WHEN_AHEAD=stock in /etc/fuse-backport/fuse-backport.conf|") r=0 ;; *) r=1 ;; esac
[ "$sa" = stock ] || r=1
check $r "settings: the admin's /etc file over the defaults: TAKEOVER=no and WHEN_AHEAD=stock from /etc, scripts/when-ahead.sh says $sa ($c2)"
printf 'FB_PREFIX=acmefs\n' > "$work/admin-px.conf"
printf '#FB_PREFIX=fusebp\nFB_PREFIX=fromdefaults\n' > "$work/defaults-px.conf"
pa=$(env -u FB_PREFIX FB_CONF_DEFAULTS="$work/defaults-px.conf" FB_CONF_FILE="$work/admin-px.conf" sh "$top/scripts/prefix.sh" 2>&1)
pd=$(env -u FB_PREFIX FB_CONF_DEFAULTS="$work/defaults-px.conf" FB_CONF_FILE="$work/none.conf" sh "$top/scripts/prefix.sh" 2>&1)
[ "$pa" = acmefs ] && [ "$pd" = fromdefaults ]
check $? "settings: scripts/prefix.sh takes FB_PREFIX from the admin's file over the defaults ($pa), else from the defaults ($pd)"
# The age of the running kernel's FUSE against ours (tools/fact_age.c) and
# WHEN_AHEAD= of the config file. The running kernel is a fake one, told
# to the tool by an LD_PRELOAD uname(2) (tests/host-tools/fbuname.c): of
# base 6.12's series, FUSE built in (modules.builtin), headers whose
# SUBLEVEL is one past FUSE_CURRENT_TO (ahead); the pin decides every
# version. fusebp "loaded" is a fake /sys/module/fusebp (takeover
# parameter 0) on a tmpfs of a mount namespace, the config file a tmpfs
# over /etc/fuse-backport.
# age_pin KEY: base 6.12's, as scripts/fuse-age.sh reads it
age_pin() { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$top/backports/6.12/pin" | head -n 1; }
up=$(age_pin UPSTREAM_VERSION) cur=$(age_pin FUSE_CURRENT_TO) kmin=$(age_pin KERNEL_MIN)
cur=${cur:-$up}
lv=${cur%.*}.$((${cur##*.} + 1))
ak=${cur%.*}.1-fbahead-amd64
ok61=$kmin.57-fbolder-amd64
conf=/etc/fuse-backport/fuse-backport.conf
# age_kernel KVER X.Y.Z OURS: the only installed kernel, FUSE built in,
# with headers of that version, and our module installed (OURS=1) or not
age_kernel() {
	rm -rf /lib/modules/*
	mkdir -p "/lib/modules/$1/kernel" "/lib/modules/$1/build" "/lib/modules/$1/updates/dkms"
	: > "/lib/modules/$1/modules.order"
	echo kernel/fs/fuse/fuse.ko > "/lib/modules/$1/modules.builtin"
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\n' "${2%%.*}" "$(echo "$2" | cut -d. -f2)" "${2##*.}" \
		> "/lib/modules/$1/build/Makefile"
	[ "$3" = 1 ] || return 0
	cp "$work/fusebp.ko" "/lib/modules/$1/updates/dkms/fusebp.ko"
	echo "updates/dkms/fusebp.ko:" > "/lib/modules/$1/modules.dep"
}
# age_run KVER CONF LOADED ARGS...: the tool with ARGS as if KVER ran, CONF
# (printf %b) the config file, fusebp loaded (1) or not; stdout and stderr
# in $work/age.out, the exit status in $work/age.rc, the takeover
# parameter after it in $work/age.param
age_run() {
	k=$1 c=$2 l=$3
	shift 3
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /sys/module &&
		mount -t tmpfs none /etc/fuse-backport || exit 99
		printf "%b" "$2" > /etc/fuse-backport/fuse-backport.conf
		if [ "$3" = 1 ]; then
			mkdir -p /sys/module/fusebp/parameters && echo live > /sys/module/fusebp/initstate &&
			echo "$4" > /sys/module/fusebp/version && echo 0123456789ABCDEF > /sys/module/fusebp/srcversion &&
			echo 0 > /sys/module/fusebp/parameters/takeover
		fi
		w=$5 k=$1
		shift 5
		LD_PRELOAD=$w/fbuname.so FBUNAME_RELEASE=$k "$@" > "$w/age.out" 2>&1
		echo $? > "$w/age.rc"
		cat /sys/module/fusebp/parameters/takeover > "$w/age.param" 2> /dev/null' \
		sh "$k" "$c" "$l" "$ver" "$work" "$@" 2> /dev/null
	[ -s "$work/age.rc" ] || echo 99 > "$work/age.rc"
}
aj() { jq -r "$1" "$work/age.out" 2> /dev/null; }
rm -f "$work/age.rc"
if ! cc -shared -fPIC -o "$work/fbuname.so" "$top/tests/host-tools/fbuname.c" 2> "$work/cc.err"; then
	notok "cannot build the uname(2) shim fbuname.so ($(head -n 1 "$work/cc.err"))"
else
	# serve (the shipped value): ours installed for it, so ours serves it: degraded
	age_kernel "$ak" "$lv" 1
	age_run "$ak" 'TAKEOVER=no\nWHEN_AHEAD=serve\n' 0 "$tool" status --json --no-probe
	rc=$(cat "$work/age.rc")
	p=$(aj '.problems[]' | grep 'is ahead of ours and ours serves it')
	case $p in
	"the running kernel $ak is ahead of ours and ours serves it (WHEN_AHEAD=serve in $conf): Linux $lv is newer than $cur, the newest release checked to carry our fs/fuse (base $up); its own FUSE may have fixes ours lacks: install a release of fuse-backport that follows it, or set WHEN_AHEAD=stock in $conf"*) r=$rc ;;
	*) r=0 ;;
	esac
	[ "$r" = 1 ] && [ "$(aj '.kernels[0].fuse_age')" = ahead ] && [ "$(aj '.kernels[0].linux_version')" = "$lv" ] &&
		[ "$(aj '.when_ahead.value')" = serve ]
	check $? "status, running $ak (Linux $lv, ahead of $cur), WHEN_AHEAD=serve, ours installed: degraded (exit $rc: ${p:-no such problem})"

	# stock, no module of ours for it: its own FUSE by choice, healthy
	age_kernel "$ak" "$lv" 0
	age_run "$ak" 'TAKEOVER=yes\nWHEN_AHEAD=stock\n' 0 "$tool" status --json --no-probe
	rc=$(cat "$work/age.rc")
	n=$(aj '.notes[]' | grep 'by choice')
	why=$(aj '.kernels[0].why_none')
	[ "$rc" = 0 ] && [ "$(aj '.health')" = healthy ] && [ "$(aj '.problems | length')" = 0 ] &&
		[ "$n" = "the kernel's own FUSE serves $ak by choice (WHEN_AHEAD=stock in $conf): it is ahead of ours (Linux $lv is newer than $cur, the newest release checked to carry our fs/fuse (base $up))" ] &&
		[ "$why" = "the kernel's own FUSE serves it by choice (WHEN_AHEAD=stock in $conf): it is ahead of ours (Linux $lv is newer than $cur, the newest release checked to carry our fs/fuse (base $up))" ] &&
		[ "$(aj '.when_ahead.value')" = stock ]
	check $? "status, running $ak ahead, WHEN_AHEAD=stock, no module of ours: healthy (exit $rc), note: ${n:-none}; why_none: ${why:-none}; problems: $(aj '.problems | join("; ")')"

	# stock, but ours loaded for it anyway (built before the setting): degraded, how to hand it back
	age_kernel "$ak" "$lv" 1
	age_run "$ak" 'WHEN_AHEAD=stock\n' 1 "$tool" status --json --no-probe
	rc=$(cat "$work/age.rc")
	p=$(aj '.problems[]' | grep '^WHEN_AHEAD=stock')
	case $p in
	"WHEN_AHEAD=stock in $conf, but ours serves the running kernel $ak, which is ahead of ours (Linux $lv is newer than $cur"*"to hand $ak back to its own FUSE: dkms remove -m fuse-backport -k $ak, then reboot") r=$rc ;;
	*) r=0 ;;
	esac
	[ "$r" = 1 ] && ! aj '.notes[]' | grep -q 'by choice'
	check $? "status, running $ak ahead, WHEN_AHEAD=stock, fusebp loaded: degraded, how to hand it back (exit $rc: ${p:-no such problem})"

	# an invalid value: a problem, serve used
	age_run "$ak" 'WHEN_AHEAD=bogus\n' 0 "$tool" status --json --no-probe
	rc=$(cat "$work/age.rc")
	[ "$rc" = 1 ] && aj '.problems[]' | grep -qx "WHEN_AHEAD=bogus in $conf is not serve or stock; serve is used" &&
		aj '.problems[]' | grep -q "the running kernel $ak is ahead of ours and ours serves it" &&
		[ "$(aj '.when_ahead.value')" = serve ]
	check $? "status, WHEN_AHEAD=bogus: the problem, serve used (exit $rc: $(aj '.problems | join("; ")' | cut -c1-200))"
	age_run "$ak" 'WHEN_AHEAD=bogus\n' 0 "$tool" status --no-probe
	grep -qx "  problem: WHEN_AHEAD=bogus in $conf is not serve or stock; serve is used" "$work/age.out" &&
		grep -q "^when ahead: serve" "$work/age.out" && grep -q "^    FUSE age: ahead: $ak (Linux $lv) is newer than $cur" "$work/age.out"
	check $? "status text, WHEN_AHEAD=bogus: the problem, the when-ahead line, the kernel's FUSE age line"

	# a running kernel of the base's oldest series: served through compat, not ahead
	age_kernel "$ok61" "$kmin.158" 1
	age_run "$ok61" 'WHEN_AHEAD=serve\n' 0 "$tool" status --json --no-probe
	rc=$(cat "$work/age.rc")
	[ "$rc" != 99 ] && [ "$(aj '.kernels[0].fuse_age')" = older-series ] && ! aj '.problems[]' | grep -q 'ahead'
	check $? "status, running $ok61 (Linux $kmin.158): older-series, no ahead problem (exit $rc: $(aj '.kernels[0].fuse_age_why'))"

	# another installed kernel ahead, the newest: a note on what it gets at
	# boot, not degraded; under stock without a module of ours, no warning
	ck=${cur%.*}.2-fbcurrent-amd64 nk=${cur%.*}.3-fbnewer-amd64
	age_kernel "$nk" "$lv" 1
	mv "/lib/modules/$nk" "$work/nk"
	age_kernel "$ck" "$cur" 1
	mv "$work/nk" "/lib/modules/$nk"
	age_run "$ck" 'WHEN_AHEAD=serve\n' 1 "$tool" status --json --no-probe
	rc=$(cat "$work/age.rc")
	n=$(aj '.notes[]' | grep "^kernel $nk is ahead")
	[ "$rc" = 0 ] && [ "$(aj '.kernels[] | select(.running) | .fuse_age')" = current ] &&
		[ "$n" = "kernel $nk is ahead of ours (Linux $lv is newer than $cur, the newest release checked to carry our fs/fuse (base $up)): at boot, ours serves it, though its own FUSE may have fixes ours lacks (WHEN_AHEAD=serve in $conf)" ]
	check $? "status, running $ck (current), newest $nk ahead with ours, WHEN_AHEAD=serve: healthy (exit $rc), note: ${n:-none}; problems: $(aj '.problems | join("; ")')"
	rm -rf "/lib/modules/$nk/updates" "/lib/modules/$nk/modules.dep"
	age_run "$ck" 'WHEN_AHEAD=stock\n' 1 "$tool" status --json --no-probe
	rc=$(cat "$work/age.rc")
	n=$(aj '.notes[]' | grep "^kernel $nk ")
	[ "$rc" = 0 ] && [ "$(aj '.warning')" = null ] &&
		[ "$n" = "kernel $nk is ahead of ours (Linux $lv is newer than $cur, the newest release checked to carry our fs/fuse (base $up)): at boot, its own FUSE serves it, and DKMS builds nothing for it (WHEN_AHEAD=stock in $conf)" ] &&
		aj '.kernels[] | select(.kernel == "'"$nk"'") | .why_none' | grep -q "^the kernel's own FUSE serves it by choice (WHEN_AHEAD=stock in $conf)"
	check $? "status, running $ck, newest $nk ahead without ours, WHEN_AHEAD=stock: healthy, no warning (exit $rc), note: ${n:-none}; problems: $(aj '.problems | join("; ")')"

	# takeover boot, TAKEOVER=yes, WHEN_AHEAD=stock, running kernel ahead: one line, exit 0, nothing switched
	age_kernel "$ak" "$lv" 1
	age_run "$ak" 'TAKEOVER=yes\nWHEN_AHEAD=stock\n' 1 "$tool" takeover boot
	rc=$(cat "$work/age.rc")
	[ "$rc" = 0 ] && [ "$(wc -l < "$work/age.out")" = 1 ] && [ "$(cat "$work/age.param")" = 0 ] &&
		grep -q "^takeover: not taking over, nothing loaded: the running kernel $ak (Linux $lv) is ahead of ours: newer than $cur, .*; WHEN_AHEAD=stock in $conf leaves it its own FUSE\$" "$work/age.out"
	check $? "takeover boot, running $ak ahead, WHEN_AHEAD=stock: exit $rc, one line, takeover parameter $(cat "$work/age.param" 2> /dev/null) ($(head -n 1 "$work/age.out"))"
	# takeover on by hand obeys the admin, with one warning line
	age_run "$ak" 'TAKEOVER=no\nWHEN_AHEAD=stock\n' 1 "$tool" takeover on
	rc=$(cat "$work/age.rc")
	[ "$rc" = 0 ] && [ "$(cat "$work/age.param")" = 1 ] && [ "$(grep -c 'warning' "$work/age.out")" = 1 ] &&
		grep -q "warning: the running kernel $ak (Linux $lv) is ahead of ours: newer than $cur" "$work/age.out"
	check $? "takeover on, running $ak ahead, WHEN_AHEAD=stock: switched on (exit $rc, parameter $(cat "$work/age.param" 2> /dev/null)), one warning ($(grep -m1 warning "$work/age.out" | cut -c1-160))"
	# the same with WHEN_AHEAD=serve switches it on (the shim and the fake are right)
	age_run "$ak" 'TAKEOVER=yes\nWHEN_AHEAD=serve\n' 1 "$tool" takeover boot
	[ "$(cat "$work/age.param")" = 1 ]
	check $? "takeover boot, running $ak ahead, WHEN_AHEAD=serve: takes over (takeover parameter $(cat "$work/age.param" 2> /dev/null): $(head -n 1 "$work/age.out"))"
	# takeover boot, TAKEOVER=yes, no module of ours for the running kernel
	# (modprobe fusebp fails): one line and exit 0, the boot goes on
	age_kernel "$ck" "$cur" 0
	age_run "$ck" 'TAKEOVER=yes\n' 0 "$tool" takeover boot
	rc=$(cat "$work/age.rc")
	[ "$rc" = 0 ] && [ "$(wc -l < "$work/age.out")" = 1 ] &&
		grep -q "^fuse-backport: takeover refused: modprobe fusebp takeover=1 failed" "$work/age.out"
	check $? "takeover boot, TAKEOVER=yes, no fusebp for the running kernel: exit $rc, one line ($(head -n 1 "$work/age.out"))"
	# The tools and scripts/when-ahead.sh (dkms.conf's, modprobe's) read
	# WHEN_AHEAD alike: quotes of either kind, blanks, a CR, the last line.
	bad=""
	for c in "WHEN_AHEAD='stock'" "  WHEN_AHEAD=stock" 'WHEN_AHEAD=stock\r' 'WHEN_AHEAD="serve"' \
		'WHEN_AHEAD=stock\nWHEN_AHEAD=serve'; do
		age_run "$ck" "$c\n" 0 "$tool" status --json --no-probe
		t=$(aj '.when_ahead.value')
		printf '%b\n' "$c" > "$work/wa.conf"
		sv=$(FB_CONF_FILE=$work/wa.conf sh "$top/scripts/when-ahead.sh" 2> /dev/null)
		if [ -z "$t" ] || [ "$t" != "$sv" ]; then
			bad="$bad [$c: tools ${t:-none}, script ${sv:-none}]"
		fi
	done
	[ -z "$bad" ]
	check $? "WHEN_AHEAD is read alike by the tools and scripts/when-ahead.sh (5 spellings)${bad:+:$bad}"
fi
# status --prometheus and its units (tests/host-tools/prometheus.sh).
# shellcheck source=tests/host-tools/prometheus.sh
. "$top/tests/host-tools/prometheus.sh"
rm -rf "/lib/modules/$hk"
[ -z "$mkdir_etc" ] || rmdir /etc/fuse-backport
if [ -n "$mkdir_lib" ]; then
	umount /usr/lib/fuse-backport && rmdir /usr/lib/fuse-backport
fi

tap_done
