#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Never older than the FUSE we replace: for each base, find the newest
# Debian linux-source-<series> apt can reach (every suite of this machine's
# apt configuration: its own sources, the security suite included, and the
# ones dev/apt-suites.sh adds), take its fs/fuse (backports/copy-list) into
# a scratch tree and compare it with the pin's.
#
#   the same fs/fuse: one line, and the pin records the newest release
#     checked to carry it (FUSE_CURRENT_TO=);
#   another fs/fuse: the pin moves to it (versions, both sha256 sums, the
#     Debian version, FB_RELEASE raised), the import applies infra and
#     series with no fuzz (or we stop, naming the patch and the hunk, with
#     nothing changed), the upstream changes pulled in (each file, with the
#     functions the diff touches) go into debian/changelog and the rpm
#     changelogs under a raised product version, and the build matrix runs
#     for the base's kernels.
#
# usage: dev/follow.sh [--check] [BASE...]   (default: every base)
#   --check: report only (exit 1 when a base is behind), change nothing
# environment: FB_CACHE (the package cache, as dev/import.sh),
#   FB_FOLLOW_MATRIX=0 (no build matrix after a rebase),
#   FB_FOLLOW_DATE (the changelogs' date, RFC 2822; default now)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FB_CACHE:-/var/cache/fuse-backport}
check=no
[ "${1:-}" = --check ] && { check=yes; shift; }
# shellcheck source=tests/lib/debcache.sh
. "$top/tests/lib/debcache.sh"

# Bad input or a failed step: one line, and every pin as it was.
die() {
	echo "follow: $*" >&2
	for o in "$tmp"/orig/*; do
		[ -f "$o" ] || continue
		cmp -s "$o" "$top/backports/$(basename "$o")/pin" || cat "$o" > "$top/backports/$(basename "$o")/pin"
	done
	exit 1
}
sha256() { sha256sum < "$1" | cut -d' ' -f1; }
pin_get() { sed -n "s/^$2=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$1" | head -n 1; }
# vlt A B: upstream version A is older than B
vlt() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-follow.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/orig"

# --- facts: the archive and the packages ---------------------------------

# newest PKG: the newest version of PKG any configured suite carries (the
# mirror's address is read by apt only, never kept)
newest() {
	apt-cache madison "$1" 2> /dev/null | awk -F'|' '$3 ~ /Packages/ { gsub(/ /, "", $2); print $2 }' |
		while read -r v; do
			echo "$v"
		done > "$tmp/versions"
	best=""
	while read -r v; do
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
	done < "$tmp/versions"
	echo "$best"
}

# fetch PKG VER: the path of PKG's .deb at VER in the cache, fetched with
# apt (which checks it against the archive's signed index) when absent; a
# cached one is used only with the index's SHA256 (tests/lib/debcache.sh)
fetch() {
	f=$cache/${1}_$(echo "$2" | sed 's/:/%3a/')_all.deb
	if ! fb_deb_cached "$f" "$1" "$2" follow; then
		mkdir -p "$cache" "$tmp/dl" || die "cannot create $cache (set FB_CACHE)"
		(cd "$tmp/dl" && apt-get download "$1=$2" > /dev/null 2>&1) ||
			die "cannot fetch $1 $2 with apt (run dev/apt-suites.sh)"
		mv "$tmp/dl"/*.deb "$f"
		fb_deb_ok "$f" "$1" "$2" || { rm -f "$f"; die "$1 $2 does not match the archive's signed index (SHA256)"; }
	fi
	echo "$f"
}

# tree DEB TARBALL DIR: the copy-list of DEB's kernel tarball in DIR/src;
# DIR/tarball.sha256, DIR/tree.sha256 (as dev/import.sh hashes it) and
# DIR/version (the top Makefile's)
tree() {
	mkdir -p "$3/src"
	dpkg-deb --fsys-tarfile "$1" | tar -C "$3" -x "./$2" 2> /dev/null || die "$1 does not contain $2"
	sha256 "$3/$2" > "$3/tarball.sha256"
	d=$(tar -tf "$3/$2" 2> /dev/null | head -n 1 | cut -d/ -f1)
	[ -n "$d" ] || die "cannot read the tarball of $1"
	# shellcheck disable=SC2046 # one path a word
	tar -C "$3/src" -xf "$3/$2" --strip-components=1 $(sed -e 's/#.*//' -e 's/[[:space:]].*//' "$top/backports/copy-list" |
		grep . | sed "s|^|$d/|") 2> /dev/null || true
	rm -f "$3/$2"
	{ [ -f "$3/src/Makefile" ] && [ -f "$3/src/fs/fuse/inode.c" ]; } || die "the tarball of $1 lacks fs/fuse or its Makefile"
	(cd "$3/src" && find fs/fuse include/uapi/linux/fuse.h -type f | LC_ALL=C sort |
		xargs sha256sum | sha256sum | cut -d' ' -f1) > "$3/tree.sha256"
	sed -n -e 's/^VERSION = //p' -e 's/^PATCHLEVEL = //p' -e 's/^SUBLEVEL = //p' "$3/src/Makefile" |
		paste -sd. - > "$3/version"
}

