# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, a new kernel whose build fails where the gate cannot see
# it. Sourced by it, in its shell and its TAP count, after the parts before
# it (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- a build failure the gate does not foresee: apt exits 0 -------------------
# Fake headers of a served 6.1 kernel whose Module.symvers lacks
# file_write_and_wait_range, as if a point release had stopped exporting it:
# every probe passes, the build fails at modpost. Their postinst runs the
# header hooks with run-parts --exit-on-error, as Debian's do: our hook
# (00-fuse-backport) runs before dkms's. Expected: apt exits 0, the headers
# are configured, one line names the symbol, the kernel is left to the stock
# module for this version (dkms autoinstall skips it: a second run builds
# nothing), and the other kernels keep their modules untouched. The record
# is not for good: our hook run again tries again (and fails again), and
# with the symbol back in Module.symvers it builds and installs.
sums() {
	for k in $kernels; do
		our_modules "$k" | xargs -r md5sum 2> /dev/null
	done
}
others=$(sums)
if pt_fake_headers_deb $failk "$pt_tmp/failfake" "" "" unexport:file_write_and_wait_range 2> "$pt_tmp/failfake.log"; then
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q \
		"$pt_tmp/failfake/linux-headers-$failk.deb" > "$pt_tmp/fail.log" 2>&1
	rc=$?
	tap_check $rc "apt install headers of $failk (its build fails at modpost, ours installed) exits 0 (dkms $(dpkg-query -W -f '${Version}' dkms))"
	[ $rc = 0 ] || pt_log "$pt_tmp/fail.log" 15
	line=$(grep "^$pkg: not installed for $failk: " "$pt_tmp/fail.log")
	[ "$(echo "$line" | grep -c .)" = 1 ] &&
		echo "$line" | grep -q 'the build failed: modpost: file_write_and_wait_range (not exported by this kernel)' &&
		[ "$(pt_deb_state "linux-headers-$failk")" = installed ] && [ -z "$(our_modules $failk)" ]
	tap_check $? "$failk: one line names the symbol, headers configured, nothing installed"
	echo "$line" | sed 's/^/# /'
	f=/var/lib/fuse-backport/build-failed/$failk
	[ "$(cut -f1 "$f" 2> /dev/null)" = "$ver" ] && cut -f2 "$f" | grep -q 'file_write_and_wait_range'
	tap_check $? "$failk: left to the stock module for $ver ($f: $(tr '\t' ' ' < "$f" 2> /dev/null | cut -c1-100))"
	# dkms's own hook again, as the next kernel upgrade or a reboot runs it
	dkms autoinstall -k $failk > "$pt_tmp/fail-again.log" 2>&1
	rc=$?
	grep -q "not building for [^ ]*: its build of $ver failed" "$pt_tmp/fail-again.log" &&
		[ $rc = 0 ] && [ -z "$(our_modules $failk)" ] &&
		! grep -q 'Building module' "$pt_tmp/fail-again.log"
	tap_check $? "dkms autoinstall -k $failk again: exit $rc, skipped, nothing built"
	[ $rc = 0 ] || pt_log "$pt_tmp/fail-again.log" 10
	# Our hook again, as a configure of the kernel's headers runs it: the
	# record stops dkms's hook only, ours tries again and fails again.
	hook=/etc/kernel/header_postinst.d/00-fuse-backport
	printf '%s\tan earlier try\n' "$ver" > "$f"
	sh "$hook" $failk > "$pt_tmp/fail-retry.log" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q "^$pkg: not installed for $failk: the build failed: modpost: file_write_and_wait_range" "$pt_tmp/fail-retry.log" &&
		cut -f2 "$f" | grep -q 'file_write_and_wait_range' && [ -z "$(our_modules $failk)" ]
	tap_check $? "our kernel hook again for $failk: a new try, which fails again with one line and a new record (exit $rc)"
	[ $rc = 0 ] || pt_log "$pt_tmp/fail-retry.log" 10
	# The cause gone (the symbol exported again, as after the disk was
	# freed or the compiler was not killed): the next try builds.
	real=/usr/src/linux-headers-$pt_fake_real/Module.symvers
	grep -P '\tfile_write_and_wait_range\t' "$real" >> "/usr/src/linux-headers-$failk/Module.symvers" 2> /dev/null
	sh "$hook" $failk > "$pt_tmp/fail-fixed.log" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q "^$pkg: built and installed for $failk" "$pt_tmp/fail-fixed.log" &&
		[ ! -e "$f" ] && [ -n "$(our_modules $failk)" ]
	tap_check $? "$failk, the cause fixed: our kernel hook builds and installs, the record is gone (exit $rc, $(our_modules $failk | grep -c .) modules)"
	[ $rc = 0 ] || pt_log "$pt_tmp/fail-fixed.log" 10
	dkms remove -m $name -v $ver -k $failk > /dev/null 2>&1
	[ -n "$others" ] && [ "$(sums)" = "$others" ]
	tap_check $? "the other kernels' modules are untouched ($(echo "$others" | grep -c .) files)"
	dpkg --purge "linux-headers-$failk" > /dev/null 2>&1
	rm -rf "$f" "/lib/modules/$failk"
else
	tap_check 1 "fake headers of $failk built ($(tail -n 1 "$pt_tmp/failfake.log"))"
fi
