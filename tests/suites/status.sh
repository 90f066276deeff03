#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# `fuse-backport status` (guest) against the live configuration:
#   stock: the stock FUSE only (ours neither loaded nor installed);
#   ours: ours next to (renamed) or instead of (drop-in) the stock FUSE,
#     loaded by hand and not installed; then "installed" as DKMS leaves it
#     (the .ko under updates/dkms, the DKMS tree, modules.dep): healthy;
#     unloaded: degraded (renamed), healthy as modprobe resolves to ours
#     (drop-in); the unpatched base installed under the loaded module:
#     degraded; the unpatched base loaded: no fix; a newer kernel with no
#     build of ours: the loud warning.
# The host's root is live under the guest: the suite works on private
# copies, tmpfs over updates/dkms, /var/lib/dkms and the /lib/modules of any
# kernel newer than the running one, and a bind-mounted copy of modules.dep
# (it "installs" by copying the .ko and adding its line there: depmod takes
# minutes under TCG); unmounting them at the end undoes it all.
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
tool=$FB_TOP/tools/fuse-backport
S=$FB_SCRATCH
kver=$(uname -r)
arch=$(uname -m)
updates=/lib/modules/$kver/updates/dkms
dkms=/var/lib/dkms/fuse-backport
fake=/lib/modules/99.0.0-fbfake-amd64
mkdir -p "$S"

for t in "$tool" jq; do
	command -v "$t" > /dev/null || {
		tap_skip "status suite" "$t is missing (make -C tools; dev/deps.sh test)"
		tap_done
		exit
	}
done

# status [ARGS]: run it; $rc, $S/st.json (--json) or $S/st.txt.
status() {
	"$tool" status --json "$@" > "$S/st.json" 2> "$S/st.err"
	rc=$?
	"$tool" status "$@" > "$S/st.txt" 2>> "$S/st.err"
}
# j FILTER: a value of the last JSON status.
j() {
	jq -r "$1" "$S/st.json"
}
# impl FSTYPE FIELD
impl() {
	jq -r --arg t "$1" ".implementations[] | select(.fstype == \$t) | .$2" "$S/st.json"
}
show() {
	sed 's/^/# /' "$S/st.txt"
}