# --- collect: what changed between two trees ---------------------------------

# funcs FILE LINES: the C functions holding the lines LINES of FILE
funcs() {
	awk -v lines="$2" 'BEGIN { n = split(lines, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		/^[A-Za-z_][^;=]*\(/ && !/;[[:space:]]*$/ {
			f = $0; sub(/\(.*/, "", f); k = split(f, w, /[ *]+/); cur = w[k]
		}
		want[NR] && cur != "" && !seen[cur]++ { print cur "()" }' "$1"
}

# changes OLD NEW: one line per changed file, "file: functions (+A -R)"
changes() {
	(cd "$2" && find fs/fuse include/uapi/linux/fuse.h -type f; cd "$1" && find fs/fuse include/uapi/linux/fuse.h -type f) |
		LC_ALL=C sort -u | while read -r f; do
		if [ ! -f "$1/$f" ]; then echo "$f: new file"; continue; fi
		if [ ! -f "$2/$f" ]; then echo "$f: removed"; continue; fi
		cmp -s "$1/$f" "$2/$f" && continue
		diff -U0 "$1/$f" "$2/$f" > "$tmp/d" || true
		awk '/^@@/ { split($2, o, ","); split($3, n, ",");
				os = substr(o[1], 2); oc = (2 in o) ? o[2] : 1; ns = substr(n[1], 2); nc = (2 in n) ? n[2] : 1
				for (i = 0; i < nc; i++) nl = nl " " ns + i
				for (i = 0; i < oc; i++) ol = ol " " os + i
			}
			/^\+[^+]/ || /^\+$/ { add++ } /^-[^-]/ || /^-$/ { del++ }
			END { printf "%d %d\n%s\n%s\n", add, del, nl, ol }' "$tmp/d" > "$tmp/lines"
		{ read -r add del; read -r nl; read -r ol; } < "$tmp/lines"
		fs=$({ funcs "$2/$f" "$nl"; funcs "$1/$f" "$ol"; } | awk '!seen[$0]++' | paste -sd' ' - | sed 's/ /, /g')
		echo "$f: ${fs:-outside functions} (+$add -$del)"
	done
}

# --- judge and act, base by base ----------------------------------------------

