# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, a kernel the build refuses, and a drop-in kernel's headers
# going before we do. Sourced by it, in its shell and its TAP count, after the
# parts before it (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- a kernel the build refuses: its headers package installs, apt exits 0 ---
# Fake headers of a served 6.1 kernel whose <linux/miscdevice.h> is hidden,
# so the required probe HAVE_MISC_DYNAMIC_MINOR fails (scripts/build.sh
# would exit 3). Their postinst runs DKMS's hook as Debian's headers do.
if pt_fake_headers_deb $gatek "$pt_tmp/fake" 2> "$pt_tmp/fake.log"; then
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$pt_tmp/fake/linux-headers-$gatek.deb" \
		> "$pt_tmp/gate.log" 2>&1
	rc=$?
	tap_check $rc "apt install headers of $gatek (required probe fails, ours installed) exits 0 (dkms $(dpkg-query -W -f '${Version}' dkms))"
	[ $rc = 0 ] || pt_log "$pt_tmp/gate.log" 15
	line=$(grep "fuse-backport: not building for $gatek: " "$pt_tmp/gate.log")
	[ "$(echo "$line" | grep -c .)" = 1 ] && echo "$line" | grep -q 'not supported yet by base .*HAVE_MISC_DYNAMIC_MINOR' &&
		[ "$(pt_deb_state "linux-headers-$gatek")" = installed ] && [ -z "$(our_modules $gatek)" ] &&
		! dkms status -m $name 2> /dev/null | grep -q ", $gatek,"
	tap_check $? "$gatek: skipped with one line, headers configured, nothing built"
	echo "$line" | sed 's/^/# /'
	dpkg --purge "linux-headers-$gatek" > /dev/null 2>&1
else
	tap_check 1 "fake headers of $gatek built ($(tail -n 1 "$pt_tmp/fake.log"))"
fi

# --- the headers of a drop-in kernel go before we do --------------------------
# Golden images purge headers after building: removal must still take
# fuse.ko, cuse.ko and virtiofs.ko away. pt_cleanup reinstalls the headers.
gone_k=""
if [ -n "$hdr_k" ]; then
	before=$(our_modules "$hdr_k")
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 remove -y -q "linux-headers-$hdr_k" > "$pt_tmp/hdr-rm2.log" 2>&1
	[ ! -e "/lib/modules/$hdr_k/build/.config" ] &&
		echo "$before" | grep -q /cuse.ko && echo "$before" | grep -q /virtiofs.ko && echo "$before" | grep -q /fuse.ko
	tap_check $? "$hdr_k: headers removed, with fuse, cuse and virtiofs of ours installed"
	gone_k=$hdr_k
	# An upgrade (the same version again: its prerm runs "upgrade", then
	# dh_dkms's dkms remove --all) cannot build for it any more: the
	# modules of ours it had stay, and one line says so.
	dpkg -i "$deb1" > "$pt_tmp/keep.log" 2>&1
	rc=$?
	kf=$(modinfo -k "$hdr_k" -F filename fuse 2> /dev/null)
	kv=$(modinfo -k "$hdr_k" -F version fuse 2> /dev/null)
	kc=$(modinfo -k "$hdr_k" -F filename cuse 2> /dev/null)
	[ $rc = 0 ] && case $kf in */updates/fuse-backport-kept/fuse.ko*) true ;; *) false ;; esac &&
		case $kc in */updates/fuse-backport-kept/cuse.ko*) true ;; *) false ;; esac &&
		case $kv in *+fb[0-9]*) true ;; *) false ;; esac &&
		[ "$(grep -c "^$pkg: $hdr_k has no headers: its module of ours ($kv) is kept in /lib/modules/$hdr_k/updates/fuse-backport-kept; install linux-headers-$hdr_k" "$pt_tmp/keep.log")" = 1 ]
	tap_check $? "$hdr_k (no headers), $pkg installed again (an upgrade): modprobe still finds ours ($kf, $kv), one line"
	[ $rc = 0 ] || pt_log "$pt_tmp/keep.log" 10
fi
