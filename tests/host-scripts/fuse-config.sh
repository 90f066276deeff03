# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: one flavor rule. How a kernel has FUSE, as
# `fuse-backport status` says it (tools/fact_kernel.c) and as
# scripts/fuse-config.sh says it (what dkms.conf, so the build, decides
# by), on fake kernels whose headers' .config, /boot config, config beside
# the modules, modules.builtin and modules.order disagree or are missing:
# the same value from the same file, the one the rule names; where the
# headers are there, dkms.conf's flavor is the same. In a mount namespace
# (fake trees bound over /lib/modules and /boot). Sourced by it, in its
# shell and its TAP count ($top, $work, ok, notok).
# shellcheck shell=sh disable=SC2154

fc=$work/fuse-config
tool=${FB_TOOL:-$top/tools/fuse-backport}
[ -x "$tool" ] || notok "one flavor rule: $tool is not built (make -C tools)"
mkdir -p "$fc/lib" "$fc/boot"
# fc_kernel KVER WANT FILE=LINE...: a fake installed kernel (kernel/ for an
# image) with those files, and the value the rule gives (want)
fc_kernel() {
	k=$1
	echo "$k $2" >> "$fc/want"
	shift 2
	mkdir -p "$fc/lib/$k/kernel"
	for fl in "$@"; do
		f=${fl%%=*}
		case $f in
		boot) f=$fc/boot/config-$k ;;
		*) f=$fc/lib/$k/$f ;;
		esac
		mkdir -p "${f%/*}"
		printf '%s\n' "${fl#*=}" >> "$f"
	done
}
: > "$fc/want"
b=kernel/fs/fuse/fuse.ko
# the headers' .config first, whatever the module lists say
fc_kernel 6.12.95-fbcfg-m-builtin-y m "build/.config=# Linux" "build/.config=CONFIG_FUSE_FS=m" "modules.builtin=$b"
fc_kernel 6.12.95-fbcfg-y-order-m y "build/.config=# Linux" "build/.config=CONFIG_FUSE_FS=y" "modules.order=$b"
fc_kernel 6.12.95-fbcfg-first-line y "build/.config=CONFIG_FUSE_FS=y" "modules.order=$b"
fc_kernel 6.12.95-fbcfg-unset n "build/.config=# CONFIG_FUSE_FS is not set" "modules.builtin=$b"
fc_kernel 6.12.95-fbcfg-no-line n "build/.config=CONFIG_CUSE=m" "modules.builtin=$b"
fc_kernel 6.12.95-fbcfg-over-boot y "build/.config=CONFIG_FUSE_FS=y" "boot=CONFIG_FUSE_FS=m"
# no headers: the image's config, then the one beside the modules
fc_kernel 6.12.95-fbboot-m-builtin-y m "boot=CONFIG_FUSE_FS=m" "modules.builtin=$b"
fc_kernel 6.12.95-fbboot-over-modcfg y "boot=CONFIG_FUSE_FS=y" "config=CONFIG_FUSE_FS=m"
fc_kernel 7.3.4-fbmodcfg-y-order-m y "config=CONFIG_FUSE_FS=y" "modules.order=$b"
# no config file at all: the module lists
fc_kernel 6.12.95-fbbuiltin-only y "modules.builtin=$b" "modules.order=kernel/fs/ext4/ext4.ko"
fc_kernel 6.12.95-fborder-only m "modules.order=kernel/fs/ext4/ext4.ko" "modules.order=$b"
fc_kernel 6.12.95-fbnothing "?" "modules.order=kernel/fs/ext4/ext4.ko"

ns=-m
[ "$(id -u)" = 0 ] || ns=-rm
# shellcheck disable=SC2016 # expanded by the inner shell
if unshare $ns sh -c 'mount --make-rprivate / && mount --bind "$1/lib" /lib/modules &&
	mount --bind "$1/boot" /boot || exit 99
	"$2" status --no-probe --json > "$1/status.json" 2> "$1/status.err"
	while read -r k want; do
		printf "%s %s\n" "$k" "$(sh "$3/scripts/fuse-config.sh" "$k")" >> "$1/script"
		[ -f "/lib/modules/$k/build/.config" ] || continue
		kernelver=$k kernel_source_dir=/lib/modules/$k/build action=status \
			FB_IN_AUTOINSTALL_CHECK=1 FB_PREFIX=fusebp \
			bash -c ". \"\$1\" 2> /dev/null; echo \"\$FB_FLAVOR|\$FB_SKIP\"" _ "$3/dkms.conf" |
			sed "s,^,$k ," >> "$1/dkms"
	done < "$1/want"' _ "$fc" "$tool" "$top"; then
	while read -r k want; do
		st=$(jq -r --arg k "$k" '.kernels[] | select(.kernel == $k) |
			"\(.config_fuse_fs // "?") \(.config_evidence)"' "$fc/status.json" 2> /dev/null)
		sc=$(sed -n "s/^$k //p" "$fc/script")
		what="status and fuse-config.sh agree on $k (want $want): status '$st', script '$sc'"
		if [ -n "$st" ] && [ "$st" = "$sc" ] && [ "${st%% *}" = "$want" ]; then
			ok "$what"
		else
			notok "$what"
		fi
		dk=$(sed -n "s/^$k //p" "$fc/dkms" 2> /dev/null)
		[ -n "$dk" ] || continue
		case $want:$dk in
		m:dropin\|) r=0 ;;
		y:renamed\|) r=0 ;;
		n:\|*"FUSE is disabled"*) r=0 ;;
		*) r=1 ;;
		esac
		if [ $r = 0 ]; then
			ok "dkms.conf decides $k by the same rule (want $want): '$dk'"
		else
			notok "dkms.conf decides $k by the same rule (want $want): '$dk'"
		fi
	done < "$fc/want"
else
	notok "one flavor rule: cannot bind fake trees over /lib/modules and /boot (unshare $ns)"
fi
