# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, a new kernel ahead of our fs/fuse under WHEN_AHEAD=stock.
# Sourced by it, in its shell and its TAP count, after the parts before it
# (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- WHEN_AHEAD=stock: an ahead kernel keeps its own FUSE, apt exits 0 --------
# Fake headers of a 6.12 kernel (this host's 6.12 headers, renamed) whose
# Makefile says a release one past the newest the pin checked to carry our
# fs/fuse (FUSE_CURRENT_TO): ahead. With WHEN_AHEAD=stock in the admin's
# file, installing them with apt builds nothing for it (our kernel hook and
# dkms's run dkms.conf, which says why in one line) and exits 0; the other
# kernels' modules are untouched. The admin's file is put back as it was
# (or removed, where there was none).
pconf=/etc/fuse-backport/fuse-backport.conf
# shellcheck source=/dev/null
checked=$(. "$top/backports/6.12/pin" && echo "${FUSE_CURRENT_TO:-$UPSTREAM_VERSION}")
aheadv=${checked%.*}.$((${checked##*.} + 1))
aheadk=$aheadv+fbahead-amd64
if pt_fake_headers_deb $aheadk "$pt_tmp/aheadfake" "" "6.12.*-amd64" "ahead:$aheadv" 2> "$pt_tmp/aheadfake.log"; then
	# the admin's file (no package ships it): kept as it was, or removed
	rm -f "$pt_tmp/conf.keep"
	[ ! -f "$pconf" ] || cp -p "$pconf" "$pt_tmp/conf.keep"
	mkdir -p "${pconf%/*}" && echo 'WHEN_AHEAD=stock' >> "$pconf"
	others=$(sums)
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q \
		"$pt_tmp/aheadfake/linux-headers-$aheadk.deb" > "$pt_tmp/ahead.log" 2>&1
	rc=$?
	tap_check $rc "apt install headers of $aheadk (Linux $aheadv, ahead of $checked) with WHEN_AHEAD=stock exits 0"
	[ $rc = 0 ] || pt_log "$pt_tmp/ahead.log" 15
	want="ahead of our fs/fuse: $aheadk (Linux $aheadv) is newer than $checked"
	# dkms.conf's line: "for this kernel", or "for KVER" where dkms
	# 3.0.10's autoinstall asks (scripts/dkms-autoinstall.sh); dpkg's
	# output may end a line with a carriage return
	n=$(tr -d '\r' < "$pt_tmp/ahead.log" | grep -F "$want" |
		grep -c "^fuse-backport: not building for [^:]*: ahead of .*; WHEN_AHEAD=stock in $pconf keeps its own FUSE\$")
	[ "$n" -ge 1 ] && [ "$(pt_deb_state "linux-headers-$aheadk")" = installed ] && [ -z "$(our_modules $aheadk)" ] &&
		! dkms status -m $name -k $aheadk 2> /dev/null | grep -q "$aheadk" && ! grep -q 'Building module' "$pt_tmp/ahead.log"
	tap_check $? "$aheadk: nothing built, the headers configured, the line says why ($n times: $(grep -m1 'not building for .*: ahead' "$pt_tmp/ahead.log" | cut -c1-160))"
	[ -n "$others" ] && [ "$(sums)" = "$others" ]
	tap_check $? "the other kernels' modules are untouched ($(echo "$others" | grep -c .) files)"
	# status, with the kernel's image faked (modules.order: an installed
	# kernel, not headers only): ahead, its own FUSE serves it by choice
	mkdir -p "/lib/modules/$aheadk/kernel" && : > "/lib/modules/$aheadk/modules.order"
	fuse-backport status --json --no-probe > "$pt_tmp/ahead.json" 2> /dev/null
	age=$(jq -r --arg k $aheadk '.kernels[] | select(.kernel == $k) | .fuse_age' "$pt_tmp/ahead.json" 2> /dev/null)
	wn=$(jq -r --arg k $aheadk '.kernels[] | select(.kernel == $k) | .why_none' "$pt_tmp/ahead.json" 2> /dev/null)
	[ "$age" = ahead ] && case $wn in "the kernel's own FUSE serves it by choice (WHEN_AHEAD=stock in $pconf)"*) true ;; *) false ;; esac
	tap_check $? "fuse-backport status: $aheadk is ${age:-?}: ${wn:-no why_none}"
	rm -rf "/lib/modules/$aheadk/kernel" "/lib/modules/$aheadk/modules.order"
	dpkg --purge "linux-headers-$aheadk" > /dev/null 2>&1
	if [ -f "$pt_tmp/conf.keep" ]; then
		cp -p "$pt_tmp/conf.keep" "$pconf"
	else
		rm -f "$pconf"
	fi
else
	tap_check 1 "fake headers of $aheadk built ($(tail -n 1 "$pt_tmp/aheadfake.log"))"
fi