bases=${*:-$(cd "$top/backports" && for p in */pin; do echo "${p%/pin}"; done)}
rebased=""
behind=0
for base in $bases; do
	pin=$top/backports/$base/pin
	[ -f "$pin" ] || die "unknown base '$base' (no backports/$base/pin)"
	up=$(pin_get "$pin" UPSTREAM_VERSION)
	pkg=$(pin_get "$pin" DEBIAN_PACKAGE)
	dver=$(pin_get "$pin" DEBIAN_VERSION)
	ball=$(pin_get "$pin" DEBIAN_TARBALL)
	cur=$(pin_get "$pin" FUSE_CURRENT_TO)
	cur=${cur:-$up}
	vlt "$cur" "$up" &&
		die "backports/$base/pin: FUSE_CURRENT_TO=$cur is older than its own UPSTREAM_VERSION=$up (fix the pin)"
	nv=$(newest "$pkg")
	[ -n "$nv" ] || die "base $base: no suite apt reaches carries $pkg (run dev/apt-suites.sh)"
	w=$tmp/$base
	cp "$pin" "$tmp/orig/$base"
	deb=$(fetch "$pkg" "$nv") || exit 1
	tree "$deb" "$ball" "$w/new"
	nup=$(cat "$w/new/version")
	vlt "$nup" "$cur" &&
		die "base $base: the newest $pkg the archive carries, $nv (Linux $nup), is older than the pin's $cur"
	if [ "$(cat "$w/new/tree.sha256")" = "$(pin_get "$pin" TREE_SHA256)" ]; then
		echo "base $base: $nup carries the same fs/fuse as ours"
		if [ $check = no ] && [ "$nup" != "$(pin_get "$pin" FUSE_CURRENT_TO)" ]; then
			if grep -q '^FUSE_CURRENT_TO=' "$pin"; then
				sed -i "s/^FUSE_CURRENT_TO=.*/FUSE_CURRENT_TO=$nup/" "$pin"
			else
				sed -i "/^TREE_SHA256=/a\\
\\
# The newest upstream release checked (dev/follow.sh, make follow) to carry\\
# exactly this fs/fuse; a kernel of this series newer than it is ahead of\\
# ours (scripts/fuse-age.sh).\\
FUSE_CURRENT_TO=$nup" "$pin"
			fi
		fi
		continue
	fi

	# Another fs/fuse: what changed, against the pin's own (verified) tree.
	deb=$(fetch "$pkg" "$dver") || exit 1
	tree "$deb" "$ball" "$w/old"
	[ "$(cat "$w/old/tree.sha256")" = "$(pin_get "$pin" TREE_SHA256)" ] ||
		die "base $base: the pinned $pkg $dver does not hold the pin's fs/fuse (TREE_SHA256)"
	changes "$w/old/src" "$w/new/src" > "$w/changes"
	behind=1
	echo "base $base: $nup ($pkg $nv) carries another fs/fuse than ours ($up): $(cut -d: -f1 "$w/changes" | sed 's|^fs/fuse/||' | paste -sd' ' -)"
	sed 's/^/  /' "$w/changes"
	[ $check = yes ] && continue

	rel=$(($(pin_get "$pin" FB_RELEASE) + 1))
	sed -i -e "s/^UPSTREAM_VERSION=.*/UPSTREAM_VERSION=$nup/" \
		-e "s/^DEBIAN_VERSION=.*/DEBIAN_VERSION=$nv/" \
		-e "s/^TARBALL_SHA256=.*/TARBALL_SHA256=\"$(cat "$w/new/tarball.sha256")\"/" \
		-e "s/^TREE_SHA256=.*/TREE_SHA256=$(cat "$w/new/tree.sha256")/" \
		-e "s/^FUSE_CURRENT_TO=.*/FUSE_CURRENT_TO=$nup/" \
		-e "s/^FB_RELEASE=.*/FB_RELEASE=$rel/" "$pin"
	# Infra and series with no fuzz, into a scratch tree (the import checks
	# both sums and the version against the pin as written).
	if ! OUT=$w/import FB_CACHE=$cache sh "$top/dev/import.sh" "$base" > "$w/import.out" 2> "$w/import.err"; then
		die "base $base: $nup: $(sed 's/^import: //' "$w/import.err" | head -n 1); the pin stays at $up"
	fi
	echo "$base $up $nup $pkg $nv $nup+fb$rel" >> "$tmp/rebased"
	{
		echo "Base $base follows Debian's $pkg $nv: fs/fuse of Linux $nup (module version $nup+fb$rel); upstream's changes since $up:"
		cat "$w/changes"
	} > "$tmp/entry-$base"
	rebased="$rebased $base"
done

[ -n "$rebased" ] || exit $behind
# --check stops above with status 1.

# --- the release: product version, changelogs, the files naming the pins -----

