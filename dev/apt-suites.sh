#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Make the extra Debian suites our builds and tests need reachable through apt,
# on the same mirror this machine already uses, pinned low so that nothing
# already installed is upgraded from them.
#
# usage: dev/apt-suites.sh [suite...]   (default: the suites listed below)
#        dev/apt-suites.sh --print-mirror
set -eu

suites=${*:-"bookworm-backports trixie trixie-backports"}
list=/etc/apt/sources.list.d/fuse-backport-extra.sources
prefs=/etc/apt/preferences.d/fuse-backport-extra

die() { echo "apt-suites: $*" >&2; exit 1; }

# The first Debian archive URI configured on this machine (deb822 or one-line
# format), whatever host it names. Security archives are skipped.
mirror_uri() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case $f in "$list") continue ;; esac
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f"
	done
}

uri=$(mirror_uri | grep -v -e security -e '\.disabled' | grep '/debian/*$' | head -n 1)
[ -n "$uri" ] || die "cannot find a Debian mirror in this machine's apt configuration"
# For debootstrap (dev/headers.sh): the mirror, printed, nothing changed.
if [ "${1:-}" = --print-mirror ]; then
	echo "$uri"
	exit 0
fi

want="Types: deb
URIs: $uri
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"

changed=0
if [ ! -f "$list" ] || [ "$(cat "$list")" != "$want" ]; then
	printf '%s\n' "$want" > "$list.tmp" && mv "$list.tmp" "$list"
	changed=1
fi

pin=""
for s in $suites; do
	pin="${pin}Package: *
Pin: release n=$s
Pin-Priority: 100

"
done
if [ ! -f "$prefs" ] || [ "$(cat "$prefs")" != "$pin" ]; then
	printf '%s' "$pin" > "$prefs.tmp" && mv "$prefs.tmp" "$prefs"
	changed=1
fi

stamp=/var/lib/apt/lists/.fuse-backport-updated
if [ $changed = 1 ] || [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +720)" ]; then
	apt-get update -qq || die "apt-get update failed"
	touch "$stamp"
fi
