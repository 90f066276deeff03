#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signed package repositories from the packages in build/pkg (make deb, make
# rpm), with a key the operator gives: an apt repository made by aptly
# (Release signed, every version kept, so that an older one can be installed
# again) and a dnf/yum repository made by createrepo_c, its packages signed by
# rpmsign and its repomd.xml by gpg (repo_gpgcheck). Run again with newer
# packages: they are added next to the ones there.
#
# Both serve two channels, canary and stable: the apt repository for every
# codename of CODENAMES (distributions <codename>-canary and <codename>),
# the dnf one as two repositories (OUT/rpm-canary and OUT/rpm). Each
# publish makes a snapshot of every package added so far (fb-1, fb-2, ...,
# one number for apt's and dnf's) and canary serves it; promote gives
# stable the snapshot canary serves; rollback gives stable back the one it
# served before the last promote. apt's snapshots are aptly's; dnf's are
# directories, each a signed repository (OUT/dnf/snapshots/fb-N), a copy of
# which (hard links) is what a channel serves. Every apt index lists the
# arch:all packages for each architecture of ARCHS (and in binary-all);
# Origin and Label are ORIGIN and LABEL.
#
# usage: dev/repo.sh [publish]   add the packages of PKG (canary serves them)
#        dev/repo.sh promote     stable serves what canary serves
#        dev/repo.sh rollback    stable serves what it served before the
#                                last promote
#        dev/repo.sh status      what each distribution and dnf channel
#                                serves
# environment: REPO_KEY   the signing key (fingerprint, id or user id) in
#                         the operator's GnuPG keyring (GNUPGHOME); required
#                         but for status
#              PKG        packages to publish (default build/pkg)
#              OUT        the repositories (default build/repo): OUT/apt,
#                         OUT/rpm (dnf's stable channel), OUT/rpm-canary,
#                         OUT/fuse-backport.gpg (binary, for apt's
#                         Signed-By), OUT/RPM-GPG-KEY-fuse-backport
#                         (armored); aptly's database and apt stable's
#                         history in OUT/aptly, dnf's packages, snapshots
#                         and stable's history in OUT/dnf (neither to be
#                         served)
#              CODENAMES  apt codenames (default "bookworm trixie"; CODENAME,
#                         one, is read too)
#              ARCHS      architectures of the apt indexes (default
#                         "amd64 arm64")
#              ORIGIN, LABEL  the Release files' fields (default
#                         fuse-backport, both)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "repo: $*" >&2; exit 1; }
pkg=${PKG:-$top/build/pkg}
out=${OUT:-$top/build/repo}
codenames=${CODENAMES:-${CODENAME:-bookworm trixie}}
archs=$(echo "${ARCHS:-amd64 arm64}" | tr ' ' '\n' | grep -v -x -e all -e '' | tr '\n' ' ')
origin=${ORIGIN:-fuse-backport}
label=${LABEL:-fuse-backport}
key=${REPO_KEY:-}
what=${1:-publish}
case $what in
publish | promote | rollback | status) ;;
*) die "usage: dev/repo.sh [publish|promote|rollback|status]" ;;
esac
for c in $codenames; do
	case $c in *-canary) die "codename '$c': -canary is the canary channel's suffix" ;; esac
done
[ -n "$archs" ] || die "ARCHS names no architecture"

fpr=""
if [ "$what" != status ]; then
	[ -n "$key" ] || die "set REPO_KEY to the signing key (a fingerprint in your GnuPG keyring)"
	for t in aptly createrepo_c rpmsign gpg; do
		command -v $t > /dev/null || die "needs $t (apt install aptly createrepo-c rpm gnupg)"
	done
	gpg --batch --list-secret-keys "$key" > /dev/null 2>&1 || die "no secret key '$key' in the GnuPG keyring ${GNUPGHOME:-~/.gnupg}"
	fpr=$(gpg --batch --with-colons --list-secret-keys "$key" | awk -F: '$1 == "fpr" { print $10; exit }')
fi