# installed kernels by the rule the tool documents, newest last
installed() {
	for d in /lib/modules/*; do
		[ -e "$d/modules.order" ] || [ -d "$d/kernel" ] && basename "$d"
	done | sort -V
}
# the kernel's config where the tool looks: /boot, then (Debian's 7.x
# packages) /lib/modules/KVER/config, then the headers
cfg=/lib/modules/$kver/build/.config
[ -f "/lib/modules/$kver/config" ] && cfg=/lib/modules/$kver/config
[ -f "/boot/config-$kver" ] && cfg=/boot/config-$kver
pt=false
grep -qx 'CONFIG_FUSE_PASSTHROUGH=y' "$cfg" 2> /dev/null && pt=true
# the protocol of our module: the uapi header of the base serving this kernel
fbbase=$(bash "$FB_TOP/scripts/flavor.sh" --base "$kver" /nonexistent 2> /dev/null | cut -d' ' -f1)
tree=$(bash "$FB_TOP/scripts/flavor.sh" --base "$kver" /nonexistent 2> /dev/null | cut -d' ' -f2)
minor=$(sed -n 's/^#define FUSE_KERNEL_MINOR_VERSION \([0-9]*\)$/\1/p' \
	"$FB_TOP/src/${tree:-upstream-6.12}/include/uapi/linux/fuse.h")
# the protocol of the kernel's own FUSE: its headers' uapi fuse.h (Debian
# keeps it in linux-headers-ABI-common[-rt]; a kernel whose headers live in a
# Debian root has them there: dev/headers.sh), the oracle for -t fuse where
# the kernel's FUSE serves it
kroot=""
w=$(sh "$FB_TOP/dev/headers.sh" where "$kver" 2> /dev/null) && [ "$w" != host ] &&
	kroot=$(sh "$FB_TOP/dev/headers.sh" root "$w" 2> /dev/null)
abi=$(echo "$kver" | sed 's/-\(rt-\|cloud-\)\{0,1\}amd64$//')
kminor=""
for h in "$kroot/usr/src/linux-headers-$abi-common"*/include/uapi/linux/fuse.h; do
	[ -f "$h" ] && kminor=$(sed -n 's/^#define FUSE_KERNEL_MINOR_VERSION \([0-9]*\)$/\1/p' "$h") && break
done
moddep=/lib/modules/$kver/modules.dep
ours_re='^updates/dkms/\(fuse\|cuse\|virtiofs\|fusebp\)\.ko'
mounted=""

# shadow DIR|FILE: a private copy for this suite (the host's root is live:
# a DKMS test on the host must not change what the guest sees meanwhile)
shadow() {
	if [ -d "$1" ]; then
		mount -t tmpfs -o size=64m,mode=0755 fb-shadow "$1"
	else
		cp "$1" "$S/shadow.$(basename "$1")" && mount --bind "$S/shadow.$(basename "$1")" "$1"
	fi && mounted="$1 $mounted"
}
cleanup() {
	fb_cleanup
	rm -rf "$fake"
	for d in $mounted; do
		umount "$d" 2> /dev/null || umount -l "$d"
	done
	rmdir "$updates" 2> /dev/null
}
trap cleanup EXIT

# A known start: no module of ours installed for this kernel, no DKMS tree,
# no kernel newer than this one (each hidden under a tmpfs or a bind mount).
mkdir -p "$updates" /var/lib/dkms
shadow "$updates"
shadow /var/lib/dkms
shadow "$moddep"
grep -v "$ours_re" "$moddep" > "$S/modules.dep.clean"
cat "$S/modules.dep.clean" > "$moddep"
for k in $(installed | awk -v k="$kver" 'f; $0 == k { f = 1 }'); do
	shadow "/lib/modules/$k"
done
newest=$(installed | tail -n 1)
[ "$newest" = "$kver" ] || tap_diag "could not hide the kernels newer than $kver"
tap_diag "shadowed for this suite: $mounted"
tap_diag "kernel $kver, newest installed $newest, target $FB_TARGET ($FB_FSTYPE)"

# The probe must leave nothing: no mount, no connection.
mounts_before=$(wc -l < /proc/self/mountinfo)
conns_before=$(find /sys/fs/fuse/connections -mindepth 1 -maxdepth 1 2> /dev/null | wc -l)
status
show
conns_after=$(find /sys/fs/fuse/connections -mindepth 1 -maxdepth 1 2> /dev/null | wc -l)
[ "$(wc -l < /proc/self/mountinfo)" = "$mounts_before" ] && [ "$conns_after" = "$conns_before" ] &&
	! grep -q fuse-backport-probe /proc/self/mountinfo
tap_check $? "the FUSE_INIT probe leaves no mount and no connection behind"
jq -e . "$S/st.json" > /dev/null && [ "$(j .exit_status)" = "$rc" ] && [ -s "$S/st.txt" ]
tap_check $? "--json is valid JSON and agrees with the exit status ($rc)"
# -t fuse is ours where our module is the drop-in (our uapi header), the
# kernel's own otherwise (its headers')
want=$kminor wfrom="the kernel's headers (linux-headers-$abi-common)"
[ "$FB_TARGET" != stock ] && [ "$FB_FSTYPE" = fuse ] && want=$minor wfrom="our uapi header"
[ -n "$want" ] && [ "$(impl fuse protocol)" = "7.$want" ] &&
	impl fuse protocol_evidence | grep -q FUSE_INIT
tap_check $? "-t fuse: protocol $(impl fuse protocol) from the FUSE_INIT request, the 7.${want:-?} of $wfrom"
if [ "$FB_TARGET" != stock ] && [ "$FB_FSTYPE" = fuse ]; then
	# ours drop-in serves -t fuse: passthrough whatever the kernel's config
	[ "$(impl fuse passthrough)" = true ]
	tap_check $? "-t fuse: passthrough $(impl fuse passthrough): ours drop-in offers it (CONFIG_FUSE_PASSTHROUGH: $pt)"
else
	[ "$(impl fuse passthrough)" = "$pt" ]
	tap_check $? "-t fuse: passthrough $(impl fuse passthrough), as CONFIG_FUSE_PASSTHROUGH says ($pt)"
fi

case $FB_TARGET in
stock)
	case $(impl fuse kind) in
	stock-builtin | stock-module) r=0 ;;
	*) r=1 ;;
	esac
	tap_check $r "-t fuse is served by the stock FUSE ($(impl fuse kind), $(impl fuse state))"
	[ "$(impl fuse parallel_passthrough_fix)" = false ]
	tap_check $? "-t fuse: no parallel-passthrough fix ($(impl fuse parallel_passthrough_fix_evidence))"
	[ "$(impl fusebp kind)" = none ] && [ "$(impl fusebp state)" = absent ] &&
		grep -q '^-t fusebp: none' "$S/st.txt"
	tap_check $? "-t fusebp: nothing serves it"
	[ "$rc" = 1 ] && [ "$(j .health)" = degraded ] &&
		j '.problems[0]' | grep -q "no module of ours is installed for the running kernel $kver" &&
		grep -q '^status: degraded' "$S/st.txt"
	tap_check $? "degraded (exit 1): no module of ours for the running kernel"
	[ "$(j ".kernels[] | select(.kernel == \"$kver\") | .running")" = true ] &&
		[ "$(j ".kernels[] | select(.kernel == \"$kver\") | .ours_file")" = null ]
	tap_check $? "the kernel list has $kver, running, with no module of ours"

	# A FUSE mount shows up by type.
	if fb_mount --mode cached 2> "$S/mount.err"; then
		status
		[ "$(j ".mounts[] | select(.mountpoint == \"$FB_MNT\") | .family")" = fuse ] &&
			grep -q " on $FB_MNT " "$S/st.txt"
		tap_check $? "a -t fuse mount is listed under fuse"
		fb_umount
	else
		tap_check 1 "mount the test daemon on /dev/fuse ($(head -n 1 "$S/mount.err"))"
	fi
	status --no-probe
	[ "$(impl fuse protocol)" = null ] && impl fuse protocol_evidence | grep -q 'not probed'
	tap_check $? "--no-probe: the protocol is unknown, and says why"
	# a copy of the tool uid 65534 can reach (fb_copy_for)
	tool_u=$(fb_copy_for 65534 "$tool") || tool_u=$tool
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tool_u" status --json > "$S/nobody.json" 2> "$S/nobody.err"
	r=$?
	{ [ $r = 0 ] || [ $r = 1 ]; } && jq -e . "$S/nobody.json" > /dev/null
	tap_check $? "as uid 65534: exit $r, valid JSON (protocol: $(jq -r '.implementations[0].protocol_evidence' "$S/nobody.json"))"
	tap_done
	exit
	;;
esac

# ours: loaded by hand from the build directory, not installed
case $FB_FSTYPE in
fuse) kind=ours-dropin flavor=dropin label=drop-in t=fuse mods="fuse cuse virtiofs" ;;
*) kind=ours-renamed flavor=renamed label=renamed t=$FB_FSTYPE mods=$FB_FSTYPE ;;
esac
version=$(modinfo -F version "$FB_MODDIR/$FB_MODNAME.ko")
[ "$(impl "$t" kind)" = "$kind" ] && [ "$(impl "$t" state)" = loaded ] &&
	[ "$(impl "$t" version)" = "$version" ] && [ "$(impl "$t" flavor)" = "$flavor" ] &&
	[ "$(impl "$t" base)" = "$fbbase" ] && grep -q "^-t $t: ours, $label flavor (module $FB_MODNAME, loaded)" "$S/st.txt"
tap_check $? "-t $t: ours, $flavor, $version, base $(impl "$t" base) (want $fbbase: dkms.conf's for $kver), loaded"
[ "$(impl "$t" protocol)" = "7.$minor" ]
tap_check $? "-t $t: protocol $(impl "$t" protocol), the 7.$minor of our uapi header"
[ "$(impl "$t" passthrough)" = true ] && [ "$(impl "$t" parallel_passthrough_fix)" = true ] &&
	impl "$t" parallel_passthrough_fix_evidence | grep -q "in \[$FB_MODNAME\]"
tap_check $? "-t $t: passthrough and the fix ($(impl "$t" parallel_passthrough_fix_evidence))"
if [ "$flavor" = renamed ]; then
	[ "$(impl fuse parallel_passthrough_fix)" = false ] && case $(impl fuse kind) in stock-*) true ;; *) false ;; esac
	tap_check $? "-t fuse next to it: still the stock FUSE, without the fix"
