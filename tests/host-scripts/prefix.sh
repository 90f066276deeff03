# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests/host-scripts/run.sh (the tools section): where FB_PREFIX
# comes from, for dkms.conf and scripts/build.sh.
# shellcheck shell=sh disable=SC2154 # work, top, ok, notok: run.sh's

# FB_PREFIX is the admin's: FB_PREFIX= in /etc/fuse-backport/fuse-backport.conf
# (FB_CONF_FILE points the tests at a copy), read by dkms.conf and
# scripts/build.sh whoever runs dkms (the postinst, the prerm, the rpm
# scriptlets and the kernel hook have no FB_PREFIX in their environment);
# FB_PREFIX in the environment wins (a developer's). A renamed kernel
# (CONFIG_FUSE_FS=y: the 6.12 headers of this host) and a drop-in one (6.1).
pfx_hdr() { # pfx_hdr GLOB Y|M: a headers tree of GLOB whose FUSE is built in or a module
	for d in /usr/src/linux-headers-$1; do
		case $d in *-rt-* | *-cloud-*) continue ;; esac
		grep -qx "CONFIG_FUSE_FS=$2" "$d/.config" 2> /dev/null && echo "$d" && return 0
	done
	return 1
}
pconf=$work/fuse-backport.conf
pr_hdr=$(pfx_hdr '6.12.*-amd64' y) || pr_hdr=""
pd_hdr=$(pfx_hdr '6.1.0-*-amd64' m) || pd_hdr=""
# pfx_build NAME KDIR [VAR=VALUE...]: build.sh FB_CONFIGURE_ONLY=1 without
# FB_PREFIX in the environment (but for VAR=VALUE), the config file $pconf,
# an empty DKMS tree; build/NAME, stdout $work/out, stderr $work/err
pfx_build() {
	pb_n=$1 pb_k=$2
	shift 2
	rm -rf "$work/repo/build/$pb_n"
	env -u FB_PREFIX FB_CONF_FILE="$pconf" dkms_tree="$work/dkmstree0" FB_GATE_CACHE="$work/gatecache" \
		FB_CONFIGURE_ONLY=1 BUILD="$work/repo/build/$pb_n" "$@" \
		sh "$work/repo/scripts/build.sh" "${pb_k#/usr/src/linux-headers-}" "$pb_k" > "$work/out" 2> "$work/err"
}
if [ -z "$pr_hdr" ] || [ -z "$pd_hdr" ]; then
	ok "FB_PREFIX from the config file # skip needs the headers of a 6.12 kernel with FUSE built in and a 6.1 one with FUSE a module (make deps)"
