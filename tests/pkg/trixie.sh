#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fuse-backport-dkms under Debian 13's own dkms, in a trixie chroot (kept in
# FB_CACHE/trixie-root for the next run; made from a copy of the build
# matrix's trixie root FB_CACHE/roots/trixie when there is one, else by
# debootstrap): apt install builds and signs fusebp.ko for the kernel
# headers of FB_TRIXIE_KERNELS (default 6.12.117+deb13-amd64, base 6.12,
# and trixie-backports' 7.2.12+deb13-amd64, base 7.2, and 7.3.4+deb13-amd64,
# base 7.3; FUSE built in: renamed flavor), each module of its base's
# version, from the package's generated trees (one per base); the root keeps
# no other kernel's headers (purged, so that DKMS builds those kernels, not
# every one the seed root has); the module loads in a VM booting trixie's
# kernel image; make kmod-deb, run in the root for each of those kernels
# whose series has a base of its own (7.2.12: base 7.2, 7.3.4: base 7.3),
# builds from that base; a kernel whose headers make a required probe fail
# (a fake headers .deb of trixie's kernel, <linux/miscdevice.h> hidden) and
# a 7.4 kernel, outside every base (trixie-backports' 7.3 headers renamed),
# installed with apt while ours is installed: apt exits 0, one line says
# why, nothing built; apt purge leaves nothing.
# FB_PKG_RED=1 also installs those headers with the refusal (the gate, the
# outside-every-base test) taken out of the installed dkms.conf (the red
# run: there apt must fail).
#
# usage: tests/pkg/trixie.sh [DEB]   (default: make deb into a scratch directory)
# environment: FB_CACHE (default /var/cache/fuse-backport)
tap_suite="pkg-trixie"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"

pkg=fuse-backport-dkms
root=${FB_CACHE:-/var/cache/fuse-backport}/trixie-root
want_kernels=${FB_TRIXIE_KERNELS:-6.12.117+deb13-amd64 7.2.12+deb13-amd64 7.3.4+deb13-amd64}

pt_cleanup() {
	pt_root_umount "$root"
}

pt_init "$pkg on Debian 13" debootstrap chroot dpkg-buildpackage
ver=$(pt_version)

pt_deb "${1:-}"

in_root() { sh "$top/dev/chroot.sh" run "$root" "$@"; }

# The root: trixie minbase with dkms and the default kernel headers, from
# the Debian mirror this machine already uses: a copy of the cached trixie
# root (dev/chroot.sh, the build matrix's), made first if need be, with
# dkms's recommends (gcc), and openssl, which DKMS needs to make its MOK and
# which any standard Debian system has.
if [ ! -x "$root/usr/sbin/dkms" ]; then
	pt_cleanup
	sh dev/chroot.sh copy trixie "$root" dkms linux-headers-amd64 openssl > "$pt_tmp/root.log" 2>&1
	rc=$?
	tap_diag "root made from a copy of $(sh dev/chroot.sh path trixie)"
	tap_check $rc "a trixie root with dkms and linux-headers-amd64"
	if [ $rc != 0 ]; then
		pt_log "$pt_tmp/root.log"
		rm -rf --one-file-system "$root"
		tap_done
		exit
	fi
fi
# shellcheck disable=SC2016 # a dpkg-query format
dkmsver=$(in_root dpkg-query -W -f '${Version}' dkms)
sh dev/chroot.sh mount "$root" sys
# The root's kernels: the wanted ones' headers (installed from the root's
# suites when missing), no other kernel's.
: > "$pt_tmp/headers.log"
for d in "$root"/usr/src/linux-headers-*; do
	k=${d##*/linux-headers-}
	[ -f "$d/.config" ] || continue
	case " $want_kernels " in *" $k "*) continue ;; esac
	in_root apt-get purge -y -q "linux-headers-$k" >> "$pt_tmp/headers.log" 2>&1
done
for k in $want_kernels; do
	[ -e "$root/lib/modules/$k/build/include" ] ||
		in_root apt-get install -y -q "linux-headers-$k" >> "$pt_tmp/headers.log" 2>&1
