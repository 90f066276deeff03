# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The kernels we must serve, as the tests' own oracle: a
# refusal of one of them (scripts/build.sh exit 3, dkms.conf's FB_SKIP) is a
# failure, not a skip. Read from the pins alone, not from dkms.conf or
# scripts/flavor.sh, which make the decision under test.
#
# fb_must_serve TOP KVER [CONFIG]: KVER's series lies within one base's
# KERNEL_MIN..KERNEL_MAX (TOP/backports/*/pin) and, when CONFIG (the
# kernel's .config) is given and there, FUSE is enabled in it (=y or =m).
# Prints that base and succeeds; fails without a word otherwise.
fb_must_serve() {
	ms_v=$(echo "$2" | sed -n 's/^\([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p')
	[ -n "$ms_v" ] || return 1
	if [ -n "${3:-}" ] && [ -f "$3" ]; then
		grep -Eq '^CONFIG_FUSE_FS=(y|m)$' "$3" || return 1
	fi
	for ms_p in "$1"/backports/*/pin; do
		[ -f "$ms_p" ] || continue
		ms_b=${ms_p%/pin}
		ms_b=${ms_b##*/}
		if echo "$ms_v" | awk -v lo="$(sed -n 's/^KERNEL_MIN=//p' "$ms_p")" \
			-v hi="$(sed -n 's/^KERNEL_MAX=//p' "$ms_p")" '
			function n(x,  v) { split(x, v, "."); return v[1] * 1000 + v[2] }
			{ k = $1 * 1000 + $2; exit !(n(lo) <= k && k <= n(hi)) }'; then
			echo "$ms_b"
			return 0
		fi
	done
	return 1
}

# fb_expect_flavor CONFIG: the flavor and modules a kernel must get, from its
# .config alone ("FLAVOR MODULE..."): FUSE=m the drop-in (fuse, and cuse and
# virtiofs where they are modules), FUSE=y the renamed module
# (FB_PREFIX, default fusebp); fails when FUSE is off or CONFIG is missing.
fb_expect_flavor() {
	if grep -qx 'CONFIG_FUSE_FS=m' "$1" 2> /dev/null; then
		ef="dropin fuse"
		grep -qx 'CONFIG_CUSE=m' "$1" && ef="$ef cuse"
		grep -qx 'CONFIG_VIRTIO_FS=m' "$1" && ef="$ef virtiofs"
		echo "$ef"
	elif grep -qx 'CONFIG_FUSE_FS=y' "$1" 2> /dev/null; then
		echo "renamed ${FB_PREFIX:-fusebp}"
	else
		return 1
	fi
}