# --- the channels, apt's and dnf's ---------------------------------------------------
# Each kind of repository (BK: apt, dnf) gives the channel bookkeeping below
# what it needs, as functions named BK_...:
#   BK_there          it has a repository in OUT
#   BK_dists CHANNEL  its distributions of CHANNEL (canary, stable, or all:
#                     each canary one before its stable one), one a line
#   BK_served DIST    the snapshot DIST serves (nothing when none)
#   BK_published DIST DIST is there, whatever it serves
#   BK_pub DIST SNAP  DIST serves SNAP (signed)
#   BK_holds SNAP     SNAP's fuse-backport-dkms versions, on one line
#   BK_history        the file of stable's snapshots, oldest first
# A distribution published by an older dev/repo.sh, from no snapshot,
# serves one at the next promote.

# --- apt: aptly, its snapshots ---------------------------------------------------
# aptly, not reprepro: bookworm's reprepro (5.3) keeps one version of a
# package per distribution, and a rollback needs the older one there too.
# aptly's local repository keeps every version added; a snapshot of it is
# what a distribution serves, published to OUT/apt (one prefix, one pool).
aptly_conf() {
	mkdir -p "$out/aptly"
	archs_json=$(for x in $archs; do printf '"%s", ' "$x"; done)
	cat > "$out/aptly.conf" <<-EOT
	{
	  "rootDir": "$out/aptly",
	  "gpgProvider": "gpg",
	  "architectures": [${archs_json%, }],
	  "FileSystemPublishEndpoints": { "repo": { "rootDir": "$out/apt", "linkMethod": "copy" } }
	}
	EOT
}
a() { aptly -config="$out/aptly.conf" "$@"; }
apt_there() { [ -f "$out/aptly.conf" ]; }
apt_dists() {
	for c in $codenames; do
		case $1 in
		canary) echo "$c-canary" ;;
		stable) echo "$c" ;;
		all) printf '%s-canary\n%s\n' "$c" "$c" ;;
		esac
	done
}
apt_served() {
	a publish show "$1" filesystem:repo:. 2> /dev/null | sed -n 's/^ *main: \([^ ]*\) \[snapshot\].*/\1/p'
}
apt_published() { a publish show "$1" filesystem:repo:. > /dev/null 2>&1; }
# A distribution an older dev/repo.sh published straight from the local
# repository is published again from the snapshot.
apt_pub() {
	if apt_published "$1"; then
		if [ -n "$(apt_served "$1")" ]; then
			a publish switch -batch -gpg-key="$fpr" "$1" filesystem:repo:. "$2" > "$out/aptly-pub.log" 2>&1 || {
				cat "$out/aptly-pub.log" >&2
				die "aptly publish switch $1 to $2 failed"
			}
			return 0
		fi
		a publish drop "$1" filesystem:repo:. > "$out/aptly-pub.log" 2>&1 || {
			cat "$out/aptly-pub.log" >&2
			die "aptly publish drop $1 failed"
		}
	fi
	a publish snapshot -batch -gpg-key="$fpr" -distribution="$1" \
		-architectures="$(echo "$archs" | tr -s ' ' ',')all" -origin="$origin" -label="$label" \
		"$2" filesystem:repo:. > "$out/aptly-pub.log" 2>&1 || {
		cat "$out/aptly-pub.log" >&2
		die "aptly publish snapshot $2 as $1 failed"
	}
}
apt_holds() {
	a snapshot search "$1" 'Name (fuse-backport-dkms)' 2> /dev/null | sed -n 's/^fuse-backport-dkms_\([^_]*\)_.*/\1/p' | tr '\n' ' ' | sed 's/ $//'
}
apt_history() { echo "$out/aptly/stable.history"; }