else
	printf 'TAKEOVER=yes\nFB_PREFIX=acmefs\n' > "$pconf"
	pfx_build pfx "$pr_hdr"
	rc=$?
	if [ $rc = 0 ] && grep -q '(renamed: acmefs)' "$work/out" &&
		grep -qx 'FB_PREFIX := acmefs' "$work/repo/build/pfx/fb_config.mk" &&
		grep -qx '#define FB_PREFIX "acmefs"' "$work/repo/build/pfx/fb_config.h"; then
		ok "FB_PREFIX=acmefs in the config file only: the build of a renamed kernel makes acmefs ($(cat "$work/out"))"
	else
		notok "FB_PREFIX=acmefs in the config file only: the build of a renamed kernel makes acmefs (exit $rc: $(cat "$work/out"))"
	fi
	# What dkms remove (the prerm: nothing built yet for this kernel) and
	# dkms install list, read without FB_PREFIX.
	# shellcheck disable=SC2016 # expanded by bash -c
	msg=$(env -u FB_PREFIX FB_CONF_FILE="$pconf" action=remove dkms_tree="$work/dkmstree0" kernelver="${pr_hdr#/usr/src/linux-headers-}" \
		kernel_source_dir="$pr_hdr" bash -c '. "$1" 2>/dev/null; echo "${BUILT_MODULE_NAME[*]}"' _ "$work/repo/dkms.conf")
	if [ "$msg" = acmefs ]; then
		ok "FB_PREFIX=acmefs in the config file only: dkms.conf lists acmefs for dkms remove"
	else
		notok "FB_PREFIX=acmefs in the config file only: dkms.conf lists acmefs for dkms remove: '$msg'"
	fi
	pfx_build pfxenv "$pr_hdr" FB_PREFIX=devfs
	if grep -q '(renamed: devfs)' "$work/out" && grep -qx 'FB_PREFIX := devfs' "$work/repo/build/pfxenv/fb_config.mk"; then
		ok "FB_PREFIX=devfs in the environment wins over the config file's acmefs ($(cat "$work/out"))"
	else
		notok "FB_PREFIX=devfs in the environment wins over the config file's acmefs: $(cat "$work/out")"
	fi
	# A value that is no module name: one line, nothing laid out.
	printf 'TAKEOVER=yes\nFB_PREFIX=Acme-FS\n' > "$pconf"
	pfx_build pfxbad "$pr_hdr"
	rc=$?
	if [ $rc = 3 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -q "FB_PREFIX=Acme-FS in $pconf is not a module name" "$work/err" &&
		[ ! -e "$work/repo/build/pfxbad" ]; then
		ok "FB_PREFIX=Acme-FS in the config file: a renamed kernel is not built, one line, nothing laid out ($(cat "$work/err"))"
	else
		notok "FB_PREFIX=Acme-FS in the config file: a renamed kernel is not built, one line, nothing laid out (exit $rc, $(wc -l < "$work/err") lines: $(head -n 1 "$work/err"))"
	fi
	# shellcheck disable=SC2016 # expanded by bash -c
	msg=$(env -u FB_PREFIX FB_CONF_FILE="$pconf" dkms_tree="$work/dkmstree0" kernelver="${pr_hdr#/usr/src/linux-headers-}" \
		kernel_source_dir="$pr_hdr" bash -c '. "$1"; echo "excluded: $BUILD_EXCLUSIVE_KERNEL"' _ "$work/repo/dkms.conf" 2>&1)
	if [ "$(echo "$msg" | grep -c 'FB_PREFIX=Acme-FS')" = 1 ] &&
		echo "$msg" | grep -q "^fuse-backport: not building for this kernel: FB_PREFIX=Acme-FS in $pconf is not a module name" &&
		echo "$msg" | grep -q '^excluded: .*unsupported'; then
		ok "FB_PREFIX=Acme-FS in the config file: dkms.conf excludes a renamed kernel, one line"
	else
		notok "FB_PREFIX=Acme-FS in the config file: dkms.conf excludes a renamed kernel, one line: $msg"
	fi
	pfx_build pfxdrop "$pd_hdr"
	rc=$?
	if [ $rc = 0 ] && grep -q '(dropin: fuse' "$work/out" && ! grep -q FB_PREFIX "$work/err"; then
		ok "FB_PREFIX=Acme-FS in the config file: a drop-in kernel, which has no prefix, builds as before ($(cat "$work/out"))"
	else
		notok "FB_PREFIX=Acme-FS in the config file: a drop-in kernel builds as before (exit $rc: $(cat "$work/out"))"
	fi
fi
# The file the package ships names the setting, commented out: the default.
# shellcheck disable=SC2016 # expanded by sh -c
msg=$(env -u FB_PREFIX FB_CONF_FILE="$top/tools/fuse-backport.conf" sh -c 'sh "$1"/scripts/prefix.sh' _ "$work/repo" 2>&1)
if [ "$msg" = fusebp ] && grep -qx '#FB_PREFIX=fusebp' "$top/tools/fuse-backport.conf"; then
	ok "the shipped config file has #FB_PREFIX=fusebp, which reads as fusebp"
else
	notok "the shipped config file has #FB_PREFIX=fusebp, which reads as fusebp: '$msg'"
fi
