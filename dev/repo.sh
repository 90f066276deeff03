#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signed package repositories from the packages in build/pkg (make deb, make
# rpm), with a key the operator gives: an apt repository made by aptly
# (Release signed, every version kept, so that an older one can be installed
# again) and a dnf/yum repository made by createrepo_c, its packages signed by
# rpmsign and its repomd.xml by gpg (repo_gpgcheck). Run again with newer
# packages: they are added next to the ones there.
#
# The apt repository serves every codename of CODENAMES, each in two
# channels: canary (distribution <codename>-canary) and stable
# (<codename>). Each publish makes an aptly snapshot of everything added so
# far and canary serves it; promote gives stable the snapshot canary
# serves; rollback gives stable back the one it served before the last
# promote. Every index lists the arch:all packages for each architecture
# of ARCHS (and in binary-all); Origin and Label are ORIGIN and LABEL. The
# dnf repository has one channel: what was published.
#
# usage: dev/repo.sh [publish]   add the packages of PKG (canary serves them)
#        dev/repo.sh promote     apt: stable serves what canary serves
#        dev/repo.sh rollback    apt: stable serves what it served before the
#                                last promote
#        dev/repo.sh status      what each distribution serves
# environment: REPO_KEY   the signing key (fingerprint, id or user id) in
#                         the operator's GnuPG keyring (GNUPGHOME); required
#                         but for status
#              PKG        packages to publish (default build/pkg)
#              OUT        the repositories (default build/repo): OUT/apt,
#                         OUT/rpm, OUT/fuse-backport.gpg (binary, for apt's
#                         Signed-By), OUT/RPM-GPG-KEY-fuse-backport (armored);
#                         aptly's database and stable's history in
#                         OUT/aptly (not to be served)
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

# --- apt: aptly, its snapshots and the channels ----------------------------------
# aptly, not reprepro: bookworm's reprepro (5.3) keeps one version of a
# package per distribution, and a rollback needs the older one there too.
# aptly's local repository keeps every version added; a snapshot of it is
# what a channel serves, published to OUT/apt (one prefix, one pool).
history=$out/aptly/stable.history
aptly_conf() {
	mkdir -p "$out/aptly"
	archs_json=$(for x in $archs; do printf '"%s", ' "$x"; done)
	cat > "$out/aptly.conf" <<-EOF
	{
	  "rootDir": "$out/aptly",
	  "gpgProvider": "gpg",
	  "architectures": [${archs_json%, }],
	  "FileSystemPublishEndpoints": { "repo": { "rootDir": "$out/apt", "linkMethod": "copy" } }
	}
	EOF
}
a() { aptly -config="$out/aptly.conf" "$@"; }
# served DIST: the snapshot DIST serves (nothing when it is not published
# from a snapshot)
served() {
	a publish show "$1" filesystem:repo:. 2> /dev/null | sed -n 's/^ *main: \([^ ]*\) \[snapshot\].*/\1/p'
}
# pub DIST SNAPSHOT: DIST serves SNAPSHOT, signed. A distribution an older
# dev/repo.sh published straight from the local repository is published
# again from the snapshot.
pub() {
	if a publish show "$1" filesystem:repo:. > /dev/null 2>&1; then
		if [ -n "$(served "$1")" ]; then
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
# holds SNAPSHOT: its fuse-backport-dkms versions, on one line
holds() {
	a snapshot search "$1" 'Name (fuse-backport-dkms)' 2> /dev/null | sed -n 's/^fuse-backport-dkms_\([^_]*\)_.*/\1/p' | tr '\n' ' ' | sed 's/ $//'
}

case $what in
status)
	[ -f "$out/aptly.conf" ] || die "no apt repository in $out (make repo)"
	for c in $codenames; do
		for d in "$c-canary" "$c"; do
			s=$(served "$d")
			if [ -n "$s" ]; then
				echo "repo: apt: $d: $s (fuse-backport-dkms $(holds "$s"))"
			elif a publish show "$d" filesystem:repo:. > /dev/null 2>&1; then
				echo "repo: apt: $d: the local repository, as an older dev/repo.sh published it (promote to serve a snapshot)"
			else
				echo "repo: apt: $d: not published"
			fi
		done
	done
	[ ! -s "$history" ] || echo "repo: apt: stable's snapshots, oldest first: $(tr '\n' ' ' < "$history" | sed 's/ $//')"
	exit 0
	;;
promote)
	[ -f "$out/aptly.conf" ] || die "no apt repository in $out (make repo)"
	aptly_conf
	for c in $codenames; do
		first=$c
		break
	done
	s=$(served "$first-canary")
	[ -n "$s" ] || die "canary ($first-canary) serves no snapshot: make repo first"
	for c in $codenames; do
		[ "$(served "$c-canary")" = "$s" ] || die "$c-canary does not serve $s as $first-canary does: make repo again"
	done
	for c in $codenames; do
		pub "$c" "$s"
	done
	[ "$(tail -n 1 "$history" 2> /dev/null)" = "$s" ] || echo "$s" >> "$history"
	echo "repo: apt: stable ($codenames) serves $s (fuse-backport-dkms $(holds "$s")), as canary does"
	exit 0
	;;
rollback)
	[ -f "$out/aptly.conf" ] || die "no apt repository in $out (make repo)"
	aptly_conf
	n=$(grep -c . "$history" 2> /dev/null) || n=0
	[ "$n" -ge 2 ] || die "stable has served no earlier snapshot (its history: $history)"
	cur=$(tail -n 1 "$history")
	prev=$(tail -n 2 "$history" | head -n 1)
	for c in $codenames; do
		pub "$c" "$prev"
	done
	head -n $((n - 1)) "$history" > "$history.tmp" && mv "$history.tmp" "$history"
	echo "repo: apt: stable ($codenames) back at $prev (fuse-backport-dkms $(holds "$prev")), was $cur"
	exit 0
	;;
esac

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

# --- apt: publish -------------------------------------------------------------
if [ -n "$debs" ]; then
	aptly_conf
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
	i=1
	while a snapshot show "fb-$i" > /dev/null 2>&1; do i=$((i + 1)); done
	a snapshot create "fb-$i" from repo fuse-backport > /dev/null
	for c in $codenames; do
		pub "$c-canary" "fb-$i"
	done
	echo "repo: apt: canary ($(for c in $codenames; do printf '%s-canary ' "$c"; done | sed 's/ $//')) serves snapshot fb-$i (fuse-backport-dkms $(holds "fb-$i")); stable: make repo-promote"
fi

# --- dnf --------------------------------------------------------------------
if [ -n "$rpms" ]; then
	mkdir -p "$out/rpm"
	for f in $rpms; do
		b=$(basename "$f")
		if [ -f "$out/rpm/$b" ]; then
			echo "repo: rpm: $b is there already"
			continue
		fi
		cp "$f" "$out/rpm/$b.tmp"
		rpmsign --addsign --define "_gpg_name $fpr" --define "__gpg $(command -v gpg)" \
			"$out/rpm/$b.tmp" > /dev/null 2>&1 ||
			die "rpmsign failed on $b"
		mv "$out/rpm/$b.tmp" "$out/rpm/$b"
		echo "repo: rpm: $b (signed)"
	done
	createrepo_c --update -q "$out/rpm"
	gpg --batch --yes --local-user "$fpr" --detach-sign --armor \
		-o "$out/rpm/repodata/repomd.xml.asc" "$out/rpm/repodata/repomd.xml"
fi
echo "repo: $out (key $fpr)"
