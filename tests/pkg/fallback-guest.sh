#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/fallback.sh, in the guest (Debian 12's 6.1, FUSE a module): our
# drop-in fuse.ko, cuse.ko and virtiofs.ko (FB_MODDIR) installed under
# updates/dkms as DKMS installs them (the guest's /lib/modules is a
# throw-away overlay), depmod, and the package's modprobe fallback
# (scripts/fuse-backport.modprobe.conf as /usr/lib/modprobe.d/,
# scripts/modprobe-stock.sh where that file says, /usr/libexec/fuse-backport/).
#   1. signatures not enforced: modprobe fuse and cuse load ours
#   2. then module.sig_enforce=1 (it can only be turned on: this is the last
#      thing this guest does), our modules unsigned as the kernel sees them
#      (a MOK it does not trust): without the fallback, modprobe fuse fails
#      and the host has no FUSE (what stock modprobe does: the issue)
#   3. with it: modprobe fuse loads the kernel's own fuse.ko, one kernel log
#      line says why, a -t fuse mount of the test daemon serves I/O; modprobe
#      cuse loads the kernel's own cuse.ko, /dev/cuse opens
#   4. fuse-backport status: degraded, signatures enforced
#      (module.sig_enforce=1), ours unsigned, the problem says the kernel's
#      own module serves because of that
set -u
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tap_suite=pkg-fallback
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
k=$(uname -r)
upd=/lib/modules/$k/updates/dkms
tool=$FB_TOP/tools/fuse-backport
S=$FB_SCRATCH
# where the package puts the helper: the path its modprobe.d file names
# shellcheck disable=SC2016 # the pattern's $0 is the file's, not ours
helper=$(sed -n 's|^install fuse /bin/sh -c .* exec /bin/sh \([^ ]*\) "\$0".*|\1|p' "$FB_TOP/scripts/fuse-backport.modprobe.conf")
mkdir -p "$S" "$upd" /usr/lib/modprobe.d "$(dirname "${helper:-/nonexistent/x}")"

unload() {
	for m in cuse virtiofs fuse; do
		grep -q "^$m " /proc/modules && rmmod "$m"
	done
	return 0
}
modver() {
	cat "/sys/module/$1/version" 2> /dev/null || echo none
}

for m in fuse cuse virtiofs; do
	cp "$FB_MODDIR/$m.ko" "$upd/" || tap_check 1 "install our $m.ko under $upd"
done
# modprobe's index as DKMS's depmod leaves it, for our modules, copied
# over this kernel's (the guest's /lib/modules is a throw-away overlay).
# The kernel's own modules the fallback loads are taken by path.
mr=$S/modroot/lib/modules/$k
if fb_depmod_tree "$S/modroot" "$k" "$upd"/*.ko 2> "$S/depmod.err"; then
	cp "$mr"/modules.*.bin "$mr/modules.dep" "$mr/modules.alias" "/lib/modules/$k/"
else
	tap_check 1 "depmod of our modules ($(head -n 1 "$S/depmod.err"))"
fi
unload
rule_on() {
	cp "$FB_TOP/scripts/fuse-backport.modprobe.conf" /usr/lib/modprobe.d/fuse-backport.conf &&
		[ -n "$helper" ] && cp "$FB_TOP/scripts/modprobe-stock.sh" "$helper" && chmod 755 "$helper"
}
rule_on
ours=$(modinfo -F version "$upd/fuse.ko")

# 1. not enforced: ours
modprobe fuse 2> "$S/mp1.err" && modprobe cuse 2>> "$S/mp1.err"
[ "$(modver fuse)" = "$ours" ] && [ "$(modver cuse)" = "$ours" ]
tap_check $? "signatures not enforced: modprobe fuse, cuse load ours ($(modver fuse), $(modver cuse); $(head -n 1 "$S/mp1.err"))"
unload

# 2. enforced, without the fallback: no FUSE at all
echo 1 > /sys/module/module/parameters/sig_enforce
[ "$(cat /sys/module/module/parameters/sig_enforce)" = Y ] ||
	tap_check 1 "module.sig_enforce=1 (is $(cat /sys/module/module/parameters/sig_enforce))"
rm -f /usr/lib/modprobe.d/fuse-backport.conf
modprobe fuse 2> "$S/mp2.err"
rc=$?
[ $rc != 0 ] && ! grep -q '^fuse ' /proc/modules && grep -q 'Key was rejected\|Required key not available' "$S/mp2.err"
tap_check $? "enforced, no fallback: modprobe fuse fails, no FUSE on the host (exit $rc: $(head -n 1 "$S/mp2.err"))"

# 3. with the fallback: the kernel's own fuse and cuse
rule_on
dmesg -c > /dev/null
modprobe fuse 2> "$S/mp3.err"
rc=$?
dmesg > "$S/klog3"
[ $rc = 0 ] && grep -q '^fuse ' /proc/modules && [ "$(modver fuse)" = none ] &&
	[ "$(grep -c "fuse-backport: fuse: ours did not load (.*); the kernel's own /lib/modules/$k/kernel/fs/fuse/fuse.ko.* serves instead" "$S/klog3")" = 1 ]
tap_check $? "enforced, with the fallback: modprobe fuse loads the kernel's own fuse.ko, one log line (exit $rc: $(grep -m 1 'fuse-backport:' "$S/klog3"))"
FB_DEV=/dev/fuse FB_FSTYPE=fuse fb_mount --mode cached 2> "$S/mount.err"
echo fallback > "$FB_MNT/f" && [ "$(cat "$FB_BACK/f")" = fallback ] && [ "$(fb_fstype "$FB_MNT")" = fuse ]
tap_check $? "a -t fuse mount on the kernel's own fuse serves I/O ($(head -n 1 "$S/mount.err"))"
modprobe cuse 2> "$S/mp4.err"
rc=$?
[ $rc = 0 ] && grep -q '^cuse ' /proc/modules && [ "$(modver cuse)" = none ] &&
	fb_wait_while 50 [ ! -c /dev/cuse ] && exec 9<> /dev/cuse
tap_check $? "modprobe cuse loads the kernel's own cuse.ko, /dev/cuse opens (exit $rc: $(head -n 1 "$S/mp4.err"))"
exec 9>&-

# 4. status says why ours is not in use
"$tool" status --no-probe --json > "$S/st.json" 2> "$S/st.err"
rc=$?
"$tool" status --no-probe > "$S/st.txt" 2>&1
sed 's/^/# /' "$S/st.txt"
[ $rc = 1 ] && [ "$(jq -r .module_signatures.enforced "$S/st.json")" = true ] &&
	jq -r .module_signatures.evidence "$S/st.json" | grep -q 'module.sig_enforce=1' &&
	[ "$(jq -r .module_signatures.ours "$S/st.json")" = unsigned ] &&
	jq -r '.problems[]' "$S/st.json" | grep -q "^-t fuse is served by .*not by our installed .*enforces module signatures (module.sig_enforce=1) and ours is unsigned"
tap_check $? "status: degraded (exit $rc), signatures enforced by module.sig_enforce=1, ours unsigned, the reason in the problem"
fb_umount
tap_done