fi
[ "$rc" = 1 ] && j '.problems[]' | grep -q "no module of ours is installed for the running kernel"
tap_check $? "loaded by hand but not installed: degraded (exit $rc)"

# "Install" it as DKMS does. depmod lists updates/dkms/M.ko in place of the
# kernel's own M.ko (drop-in): that line goes (the copy is bind-mounted, so
# it is rewritten in place, not renamed over).
mkdir -p "$updates" "$dkms/$version/$kver/$arch/module"
for m in $mods; do
	[ -f "$FB_MODDIR/$m.ko" ] || continue
	grep -v "^[^:]*/$m\.ko[^:/]*:" "$moddep" > "$S/modules.dep"
	cat "$S/modules.dep" > "$moddep"
	# as DKMS installs it: without debug info, compressed
	strip --strip-debug -o "$S/$m.ko" "$FB_MODDIR/$m.ko" && xz -c "$S/$m.ko" > "$updates/$m.ko.xz"
	cp "$updates/$m.ko.xz" "$dkms/$version/$kver/$arch/module/"
	deps=""
	[ "$m" = fuse ] || [ "$t" != fuse ] || deps=" updates/dkms/fuse.ko.xz"
	echo "updates/dkms/$m.ko.xz:$deps" >> "$moddep"
done
ln -sfn "$version/$kver/$arch" "$dkms/kernel-$kver-$arch"
status
show
[ "$(impl "$t" loaded_is_installed)" = true ] &&
	[ "$(j ".kernels[] | select(.kernel == \"$kver\") | .ours_version")" = "$version" ] &&
	[ "$(j ".kernels[] | select(.kernel == \"$kver\") | .dkms_installed")" = "$version" ]
tap_check $? "installed: the kernel list shows it and DKMS's state; the loaded module is the installed one"
if [ "$newest" = "$kver" ]; then
	[ "$rc" = 0 ] && [ "$(j .health)" = healthy ] && grep -q '^status: healthy' "$S/st.txt"
	tap_check $? "installed, loaded, newest kernel covered: healthy (exit $rc: $(j '.problems | join("; ")'))"
else
	# a newer kernel without our build (the host's 6.12 beside 6.1): the
	# tool's own answer is degraded, and it names that kernel
	[ "$rc" = 1 ] && [ "$(j .health)" = degraded ] && j '.problems | join("\n")' | grep -qF "$newest"
	tap_check $? "installed, loaded, a newer kernel $newest without ours: degraded, naming it (exit $rc: $(j '.problems | join("; ")'))"
fi

# A newer kernel without a build of ours: the reboot trap.
mkdir -p "$fake/kernel"
status
[ "$rc" = 1 ] && [ "$(j .newest_installed_kernel)" = "${fake##*/}" ] &&
	j .warning | grep -q "newest installed kernel ${fake##*/} has no module of ours" &&
	grep -q "^WARNING: the newest installed kernel ${fake##*/} has no module of ours" "$S/st.txt"
tap_check $? "a newer kernel without our module: loud warning, degraded (exit $rc)"
grep -A2 '^WARNING' "$S/st.txt" | sed 's/^/# /'
rm -rf "$fake"

if [ "$flavor" = renamed ]; then
	# Not loaded: degraded, with the command that fixes it.
	fb_unload_ours
	status
	[ "$rc" = 1 ] && [ "$(impl "$t" state)" = "not loaded" ] && [ "$(impl "$t" kind)" = "$kind" ] &&
		j '.problems[]' | grep -q "modprobe $t"
	tap_check $? "installed but not loaded: degraded, says modprobe $t"
	# What loads it at boot without the takeover: the
	# boot unit's 'takeover boot' with TAKEOVER=no, through modprobe.
	# modprobe reads modules.dep.bin: one made by depmod for a tree that
	# holds the installed module (as DKMS's depmod would), shadowed over
	# this kernel's for the test.
	mkdir -p /etc/fuse-backport
	fb_depmod_tree "$S/modroot" "$kver" "$updates/$t.ko.xz" 2> "$S/depmod.err" &&
		shadow "/lib/modules/$kver/modules.dep.bin" &&
		cat "$S/modroot/lib/modules/$kver/modules.dep.bin" > "/lib/modules/$kver/modules.dep.bin"
	echo TAKEOVER=no > /etc/fuse-backport/fuse-backport.conf
	"$tool" takeover boot > "$S/boot.out" 2>&1
	b=$?
	[ $b = 0 ] && [ -c "/dev/$t" ] && [ "$(cat "/sys/module/$t/parameters/takeover")" = 0 ] &&
		grep -q "^takeover: $t loaded beside the built-in FUSE (/dev/$t)\$" "$S/boot.out"
	tap_check $? "the boot unit, TAKEOVER=no: loads $t beside the built-in FUSE, /dev/$t exists (exit $b: $(tr '\n' ' ' < "$S/boot.out"))"
	rm -f /etc/fuse-backport/fuse-backport.conf
	[ -d "/sys/module/$t" ] || insmod "$updates/$t.ko.xz"
	status
	[ "$(impl "$t" state)" = loaded ] && [ "$(impl "$t" loaded_is_installed)" = true ] &&
		{ [ "$newest" != "$kver" ] || [ "$rc" = 0 ]; }
	tap_check $? "the installed module loaded: back to exit $rc"

	# The unpatched base: same version, no fix. Evidence, not version.
	if [ -f "${FB_MODDIR_UNPATCHED:-/nonexistent}/$t.ko" ]; then
		strip --strip-debug -o "$S/$t.ko" "$FB_MODDIR_UNPATCHED/$t.ko" && xz -c "$S/$t.ko" > "$updates/$t.ko.xz"
		status
		[ "$rc" = 1 ] && [ "$(impl "$t" loaded_is_installed)" = false ] &&
			j '.problems[]' | grep -q "is not the installed"
		tap_check $? "a different build installed under the loaded one: degraded, reload asked"
		fb_unload_ours && insmod "$updates/$t.ko.xz"
		status
		[ "$(impl "$t" version)" = "$version" ] && [ "$(impl "$t" parallel_passthrough_fix)" = false ] &&
			[ "$(impl "$t" passthrough)" = true ]
		tap_check $? "the unpatched base loaded: same version, but no fix ($(impl "$t" parallel_passthrough_fix_evidence))"
		fb_unload_ours
	else
		tap_skip "unpatched base" "no $t.ko in FB_MODDIR_UNPATCHED"
	fi
	fb_unload_ours
	insmod "$FB_MODDIR/$t.ko"
else
	# Drop-in, nothing loaded: modprobe fuse would load ours, which is
	# all a drop-in needs (the first mount loads it).
	fb_unload_ours
	status
	[ "$(impl fuse kind)" = ours-dropin ] && [ "$(impl fuse state)" = "not loaded" ] &&
		[ "$(impl fuse version)" = "$version" ] && { [ "$newest" != "$kver" ] || [ "$rc" = 0 ]; }
	tap_check $? "drop-in installed, nothing loaded: modprobe fuse resolves to ours ($(impl fuse kind), $(impl fuse state), exit $rc)"
	fb_use ours > /dev/null || tap_diag "cannot load ours again"
fi

# A FUSE mount of ours shows up by type.
if fb_mount --mode cached 2> "$S/mount.err"; then
	status
	[ "$(j ".mounts[] | select(.mountpoint == \"$FB_MNT\") | .family")" = "$t" ]
	tap_check $? "a -t $t mount is listed under $t ($(j ".mounts[] | select(.mountpoint == \"$FB_MNT\") | .fstype"))"
	fb_umount
else
	tap_check 1 "mount the test daemon on $FB_DEV ($(head -n 1 "$S/mount.err"))"
fi
[ ! -s "$S/st.err" ] || sed 's/^/# stderr: /' "$S/st.err"
tap_done
