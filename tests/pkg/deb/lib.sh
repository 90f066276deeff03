# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, its helpers: our modules of a kernel, the check of a
# kernel after apt, a modprobe in a VM. Sourced by it, in its shell and its
# TAP count, after the parts before it (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# Our modules of one kernel as "file file...", from where DKMS puts them.
our_modules() {
	find "/lib/modules/$1/updates/dkms" -maxdepth 1 \
		\( -name 'fusebp.ko*' -o -name 'fuse.ko*' -o -name 'cuse.ko*' -o -name 'virtiofs.ko*' \) \
		2> /dev/null | sort | tr '\n' ' '
}

# check_kernel KVER LOG VERSION [MODVER]: our modules for KVER are what
# dkms.conf and the build decide: installed by DKMS as VERSION (the
# product's), signed, of MODVER (default: the module version of KVER's base);
# or one line in LOG saying why not.
check_kernel() {
	k=$1 log=$2 v=$3
	kd=/lib/modules/$k/build
	mv=${4:-$(pt_modver "$k" "$kd")}
	if [ ! -e "$kd/include" ]; then
		grep -q "not building for $k: its headers are not installed" "$log"
		tap_check $? "$k: no headers: one line says so, nothing built"
		return
	fi
	# A kernel a base serves (tests/lib/served.sh: the pins, the kernel's
	# .config) that dkms.conf or the build refuses is a failure.
	if sb=$(fb_must_serve "$top" "$k" "$kd/.config"); then
		if ! fl=$(bash scripts/flavor.sh "$k" "$kd" 2>&1); then
			tap_check 1 "$k: base $sb serves it (backports/$sb/pin), but dkms.conf refuses it: $fl"
			return
		fi
	elif ! fl=$(bash scripts/flavor.sh "$k" "$kd" 2>&1); then
		grep -q "not building for $k: " "$log" && [ -z "$(our_modules "$k")" ]
		tap_check $? "$k: not served ($fl): skipped with one line"
		return
	fi
	if grep -q "the build for $k failed" "$log"; then
		if [ -n "$sb" ]; then
			tap_check 1 "$k: base $sb serves it (backports/$sb/pin), but the build failed"
			tap_diag "$(grep "the build for $k failed" "$log" | head -n 1)"
			return
		fi
		why=$(grep "the build for $k failed" "$log" | head -n 1)
		echo "$why" | grep -q 'not supported yet' && [ -z "$(our_modules "$k")" ]
		tap_check $? "$k: not supported yet by the build, one line, apt unaffected"
		tap_diag "$why"
		return
	fi
	mods=$(our_modules "$k")
	# what the kernel must get, from its .config (tests/lib/served.sh), not
	# from scripts/flavor.sh, which decides it
	fl=$(fb_expect_flavor "$kd/.config") || fl="none"
	want=${fl#* }
	n_want=$(echo "$want" | wc -w)
	good=0
	for f in $mods; do
		[ "$(modinfo -F version "$f" 2> /dev/null)" = "$mv" ] || good=1
	done
	for w in $want; do
		echo "$mods" | grep -q "/$w\.ko" || good=1
	done
	dkms status -m $name -v "$v" -k "$k" 2> /dev/null | grep -q ': installed' &&
		[ "$(echo "$mods" | wc -w)" = "$n_want" ] && [ $good = 0 ]
	tap_check $? "$k: ${fl%% *} flavor, $n_want module(s) ($want) installed by DKMS $name/$v, modinfo version $mv"
	if grep -qx 'CONFIG_MODULE_SIG=y' "$kd/.config"; then
		# DKMS makes its MOK at its first build: on a fresh host, after
		# this test started.
		[ -n "$mok" ] || mok=$(pt_mok_cn)
		signers=$(for f in $mods; do modinfo -F signer "$f" 2> /dev/null; echo; done | sort -u | grep . | tr '\n' ';')
		[ -n "$mok" ] && [ "$signers" = "$mok;" ]
		tap_check $? "$k: modules signed by the DKMS MOK (signer: ${signers%;}, MOK: ${mok:-none})"
	fi
}

# vm_modprobe KVER MODULE WHAT [PRE]: boots KVER, runs the command PRE
# (none: nothing), modprobes MODULE; $out has PRE's output, MODULE's
# /sys/module version ("none" without one) and the file it came from (the
# last lines go out as diagnostics when the VM run failed). Returns 1 (after
# a loud skip of WHAT) when no VM can run.
vm_modprobe() {
	if [ "${FB_PKG_VM:-1}" = 0 ]; then
		tap_skip "$3" "FB_PKG_VM=0"
		return 1
	fi
	if ! command -v vng > /dev/null || ! command -v qemu-system-x86_64 > /dev/null; then
		tap_skip "$3" "no virtme-ng/QEMU (sh dev/deps.sh test)"
		return 1
	fi
	# the guest's log outlives the test's scratch directory: a failure
	# names it (build/vm/pkg-deb-N-KVER.log, N: the boot's number)
	vm_n=$((${vm_n:-0} + 1))
	mkdir -p "$top/build/vm"
	out=$(sh tests/vm/boot.sh --kver "$1" --timeout 600 --log "$top/build/vm/pkg-deb-$vm_n-$1.log" -- \
		sh -c "${4:-:}; modprobe $2 && { cat /sys/module/$2/version 2> /dev/null || echo none; } &&
			modinfo -F filename $2 && grep -w $2 /proc/filesystems" 2>&1) ||
		echo "$out" | tail -n 5 | sed 's/^/#   /'
	return 0
}
# vm_check KVER MODULE: in one boot, the package's load at boot
# (tests/pkg/boot-load-guest.sh: systemd-modules-load with its
# modules-load.d file loads fusebp where DKMS installed it, /dev/fusebp
# exists; where it did not (the drop-in fuse), exit 0, one line of ours, no
# error, nothing loaded; without the modprobe.d install command, exit 0, an
# error logged, nothing loaded), then modprobe MODULE loads the DKMS module.
vm_check() { # KVER MODULE
	mv=$(pt_modver "$1")
	what="$1: in a VM, modprobe $2 loads the DKMS module, /sys/module/$2/version $mv"
	if [ "$2" = fusebp ]; then
		bwhat="$1: in a VM, systemd-modules-load with /usr/lib/modules-load.d/fuse-backport.conf loads fusebp, /dev/fusebp exists"
		bwant="rc=0 fusebp=loaded /dev/fusebp=yes" bours=0
	else
		bwhat="$1 (drop-in, no fusebp): in a VM, systemd-modules-load with /usr/lib/modules-load.d/fuse-backport.conf exits 0, one line of ours, no error, fusebp not loaded"
		bwant="rc=0 fusebp=absent /dev/fusebp=no" bours=1
	fi
	if ! vm_modprobe "$1" "$2" "$what" "sh tests/pkg/boot-load-guest.sh fusebp"; then
		tap_skip "$bwhat" "no VM"
		tap_skip "$1: in a VM, the same without the install command" "no VM"
		return
	fi
	echo "$out" | grep '^boot-load: ' | sed 's/^/#   /'
	echo "$out" | grep -qx "boot-load: with: $bwant" &&
		[ "$(echo "$out" | grep -c "^boot-load: with: fuse-backport: $1 has no fusebp module")" = $bours ] &&
		! echo "$out" | grep -q '^boot-load: with: Failed'
	tap_check $? "$bwhat"
	# What the install command is for: without it, systemd-modules-load
	# (systemd 244 on) still exits 0 for a name it cannot find, but logs an
	# error, and loads nothing.
	echo "$out" | grep -qx "boot-load: without: rc=0 fusebp=absent /dev/fusebp=no" &&
		echo "$out" | grep -q "^boot-load: without: Failed to find module 'fuse-backport-boot'"
	tap_check $? "$1: in a VM, the same without /usr/lib/modprobe.d/fuse-backport-boot.conf: exit 0, an error logged (Failed to find module), nothing loaded"
	echo "$out" | grep -qx "$mv" && echo "$out" | grep -q "/updates/dkms/$2.ko"
	tap_check $? "$what"
}

# initrd_fuse KVER: the fuse.ko in /boot/initrd.img-KVER, as a path under
# lib/modules/KVER/ (kernel/fs/fuse/fuse.ko: the kernel's own,
# updates/dkms/fuse.ko: ours), read with lsinitramfs; empty: none
initrd_fuse() {
	lsinitramfs "/boot/initrd.img-$1" 2> /dev/null |
		sed -n "s|^.*lib/modules/$1/\(.*/fuse\.ko\)\(\.[a-z0-9]*\)\{0,1\}\$|\1|p" | head -n 1
}
