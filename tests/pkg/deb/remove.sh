# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, apt remove and dpkg --purge leave nothing. Sourced by it,
# in its shell and its TAP count, after the parts before it
# (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- remove, purge ------------------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 remove -y -q $pkg fuse-backport-tools > "$pt_tmp/remove.log" 2>&1
rc=$?
tap_check $rc "apt remove $pkg exits 0"
[ $rc = 0 ] || pt_log "$pt_tmp/remove.log"
left=""
for k in $kernels; do
	left="$left$(our_modules "$k")"
done
[ -z "$left" ]
tap_check $? "no module of ours left in any /lib/modules/*/updates/dkms${left:+ ($left)}"
if [ -n "${prefix_k:-}" ]; then
	# built as acmefs (tests/pkg/deb/prefix.sh): the prerm has no FB_PREFIX
	acme=$(find "/lib/modules/$prefix_k/updates/dkms" -maxdepth 1 -name 'acmefs.ko*' 2> /dev/null)
	[ -z "$acme" ]
	tap_check $? "$prefix_k: apt remove took acmefs.ko (FB_PREFIX=acmefs of the config file) away${acme:+ (left: $acme)}"
fi
if [ -n "$irk" ]; then
	[ "$(initrd_fuse "$irk")" = kernel/fs/fuse/fuse.ko ] &&
		grep -q "the initramfs of $irk held updates/dkms/fuse.ko; made again with the kernel's own (kernel/fs/fuse/fuse.ko)" "$pt_tmp/remove.log"
	tap_check $? "$irk: apt remove made its initramfs again, with the kernel's own fuse.ko ($(initrd_fuse "$irk"); $(grep -m 1 'initramfs of' "$pt_tmp/remove.log"))"
	# and, once dpkg removed our files, without our modprobe.d file
	left=$(lsinitramfs "/boot/initrd.img-$irk" 2> /dev/null | grep 'modprobe\.d/fuse-backport\.conf$')
	[ -z "$left" ] && grep -q "the initramfs of $irk held files of ours; made again without them" "$pt_tmp/remove.log"
	tap_check $? "$irk: after apt remove its initramfs holds no file of ours${left:+ ($left)} ($(grep -m 1 'made again without them' "$pt_tmp/remove.log" || echo 'not made again after the files went'))"
fi
if [ -n "$gone_k" ]; then
	# modprobe must not resolve to a module of ours any more. Whether it
	# finds the stock fuse.ko depends on the kernel image being installed,
	# which for a headers-only kernel on this host it is not (6.1.0-57's
	# stock module is checked below).
	dep=/lib/modules/$gone_k/modules.dep
	[ -z "$(our_modules "$gone_k")" ] && [ ! -e "/lib/modules/$gone_k/updates/fuse-backport-kept" ] && { [ ! -e "$dep" ] ||
		! grep -Eq '(^|/)updates/(dkms|fuse-backport-kept)/(fuse|cuse|virtiofs|fusebp)\.ko' "$dep"; }
	tap_check $? "$gone_k (no headers): fuse, cuse, virtiofs of ours removed, the copies an upgrade kept too$([ -e "$dep" ] && echo ', modules.dep names none of them')"
fi
! dkms status -m $name 2> /dev/null | grep -q . && [ ! -e "/var/lib/dkms/$name" ]
tap_check $? "dkms status has no $name, /var/lib/dkms/$name is gone"
! ls -d /usr/src/$name-[0-9]* > /dev/null 2>&1
tap_check $? "no /usr/src/$name-* tree left"
if [ -e "/lib/modules/$vm_kver/modules.dep" ]; then
	! modinfo -k "$vm_kver" fusebp > /dev/null 2>&1
	tap_check $? "depmod ran: $vm_kver no longer knows fusebp"
fi
# The drop-in kernel checked in a VM above has the stock fuse.ko back: what
# modprobe resolves to on the host, and what loads and registers in a VM.
if [ -n "${dropin_vm_k:-}" ]; then
	k=$dropin_vm_k
	f=$(modinfo -k "$k" -F filename fuse 2> /dev/null)
	case $f in */kernel/fs/fuse/fuse.ko*) r=0 ;; *) r=1 ;; esac
	tap_check $r "$k: modprobe resolves fuse to the stock module again (${f:-nothing})"
	what="$k: in a VM, the stock fuse.ko loads after apt remove"
	if vm_modprobe "$k" fuse "$what"; then
		echo "$out" | grep -q '/kernel/fs/fuse/fuse\.ko' && ! echo "$out" | grep -q '+fb' &&
			echo "$out" | grep -q 'fuse$'
		tap_check $? "$what (version: $(echo "$out" | grep -x -m 1 'none\|[0-9].*'))"
	fi
fi
# Left to purge: the conffiles /etc/fuse-backport/fuse-backport.conf and
# the kernel hooks (/etc/kernel/*/00-fuse-backport), the takeover unit's
# link, /var/lib/fuse-backport; dpkg --purge removes them.
dpkg --purge $pkg fuse-backport-tools > "$pt_tmp/purge.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(pt_deb_state $pkg)" = not-installed ]
tap_check $? "dpkg --purge: dpkg knows nothing of $pkg"
[ $rc = 0 ] || pt_log "$pt_tmp/purge.log"
[ ! -e /etc/fuse-backport ] && [ ! -e /etc/systemd/system/sysinit.target.wants/fuse-backport-takeover.service ] &&
	[ ! -e /etc/kernel/header_postinst.d/00-fuse-backport ] && [ ! -e /etc/kernel/postinst.d/00-fuse-backport ] &&
	[ ! -e /var/lib/fuse-backport ]
tap_check $? "dpkg --purge: /etc/fuse-backport, the kernel hooks, /var/lib/fuse-backport and the takeover unit's link are gone"
dpkg --audit > "$pt_tmp/audit.log" 2>&1
[ ! -s "$pt_tmp/audit.log" ]
tap_check $? "dpkg --audit: nothing half-installed or half-configured"
[ ! -e "/lib/modules/$fake7" ] && [ ! -e "/lib/modules/$nohdr" ] && [ ! -e "/usr/src/linux-headers-$fake7" ]
tap_check $? "the fake kernels are gone"
