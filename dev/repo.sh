#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signed package repositories from the packages in build/pkg (make deb, make
# rpm), with a key the operator gives: an apt repository made by aptly
# (Release signed, every version kept, so that an older one can be installed
# again) and a dnf/yum repository made by createrepo_c, its packages signed by
# rpmsign and its repomd.xml by gpg (repo_gpgcheck). Run again with newer
# packages: they are added next to the ones there.
#
# usage: dev/repo.sh
# environment: REPO_KEY   the signing key (fingerprint, id or user id) in
#                         the operator's GnuPG keyring (GNUPGHOME); required
#              PKG        packages to publish (default build/pkg)
#              OUT        the repositories (default build/repo): OUT/apt,
#                         OUT/rpm, OUT/fuse-backport.gpg (binary, for apt's
#                         Signed-By), OUT/RPM-GPG-KEY-fuse-backport (armored)
#              CODENAME   apt distribution (default bookworm)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "repo: $*" >&2; exit 1; }
pkg=${PKG:-$top/build/pkg}
out=${OUT:-$top/build/repo}
codename=${CODENAME:-bookworm}
key=${REPO_KEY:-}

[ -n "$key" ] || die "set REPO_KEY to the signing key (a fingerprint in your GnuPG keyring)"
for t in aptly createrepo_c rpmsign gpg; do
	command -v $t > /dev/null || die "needs $t (apt install aptly createrepo-c rpm gnupg)"
done
gpg --batch --list-secret-keys "$key" > /dev/null 2>&1 || die "no secret key '$key' in the GnuPG keyring ${GNUPGHOME:-~/.gnupg}"
fpr=$(gpg --batch --with-colons --list-secret-keys "$key" | awk -F: '$1 == "fpr" { print $10; exit }')

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

# --- apt --------------------------------------------------------------------
# aptly, not reprepro: bookworm's reprepro (5.3) keeps one version of a
# package per distribution, and a rollback needs the older one there too.
# aptly's local repository keeps every version added; it publishes to OUT/apt.
if [ -n "$debs" ]; then
	mkdir -p "$out/aptly"
	cat > "$out/aptly.conf" <<-EOF
	{
	  "rootDir": "$out/aptly",
	  "gpgProvider": "gpg",
	  "architectures": ["amd64"],
	  "FileSystemPublishEndpoints": { "repo": { "rootDir": "$out/apt", "linkMethod": "copy" } }
	}
	EOF
	a() { aptly -config="$out/aptly.conf" "$@"; }
	a repo show fuse-backport > /dev/null 2>&1 ||
		a repo create -distribution="$codename" -component=main fuse-backport > /dev/null
	# shellcheck disable=SC2086 # a list of files
	a repo add fuse-backport $debs > "$out/aptly-add.log" 2>&1 || {
		cat "$out/aptly-add.log" >&2
		die "aptly repo add failed"
	}
	for f in $debs; do
		echo "repo: apt: $(dpkg-deb -f "$f" Package) $(dpkg-deb -f "$f" Version)"
	done
	if a publish list -raw 2> /dev/null | grep -q "^filesystem:repo:\. $codename$"; then
		a publish update -batch -gpg-key="$fpr" "$codename" filesystem:repo:. > "$out/aptly-pub.log" 2>&1
	else
		a publish repo -batch -gpg-key="$fpr" -architectures=amd64 fuse-backport filesystem:repo:. \
			> "$out/aptly-pub.log" 2>&1
	fi || {
		cat "$out/aptly-pub.log" >&2
		die "aptly publish failed"
	}
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
