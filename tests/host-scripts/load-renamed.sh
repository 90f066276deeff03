# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: scripts/load-renamed.sh, the renamed module's
# load at boot (modprobe's install command for fuse-backport-boot), with
# modinfo, modprobe and uname faked by PATH stubs: where the kernel has no
# module of the prefix's name, one line and exit 0, no modprobe; where it
# has, modprobe of that name, and where that fails one line and exit 0
# (the boot must not fail for it); the name follows
# FB_PREFIX= of the config file; a prefix that is no module name is
# prefix.sh's one line and exit 0. Sourced by it, in its shell and its TAP
# count ($top, $work, ok, notok).
# shellcheck shell=sh disable=SC2154

lr=$work/load-renamed
mkdir -p "$lr/bin" "$lr/libexec"
cp "$top/scripts/load-renamed.sh" "$lr/libexec/load-renamed" 2> /dev/null
cp "$top/scripts/prefix.sh" "$lr/libexec/prefix"
# modinfo -k KVER -F filename NAME: exit 0 where NAME is in FB_LR_HAVE
# shellcheck disable=SC2016 # expanded by the stubs
printf '#!/bin/sh\necho "modinfo $*" >> "$FB_LR_LOG"\neval "n=\\${$#}"\ncase " $FB_LR_HAVE " in *" $n "*) echo "/lib/modules/x/updates/dkms/$n.ko"; exit 0 ;; esac\nexit 1\n' > "$lr/bin/modinfo"
# shellcheck disable=SC2016
printf '#!/bin/sh\necho "modprobe $*" >> "$FB_LR_LOG"\nexit "${FB_LR_RC:-0}"\n' > "$lr/bin/modprobe"
# shellcheck disable=SC2016
printf '#!/bin/sh\n[ "$1" = -r ] && exec echo 6.12.95+deb12-amd64\nexec /bin/uname "$@"\n' > "$lr/bin/uname"
chmod +x "$lr/bin/modinfo" "$lr/bin/modprobe" "$lr/bin/uname"
# lr_run HAVE RC [CONF]: the script with the kernel having the modules HAVE,
# modprobe exiting RC, the config file CONF (default: none); sets lr_rc,
# lr_err (its stderr) and lr_calls (the stubs' calls, "; " between)
lr_run() {
	: > "$lr/log"
	env -u FB_PREFIX FB_LR_HAVE="$1" FB_LR_RC="$2" FB_LR_LOG="$lr/log" \
		FB_CONF_FILE="${3:-$lr/no-such.conf}" PATH="$lr/bin:$PATH" \
		sh "$lr/libexec/load-renamed" > "$lr/out" 2> "$lr/err"
	lr_rc=$?
	lr_err=$(cat "$lr/err")
	lr_calls=$(sed 's/$/; /' "$lr/log" | tr -d '\n')
}
k=6.12.95+deb12-amd64
lr_run "" 0
if [ $lr_rc = 0 ] && [ "$(wc -l < "$lr/err")" = 1 ] && [ ! -s "$lr/out" ] &&
	[ "$lr_err" = "fuse-backport: $k has no fusebp module (FUSE is a module here, or no build of ours for it): nothing to load" ] &&
	[ "$lr_calls" = "modinfo -k $k -F filename fusebp; " ]; then
	ok "load-renamed, the kernel has no fusebp: exit 0, one line, no modprobe ($lr_err)"
else
	notok "load-renamed, the kernel has no fusebp: exit 0, one line, no modprobe (exit $lr_rc, stderr '$lr_err', calls: $lr_calls)"
fi
lr_run fusebp 0
r0=$lr_rc c0=$lr_calls e0=$lr_err
lr_run fusebp 3
if [ "$r0" = 0 ] && [ -z "$e0" ] && [ $lr_rc = 0 ] && [ "$(wc -l < "$lr/err")" = 1 ] &&
	[ "$lr_err" = "fuse-backport: $k: fusebp did not load (modprobe failed); the built-in FUSE serves" ] &&
	[ "$c0" = "modinfo -k $k -F filename fusebp; modprobe fusebp; " ] && [ "$lr_calls" = "$c0" ]; then
	ok "load-renamed, the kernel has fusebp: modprobe fusebp; where it fails, one line and exit 0 ($lr_err)"
else
	notok "load-renamed, the kernel has fusebp: modprobe fusebp; where it fails, one line and exit 0 (exits $r0, $lr_rc; stderr '$lr_err'; calls: $c0 / $lr_calls)"
fi
printf 'TAKEOVER=no\nFB_PREFIX=acmefs\n' > "$lr/acme.conf"
lr_run "fusebp acmefs" 0 "$lr/acme.conf"
if [ $lr_rc = 0 ] && [ "$lr_calls" = "modinfo -k $k -F filename acmefs; modprobe acmefs; " ]; then
	ok "load-renamed, FB_PREFIX=acmefs in the config file: modprobe acmefs"
else
	notok "load-renamed, FB_PREFIX=acmefs in the config file: modprobe acmefs (exit $lr_rc, calls: $lr_calls)"
fi
printf 'FB_PREFIX=Acme-FS\n' > "$lr/bad.conf"
lr_run "fusebp" 0 "$lr/bad.conf"
if [ $lr_rc = 0 ] && [ "$(wc -l < "$lr/err")" = 1 ] && grep -q "FB_PREFIX=Acme-FS in $lr/bad.conf is not a module name" "$lr/err" &&
	[ -z "$lr_calls" ]; then
	ok "load-renamed, FB_PREFIX=Acme-FS in the config file: exit 0, prefix.sh's one line, no modprobe"
else
	notok "load-renamed, FB_PREFIX=Acme-FS in the config file: exit 0, one line, no modprobe (exit $lr_rc, stderr '$lr_err', calls: $lr_calls)"
fi