done
kernels=$(cd "$root/lib/modules" && for d in *; do [ -e "$d/build/include" ] && echo "$d"; done)
[ "$(echo "$kernels" | tr '\n' ' ')" = "$(for k in $want_kernels; do echo "$k"; done | sort | tr '\n' ' ')" ]
rc=$?
tap_check $rc "the root has the headers of $want_kernels and no other kernel's ($(echo "$kernels" | tr '\n' ' '))"
[ $rc = 0 ] || pt_log "$pt_tmp/headers.log"
tap_diag "trixie root: dkms $dkmsver, kernel headers: $(echo "$kernels" | tr '\n' ' ')"
cp "$deb" "$root/tmp/"
in_root apt-get install -y -q "/tmp/$(basename "$deb")" > "$pt_tmp/install.log" 2>&1
rc=$?
tap_check $rc "apt install $(basename "$deb") with dkms $dkmsver exits 0"
grep "^$pkg:" "$pt_tmp/install.log" | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/install.log" 15
# A kernel outside every base gets one line, and nothing; every other one
# the module of its base (6.12 for 6.12.x, 7.2 for 7.2.x, 7.3 for 7.3.x),
# renamed flavor.
built=""
for k in $kernels; do
	m=$(find "$root/lib/modules/$k/updates" -name 'fusebp.ko*' 2> /dev/null | head -n 1)
	if grep -q "^$pkg: not building for $k: kernel $k is outside every base" "$pt_tmp/install.log"; then
		[ -z "$m" ] && ! in_root dkms status -m $name 2> /dev/null | grep -q -F ", $k,"
		tap_check $? "$k: outside every base: one line, nothing built"
		continue
	fi
	built="$built $k"
	v=$(modinfo -F version "$m" 2> /dev/null)
	fl=$(modinfo -F flavor "$m" 2> /dev/null)
	fbb=$(modinfo -F fb_base "$m" 2> /dev/null)
	mv=$(pt_modver "$k" "$root/lib/modules/$k/build")
	in_root dkms status -m $name -v "$ver" -k "$k" 2> /dev/null | grep -q ': installed' && [ -n "$mv" ] &&
		[ "$v" = "$mv" ] && [ "$fl" = renamed ]
	tap_check $? "$k: fusebp ${v:-missing} (want $mv; flavor ${fl:-none}, fb_base ${fbb:-none}) installed by trixie's dkms as $name/$ver (${m#"$root"})"
	if grep -qx 'CONFIG_MODULE_SIG=y' "$root/lib/modules/$k/build/.config"; then
		s=$(modinfo -F signer "$m" 2> /dev/null)
		[ -n "$s" ] && [ "$s" = "$(pt_cn "$root/var/lib/dkms/mok.pub")" ]
		tap_check $? "$k: signed with the root's DKMS MOK (signer: ${s:-none})"
	fi
done
# The module trixie's dkms built, loaded by trixie's kernel: handed over
# through the runner's shared output directory.
vmdir=${FB_OUT:-/tmp/fb-vm}/pkg-trixie
[ -n "$built" ]
tap_check $? "a trixie kernel got the module:${built:- none}"
for k in $built; do
	m=$(find "$root/lib/modules/$k/updates" -name 'fusebp.ko*' 2> /dev/null | head -n 1)
	if [ "${FB_PKG_VM:-1}" = 0 ] || ! command -v vng > /dev/null || [ -z "$m" ]; then
		tap_skip "$k: the module loads in a VM" "FB_PKG_VM=0, no virtme-ng, or no module"
		continue
	fi
	mkdir -p "$vmdir"
	cp "$m" "$vmdir/"
	out=$(sh tests/vm/boot.sh --kver "$k" --timeout 600 --log "$pt_tmp/vm.log" -- \
		sh -c "insmod $vmdir/${m##*/} && cat /sys/module/fusebp/version && grep -c fusebp /proc/filesystems" 2>&1)
	rm -rf "$vmdir"
	mv=$(pt_modver "$k" "$root/lib/modules/$k/build")
	echo "$out" | grep -qx "$mv"
	tap_check $? "$k: in a VM booting trixie's kernel, the module loads, /sys/module/fusebp/version $mv"
	echo "$out" | grep -qx "$mv" || echo "$out" | tail -n 5 | sed 's/^/#   /'
