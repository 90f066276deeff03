# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, a new kernel's headers package arrives: DKMS's own hook
# builds. Sourced by it, in its shell and its TAP count, after the parts
# before it (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- a new kernel's headers arrive: DKMS's own hook builds, nobody runs dkms ---
# One drop-in kernel (not the VM's) loses our build and its headers package,
# then apt installs that headers package again, as an upgrade brings a new
# ABI's headers. The .deb comes from apt's cache or the archive; the host
# gets it back in pt_cleanup whatever happens.
hdr_k="" hdr_deb=""
for k in $kernels; do
	case $k in "$vm_kver" | *-rt-* | *-cloud-*) continue ;; esac
	case $(our_modules "$k") in */fuse.ko*) ;; *) continue ;; esac
	p=linux-headers-$k
	[ "$(pt_deb_state "$p")" = installed ] || continue
	v=$(dpkg-query -W -f '${Version}' "$p")
	f=/var/cache/apt/archives/${p}_$(echo "$v" | sed 's/:/%3a/')_amd64.deb
	if [ ! -f "$f" ]; then
		(cd "$pt_tmp" && apt-get download -q "$p=$v" > /dev/null 2>&1)
		for f in "$pt_tmp/${p}_"*.deb; do break; done
	fi
	if [ -n "$f" ] && [ -f "$f" ] && dpkg-deb -W "$f" > /dev/null 2>&1; then
		hdr_k=$k hdr_deb=$f
		break
	fi
done
if [ -z "$hdr_k" ]; then
	tap_skip "new headers: DKMS builds for them by itself" \
		"no installed drop-in kernel whose headers .deb is in apt's cache or the archive"
else
	dkms remove -m $name -v "$ver" -k "$hdr_k" > /dev/null 2>&1
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 remove -y -q "linux-headers-$hdr_k" > "$pt_tmp/hdr-rm.log" 2>&1
	[ -z "$(our_modules "$hdr_k")" ] && [ ! -e "/lib/modules/$hdr_k/build/include" ]
	tap_check $? "$hdr_k: our build and linux-headers-$hdr_k removed (the starting point)"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$hdr_deb" > "$pt_tmp/hdr-in.log" 2>&1
	rc=$?
	tap_check $rc "apt install $(basename "$hdr_deb") exits 0"
	[ $rc = 0 ] || pt_log "$pt_tmp/hdr-in.log" 15
	check_kernel "$hdr_k" "$pt_tmp/hdr-in.log" "$ver"
	# (apt runs dpkg on a pty: its lines end in CR LF)
	grep -q "^$pkg: built and installed for ${hdr_k}[[:space:]]*\$" "$pt_tmp/hdr-in.log"
	rc=$?
	tap_check $rc "$hdr_k: our kernel hook (00-fuse-backport, before dkms's) built and installed it"
	[ $rc = 0 ] || grep -n -A3 'header_postinst.d/' "$pt_tmp/hdr-in.log" | sed 's/^/#   /' | head -n 20
	grep -q -i "dkms.*auto.*install.*$hdr_k" "$pt_tmp/hdr-in.log"
	tap_check $? "$hdr_k: the headers package's hook ran DKMS's autoinstall ($(grep -i -m 1 "dkms.*auto.*install.*$hdr_k" "$pt_tmp/hdr-in.log"))"
fi
