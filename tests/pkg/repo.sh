#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signed repositories (make repo, scripts/repo.sh) with a throw-away GnuPG
# key, and the rollout steps of the README's runbook against them.
#
# apt, on this host (not a chroot) with apt's lists, sources and preferences
# pointed at a scratch directory, so that only our repository is seen, and
# with /etc/dkms/no-autoinstall present so that the postinst registers the
# module with DKMS but builds nothing (the build on install and upgrade is
# tests/pkg/deb.sh's): apt update checks the Release signature through
# Signed-By (a wrong key is refused); install of the older build, apt-mark
# hold and a pin keep it through apt upgrade, upgrade to the newer build,
# rollback with apt install fuse-backport-dkms=<older>.
#
# dnf, with dnf --installroot on a scratch root: the repository's packages
# and repomd.xml are signed (gpgcheck, repo_gpgcheck); install, upgrade,
# downgrade. Stubbed: what our packages require (dkms, kernel-devel, bash,
# make, libc) comes from one empty rpm that provides those names, in an
# unsigned local repository; scriptlets do not run (tsflags=noscripts: the
# scratch root has no shell); tests/pkg/rpm.sh runs them.
#
# usage: tests/pkg/repo.sh
tap_suite="pkg-repo"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"

made_noauto=""
host_touched=""

pt_cleanup() {
	[ -z "${GNUPGHOME:-}" ] || gpgconf --kill gpg-agent > /dev/null 2>&1
	[ -n "$host_touched" ] || return 0
	for p in $name-dkms $name-tools; do
		apt-mark unhold "$p" > /dev/null 2>&1
		[ "$(pt_deb_state "$p")" = not-installed ] || dpkg --purge "$p" > /dev/null 2>&1
	done
	pt_dkms_remove_all
	rm -rf /usr/src/$name-[0-9]*
	[ -z "$made_noauto" ] || rm -f /etc/dkms/no-autoinstall
}

# The builds, the repositories and dnf touch nothing of the host's: the
# shared lock (tests/pkg/lib.sh) is taken only for the apt part, below.
pt_lock=${TMPDIR:-/tmp}/fb-pkg-repo.lock
pt_init "signed repositories" aptly createrepo_c rpmsign gpg apt-get dpkg-buildpackage rpmbuild
rm -f "$pt_lock"
ver=$(pt_version)

# --- the key, and two builds ---------------------------------------------------
export GNUPGHOME="$pt_tmp/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --passphrase '' --quick-gen-key "fuse-backport test repository <repo@fuse-backport.invalid>" \
	rsa3072 sign never > "$pt_tmp/gpg.log" 2>&1
gpg --batch --check-trustdb > /dev/null 2>&1
fpr=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
[ -n "$fpr" ]
tap_check $? "a throw-away signing key ($fpr)"

