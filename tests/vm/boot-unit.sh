#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check's section vm-boot (the full tier only): a real boot through
# fuse-backport-takeover.service (the takeover active before
# local-fs-pre.target, so fstab's FUSE mounts are ours). systemd is PID 1 of
# a guest whose root is a copy of the Debian 13 guest root
# (dev/guest-root.sh; hard links, every changed file replaced, never
# written through), holding:
#   - fusebp.ko of this tree for the kernel (updates/dkms, depmod in the
#     root), /usr/bin/fuse-backport, /etc/fuse-backport/fuse-backport.conf
#     with TAKEOVER=yes, and the unit as
#     the packages install and enable it (sysinit.target.wants);
#   - an fstab line mounting Debian 13's mergerfs (type mergerfs: its own
#     mount helper, then -t fuse.mergerfs on /dev/fuse) on /mnt;
#   - a check unit after local-fs.target that writes what it sees to the
#     console ("FBBOOT ..." lines) and powers the guest off.
# virtme-ng boots a root other than the host's with init=/bin/sh -c '...
# exec virtme-init'; the copy's /bin/sh execs systemd when it is PID 1 and
# is dash otherwise. The console (--verbose: without it vng shows none) is
# the log, build/logs/vm-boot-KVER.log; the check unit writes to it.
# Tests, from the FBBOOT lines: systemd is PID 1 and the check ran; the
# unit is active and exited 0; it is ordered before local-fs-pre.target
# and the fstab mount after it (the loaded units' Before= and After=), and
# they became active in that order; the takeover is on (the parameter, the
# kernel's line); the fstab mount is fuse.mergerfs, served by ours (its
# connection in our control fs, not the built-in's), and reads the source.
#
# usage: tests/vm/boot-unit.sh [KVER...]  (default: the tier's boot-kernels)
# Ends with "vm-boot: N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
FB_TOP=$top
. "$top/tests/lib/tier.sh"
tap_suite=vm-boot
. "$top/tests/lib/tap.sh"
kvers=${*:-$(tier_get boot-kernels)}
# FB_BOOT_RED (red runs): off, TAKEOVER=no in the config file (the
# takeover stays off: tests 4-5 must fail); unordered, the unit's
# Before=local-fs-pre.target taken out (test 3 must fail)
red=${FB_BOOT_RED:-}
case $red in "" | off | unordered) ;; *) echo "vm-boot: FB_BOOT_RED must be off or unordered, not '$red'" >&2 && exit 2 ;; esac
want=yes
[ "$red" = off ] && want=no
bail() {
	echo "Bail out! $*"
	echo "vm-boot: 0 passed, 1 failed"
	exit 1
}
[ -n "$kvers" ] || bail "tests/tiers/$tier has no boot-kernels"
src=$(sh dev/guest-root.sh make) || bail "no Debian 13 guest root (dev/guest-root.sh make)"
make -s -C tools > /dev/null || bail "cannot build tools/ (make -C tools)"
work=$top/build/vm/boot-unit
R=$work/root
mkdir -p "$top/build/logs" "$work"

# put DEST FILE-OR-TEXT: a new file at DEST in the copy (never written
# through a hard link of the guest root: the link is removed first)
put() {
	rm -f "$R$1" && mkdir -p "$(dirname "$R$1")" && cat > "$R$1"
}

# prepare KVER: the copy of the root for KVER in $R ($work/root)
prepare() {
	rm -rf "$R" && cp -al "$src" "$R" || return 1
	sh dev/build-for.sh "$1" all > "$top/build/logs/vm-boot-$1.build" 2>&1 || {
		echo "cannot build our module for $1 (build/logs/vm-boot-$1.build)" && return 1
	}
	md=/usr/lib/modules/$1
	[ -d "$R$md/kernel" ] || cp -al "/lib/modules/$1/." "$R$md/" || return 1
	# depmod's files: copies, not links of the root's (or the host's)
	for f in "$R$md"/modules.*; do
		cp "$f" "$f.fb" && mv -f "$f.fb" "$f" || return 1
	done
	mkdir -p "$R$md/updates/dkms" &&
		cp "$top/build/$1/fusebp.ko" "$R$md/updates/dkms/" &&
		sh dev/chroot.sh run "$R" depmod -a "$1" || return 1
	put /usr/bin/fuse-backport < tools/fuse-backport && chmod 755 "$R/usr/bin/fuse-backport" &&
		echo "TAKEOVER=$want" | put /etc/fuse-backport/fuse-backport.conf &&
		if [ "$red" = unordered ]; then
			grep -v '^Before=local-fs-pre.target$' tools/fuse-backport-takeover.service
		else
			cat tools/fuse-backport-takeover.service
		fi | put /etc/systemd/system/fuse-backport-takeover.service &&
		mkdir -p "$R/etc/systemd/system/sysinit.target.wants" "$R/etc/systemd/system/multi-user.target.wants" &&
		ln -sf ../fuse-backport-takeover.service "$R/etc/systemd/system/sysinit.target.wants/" || return 1
	printf '/usr/share/doc/fuse3 /mnt mergerfs ro,allow_other 0 0\n' | put /etc/fstab || return 1
	put /etc/systemd/system/fb-boot-check.service << 'EOF'
[Unit]
Description=fuse-backport boot test: report what the boot did, then power off
After=local-fs.target fuse-backport-takeover.service
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/fb-boot-check
ExecStartPost=/usr/bin/systemctl --no-block poweroff
EOF
	ln -sf ../fb-boot-check.service "$R/etc/systemd/system/multi-user.target.wants/" || return 1
	put /usr/local/sbin/fb-boot-check << 'EOF'
#!/bin/sh
p() { echo "FBBOOT $*" > /dev/console; }
p "pid1 $(cat /proc/1/comm)"
for u in fuse-backport-takeover.service local-fs-pre.target mnt.mount; do
	p "unit $u $(systemctl show -p ActiveState -p Result -p ExecMainStatus -p ActiveEnterTimestampMonotonic "$u" | tr '\n' ' ')"
done
p "before $(systemctl show -p Before --value fuse-backport-takeover.service)"
p "after $(systemctl show -p After --value mnt.mount)"
p "journal $(journalctl -b -o cat -u fuse-backport-takeover.service | tr '\n' '|')"
p "param $(cat /sys/module/fusebp/parameters/takeover 2> /dev/null || echo none)"
p "kmsg $(dmesg | grep -o 'fusebp: takeover: .*' | tail -n 1)"
mkdir -p /run/fbctl/ours /run/fbctl/builtin
mount -t fusebpctl none /run/fbctl/ours 2> /dev/null
mount -t fusectl none /run/fbctl/builtin 2> /dev/null
c=$(awk '$5 == "/mnt" { split($3, d, ":"); print d[1] * 1048576 + d[2]; exit }' /proc/self/mountinfo)
t=$(awk '$5 == "/mnt" { for (i = 7; i < NF; i++) if ($i == "-") { print $(i + 1); exit } }' /proc/self/mountinfo)
p "mount type=${t:-none} conn=${c:-none} ours=$([ -n "$c" ] && [ -d "/run/fbctl/ours/$c" ] && echo 1 || echo 0) builtin=$([ -n "$c" ] && [ -d "/run/fbctl/builtin/$c" ] && echo 1 || echo 0)"
p "read $(cmp -s /usr/share/doc/fuse3/copyright /mnt/copyright && echo same || echo differs)"
p "failed $(systemctl --failed --no-legend --plain | awk '{ print $1 }' | tr '\n' ' ')"
p done
EOF
	chmod 755 "$R/usr/local/sbin/fb-boot-check" || return 1
	# PID 1: systemd; anything else: dash
	put /usr/bin/sh << 'EOF'
#!/usr/bin/dash
[ $$ = 1 ] && exec /usr/lib/systemd/systemd
exec /usr/bin/dash "$@"
EOF
	chmod 755 "$R/usr/bin/sh"
}