# --- dnf: createrepo_c, snapshots as directories ---------------------------------
# OUT/dnf/pool: every signed package published; OUT/dnf/snapshots/fb-N: a
# repository of the pool's packages at the publish that made it (hard
# links, its repodata signed), its name in its file SNAPSHOT. A channel
# (OUT/rpm-canary, OUT/rpm) is a copy of one (hard links again), put in
# place with two renames. The stable channel is OUT/rpm, the one
# repository of an older dev/repo.sh: hosts keep their baseurl.
dnf_there() { [ -d "$out/dnf/snapshots" ] || [ -f "$out/rpm/repodata/repomd.xml" ]; }
dnf_dists() {
	case $1 in
	canary) echo rpm-canary ;;
	stable) echo rpm ;;
	all) printf 'rpm-canary\nrpm\n' ;;
	esac
}
dnf_served() { cat "$out/$1/SNAPSHOT" 2> /dev/null || :; }
dnf_published() { [ -f "$out/$1/repodata/repomd.xml" ]; }
dnf_pub() {
	[ -f "$out/dnf/snapshots/$2/SNAPSHOT" ] || die "dnf: no snapshot $2 in $out/dnf/snapshots"
	rm -rf "$out/$1.new" "$out/$1.old"
	cp -al "$out/dnf/snapshots/$2" "$out/$1.new" || die "dnf: copying snapshot $2 to $out/$1 failed"
	[ ! -e "$out/$1" ] || mv "$out/$1" "$out/$1.old"
	mv "$out/$1.new" "$out/$1"
	rm -rf "$out/$1.old"
}
dnf_holds() {
	for f in "$out/dnf/snapshots/$1"/fuse-backport-dkms-[0-9]*.rpm; do
		[ -f "$f" ] && rpm -qp --qf '%{VERSION}-%{RELEASE}\n' "$f" 2> /dev/null
	done | sort -V | tr '\n' ' ' | sed 's/ $//'
}
dnf_history() { echo "$out/dnf/stable.history"; }

# --- the bookkeeping, for both -----------------------------------------------------
kinds() {
	for k in apt dnf; do
		"${k}_there" && echo $k
	done
	return 0
}
dists1() { "${1}_dists" "$2" | tr '\n' ' ' | sed 's/ $//'; }
# canary_snap KIND: the snapshot every canary distribution of KIND serves
canary_snap() {
	first=$("${1}_dists" canary | head -n 1)
	s=$("${1}_served" "$first")
	[ -n "$s" ] || die "$1: canary ($first) serves no snapshot: make repo first"
	for d in $("${1}_dists" canary); do
		[ "$("${1}_served" "$d")" = "$s" ] || die "$1: $d does not serve $s as $first does: make repo again"
	done
	echo "$s"
}

case $what in
status | promote | rollback)
	ks=$(kinds)
	[ -n "$ks" ] || die "no repository in $out (make repo)"
	[ "$what" = status ] || ! apt_there || aptly_conf
	;;
esac
case $what in
status)
	for k in $ks; do
		for d in $("${k}_dists" all); do
			s=$("${k}_served" "$d")
			if [ -n "$s" ]; then
				echo "repo: $k: $d: $s (fuse-backport-dkms $("${k}_holds" "$s"))"
			elif "${k}_published" "$d"; then
				echo "repo: $k: $d: every package, as an older dev/repo.sh published it (promote to serve a snapshot)"
			else
				echo "repo: $k: $d: not published"
			fi
		done
		h=$("${k}_history")
		[ ! -s "$h" ] || echo "repo: $k: stable's snapshots, oldest first: $(tr '\n' ' ' < "$h" | sed 's/ $//')"
	done
	exit 0
	;;
promote)
	# every kind's canary checked before any stable changes
	for k in $ks; do
		canary_snap "$k" > /dev/null
	done
	for k in $ks; do
		s=$(canary_snap "$k")
		for d in $("${k}_dists" stable); do
			"${k}_pub" "$d" "$s"
		done
		h=$("${k}_history")
		[ "$(tail -n 1 "$h" 2> /dev/null)" = "$s" ] || echo "$s" >> "$h"
		echo "repo: $k: stable ($(dists1 "$k" stable)) serves $s (fuse-backport-dkms $("${k}_holds" "$s")), as canary does"
	done
	exit 0
	;;
rollback)
	for k in $ks; do
		h=$("${k}_history")
		n=$(grep -c . "$h" 2> /dev/null) || n=0
		[ "$n" -ge 2 ] || die "$k: stable has served no earlier snapshot (its history: $h)"
	done
	for k in $ks; do
		h=$("${k}_history")
		n=$(grep -c . "$h")
		cur=$(tail -n 1 "$h")
		prev=$(tail -n 2 "$h" | head -n 1)
		for d in $("${k}_dists" stable); do
			"${k}_pub" "$d" "$prev"
		done
		head -n $((n - 1)) "$h" > "$h.tmp" && mv "$h.tmp" "$h"
		echo "repo: $k: stable ($(dists1 "$k" stable)) back at $prev (fuse-backport-dkms $("${k}_holds" "$prev")), was $cur"
	done
	exit 0
	;;