ver2=${ver%fb*}fb$((${ver##*fb} + 1))
build() { # DIR VERSION
	mkdir -p "$1/src"
	git ls-files | while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done > "$1/list"
	tar -cf - -T "$1/list" | tar -C "$1/src" -xf -
	(
		cd "$1/src" || exit 1
		if [ "$2" != "$ver" ]; then
			sed -i "s/^FB_RELEASE=.*/FB_RELEASE=${2##*fb}/" backports/6.12/pin
			m=$(sed -n 's/^Maintainer: //p' debian/control)
			{
				printf '%s (%s-1) bookworm; urgency=medium\n\n  * Test build.\n\n' "$name" "$2"
				printf ' -- %s  %s\n\n' "$m" "$(LC_ALL=C date -u -d @"$(($(date +%s) + 60))" '+%a, %d %b %Y %H:%M:%S +0000')"
				cat debian/changelog
			} > debian/changelog.new && mv debian/changelog.new debian/changelog
			for s in rpm/*.spec; do
				sed -i -e "s/^Version:\( *\).*/Version:\1$2/" \
					-e "/^%changelog/a * $(LC_ALL=C date -u '+%a %b %d %Y') $m - $2-1\\
- Test build.\\
" "$s"
			done
		fi
		git init -q && git add -A && git -c user.name=t -c user.email=t@t.invalid commit -q -m "$2"
	) || return 1
	OUT=$1/pkg LINTIAN=0 RPMLINT=0 sh "$1/src/scripts/pkg-deb.sh" > "$1/deb.log" 2>&1 &&
		OUT=$1/pkg RPMLINT=0 sh "$1/src/scripts/pkg-rpm.sh" > "$1/rpm.log" 2>&1
}
build "$pt_tmp/b1" "$ver"
rc=$?
build "$pt_tmp/b2" "$ver2"
rc=$((rc + $?))
ls "$pt_tmp"/b1/pkg/*.deb "$pt_tmp"/b2/pkg/*.deb "$pt_tmp"/b1/pkg/*.rpm "$pt_tmp"/b2/pkg/*.rpm > "$pt_tmp/built" 2> /dev/null
[ $rc = 0 ] && [ "$(grep -c -v dbgsym "$pt_tmp/built")" = 8 ]
tap_check $? "builds $ver and $ver2: .deb and .rpm of $name-dkms and $name-tools"
[ $rc = 0 ] || { pt_log "$pt_tmp/b2/deb.log"; pt_log "$pt_tmp/b2/rpm.log"; }

# --- make repo, twice: the second adds the newer build ------------------------
repo=$pt_tmp/repo
REPO_KEY=$fpr PKG=$pt_tmp/b1/pkg OUT=$repo sh scripts/repo.sh > "$pt_tmp/repo1.log" 2>&1 &&
	REPO_KEY=$fpr PKG=$pt_tmp/b2/pkg OUT=$repo sh scripts/repo.sh > "$pt_tmp/repo2.log" 2>&1
rc=$?
tap_check $rc "make repo with $ver's packages, then again with $ver2's"
[ $rc = 0 ] || { pt_log "$pt_tmp/repo1.log"; pt_log "$pt_tmp/repo2.log"; }
n=$(grep -c "^Package: $name-dkms$" "$repo/apt/dists/bookworm/main/binary-amd64/Packages" 2> /dev/null)
[ -f "$repo/apt/dists/bookworm/InRelease" ] && [ "$n" = 2 ]
tap_check $? "apt: InRelease signed, both versions of $name-dkms in Packages ($n)"
gpg --batch --verify "$repo/rpm/repodata/repomd.xml.asc" "$repo/rpm/repodata/repomd.xml" > /dev/null 2>&1 &&
	rpm -qp --qf '%{SIGPGP:pgpsig}%{RSAHEADER:pgpsig}\n' "$repo"/rpm/$name-dkms-*.rpm 2> /dev/null | grep -q -i "${fpr#????????????????????????}"
tap_check $? "rpm: repomd.xml.asc verifies, the packages carry our key's signature"

# --- dnf ------------------------------------------------------------------------
dnf_part() {
stub=$pt_tmp/stub
mkdir -p "$stub/SPECS" "$stub/repo"
{
	printf 'Name: fb-test-provides\nVersion: 1\nRelease: 1\nSummary: stub\nLicense: GPL-2.0-only\nBuildArch: noarch\n'
	printf 'Provides: dkms = 3.0.10\nProvides: kernel-devel\nProvides: bash\nProvides: make\nProvides: /bin/sh\n'
	for f in "$repo"/rpm/*.rpm; do rpm -qpR "$f" 2> /dev/null; done | sort -u |
		grep -E '^(libc\.so|rtld)' | sed 's/^/Provides: /'
	printf '%%description\nWhat fuse-backport needs, provided by nothing (test stub).\n%%files\n'
} > "$stub/SPECS/stub.spec"
rpmbuild -bb --define "_topdir $stub" "$stub/SPECS/stub.spec" > "$stub/build.log" 2>&1 &&
	cp "$stub"/RPMS/noarch/*.rpm "$stub/repo/" && createrepo_c -q "$stub/repo"
mkdir -p "$pt_tmp/yum.repos.d" "$pt_tmp/root"
cat > "$pt_tmp/yum.repos.d/fb.repo" << EOF
[fuse-backport]
name=fuse-backport
baseurl=file://$repo/rpm
gpgcheck=1
repo_gpgcheck=1
gpgkey=file://$repo/RPM-GPG-KEY-fuse-backport

[stub]
name=stub
baseurl=file://$stub/repo
gpgcheck=0
EOF
printf '[main]\nreposdir=%s\ncachedir=%s\ntsflags=noscripts\ninstall_weak_deps=0\n' \
	"$pt_tmp/yum.repos.d" "$pt_tmp/dnfcache" > "$pt_tmp/dnf.conf"
dnf_() { dnf -y -c "$pt_tmp/dnf.conf" --installroot="$pt_tmp/root" --releasever=12 "$@"; }
q_() { rpm --root "$pt_tmp/root" -q --qf '%{VERSION}\n' "$1" 2> /dev/null; }
dnf_ install "$name-dkms-$ver" "$name-tools-$ver" > "$pt_tmp/dnf-in.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(q_ $name-dkms)" = "$ver" ] && [ "$(q_ $name-tools)" = "$ver" ]
tap_check $? "dnf --installroot install $name-dkms-$ver $name-tools-$ver (gpgcheck, repo_gpgcheck)"
grep -E -i 'Importing GPG key|Installing *:.*fuse-backport|fuse-backport-(dkms|tools)-[0-9]' "$pt_tmp/dnf-in.log" | sort -u | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/dnf-in.log" 15
dnf_ upgrade > "$pt_tmp/dnf-up.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(q_ $name-dkms)" = "$ver2" ] && [ "$(q_ $name-tools)" = "$ver2" ]
tap_check $? "dnf upgrade: $ver -> $ver2"
grep -E -i 'Upgrading *:.*fuse-backport|Upgraded:|fuse-backport-(dkms|tools)-[0-9]' "$pt_tmp/dnf-up.log" | sort -u | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/dnf-up.log" 15
dnf_ downgrade "$name-dkms-$ver" "$name-tools-$ver" > "$pt_tmp/dnf-down.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(q_ $name-dkms)" = "$ver" ] && [ "$(q_ $name-tools)" = "$ver" ]
tap_check $? "dnf downgrade $name-dkms-$ver: back at $ver"
grep -E -i 'Downgrading *:.*fuse-backport|Downgraded:|fuse-backport-(dkms|tools)-[0-9]' "$pt_tmp/dnf-down.log" | sort -u | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/dnf-down.log" 15
if dnf_ versionlock --help > /dev/null 2>&1; then
	dnf_ versionlock add $name-dkms > /dev/null 2>&1
	dnf_ upgrade > "$pt_tmp/dnf-lock.log" 2>&1
	[ "$(q_ $name-dkms)" = "$ver" ]
	tap_check $? "dnf versionlock add $name-dkms: dnf upgrade leaves it at $ver"
else
	tap_skip "dnf versionlock" "the versionlock plugin (dnf-plugins-core) is not installed"
fi
}
if command -v dnf > /dev/null; then
	dnf_part
else
	tap_skip "dnf --installroot install, upgrade, downgrade" "no dnf (apt install dnf)"
fi

# The host's dpkg and DKMS from here on: the lock the package tests share.
exec 8>> /var/lock/fuse-backport-dkms.lock
flock 8
host_touched=1
if [ "$(pt_deb_state $name-dkms)" != not-installed ] || [ "$(pt_deb_state $name-tools)" != not-installed ]; then
	pt_cleanup
fi
# --- apt ------------------------------------------------------------------------
a=$pt_tmp/apt
mkdir -p "$a/lists/partial" "$a/none"
echo "deb [signed-by=$repo/fuse-backport.gpg] file:$repo/apt bookworm main" > "$a/sources.list"
: > "$a/preferences"
apt_() {
	DEBIAN_FRONTEND=noninteractive apt-get -q -o Dir::Etc::SourceList="$a/sources.list" \
		-o Dir::Etc::SourceParts="$a/none" -o Dir::State::Lists="$a/lists" \
		-o Dir::Etc::Preferences="$a/preferences" -o Dir::Etc::PreferencesParts="$a/none" \
		-o APT::Sandbox::User=root "$@"
}
v_() { dpkg-query -W -f '${Version}' "$1" 2> /dev/null; }
# A key that did not sign it is refused.
gpg --batch --passphrase '' --quick-gen-key "other <other@fuse-backport.invalid>" rsa3072 sign never > /dev/null 2>&1
gpg --batch --export other@fuse-backport.invalid > "$pt_tmp/other.gpg"
sed "s|$repo/fuse-backport.gpg|$pt_tmp/other.gpg|" "$a/sources.list" > "$a/sources.other"
apt_ -o Dir::Etc::SourceList="$a/sources.other" update > "$pt_tmp/apt-bad.log" 2>&1
grep -q -e NO_PUBKEY -e 'is not signed' "$pt_tmp/apt-bad.log"
tap_check $? "apt update with another key in Signed-By: refused ($(grep -o -m 1 'NO_PUBKEY [0-9A-F]*\|is not signed' "$pt_tmp/apt-bad.log"))"
rm -rf "$a/lists"
mkdir -p "$a/lists/partial"
apt_ update > "$pt_tmp/apt-up.log" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q -e '^W:' -e '^E:' "$pt_tmp/apt-up.log"
tap_check $? "apt update with Signed-By our key: no error, no warning"
[ $rc = 0 ] || pt_log "$pt_tmp/apt-up.log"

if [ ! -e /etc/dkms/no-autoinstall ]; then
	mkdir -p /etc/dkms && : > /etc/dkms/no-autoinstall && made_noauto=1
fi
apt_ install -y "$name-dkms=$ver-1" "$name-tools=$ver-1" > "$pt_tmp/apt-in.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(v_ $name-dkms)" = "$ver-1" ] && [ "$(v_ $name-tools)" = "$ver-1" ] &&
	dkms status -m $name -v "$ver" | grep -q .
tap_check $? "apt install $name-dkms=$ver-1 $name-tools=$ver-1 from the repository (DKMS has $ver)"
grep -E '^(Get|Setting up).*fuse-backport' "$pt_tmp/apt-in.log" | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/apt-in.log"
fuse-backport --version > "$pt_tmp/tv" 2>&1
grep -q "$ver" "$pt_tmp/tv"
tap_check $? "fuse-backport --version from the package: $(head -n 1 "$pt_tmp/tv")"

# Staged rollout: hold, then a pin.
apt-mark hold $name-dkms > /dev/null
apt_ upgrade -y > "$pt_tmp/apt-hold.log" 2>&1
[ "$(v_ $name-dkms)" = "$ver-1" ] && [ "$(v_ $name-tools)" = "$ver2-1" ]
tap_check $? "apt-mark hold $name-dkms: apt upgrade leaves it at $ver-1 (tools to $(v_ $name-tools))"
apt-mark unhold $name-dkms > /dev/null
printf 'Package: %s-dkms\nPin: version %s-1\nPin-Priority: 1001\n' $name "$ver" > "$a/preferences"
cand=$(apt_ -o Dir::Etc::Preferences="$a/preferences" install -s $name-dkms 2>&1 | sed -n "s/^Inst $name-dkms .*(\([^ ]*\) .*/\1/p")
apt_ upgrade -y > "$pt_tmp/apt-pin.log" 2>&1
[ "$(v_ $name-dkms)" = "$ver-1" ] && [ -z "$cand" ]
tap_check $? "a pin (Pin: version $ver-1, priority 1001): apt upgrade keeps $ver-1"
: > "$a/preferences"

apt_ upgrade -y > "$pt_tmp/apt-upg.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(v_ $name-dkms)" = "$ver2-1" ] && dkms status -m $name -v "$ver2" | grep -q . &&
	! dkms status -m $name -v "$ver" | grep -q .
tap_check $? "apt upgrade: $name-dkms $ver-1 -> $ver2-1 (DKMS has $ver2 only)"
grep -E '^(Get|Preparing to unpack|Unpacking|Setting up).*fuse-backport-dkms' "$pt_tmp/apt-upg.log" | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/apt-upg.log"

apt_ install -y --allow-downgrades "$name-dkms=$ver-1" "$name-tools=$ver-1" > "$pt_tmp/apt-down.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(v_ $name-dkms)" = "$ver-1" ] && [ "$(v_ $name-tools)" = "$ver-1" ] &&
	dkms status -m $name -v "$ver" | grep -q . && ! dkms status -m $name -v "$ver2" | grep -q .
tap_check $? "rollback: apt install $name-dkms=$ver-1: back at $ver-1 (DKMS has $ver only)"
grep -E '^(Get|Unpacking|Setting up).*fuse-backport' "$pt_tmp/apt-down.log" | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/apt-down.log"
apt_ purge -y $name-dkms $name-tools > "$pt_tmp/apt-purge.log" 2>&1
[ "$(pt_deb_state $name-dkms)" = not-installed ] && ! dkms status -m $name | grep -q .
tap_check $? "apt purge: nothing of ours left"

tap_done
