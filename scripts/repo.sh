#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signed package repositories from the packages in build/pkg (make deb, make
# rpm), with a key the operator gives: an apt repository made by reprepro
# (Release signed, every version kept, so that an older one can be installed
# again) and a dnf/yum repository made by createrepo_c, its packages signed by
# rpmsign and its repomd.xml by gpg (repo_gpgcheck). Run again with newer
# packages: they are added next to the ones there.
#
# usage: scripts/repo.sh
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
for t in reprepro createrepo_c rpmsign gpg; do
	command -v $t > /dev/null || die "needs $t (apt install reprepro createrepo-c rpm gnupg)"
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
if [ -n "$debs" ]; then
	mkdir -p "$out/apt/conf"
	# Limit: 0 keeps every version (reprepro's default keeps one).
	cat > "$out/apt/conf/distributions" <<-EOF
	Origin: fuse-backport
	Label: fuse-backport
	Codename: $codename
	Architectures: amd64 i386 arm64
	Components: main
	Limit: 0
	Description: fuse-backport packages
	SignWith: $fpr
	EOF
	for f in $debs; do
		p=$(dpkg-deb -f "$f" Package)
		v=$(dpkg-deb -f "$f" Version)
		if reprepro -b "$out/apt" -A "$(dpkg-deb -f "$f" Architecture | sed 's/^all$/amd64/')" \
			list "$codename" "$p" 2> /dev/null | grep -q " $v$"; then
			echo "repo: apt: $p $v is there already"
			continue
		fi
		reprepro -b "$out/apt" includedeb "$codename" "$f" > /dev/null
		echo "repo: apt: $p $v"
	done
	reprepro -b "$out/apt" export "$codename" > /dev/null
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
		rpmsign --addsign --define "_gpg_name $fpr" "$out/rpm/$b.tmp" > /dev/null ||
			die "rpmsign failed on $b"
		mv "$out/rpm/$b.tmp" "$out/rpm/$b"
		echo "repo: rpm: $b (signed)"
	done
	createrepo_c --update -q "$out/rpm"
	gpg --batch --yes --local-user "$fpr" --detach-sign --armor \
		-o "$out/rpm/repodata/repomd.xml.asc" "$out/rpm/repodata/repomd.xml"
fi
echo "repo: $out (key $fpr)"
