#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fuse-backport-dkms under Debian 13's own dkms, in a trixie chroot made by
# debootstrap (kept in FB_CACHE for the next run): apt install builds and
# signs fusebp.ko for trixie's kernel headers (FUSE built in: renamed
# flavor), the module loads in a VM booting trixie's kernel image, apt
# purge leaves nothing.
#
# usage: tests/pkg/trixie.sh [DEB]   (default: make deb into a scratch directory)
# environment: FB_CACHE (default /var/cache/fuse-backport)
tap_suite="pkg-trixie"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"

pkg=fuse-backport-dkms
root=${FB_CACHE:-/var/cache/fuse-backport}/trixie-root

pt_cleanup() {
	for m in dev/pts dev proc sys; do
		mountpoint -q "$root/$m" 2> /dev/null && umount -l "$root/$m"
	done
}

pt_init "$pkg on Debian 13" debootstrap chroot dpkg-buildpackage
ver=$(pt_version)

deb=${1:-}
if [ -z "$deb" ]; then
	OUT=$pt_tmp/out LINTIAN=0 sh scripts/pkg-deb.sh > "$pt_tmp/build.log" 2>&1 || pt_log "$pt_tmp/build.log" 15
	for f in "$pt_tmp/out/${pkg}_$ver"-*_all.deb; do
		[ -f "$f" ] && deb=$f
	done
fi
if [ ! -f "$deb" ]; then
	tap_check 1 "a $pkg .deb to test"
	tap_done
	exit
fi

in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}

# The root: trixie minbase with dkms and the default kernel headers, from
# the Debian mirror this machine already uses.
if [ ! -x "$root/usr/sbin/dkms" ]; then
	sh scripts/apt-suites.sh > /dev/null 2>&1
	mirror=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/fuse-backport-extra.sources 2> /dev/null | head -n 1)
	rm -rf "$root"
	mkdir -p "$root"
	debootstrap --variant=minbase trixie "$root" "$mirror" > "$pt_tmp/debootstrap.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" && mount --bind /sys "$root/sys"
		# With dkms's recommends (gcc), and openssl, which DKMS needs to make
		# its MOK and which any standard Debian system has.
		in_root apt-get install -y -q dkms linux-headers-amd64 openssl \
			> "$pt_tmp/root.log" 2>&1
		rc=$?
		pt_cleanup
	fi
	tap_check $rc "a trixie root with dkms and linux-headers-amd64 (debootstrap)"
	if [ $rc != 0 ]; then
		pt_log "$pt_tmp/debootstrap.log"
		pt_log "$pt_tmp/root.log"
		rm -rf "$root"
		tap_done
		exit
	fi
fi
# shellcheck disable=SC2016 # a dpkg-query format
dkmsver=$(in_root dpkg-query -W -f '${Version}' dkms)
kernels=$(cd "$root/lib/modules" && for d in *; do [ -e "$d/build/include" ] && echo "$d"; done)
tap_diag "trixie root: dkms $dkmsver, kernel headers: $(echo "$kernels" | tr '\n' ' ')"

mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" && mount --bind /sys "$root/sys"
cp "$deb" "$root/tmp/"
in_root apt-get install -y -q "/tmp/$(basename "$deb")" > "$pt_tmp/install.log" 2>&1
rc=$?
tap_check $rc "apt install $(basename "$deb") with dkms $dkmsver exits 0"
grep "^$pkg:" "$pt_tmp/install.log" | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/install.log" 15
for k in $kernels; do
	m=$(find "$root/lib/modules/$k/updates" -name 'fusebp.ko*' 2> /dev/null | head -n 1)
	v=$(modinfo -F version "$m" 2> /dev/null)
	in_root dkms status -m $name -v "$ver" -k "$k" 2> /dev/null | grep -q ': installed' && [ "$v" = "$ver" ]
	tap_check $? "$k: fusebp ${v:-missing} installed by trixie's dkms (${m#"$root"})"
	if grep -qx 'CONFIG_MODULE_SIG=y' "$root/lib/modules/$k/build/.config"; then
		s=$(modinfo -F signer "$m" 2> /dev/null)
		[ -n "$s" ] && [ "$s" = "$(pt_cn "$root/var/lib/dkms/mok.pub")" ]
		tap_check $? "$k: signed with the root's DKMS MOK (signer: ${s:-none})"
	fi
done
# The module trixie's dkms built, loaded by trixie's kernel: handed over
# through the runner's shared output directory.
vmdir=${FB_OUT:-/tmp/fb-vm}/pkg-trixie
for k in $kernels; do
	m=$(find "$root/lib/modules/$k/updates" -name 'fusebp.ko*' 2> /dev/null | head -n 1)
	if [ "${FB_PKG_VM:-1}" = 0 ] || ! command -v vng > /dev/null || [ -z "$m" ]; then
		tap_skip "$k: the module loads in a VM" "FB_PKG_VM=0, no virtme-ng, or no module"
		continue
	fi
	mkdir -p "$vmdir"
	cp "$m" "$vmdir/"
	out=$(sh tests/vm/run.sh --kver "$k" --timeout 600 --log "$pt_tmp/vm.log" -- \
		sh -c "insmod $vmdir/${m##*/} && cat /sys/module/fusebp/version && grep -c fusebp /proc/filesystems" 2>&1)
	rm -rf "$vmdir"
	echo "$out" | grep -qx "$ver"
	tap_check $? "$k: in a VM booting trixie's kernel, the module loads, /sys/module/fusebp/version $ver"
	echo "$out" | grep -qx "$ver" || echo "$out" | tail -n 5 | sed 's/^/#   /'
done
in_root apt-get purge -y -q $pkg > "$pt_tmp/remove.log" 2>&1
rc=$?
[ $rc = 0 ] && [ -z "$(find "$root/lib/modules" -name 'fusebp.ko*' 2> /dev/null)" ] &&
	! in_root dkms status -m $name 2> /dev/null | grep -q . && ! ls -d "$root/usr/src/$name"-* > /dev/null 2>&1
tap_check $? "apt purge: no module, no DKMS entry, no /usr/src tree"
[ $rc = 0 ] || pt_log "$pt_tmp/remove.log"
rm -f "$root/tmp/$(basename "$deb")"

tap_done
