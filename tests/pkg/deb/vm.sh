# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, in a VM: the installed module loads and is ours, and
# the package's load at boot loads fusebp where DKMS built it. Sourced
# by it, in its shell and its TAP count, after the parts before it
# (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- the renamed module's load at boot, on this host ---------------------------
# The installed package's modules-load.d file, modprobe.d install command
# and helper (scripts/load-renamed.sh), run by systemd-modules-load on this
# host's kernel, which has no fusebp: exit 0, one line, nothing loaded. In
# the VMs below, the same on a kernel with fusebp (loaded) and a drop-in one.
pt_boot_load "installed $pkg"

# --- in a VM: the installed module loads and is ours ---------------------------

# The renamed flavor on $vm_kver; the drop-in flavor on the first kernel that
# has it and whose image is installed.
case $(our_modules "$vm_kver") in
*/fusebp.ko*) vm_check "$vm_kver" fusebp ;;
esac
for k in $kernels; do
	case $(our_modules "$k") in
	*/fuse.ko*)
		if [ -f "/boot/vmlinuz-$k" ]; then
			vm_check "$k" fuse
			dropin_vm_k=$k
			break
		fi
		;;
	esac
done
[ -n "${dropin_vm_k:-}" ] || [ "${FB_PKG_VM:-1}" = 0 ] ||
	tap_check 1 "a drop-in kernel of ours with an image to boot (kernels: $(echo "$kernels" | tr "\n" " "))"