conf=$top/dkms.conf
pv=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$conf")
now=${FB_FOLLOW_DATE:-$(date -u -R)}
ym=$(date -u -d "$now" +%Y.%m)
case $pv in
"$ym".*) npv=$ym.$((${pv##*.} + 1)) ;;
*) npv=$ym.0 ;;
esac
sed -i "s/^PACKAGE_VERSION=\"$pv\"\$/PACKAGE_VERSION=\"$npv\"/" "$conf"
mods=$(for p in "$top"/backports/*/pin; do echo "$(pin_get "$p" UPSTREAM_VERSION)+fb$(pin_get "$p" FB_RELEASE)"; done | paste -sd' ' - | sed 's/ /, /g')
who="fuse-backport <fuse-backport@fuse-backport.invalid>"
dist=$(sed -n '1s/^[^)]*) \([^;]*\);.*/\1/p' "$top/debian/changelog")

# wrap WIDTH FIRST REST: the entries (stdin) wrapped at WIDTH, FIRST before
# each entry's first line, REST before its others
wrap() { fold -s -w "$1" | sed -e 's/ *$//' | awk -v f="$2" -v r="$3" 'NR == 1 { print f $0; next } { print r $0 }'; }
{
	echo "fuse-backport ($npv-1) $dist; urgency=medium"
	echo
	for b in $rebased; do
		head -n 1 "$tmp/entry-$b" | wrap 70 "  * " "    "
		tail -n +2 "$tmp/entry-$b" | while read -r l; do echo "$l" | wrap 66 "    - " "      "; done
	done
	echo
	echo " -- $who  $now"
	echo
	cat "$top/debian/changelog"
} > "$tmp/changelog" && cat "$tmp/changelog" > "$top/debian/changelog"

rday=$(date -u -d "$now" '+%a %b %d %Y')
for spec in "$top"/rpm/*.spec; do
	{
		echo "* $rday $who - $npv-1"
		case $spec in
		*-tools.spec) echo "Follows the product version $npv (module versions $mods)." | wrap 72 "- " "  " ;;
		*)
			for b in $rebased; do
				head -n 1 "$tmp/entry-$b" | wrap 72 "- " "  "
				tail -n +2 "$tmp/entry-$b" | while read -r l; do echo "$l" | wrap 70 "  - " "    "; done
			done
			;;
		esac
	} > "$tmp/rpmentry"
	sed -i -e "s/^Version:\([[:space:]]*\)$pv\$/Version:\1$npv/" -e "/^%changelog\$/r $tmp/rpmentry" "$spec"
done

# The packaging files that name a base's pinned release (above %changelog
# in the specs): the old release becomes the new one.
while read -r b up nup pkg nv mv; do
	odv=$(pin_get "$tmp/orig/$b" DEBIAN_VERSION)
	re=$(echo "$up" | sed 's/\./\\./g')
	for f in "$top"/debian/README.source "$top"/debian/control "$top"/debian/copyright "$top"/debian/rules "$top"/rpm/*.spec; do
		[ -f "$f" ] || continue
		sed -i -e "/^%changelog/,\$b" -e "s/$(echo "$odv" | sed 's/[.~+]/\\&/g')/$nv/g" \
			-e "s/\([^0-9.]\)$re\([^0-9]\|\.tar\|\$\)/\1$nup\2/g" "$f"
	done
	echo "base $b: rebased from $up to $nup ($pkg $nv), module $mv, product $npv"
done < "$tmp/rebased"

# The build matrix for the rebased bases' kernels.
[ "${FB_FOLLOW_MATRIX:-1}" = 0 ] && exit 0
make -C "$top" -s import-all || die "make import-all failed after the rebase"
kvers=""
for b in $rebased; do
	lo=$(pin_get "$top/backports/$b/pin" KERNEL_MIN)
	hi=$(pin_get "$top/backports/$b/pin" KERNEL_MAX)
	kvers="$kvers $(sh "$top/dev/headers.sh" list | awk '{ print $2 }' | while read -r k; do
		s=$(echo "$k" | cut -d. -f1,2)
		vlt "$s" "$lo" || vlt "$hi" "$s" || echo "$k"
	done)"
done
# shellcheck disable=SC2086 # a list of kernel versions
FB_WERROR=0 sh "$top/dev/check-build.sh" $kvers