esac

# --- publish ---------------------------------------------------------------------
debs=""
for f in "$pkg"/*.deb; do
	case $f in *-dbgsym_*) continue ;; esac
	[ -f "$f" ] && debs="$debs $f"
done
rpms=""
for f in "$pkg"/*.rpm; do
	[ -f "$f" ] && rpms="$rpms $f"
done
[ -n "$debs$rpms" ] || die "no packages in $pkg (make deb rpm)"

mkdir -p "$out"
gpg --batch --yes --export "$fpr" > "$out/fuse-backport.gpg"
gpg --batch --yes --armor --export "$fpr" > "$out/RPM-GPG-KEY-fuse-backport"
if [ -n "$debs" ] || apt_there; then
	aptly_conf
fi
# The snapshot's name: the first fb-N that neither kind has.
i=1
while { apt_there && a snapshot show "fb-$i" > /dev/null 2>&1; } || [ -e "$out/dnf/snapshots/fb-$i" ]; do
	i=$((i + 1))
done
snap=fb-$i

# --- apt --------------------------------------------------------------------------
if [ -n "$debs" ]; then
	a repo show fuse-backport > /dev/null 2>&1 ||
		a repo create -component=main fuse-backport > /dev/null
	# shellcheck disable=SC2086 # a list of files
	a repo add fuse-backport $debs > "$out/aptly-add.log" 2>&1 || {
		cat "$out/aptly-add.log" >&2
		die "aptly repo add failed"
	}
	for f in $debs; do
		echo "repo: apt: $(dpkg-deb -f "$f" Package) $(dpkg-deb -f "$f" Version)"
	done
	a snapshot create "$snap" from repo fuse-backport > /dev/null
	for d in $(apt_dists canary); do
		apt_pub "$d" "$snap"
	done
	echo "repo: apt: canary ($(dists1 apt canary)) serves snapshot $snap (fuse-backport-dkms $(apt_holds "$snap")); stable: make repo-promote"
fi

# --- dnf --------------------------------------------------------------------------
if [ -n "$rpms" ]; then
	pool=$out/dnf/pool
	mkdir -p "$pool" "$out/dnf/snapshots"
	# the packages of an older dev/repo.sh's one repository (signed) too
	for f in "$out"/rpm/*.rpm; do
		[ -f "$f" ] && [ ! -f "$pool/${f##*/}" ] && ln "$f" "$pool/${f##*/}"
	done
	for f in $rpms; do
		b=$(basename "$f")
		if [ -f "$pool/$b" ]; then
			echo "repo: rpm: $b is there already"
			continue
		fi
		cp "$f" "$pool/$b.tmp"
		rpmsign --addsign --define "_gpg_name $fpr" --define "__gpg $(command -v gpg)" \
			"$pool/$b.tmp" > /dev/null 2>&1 ||
			die "rpmsign failed on $b"
		mv "$pool/$b.tmp" "$pool/$b"
		echo "repo: rpm: $b (signed)"
	done
	sd=$out/dnf/snapshots/$snap
	rm -rf "$sd.tmp"
	mkdir "$sd.tmp"
	ln "$pool"/*.rpm "$sd.tmp/"
	createrepo_c -q "$sd.tmp"
	gpg --batch --yes --local-user "$fpr" --detach-sign --armor \
		-o "$sd.tmp/repodata/repomd.xml.asc" "$sd.tmp/repodata/repomd.xml"
	echo "$snap" > "$sd.tmp/SNAPSHOT"
	mv "$sd.tmp" "$sd"
	for d in $(dnf_dists canary); do
		dnf_pub "$d" "$snap"
	done
	echo "repo: dnf: canary ($(dists1 dnf canary)) serves snapshot $snap (fuse-backport-dkms $(dnf_holds "$snap")); stable: make repo-promote"
fi
echo "repo: $out (key $fpr)"