done
# --- the prebuilt-module .deb of each 7.x kernel, made in the root -------------
# make kmod-deb for each wanted kernel whose series has a base of its own
# (backports/<series>/pin: 7.2.12 base 7.2, 7.3.4 base 7.3; the 6.x ones
# are base 6.12's), run in the root on a copy of the checkout's tracked
# files and generated trees (make import-all), signed with the root's DKMS
# MOK: it must pick the base of the kernel's series.
trees_missing=$(pt_trees_lacking . .fb-import)
for kk in $want_kernels; do
	kb_want=$(echo "$kk" | cut -d. -f1,2)
	[ "$kb_want" != "$pkg_default_base" ] || continue
	[ -f "backports/$kb_want/pin" ] || continue
	kmv=$(pt_modver "$kk" "$root/lib/modules/$kk/build")
	if [ -n "$trees_missing" ]; then
		tap_skip "make kmod-deb KVER=$kk in the root" "no generated trees$trees_missing here (make import-all)"
		continue
	elif [ ! -e "$root/lib/modules/$kk/build/include" ] || [ ! -f "$root/var/lib/dkms/mok.key" ]; then
		tap_skip "make kmod-deb KVER=$kk in the root" "no headers of $kk or no DKMS MOK in the root"
		continue
	fi
	rm -rf "$root/tmp/fb-src" "$root/tmp/fb-kmod" "$pt_tmp/kx"
	mkdir -p "$root/tmp/fb-src"
	git ls-files | while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done > "$pt_tmp/list"
	# shellcheck disable=SC2046 # one word a tree
	tar -cf - -T "$pt_tmp/list" $(pt_trees) | tar -C "$root/tmp/fb-src" -xf -
	in_root env SOURCE_DATE_EPOCH="$(dpkg-parsechangelog -S Timestamp)" OUT=/tmp/fb-kmod \
		sh /tmp/fb-src/dev/kmod-deb.sh "$kk" > "$pt_tmp/kmod.log" 2>&1
	rc=$?
	kdeb=$root/tmp/fb-kmod/fuse-backport-modules-${kk}_$ver-1_amd64.deb
	mkdir -p "$pt_tmp/kx"
	[ -f "$kdeb" ] && dpkg-deb -x "$kdeb" "$pt_tmp/kx"
	ko=$(find "$pt_tmp/kx" -name 'fusebp.ko*' | head -n 1)
	kv=$(modinfo -F version "$ko" 2> /dev/null)
	kb=$(modinfo -F fb_base "$ko" 2> /dev/null)
	[ $rc = 0 ] && [ -n "$kmv" ] && [ "$kv" = "$kmv" ] && [ "$kb" = "$kb_want" ] &&
		dpkg-deb -f "$kdeb" Description | grep -q "base $kb_want, module version $kmv"
	tap_check $? "make kmod-deb KVER=$kk in the root: $(basename "$kdeb"), fusebp ${kv:-missing} (want $kmv), fb_base ${kb:-none} (want $kb_want)"
	[ $rc = 0 ] || pt_log "$pt_tmp/kmod.log"
	rm -rf "$root/tmp/fb-src" "$root/tmp/fb-kmod" "$pt_tmp/kx"
done

