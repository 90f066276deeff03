# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# A .deb kept in the cache is used again only when it is the archive's:
# its SHA256 is the one apt's index gives for PKG at VER. Where the index
# no longer has that version (superseded), the package's own checksums
# must hold: dpkg-deb reads the whole data archive, whose compression (xz
# in Debian's packages) checks every block. Sourced (POSIX sh).

# fb_deb_ok FILE PKG VER: FILE is PKG's .deb at VER, intact
fb_deb_ok() {
	fb_want=$(apt-cache show "$2=$3" 2> /dev/null | sed -n 's/^SHA256: //p' | head -n 1)
	if [ -n "$fb_want" ]; then
		[ "$(sha256sum < "$1" | cut -d' ' -f1)" = "$fb_want" ]
	else
		dpkg-deb --fsys-tarfile "$1" > /dev/null 2>&1
	fi
}

# fb_deb_cached FILE PKG VER TAG: FILE is kept if fb_deb_ok, otherwise
# removed with one line on stderr (TAG: the caller's name), so that the
# caller fetches it again; status 0 when kept
fb_deb_cached() {
	[ -f "$1" ] || return 1
	fb_deb_ok "$1" "$2" "$3" && return 0
	echo "$4: $1 is not the archive's $2 $3 (checksum): fetching it again" >&2
	rm -f "$1"
	return 1
}
