# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: one age rule. The Linux version and the age
# of a kernel's own FUSE against its base's, as `fuse-backport status
# --json` says them (tools/fact_age.c: linux_version, fuse_age,
# fuse_age_why) and as scripts/fuse-age.sh says them (what the build says
# and dkms.conf decides WHEN_AHEAD by), on fake installed kernels whose
# versions come from the pins: ahead of FUSE_CURRENT_TO by one, at it, a
# Debian flavour Makefile that includes a -common one, an older series of
# the base, RHEL's .elN release and Ubuntu's sublevel 0 (unknown), one
# without headers (the release name's X.Y.Z, said so) and one ahead of
# base 7.3. The headers' SUBLEVEL differs from the release name's where it
# can, so that reading the name instead fails. In a mount namespace (the
# fake tree bound over /lib/modules). Sourced by it, in its shell and its
# TAP count ($top, $work, ok, notok).
# shellcheck shell=sh disable=SC2154

fa=$work/fuse-age
fa_tool=${FB_TOOL:-$top/tools/fuse-backport}
[ -x "$fa_tool" ] || notok "one age rule: $fa_tool is not built (make -C tools)"
mkdir -p "$fa/lib" "$fa/src"
: > "$fa/want"
# pin_get PIN KEY: as fuse-age.sh reads it
fa_pin() { sed -n "s/^$2=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$top/backports/$1/pin" | head -n 1; }
# the base's upstream series, the sublevel of FUSE_CURRENT_TO, the oldest series it serves
up12=$(fa_pin 6.12 UPSTREAM_VERSION) up73=$(fa_pin 7.3 UPSTREAM_VERSION)
cur12=$(fa_pin 6.12 FUSE_CURRENT_TO) cur73=$(fa_pin 7.3 FUSE_CURRENT_TO)
cur12=${cur12:-$up12} cur73=${cur73:-$up73}
ser12=${up12%.*} ser73=${up73%.*} sub12=${cur12##*.} sub73=${cur73##*.}
min12=$(fa_pin 6.12 KERNEL_MIN)
# fa_makefile FILE X.Y.Z: a top Makefile of that version
fa_makefile() {
	mkdir -p "${1%/*}"
	v=$2
	printf '# SPDX-License-Identifier: GPL-2.0\nVERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\nNAME = Baby Opossum Posse\n' \
		"${v%%.*}" "$(echo "$v" | cut -d. -f2)" "${v##*.}" > "$1"
}
# fa_kernel KVER BASE WANT [X.Y.Z [flavour]]: a fake installed kernel of
# BASE (its pin), with headers of that version (none without it; flavour:
# build/Makefile includes a -common one), and the class wanted
fa_kernel() {
	echo "$1 $2 $3" >> "$fa/want"
	mkdir -p "$fa/lib/$1/kernel"
	: > "$fa/lib/$1/modules.order"
	[ -n "${4:-}" ] || return 0
	if [ "${5:-}" = flavour ]; then
		fa_makefile "$fa/src/$1-common/Makefile" "$4"
		mkdir -p "$fa/lib/$1/build"
		echo "include $fa/src/$1-common/Makefile" > "$fa/lib/$1/build/Makefile"
	else
		fa_makefile "$fa/lib/$1/build/Makefile" "$4"
	fi
}
fa_kernel "$ser12.1-fbage-ahead-amd64" 6.12 ahead "$ser12.$((sub12 + 1))"
fa_kernel "$ser12.2-fbage-current-amd64" 6.12 current "$cur12"
fa_kernel "$ser12.3+deb-fbage-flavour-amd64" 6.12 ahead "$ser12.$((sub12 + 1))" flavour
fa_kernel "$min12.57-fbage-older-amd64" 6.12 older-series "$min12.158"
fa_kernel "$ser12.0-55.24.1.el10_0.x86_64" 6.12 unknown "$ser12.0"
fa_kernel 6.8.0-78-generic 6.12 unknown 6.8.0
fa_kernel "$ser12.$((sub12 + 2))-fbage-noheaders-amd64" 6.12 ahead
fa_kernel "$ser73.1+deb13-fbage-ahead-amd64" 7.3 ahead "$ser73.$((sub73 + 1))"

ns=-m
[ "$(id -u)" = 0 ] || ns=-rm
# shellcheck disable=SC2016 # expanded by the inner shell
if unshare $ns sh -c 'mount --make-rprivate / && mount --bind "$1/lib" /lib/modules || exit 99
	"$2" status --no-probe --json > "$1/status.json" 2> "$1/status.err"
	while read -r k base want; do
		if [ -e "/lib/modules/$k/build" ]; then
			v=$(sh "$3/scripts/fuse-age.sh" --headers "/lib/modules/$k/build")
		else
			v=$(echo "$k" | sed -n "s/^\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p")
		fi
		printf "%s %s|%s\n" "$k" "$v" "$(sh "$3/scripts/fuse-age.sh" "$k" "$v" "$3/backports/$base/pin")" >> "$1/script"
	done < "$1/want"' _ "$fa" "$fa_tool" "$top"; then
	while read -r k base want; do
		st=$(jq -r --arg k "$k" '.kernels[] | select(.kernel == $k) |
			"\(.linux_version)|\(.fuse_age): \(.fuse_age_why)"' "$fa/status.json" 2> /dev/null)
		sc=$(sed -n "s/^$k //p" "$fa/script")
		ev=$(jq -r --arg k "$k" '.kernels[] | select(.kernel == $k) | .linux_version_evidence' "$fa/status.json" 2> /dev/null)
		r=0
		[ -n "$st" ] && [ "$st" = "$sc" ] || r=1
		case ${st#*|} in "$want: "*) ;; *) r=1 ;; esac
		[ -e "$fa/lib/$k/build" ] || case $ev in "from the release name "*) ;; *) r=1 ;; esac
		what="status and fuse-age.sh agree on $k (base $base, want $want): status '$st', script '$sc' (version $ev)"
		if [ $r = 0 ]; then ok "$what"; else notok "$what"; fi
	done < "$fa/want"
else
	notok "one age rule: cannot bind a fake tree over /lib/modules (unshare $ns)"
fi
