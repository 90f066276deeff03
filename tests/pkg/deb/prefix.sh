# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, FB_PREFIX from the config file. Sourced by it, in its
# shell and its TAP count, after the parts before it (tests/pkg/deb/lib.sh
# first); tests/pkg/deb/remove.sh checks what its apt remove leaves.
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- FB_PREFIX=acmefs in /etc/fuse-backport/fuse-backport.conf ---------------
# The admin's setting, in fuse-backport-tools' conffile: our kernel hook, as
# a new kernel's packages run it (no FB_PREFIX in its environment), has DKMS
# build and install the renamed kernel's module under that name. apt remove
# (the prerm, no FB_PREFIX either) takes it away: remove.sh.
prefix_k=""
pconf=/etc/fuse-backport/fuse-backport.conf
case $(our_modules "$vm_kver") in
*/fusebp.ko*)
	if mkdir -p "${pconf%/*}"; then
		echo 'FB_PREFIX=acmefs' >> "$pconf"
		prefix_k=$vm_kver
		env -u FB_PREFIX dkms remove -m $name -v "$ver" -k "$vm_kver" > "$pt_tmp/prefix.log" 2>&1
		env -u FB_PREFIX /etc/kernel/postinst.d/00-fuse-backport "$vm_kver" > "$pt_tmp/prefix-hook.log" 2>&1
		rc=$?
		acme=$(find "/lib/modules/$vm_kver/updates/dkms" -maxdepth 1 -name 'acmefs.ko*' 2> /dev/null)
		[ $rc = 0 ] && [ -n "$acme" ] && [ "$(modinfo -F name "$acme" 2> /dev/null)" = acmefs ] &&
			[ -z "$(our_modules "$vm_kver")" ] &&
			dkms status -m $name -v "$ver" -k "$vm_kver" 2> /dev/null | grep -q ': installed'
		tap_check $? "FB_PREFIX=acmefs in $pconf only: our kernel hook (no FB_PREFIX in its environment) has DKMS build and install acmefs.ko for $vm_kver, fusebp.ko gone (${acme:-no acmefs.ko}; $(head -n 1 "$pt_tmp/prefix-hook.log"))"
		[ -n "$acme" ] || pt_log "$pt_tmp/prefix.log" 10
		[ -n "$acme" ] || pt_log "$pt_tmp/prefix-hook.log" 10
	else
		tap_check 1 "FB_PREFIX from the config file: cannot make ${pconf%/*}"
	fi
	;;
*)
	tap_skip "FB_PREFIX=acmefs in $pconf only: DKMS builds acmefs.ko for $vm_kver" "no fusebp.ko of ours for $vm_kver"
	;;
esac