# --- kernels the build refuses: their headers install, apt exits 0 -------------
# Two fake headers packages, each run through trixie's DKMS headers hook by
# its postinst, as Debian's are (pt_fake_headers_deb): trixie's 6.12 under a
# name whose <linux/miscdevice.h> is hidden, so the required probe
# HAVE_MISC_DYNAMIC_MINOR fails (scripts/gate.sh), and trixie-backports'
# 7.3 as a 7.4 kernel, outside every base (dkms.conf). With FB_PKG_RED=1,
# each is installed again with its refusal taken out of the installed
# dkms.conf (the red run: there apt must fail).
fake_install() { # KVER LOG: apt install the fake headers in the root; $rc
	in_root apt-get install -y -q "/tmp/linux-headers-$1.deb" > "$2" 2>&1
	rc=$?
}
fake_purge() { # KVER
	in_root dpkg --purge --force-all "linux-headers-$1" > /dev/null 2>&1
	rm -rf "$root/var/lib/dkms/$name"/*/"$1"
}
# KVER GLOB WHY LINE RED [whole]: fake headers KVER from the root's GLOB
# headers (whole: <linux/miscdevice.h> kept); WHY says what makes them
# refused, LINE is the reason's pattern (grep -E), RED the sed expression
# that takes that refusal out of dkms.conf.
fake_kernel() {
	fk=$1
	if ! pt_fake_headers_deb "$fk" "$pt_tmp/fake" "$root" "$2" "${6:-}" 2> "$pt_tmp/fake.log"; then
		tap_check 1 "fake headers of $fk built from the root's $2 headers ($(tail -n 1 "$pt_tmp/fake.log"))"
		return
	fi
	cp "$pt_tmp/fake/linux-headers-$fk.deb" "$root/tmp/"
	fake_install "$fk" "$pt_tmp/gate.log"
	tap_check $rc "apt install headers of $fk (copied from $pt_fake_real, $3, ours installed) exits 0 (dkms $dkmsver)"
	[ $rc = 0 ] || pt_log "$pt_tmp/gate.log" 15
	lines=$(grep "fuse-backport: not building for" "$pt_tmp/gate.log")
	# shellcheck disable=SC2016 # a dpkg-query format
	[ "$(echo "$lines" | grep -c .)" = 1 ] && echo "$lines" | grep -E -q "$4" &&
		[ "$(in_root dpkg-query -W -f '${db:Status-Abbrev}' "linux-headers-$fk" 2> /dev/null)" = "ii " ] &&
		[ -z "$(find "$root/lib/modules/$fk" -name 'fuse*.ko*' 2> /dev/null)" ] &&
		! in_root dkms status -m $name 2> /dev/null | grep -q -F ", $fk,"
	tap_check $? "$fk: skipped with one line, headers configured, nothing built"
	echo "$lines" | sed 's/^/# /'
	grep -i -e 'excluded' -e 'skipp' "$pt_tmp/gate.log" | grep -v '^fuse-backport' | head -n 3 | sed 's/^/# dkms: /'
	fake_purge "$fk"
	if [ "${FB_PKG_RED:-0}" = 1 ]; then
		c=$root/usr/src/$name-$ver/dkms.conf
		cp "$c" "$pt_tmp/dkms.conf.orig"
		sed -i "$5" "$c"
		fake_install "$fk" "$pt_tmp/red.log"
		r=$rc
		cp "$pt_tmp/dkms.conf.orig" "$c"
		# It must fail where the refusal was: in DKMS's build, not in apt.
		[ $r != 0 ] && grep -q "Bad return status for module build on kernel: $fk" "$pt_tmp/red.log"
		tap_check $? "red run, $fk with that refusal taken out of dkms.conf: apt install of its headers fails in DKMS's build (exit $r)"
		grep -E -e '^E:' -e 'exited with return code' -e 'Error!|Bad return status|failed' "$pt_tmp/red.log" |
			head -n 6 | sed 's/^/# /'
		fake_purge "$fk"
		in_root dpkg --configure -a > /dev/null 2>&1
	fi
	rm -f "$root/tmp/linux-headers-$fk.deb"
}
# shellcheck disable=SC2016 # dkms.conf's text
fake_kernel 6.12.0-999-fbgate-amd64 '6.12.*-amd64' "required probe fails" \
	"not supported yet by base .*HAVE_MISC_DYNAMIC_MINOR" \
	's|^	FB_SKIP=$(bash "$fb_conf_dir/scripts/gate.sh".*|	FB_SKIP=""|'
# shellcheck disable=SC2016 # dkms.conf's text
fake_kernel 7.4.0-999-fbnext-amd64 '7.3.*-amd64' "a 7.4 kernel: outside every base" \
	"kernel 7\.4\.0-999-fbnext-amd64 is outside every base \(served: .*7\.3 to 7\.3 \(base 7\.3\)\)" \
	's|^elif \[ -z "$fb_base" \]; then$|elif false; then|' whole

in_root apt-get purge -y -q $pkg > "$pt_tmp/remove.log" 2>&1
rc=$?
[ $rc = 0 ] && [ -z "$(find "$root/lib/modules" -name 'fusebp.ko*' 2> /dev/null)" ] &&
	! in_root dkms status -m $name 2> /dev/null | grep -q . && ! ls -d "$root/usr/src/$name"-* > /dev/null 2>&1
tap_check $? "apt purge: no module, no DKMS entry, no /usr/src tree"
[ $rc = 0 ] || pt_log "$pt_tmp/remove.log"
rm -f "$root/tmp/$(basename "$deb")"

tap_done