# field LINE KEY: the value of KEY=... in a systemctl show line
field() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

for k in $kvers; do
	log=$top/build/logs/vm-boot-$k.log
	if ! prepare "$k" > "$log.prepare" 2>&1; then
		tap_check 1 "$k: the guest root prepared ($(tail -n 1 "$log.prepare"))"
		continue
	fi
	vmlinuz=$(tests/vm/kernel.sh "$k" 2> /dev/null) || { tap_check 1 "$k: the kernel image (tests/vm/kernel.sh $k)"; continue; }
	start=$(date +%s)
	timeout -k 15 "${FB_BOOT_TIMEOUT:-600}" vng --run "$vmlinuz" --disable-kvm --disable-microvm --force-9p \
		--cpus 2 --memory 2048M --verbose --append "systemd.unit=multi-user.target" \
		--qemu-opts=-accel --qemu-opts=tcg,thread=multi --root "$R" --exec true < /dev/null > "$log" 2>&1
	echo "# $k: the boot took $(($(date +%s) - start)) s (vng exit $?; log build/logs/vm-boot-$k.log)"
	tr -d '\r' < "$log" | sed -n 's/^.*FBBOOT //p' > "$log.fb"
	sed 's/^/#   /' "$log.fb"
	g() { sed -n "s/^$1 //p" "$log.fb" | tail -n 1; }
	tap_check "$([ "$(g pid1)" = systemd ] && grep -qx "done" "$log.fb"; echo $?)" \
		"$k: systemd booted as PID 1 and the check unit ran to its end"
	tu=$(g "unit fuse-backport-takeover.service") lp=$(g "unit local-fs-pre.target") mm=$(g "unit mnt.mount")
	tap_check "$([ "$(field "$tu" ActiveState)" = active ] && [ "$(field "$tu" Result)" = success ] &&
		[ "$(field "$tu" ExecMainStatus)" = 0 ]; echo $?)" \
		"$k: fuse-backport-takeover.service active, exited 0 ($(g journal))"
	ut=$(field "$tu" ActiveEnterTimestampMonotonic) lt=$(field "$lp" ActiveEnterTimestampMonotonic) mt=$(field "$mm" ActiveEnterTimestampMonotonic)
	# ordered so, not by chance: the loaded units' Before= and After=, and
	# the times they became active
	ob=no oa=no
	case " $(g before) " in *" local-fs-pre.target "*) ob=yes ;; esac
	case " $(g after) " in *" local-fs-pre.target "*) oa=yes ;; esac
	tap_check "$([ $ob = yes ] && [ $oa = yes ] && [ "${ut:-0}" -gt 0 ] && [ "${lt:-0}" -ge "$ut" ] && [ "${mt:-0}" -ge "$lt" ]; echo $?)" \
		"$k: the unit ordered before local-fs-pre.target ($ob), the fstab mount after it ($oa), and active in that order (monotonic us: unit ${ut:-none}, local-fs-pre ${lt:-none}, mnt.mount ${mt:-none})"
	tap_check "$([ "$(g param)" = 1 ] && [ -n "$(g kmsg)" ]; echo $?)" \
		"$k: TAKEOVER=$want: the takeover on at boot (parameter $(g param); kernel: $(g kmsg))"
	tap_check "$(g mount | grep -q '^type=fuse.mergerfs conn=[0-9]* ours=1 builtin=0$' && [ "$(g read)" = same ]; echo $?)" \
		"$k: fstab's mergerfs mount on /mnt served by ours ($(g mount); a file read through it: $(g read))"
done
tap_done
