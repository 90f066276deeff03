#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signed repositories (make repo, dev/repo.sh) with a throw-away GnuPG
# key, and the rollout steps of the README's runbook against them.
#
# The apt repository's layout: bookworm and trixie in one repository, each
# a stable (<codename>) and a canary (<codename>-canary) distribution, every
# InRelease signed by the key, Origin and Label ours, the arch:all dkms
# package in the arm64 index; hosts (apt-get and apt-cache with sources,
# lists, cache and status of their own in the scratch directory, of amd64
# and arm64) see the newer build on canary first, on stable after make
# repo-promote, and the older again on stable after make repo-rollback; an
# arm64 host with dkms (a stub in its status) takes the arch:all package
# (apt-get install --simulate). The dnf repository's two channels, rpm
# (stable) and rpm-canary, each signed, seen the same way by dnf hosts of
# their own (dnf --installroot, repoquery); make repo-status reports both
# kinds. A repository of the previous release's dev/repo.sh, taken over by
# today's make repo and make repo-promote, serves hosts that keep their
# sources line and baseurl.
#
# apt, in a Debian 12 root (a chroot kept in FB_CACHE/bookworm-repo-root,
# made by debootstrap at the first run: dkms, openssl and the kernel
# headers of bookworm-backports' linux-headers-amd64, with the kernel image
# they depend on), with apt's sources, lists and preferences pointed at a
# directory in the root, so that only our repository is seen: apt update
# checks the Release signature through Signed-By (a wrong key is refused);
# install of the previous package (built from the commit before today's
# PACKAGE_VERSION: 6.12.117+fb2), apt-mark hold and a pin keep it through apt
# upgrade, upgrade to today's product version (its 6.12 module raised by one
# release in this test), rollback with apt install fuse-backport-dkms=<older>. Each step leaves DKMS's fusebp.ko built,
# installed and signed with the root's DKMS key (modinfo signer); in one VM
# booting that kernel the three modules load one after the other. The
# root's uname -r says its kernel (a wrapper in /usr/local/bin) and its /sys
# is a plain directory where the test FAKES a loaded module
# (/sys/module/fusebp/version, srcversion): the postinst's reboot-required
# note after the upgrade (older loaded) and the rollback (newer loaded).
# Central signing: the prebuilt-module .deb of that kernel, signed with an
# operator key on the build side (make kmod-deb SIGN_KEY= SIGN_CERT=),
# published next to the others and installed in the root through the
# flavour's meta package: the module's signer is the operator certificate's,
# and no package of the repository holds a private key.
#
# dnf, with dnf --installroot on a scratch root: the repository's packages
# and repomd.xml are signed (gpgcheck, repo_gpgcheck); install, upgrade,
# downgrade, versionlock (dnf-plugins-core). Stubbed: what our packages
# require (dkms, kernel-devel, bash, make, libc) comes from one empty rpm
# that provides those names, in an unsigned local repository; scriptlets do
# not run (tsflags=noscripts: the scratch root has no shell);
# tests/pkg/rpm.sh runs them. An aarch64 host (dnf --forcearch aarch64, on
# rpm-canary) installs the noarch fuse-backport-dkms. Every dnf run has the
# local plugin (dnf-plugins-core) off, which would keep what it installs
# in /var/lib/dnf/plugins/local and offer it to every later run.
#
# usage: tests/pkg/repo.sh
tap_suite="pkg-repo"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"

root=${FB_CACHE:-/var/cache/fuse-backport}/bookworm-repo-root

pt_cleanup() {
	[ -z "${GNUPGHOME:-}" ] || gpgconf --kill gpg-agent > /dev/null 2>&1
	[ -d "$root/usr" ] || return 0
	pt_root_umount "$root"
	rm -rf "$root/sys/module" "$root/run/reboot-required" "$root/run/reboot-required.pkgs" "$root/srv/fb-repo"
}

# Nothing of the host's dpkg or DKMS is touched: a lock of its own.
pt_lock=${TMPDIR:-/tmp}/fb-pkg-repo.lock
pt_init "signed repositories" aptly createrepo_c rpmsign gpg apt-get dpkg-buildpackage rpmbuild debootstrap openssl
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

# --- the Debian 12 root (apt's part is below) -----------------------------------
a=/srv/fb-apt
vmdir=${FB_OUT:-/tmp/fb-vm}/pkg-repo
in_root() { sh "$top/dev/chroot.sh" run "$root" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# DPkg::Path: apt runs dpkg with PATH=/usr/sbin:/usr/bin:/sbin:/bin, which
# would hide the root's uname wrapper from the maintainer scripts.
apt_() {
	in_root apt-get -q -o DPkg::Path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		-o Dir::Etc::SourceList=$a/sources.list -o Dir::Etc::SourceParts=$a/none \
		-o Dir::State::Lists=$a/lists -o Dir::Etc::Preferences=$a/preferences \
		-o Dir::Etc::PreferencesParts=$a/none -o APT::Sandbox::User=root "$@"
}
# shellcheck disable=SC2016 # a dpkg-query format
v_() { in_root dpkg-query -W -f '${Version}' "$1" 2> /dev/null; }
mounts() { sh dev/chroot.sh mount "$root"; }
# The root: bookworm minbase, dkms, openssl (DKMS makes its MOK with it) and
# one kernel's headers: bookworm-backports' linux-headers-amd64 (6.12), no
# recommends (dkms's would pull a second kernel's). A copy of the cached
# bookworm root (dev/chroot.sh: the host's sources and
# bookworm-backports, the host's apt cache hard-linked in), made first if
# need be.
if [ ! -x "$root/usr/sbin/dkms" ] || [ ! -f "$root/etc/fb-test-kernel" ]; then
	pt_cleanup
	sh dev/chroot.sh copy bookworm "$root" --no-recommends dkms openssl linux-headers-amd64/bookworm-backports \
		> "$pt_tmp/root.log" 2>&1
	rc=$?
	rk=$(cd "$root/lib/modules" 2> /dev/null && for d in *; do [ -e "$d/build/include" ] && echo "$d"; done)
	[ $rc = 0 ] && [ "$(echo "$rk" | grep -c .)" = 1 ]
	rc=$?
	tap_check $rc "a Debian 12 root with dkms and one kernel's headers (${rk:-none}) (dev/chroot.sh)"
	if [ $rc != 0 ]; then
		pt_log "$pt_tmp/root.log"
		pt_cleanup
		rm -rf --one-file-system "$root"
		tap_done
		exit
	fi
	# uname -r in the root says its kernel: the one the postinst (and dkms)
	# takes for the running one, the one of the fake /sys/module.
	echo "$rk" > "$root/etc/fb-test-kernel"
	printf '#!/bin/sh\n[ "$*" = -r ] && exec cat /etc/fb-test-kernel\nexec /bin/uname "$@"\n' > "$root/usr/local/bin/uname"
	chmod 755 "$root/usr/local/bin/uname"
fi
mounts
rk=$(cat "$root/etc/fb-test-kernel")
# shellcheck disable=SC2016 # a dpkg-query format
tap_diag "Debian 12 root: dkms $(in_root dpkg-query -W -f '${Version}' dkms), kernel headers $rk"

# The two builds: the previous package (b1, from the commit before today's
# PACKAGE_VERSION, pt_prev_commit: 6.12.117+fb2) and today's product version
# (b2, from the tracked files) with base 6.12's FB_RELEASE raised by one in
# the scratch copy, so that the upgrade changes the module (and the reboot
# note has a newer module to point at): module versions m1 and m2.
build() { # DIR prev|cur
	mkdir -p "$1/src"
	if [ "$2" = prev ]; then
		c=$(pt_prev_commit) && [ -n "$c" ] && git archive "$c" | tar -C "$1/src" -xf - || return 1
	else
		git ls-files | while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done > "$1/list"
		tar -cf - -T "$1/list" | tar -C "$1/src" -xf -
		r=$(sed -n 's/^FB_RELEASE=//p' "$1/src/backports/6.12/pin")
		sed -i "s/^FB_RELEASE=.*/FB_RELEASE=$((r + 1))/" "$1/src/backports/6.12/pin"
	fi
	(cd "$1/src" && git init -q && git add -A && git -c user.name=t -c user.email=t@t.invalid commit -q -m "$2") || return 1
	OUT=$1/pkg LINTIAN=0 RPMLINT=0 sh "$(pt_dev "$1/src" pkg-deb.sh)" > "$1/deb.log" 2>&1 &&
		OUT=$1/pkg RPMLINT=0 sh "$(pt_dev "$1/src" pkg-rpm.sh)" > "$1/rpm.log" 2>&1
}
build "$pt_tmp/b1" prev
rc=$?
build "$pt_tmp/b2" cur
rc=$((rc + $?))
v1=$(kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" 2>/dev/null && echo "$PACKAGE_VERSION"' _ "$pt_tmp/b1/src")
v2=$ver
# m1: the previous build's module version, from its 6.12 pin (the product
# version in a revision from before the modules had versions of their own)
m1=$v1
if [ -f "$pt_tmp/b1/src/backports/6.12/pin" ]; then
	m1=$(sed -n 's/^UPSTREAM_VERSION=//p' "$pt_tmp/b1/src/backports/6.12/pin")+fb$(sed -n 's/^FB_RELEASE=//p' "$pt_tmp/b1/src/backports/6.12/pin")
fi
m2=$(sed -n 's/^UPSTREAM_VERSION=//p' "$pt_tmp/b2/src/backports/6.12/pin")+fb$(sed -n 's/^FB_RELEASE=//p' "$pt_tmp/b2/src/backports/6.12/pin")
ls "$pt_tmp"/b1/pkg/*.deb "$pt_tmp"/b2/pkg/*.deb "$pt_tmp"/b1/pkg/*.rpm "$pt_tmp"/b2/pkg/*.rpm > "$pt_tmp/built" 2> /dev/null
[ $rc = 0 ] && [ "$(grep -c -v dbgsym "$pt_tmp/built")" = 8 ]
tap_check $? "builds $v1 (the previous package, module $m1) and $v2 (module $m2 in this test): .deb and .rpm of $name-dkms and $name-tools"
[ $rc = 0 ] || { pt_log "$pt_tmp/b2/deb.log"; pt_log "$pt_tmp/b2/rpm.log"; }

# --- central signing: the operator's module key stays on the build side -----------
# The prebuilt modules of the root's kernel, signed with a throw-away
# "fleet" key made here (make kmod-deb SIGN_KEY= SIGN_CERT=), published with
# the older build: hosts install them from the repository and get no key.
kmod=""
keyline=""
if [ -f "/lib/modules/$rk/build/.config" ]; then
	mkdir -p "$pt_tmp/fleet"
	openssl req -new -x509 -nodes -days 2 -subj "/CN=fuse-backport test fleet key" -newkey rsa:2048 \
		-keyout "$pt_tmp/fleet/key.pem" -outform DER -out "$pt_tmp/fleet/cert.der" > /dev/null 2>&1
	keyline=$(sed -n 2p "$pt_tmp/fleet/key.pem")
	make -s import > "$pt_tmp/import.log" 2>&1 &&
		OUT=$pt_tmp/b1/pkg SIGN_KEY=$pt_tmp/fleet/key.pem SIGN_CERT=$pt_tmp/fleet/cert.der \
			sh dev/kmod-deb.sh "$rk" > "$pt_tmp/kmod.log" 2>&1
	rc=$?
	rm -rf "$pt_tmp/b1/pkg/kmod-work"
	[ $rc = 0 ] && [ -f "$pt_tmp/b1/pkg/$name-modules-${rk}_$v2-1_amd64.deb" ] && kmod=1
	tap_check $rc "make kmod-deb KVER=$rk SIGN_KEY=<fleet key> SIGN_CERT=<fleet cert>, on the build side"
	[ $rc = 0 ] || pt_log "$pt_tmp/kmod.log"
else
	tap_skip "the prebuilt modules signed centrally" "no headers of $rk on this host (linux-headers-$rk)"
fi

# --- make repo, twice, and the channels -------------------------------------------
# The first build goes to canary and is promoted to stable; the second goes
# to canary only. Both codenames (bookworm, trixie) in the one repository,
# each a stable (<codename>) and a canary (<codename>-canary) distribution.
repo=$pt_tmp/repo
rk_() { REPO_KEY=$fpr OUT=$repo sh dev/repo.sh "$@"; }
REPO_KEY=$fpr PKG=$pt_tmp/b1/pkg OUT=$repo sh dev/repo.sh > "$pt_tmp/repo1.log" 2>&1 &&
	rk_ promote > "$pt_tmp/promote1.log" 2>&1 &&
	REPO_KEY=$fpr PKG=$pt_tmp/b2/pkg OUT=$repo sh dev/repo.sh > "$pt_tmp/repo2.log" 2>&1
rc=$?
tap_check $rc "make repo with $v1's packages, make repo-promote, then make repo with $v2's"
[ $rc = 0 ] || { pt_log "$pt_tmp/repo1.log"; pt_log "$pt_tmp/promote1.log"; pt_log "$pt_tmp/repo2.log"; }
grep -h -e ' serves ' "$pt_tmp/repo1.log" "$pt_tmp/promote1.log" "$pt_tmp/repo2.log" | sed 's/^/# /'
n=$(grep -c "^Package: $name-dkms$" "$repo/apt/dists/bookworm-canary/main/binary-amd64/Packages" 2> /dev/null)
[ -f "$repo/apt/dists/bookworm-canary/InRelease" ] && [ "$n" = 2 ]
tap_check $? "apt: bookworm-canary's InRelease there, both versions of $name-dkms in its Packages ($n)"
# Every distribution's InRelease verifies with the published key (gpgv:
# nothing but that key), and says our Origin and Label.
gpg --batch --export "$fpr" > "$pt_tmp/pub.gpg"
bad=""
for d in bookworm trixie bookworm-canary trixie-canary; do
	r=$repo/apt/dists/$d/InRelease
	gpgv --keyring "$pt_tmp/pub.gpg" "$r" > /dev/null 2>&1 &&
		gpgv --keyring "$repo/fuse-backport.gpg" "$r" > /dev/null 2>&1 || bad="$bad $d"
done
[ -z "$bad" ]
tap_check $? "apt: bookworm, trixie, bookworm-canary and trixie-canary served from one repository, each InRelease signed by our key${bad:+ (missing or not signed:$bad)}"
bad=""
for d in bookworm trixie bookworm-canary trixie-canary; do
	grep -q -x 'Origin: fuse-backport' "$repo/apt/dists/$d/Release" 2> /dev/null &&
		grep -q -x 'Label: fuse-backport' "$repo/apt/dists/$d/Release" || bad="$bad $d"
done
ol=$(grep -E '^(Origin|Label):' "$repo/apt/dists/bookworm/Release" 2> /dev/null | tr '\n' ' ')
[ -z "$bad" ]
tap_check $? "apt: Origin: fuse-backport and Label: fuse-backport in every Release${bad:+ (not in:$bad; bookworm has: $ol)}"
bad=""
for d in bookworm trixie bookworm-canary trixie-canary; do
	grep -q "^Package: $name-dkms$" "$repo/apt/dists/$d/main/binary-arm64/Packages" 2> /dev/null || bad="$bad $d"
done
[ -z "$bad" ]
tap_check $? "apt: the arch:all $name-dkms in every distribution's arm64 index${bad:+ (not in:$bad)}"

# Hosts, as apt sees them: apt-get and apt-cache with sources, lists,
# cache, status and preferences of their own in the scratch directory
# (nothing of this machine's apt is read or written), one codename and
# channel each, Signed-By the published key.
host_() { # DIR ARCH DIST: a host of ARCH whose one source is DIST
	mkdir -p "$1/lists/partial" "$1/cache/archives/partial" "$1/none"
	: > "$1/status"
	: > "$1/preferences"
	echo "$2" > "$1/arch"
	echo "deb [signed-by=$repo/fuse-backport.gpg] file:$repo/apt $3 main" > "$1/sources.list"
}
hapt_() { # DIR apt-get|apt-cache ARGS...
	hd_=$1 hc_=$2
	shift 2
	"$hc_" -q -o Dir::Etc::SourceList="$hd_/sources.list" -o Dir::Etc::SourceParts="$hd_/none" \
		-o Dir::State::Lists="$hd_/lists" -o Dir::State::Status="$hd_/status" -o Dir::Cache="$hd_/cache" \
		-o Dir::Etc::Preferences="$hd_/preferences" -o Dir::Etc::PreferencesParts="$hd_/none" \
		-o APT::Architecture="$(cat "$hd_/arch")" -o APT::Architectures="$(cat "$hd_/arch")" \
		-o APT::Sandbox::User=root "$@"
}
cand_() { # DIR: apt update, then the candidate of the dkms package
	hapt_ "$1" apt-get update > "$1/update.log" 2>&1 || { echo "update-failed"; return; }
	grep -q -e '^W:' -e '^E:' "$1/update.log" && { echo "update-warned"; return; }
	hapt_ "$1" apt-cache policy "$name-dkms" 2> /dev/null | sed -n 's/^ *Candidate: //p'
}
h=$pt_tmp/hosts
host_ "$h/arm64" arm64 trixie
c=$(cand_ "$h/arm64")
# the release line of the repository's index (the first, a=now, is dpkg's status)
rel=$(hapt_ "$h/arm64" apt-cache policy 2> /dev/null | sed -n 's/^ *release \(.*\)/\1/p' | grep -v -x 'a=now' | head -n 1)
[ "$c" = "$v1-1" ] && echo "$rel" | grep -q 'o=fuse-backport,.*l=fuse-backport'
tap_check $? "an arm64 host on trixie (stable): apt update, $name-dkms's candidate ${c:-none} (want $v1-1); apt sees ${rel:-no release}"
[ "$c" = "$v1-1" ] || pt_log "$h/arm64/update.log"
# That host, with dkms installed (a stub in its dpkg status, as Debian's
# own repository would give it): apt-get install --simulate takes the
# arch:all package from our repository, Origin fuse-backport, suite trixie.
printf 'Package: dkms\nStatus: install ok installed\nPriority: optional\nSection: kernel\nMaintainer: stub <stub@fuse-backport.invalid>\nArchitecture: all\nVersion: 3.0.10-8+deb12u1\nDescription: stub\n\n' > "$h/arm64/status"
hapt_ "$h/arm64" apt-get install --simulate "$name-dkms" > "$h/arm64/sim.log" 2>&1
rc=$?
l=$(grep "^Inst $name-dkms " "$h/arm64/sim.log")
[ $rc = 0 ] && [ "$l" = "Inst $name-dkms ($v1-1 fuse-backport:trixie [all])" ]
tap_check $? "the arm64 host, with dkms: apt-get install --simulate $name-dkms takes the arch:all package from our repository (${l:-no Inst line})"
[ -n "$l" ] || pt_log "$h/arm64/sim.log"
tap_diag "$name-tools on arm64: candidate $(hapt_ "$h/arm64" apt-cache policy "$name-tools" 2> /dev/null | sed -n 's/^ *Candidate: //p' | grep . || echo none) (no arm64 build)"
for cn in bookworm trixie; do
	host_ "$h/$cn-stable" amd64 "$cn"
	host_ "$h/$cn-canary" amd64 "$cn-canary"
done
chan_() { # WHEN: each channel's candidate on both codenames, one line
	for x in bookworm-stable trixie-stable bookworm-canary trixie-canary; do
		printf '%s=%s ' "$x" "$(cand_ "$h/$x")"
	done
}
# dnf hosts: a repository file, cache and root of their own in the scratch
# directory (dnf --installroot), one channel each: rpm (stable) or
# rpm-canary. The local plugin (dnf-plugins-core) is off: it would copy
# what dnf installs to /var/lib/dnf/plugins/local and serve it to every
# later run as one more repository.
dhost_() { # DIR CHANNEL: a dnf host whose one repository is OUT/CHANNEL
	mkdir -p "$1/repos" "$1/root"
	printf '[fuse-backport]\nname=fuse-backport\nbaseurl=file://%s/%s\ngpgcheck=1\nrepo_gpgcheck=1\ngpgkey=file://%s/RPM-GPG-KEY-fuse-backport\n' \
		"$repo" "$2" "$repo" > "$1/repos/fb.repo"
	printf '[main]\nreposdir=%s\ncachedir=%s\ntsflags=noscripts\ninstall_weak_deps=0\n' "$1/repos" "$1/cache" > "$1/dnf.conf"
}
dcand_() { # DIR: the newest $name-dkms the host's channel has (its metadata read afresh:
	# --refresh; the cache is under the installroot, $1/root$1/cache)
	dnf -y -q -c "$1/dnf.conf" --installroot="$1/root" --releasever=12 --disableplugin=local --refresh \
		repoquery --latest-limit 1 --qf '%{version}' "$name-dkms" 2> "$1/query.log" || echo "query-failed"
}
dchan_() { # WANT-STABLE WANT-CANARY WHEN: both dnf channels' newest $name-dkms
	if ! command -v dnf > /dev/null; then
		tap_skip "dnf: $3" "no dnf (apt install dnf)"
		return 0
	fi
	c=$(printf 'rpm=%s rpm-canary=%s' "$(dcand_ "$h/dnf-stable")" "$(dcand_ "$h/dnf-canary")")
	[ "$c" = "rpm=$1 rpm-canary=$2" ]
	tap_check $? "dnf: $3 ($c)"
	[ "$c" = "rpm=$1 rpm-canary=$2" ] || pt_log "$h/dnf-canary/query.log"
}
dhost_ "$h/dnf-stable" rpm
dhost_ "$h/dnf-canary" rpm-canary
c=$(chan_)
[ "$c" = "bookworm-stable=$v1-1 trixie-stable=$v1-1 bookworm-canary=$v2-1 trixie-canary=$v2-1 " ]
tap_check $? "before promote: stable hosts see $v1-1, canary hosts $v2-1 ($c)"
dchan_ "$v1" "$v2" "before promote: hosts of rpm (stable) see $v1, of rpm-canary $v2"
rk_ promote > "$pt_tmp/promote2.log" 2>&1
rc=$?
c=$(chan_)
[ $rc = 0 ] && [ "$c" = "bookworm-stable=$v2-1 trixie-stable=$v2-1 bookworm-canary=$v2-1 trixie-canary=$v2-1 " ]
tap_check $? "make repo-promote: stable hosts see $v2-1 ($c)"
dchan_ "$v2" "$v2" "make repo-promote: hosts of rpm (stable) see $v2 too"
[ $rc = 0 ] || pt_log "$pt_tmp/promote2.log"
grep -h -e ' serves ' -e ' back at ' "$pt_tmp/promote2.log" | sed 's/^/# /'
rk_ rollback > "$pt_tmp/rollback.log" 2>&1
rc=$?
c=$(chan_)
n=$(grep -c "^Package: $name-dkms$" "$repo/apt/dists/bookworm/main/binary-amd64/Packages" 2> /dev/null)
[ $rc = 0 ] && [ "$c" = "bookworm-stable=$v1-1 trixie-stable=$v1-1 bookworm-canary=$v2-1 trixie-canary=$v2-1 " ] &&
	[ "$n" = 1 ] && gpgv --keyring "$repo/fuse-backport.gpg" "$repo/apt/dists/bookworm/InRelease" > /dev/null 2>&1
tap_check $? "make repo-rollback: stable back at the previous snapshot, its hosts see $v1-1 (stable's Packages: $n version), canary keeps $v2-1, InRelease signed ($c)"
dchan_ "$v1" "$v2" "make repo-rollback: hosts of rpm (stable) see $v1 again, of rpm-canary $v2"
[ $rc = 0 ] || pt_log "$pt_tmp/rollback.log"
grep -h -e ' serves ' -e ' back at ' "$pt_tmp/rollback.log" | sed 's/^/# /'
rk_ status > "$pt_tmp/status.log" 2>&1
l=$(grep "^repo: apt: trixie-canary: fb-2 (" "$pt_tmp/status.log")
grep -q "^repo: apt: bookworm: fb-1 (fuse-backport-dkms $v1-1)$" "$pt_tmp/status.log" &&
	echo "$l" | grep -q " $v2-1[ )]" && echo "$l" | grep -q " $v1-1[ )]"
tap_check $? "make repo-status after the rollback: stable serves fb-1 ($v1-1), canary fb-2 ($v2-1 and $v1-1)"
l=$(grep "^repo: dnf: rpm-canary: fb-2 (" "$pt_tmp/status.log")
grep -q "^repo: dnf: rpm: fb-1 (fuse-backport-dkms $v1-[^ ]*)$" "$pt_tmp/status.log" &&
	echo "$l" | grep -q " $v2-" && echo "$l" | grep -q " $v1-"
tap_check $? "make repo-status after the rollback, dnf: rpm (stable) serves fb-1 ($v1), rpm-canary fb-2 ($v2 and $v1)"
sed 's/^/# /' "$pt_tmp/status.log"
# Stable serves the newer build again for the runbook's steps below (both
# versions are in that snapshot: the local repository keeps every one).
rk_ promote > "$pt_tmp/promote3.log" 2>&1
rc=$?
n=$(grep -c "^Package: $name-dkms$" "$repo/apt/dists/bookworm/main/binary-amd64/Packages" 2> /dev/null)
[ $rc = 0 ] && [ "$n" = 2 ]
tap_check $? "make repo-promote again: stable (bookworm) serves both versions of $name-dkms ($n)"
[ $rc = 0 ] || pt_log "$pt_tmp/promote3.log"
grep -h -e ' serves ' -e ' back at ' "$pt_tmp/promote3.log" | sed 's/^/# /'
# A repository of the previous release's dev/repo.sh (b1's own), taken
# over: it publishes b1's packages, today's publishes b2's into the same
# OUT and promotes. Hosts keep their sources line (bookworm) and baseurl
# (rpm/): they see $v2, each distribution and channel from a snapshot.
old=$pt_tmp/repo-old
REPO_KEY=$fpr PKG=$pt_tmp/b1/pkg OUT=$old sh "$(pt_dev "$pt_tmp/b1/src" repo.sh)" > "$pt_tmp/old1.log" 2>&1 &&
	REPO_KEY=$fpr PKG=$pt_tmp/b2/pkg OUT=$old sh dev/repo.sh > "$pt_tmp/old2.log" 2>&1 &&
	REPO_KEY=$fpr OUT=$old sh dev/repo.sh promote > "$pt_tmp/old3.log" 2>&1 &&
	OUT=$old sh dev/repo.sh status > "$pt_tmp/old-status.log" 2>&1
rc=$?
repo_=$repo
repo=$old
host_ "$h/old-bookworm" amd64 bookworm
dhost_ "$h/old-rpm" rpm
repo=$repo_
c="bookworm=$(cand_ "$h/old-bookworm")"
want="bookworm=$v2-1"
if command -v dnf > /dev/null; then
	c="$c rpm=$(dcand_ "$h/old-rpm")"
	want="$want rpm=$v2"
fi
n=$(grep -c -e '^repo: apt: bookworm: fb-[0-9]* (' -e '^repo: dnf: rpm: fb-[0-9]* (' "$pt_tmp/old-status.log")
[ $rc = 0 ] && [ "$c" = "$want" ] && [ "$n" = 2 ]
tap_check $? "a repository of the previous release's dev/repo.sh, then make repo and make repo-promote: hosts of its bookworm and rpm/ see $v2 ($c), both served from a snapshot (make repo-status)"
[ $rc = 0 ] || { pt_log "$pt_tmp/old1.log"; pt_log "$pt_tmp/old2.log"; pt_log "$pt_tmp/old3.log"; }
grep -e '^repo: apt: bookworm:' -e '^repo: dnf: rpm:' "$pt_tmp/old-status.log" | sed 's/^/# /'
bad=""
for d in rpm rpm-canary; do
	gpg --batch --verify "$repo/$d/repodata/repomd.xml.asc" "$repo/$d/repodata/repomd.xml" > /dev/null 2>&1 &&
		rpm -qp --qf '%{SIGPGP:pgpsig}%{RSAHEADER:pgpsig}\n' "$repo/$d"/$name-dkms-*.rpm 2> /dev/null | grep -q -i "${fpr#????????????????????????}" ||
		bad="$bad $d"
done
[ -z "$bad" ]
tap_check $? "rpm: both dnf channels, rpm (stable) and rpm-canary: repomd.xml.asc verifies, the packages carry our key's signature${bad:+ (not:$bad)}"
# No package of the repository holds a private key (the fleet key's, the
# repository's, DKMS's: any PEM private key, or a line of the fleet key).
bad=""
for f in $(find "$repo/apt/pool" "$repo/rpm" -name '*.deb' -o -name '*.rpm' | sort); do
	case $f in
	*.deb) c() { dpkg-deb --fsys-tarfile "$f" | tar -xOf -; } ;;
	*) c() { rpm2cpio "$f" | cpio -i --quiet --to-stdout 2> /dev/null; } ;;
	esac
	if c | grep -a -q -e 'PRIVATE KEY-----' ${keyline:+-e "$keyline"}; then
		bad="$bad ${f##*/}"
	fi
done
n=$(find "$repo/apt/pool" "$repo/rpm" -name '*.deb' -o -name '*.rpm' | grep -c .)
[ -z "$bad" ] && [ "$n" -ge 8 ]
tap_check $? "no private key in any of the repository's $n packages${bad:+:$bad}"

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
# the stable channel
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
dnf_() { dnf -y -c "$pt_tmp/dnf.conf" --installroot="$pt_tmp/root" --releasever=12 --disableplugin=local "$@"; }
q_() { rpm --root "$pt_tmp/root" -q --qf '%{VERSION}\n' "$1" 2> /dev/null; }
dnf_ install "$name-dkms-$v1" "$name-tools-$v1" > "$pt_tmp/dnf-in.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(q_ $name-dkms)" = "$v1" ] && [ "$(q_ $name-tools)" = "$v1" ]
tap_check $? "dnf --installroot install $name-dkms-$v1 $name-tools-$v1 (gpgcheck, repo_gpgcheck)"
grep -E -i 'Importing GPG key|Installing *:.*fuse-backport|fuse-backport-(dkms|tools)-[0-9]' "$pt_tmp/dnf-in.log" | sort -u | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/dnf-in.log" 15
dnf_ upgrade > "$pt_tmp/dnf-up.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(q_ $name-dkms)" = "$v2" ] && [ "$(q_ $name-tools)" = "$v2" ]
tap_check $? "dnf upgrade: $v1 -> $v2"
grep -E -i 'Upgrading *:.*fuse-backport|Upgraded:|fuse-backport-(dkms|tools)-[0-9]' "$pt_tmp/dnf-up.log" | sort -u | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/dnf-up.log" 15
dnf_ downgrade "$name-dkms-$v1" "$name-tools-$v1" > "$pt_tmp/dnf-down.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(q_ $name-dkms)" = "$v1" ] && [ "$(q_ $name-tools)" = "$v1" ]
tap_check $? "dnf downgrade $name-dkms-$v1: back at $v1"
grep -E -i 'Downgrading *:.*fuse-backport|Downgraded:|fuse-backport-(dkms|tools)-[0-9]' "$pt_tmp/dnf-down.log" | sort -u | sed 's/^/# /'
[ $rc = 0 ] || pt_log "$pt_tmp/dnf-down.log" 15
# versionlock (dnf-plugins-core): its list in the scratch directory, not
# the host's /etc/dnf/plugins.
mkdir -p "$pt_tmp/dnfplugins"
printf '[main]\nenabled = 1\nlocklist = %s\n' "$pt_tmp/versionlock.list" > "$pt_tmp/dnfplugins/versionlock.conf"
: > "$pt_tmp/versionlock.list"
dnfl_() { dnf_ --setopt=pluginconfpath="$pt_tmp/dnfplugins" "$@"; }
if dnfl_ versionlock --help > /dev/null 2>&1; then
	dnfl_ versionlock add $name-dkms > "$pt_tmp/dnf-lock.log" 2>&1
	dnfl_ upgrade >> "$pt_tmp/dnf-lock.log" 2>&1
	# the tools conflict with every other version of the dkms package
	# (lockstep): they stay with it
	[ "$(q_ $name-dkms)" = "$v1" ] && [ "$(q_ $name-tools)" = "$v1" ] && grep -q "$name-dkms" "$pt_tmp/versionlock.list"
	tap_check $? "dnf versionlock add $name-dkms: dnf upgrade leaves it at $v1, and the tools in lockstep ($(q_ $name-tools))"
	sed 's/^/# /' "$pt_tmp/versionlock.list"
	[ "$(q_ $name-dkms)" = "$v1" ] || pt_log "$pt_tmp/dnf-lock.log" 15
	dnfl_ versionlock delete $name-dkms > /dev/null 2>&1
	dnfl_ upgrade > "$pt_tmp/dnf-unlock.log" 2>&1
	[ "$(q_ $name-dkms)" = "$v2" ]
	tap_check $? "dnf versionlock delete $name-dkms: dnf upgrade takes it to $v2"
else
	tap_skip "dnf versionlock" "the versionlock plugin (dnf-plugins-core) is not installed"
fi
# An aarch64 host (dnf --forcearch aarch64) on rpm-canary, with the stub's
# repository: the noarch package installs; the tools have no aarch64 build.
ar=$pt_tmp/aarch64
mkdir -p "$ar/repos" "$ar/root"
sed "s|^baseurl=file://$repo/rpm\$|baseurl=file://$repo/rpm-canary|" "$pt_tmp/yum.repos.d/fb.repo" > "$ar/repos/fb.repo"
printf '[main]\nreposdir=%s\ncachedir=%s\ntsflags=noscripts\ninstall_weak_deps=0\n' "$ar/repos" "$ar/cache" > "$ar/dnf.conf"
dnfa_() { dnf -y -c "$ar/dnf.conf" --installroot="$ar/root" --releasever=12 --disableplugin=local --forcearch aarch64 "$@"; }
dnfa_ install "$name-dkms" > "$ar/install.log" 2>&1
rc=$?
got=$(rpm --root "$ar/root" -q --qf '%{VERSION} %{ARCH}\n' "$name-dkms" 2> /dev/null) || got=""
[ $rc = 0 ] && [ "$got" = "$v2 noarch" ] && grep -q "^baseurl=file://$repo/rpm-canary$" "$ar/repos/fb.repo"
tap_check $? "an aarch64 host (dnf --forcearch aarch64) on rpm-canary: dnf install $name-dkms installs ${got:-nothing} (want $v2 noarch)"
[ $rc = 0 ] || pt_log "$ar/install.log" 15
dnfa_ install --assumeno "$name-tools" > "$ar/tools.log" 2>&1
tap_diag "$name-tools on aarch64: $(grep -m 1 -o 'does not have a compatible architecture\|No match for argument.*' "$ar/tools.log" || echo "resolved (?)")"
}
if command -v dnf > /dev/null; then
	dnf_part
else
	tap_skip "dnf --installroot install, upgrade, downgrade" "no dnf (apt install dnf)"
fi

# --- apt, in the Debian 12 root ------------------------------------------------
# Whatever an interrupted run left in the root goes first.
# shellcheck disable=SC2016 # a dpkg-query format
for p in $(in_root dpkg-query -W -f '${Package}\n' "$name-*" 2> /dev/null); do
	in_root dpkg --purge --force-all "$p" > /dev/null 2>&1
	in_root apt-mark unhold "$p" > /dev/null 2>&1
done
pt_dkms="chroot $root dkms" pt_dkms_remove_all
rm -rf "$root/usr/src/$name"-[0-9]* "$root/sys/module" "$root/run/reboot-required" "$root/run/reboot-required.pkgs"

mkdir -p "$root$a/lists/partial" "$root$a/none" "$root/srv/fb-repo"
cp -a "$repo/." "$root/srv/fb-repo/"
echo "deb [signed-by=/usr/share/keyrings/fuse-backport.gpg] file:/srv/fb-repo/apt bookworm main" > "$root$a/sources.list"
: > "$root$a/preferences"
# A key that did not sign it is refused.
gpg --batch --passphrase '' --quick-gen-key "other <other@fuse-backport.invalid>" rsa3072 sign never > /dev/null 2>&1
gpg --batch --export other@fuse-backport.invalid > "$root/usr/share/keyrings/fuse-backport.gpg"
apt_ update > "$pt_tmp/apt-bad.log" 2>&1
grep -q -e NO_PUBKEY -e 'is not signed' "$pt_tmp/apt-bad.log"
tap_check $? "apt update with another key in Signed-By: refused ($(grep -o -m 1 'NO_PUBKEY [0-9A-F]*\|is not signed' "$pt_tmp/apt-bad.log"))"
rm -rf "$root$a/lists"
mkdir -p "$root$a/lists/partial"
install -m 644 "$repo/fuse-backport.gpg" "$root/usr/share/keyrings/fuse-backport.gpg"
apt_ update > "$pt_tmp/apt-up.log" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q -e '^W:' -e '^E:' "$pt_tmp/apt-up.log"
tap_check $? "apt update with Signed-By our key: no error, no warning"
[ $rc = 0 ] || pt_log "$pt_tmp/apt-up.log"

rm -rf "$vmdir"
mkdir -p "$vmdir"
# step_module LABEL VERSION MODVER: DKMS built and installed VERSION for the
# root's kernel, a module of MODVER, signed with the root's DKMS key; kept
# for the VM as LABEL.
step_module() {
	m=$(find "$root/lib/modules/$rk/updates/dkms" -name 'fusebp.ko*' 2> /dev/null | head -n 1)
	v=$(modinfo -F version "$m" 2> /dev/null)
	sg=$(modinfo -F signer "$m" 2> /dev/null)
	in_root dkms status -m $name -v "$2" -k "$rk" 2> /dev/null | grep -q ': installed' && [ "$v" = "$3" ] &&
		[ -n "$sg" ] && [ "$sg" = "$(pt_cn "$root/var/lib/dkms/mok.pub")" ] && cp "$m" "$vmdir/$1-${m##*/}"
	tap_check $? "$1: fusebp ${v:-missing} (want $3) built and installed by DKMS $name/$2 for $rk, signed (signer: ${sg:-none})"
}
# fake_loaded VERSION: the root's /sys says our fusebp VERSION is loaded
# (the module file of that version as the source of its srcversion).
fake_loaded() {
	mkdir -p "$root/sys/module/fusebp"
	echo "$1" > "$root/sys/module/fusebp/version"
	modinfo -F srcversion "$m" > "$root/sys/module/fusebp/srcversion" 2> /dev/null
}
transcript() { # LOG: the apt and postinst lines worth keeping
	grep -E "^(Get|Preparing to unpack|Unpacking|Setting up).*fuse-backport|^$name-dkms:" "$1" | sed 's/^/# /'
}

apt_ install -y "$name-dkms=$v1-1" "$name-tools=$v1-1" > "$pt_tmp/apt-in.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(v_ $name-dkms)" = "$v1-1" ] && [ "$(v_ $name-tools)" = "$v1-1" ] &&
	! grep -q "$name-dkms: the loaded" "$pt_tmp/apt-in.log"
tap_check $? "apt install $name-dkms=$v1-1 $name-tools=$v1-1 from the repository (nothing loaded: no reboot note)"
transcript "$pt_tmp/apt-in.log"
[ $rc = 0 ] || pt_log "$pt_tmp/apt-in.log" 15
step_module 1-install "$v1" "$m1"
fake_loaded "$m1"
in_root fuse-backport --version > "$pt_tmp/tv" 2>&1
grep -q "$v1" "$pt_tmp/tv"
tap_check $? "fuse-backport --version from the package: $(head -n 1 "$pt_tmp/tv")"

# Staged rollout: hold, then a pin.
in_root apt-mark hold $name-dkms > /dev/null
apt_ upgrade -y > "$pt_tmp/apt-hold.log" 2>&1
# the tools break every other version of the dkms package (lockstep): apt
# keeps them back with it
[ "$(v_ $name-dkms)" = "$v1-1" ] && [ "$(v_ $name-tools)" = "$v1-1" ]
tap_check $? "apt-mark hold $name-dkms: apt upgrade leaves it at $v1-1, and the tools in lockstep ($(v_ $name-tools))"
in_root apt-mark unhold $name-dkms > /dev/null
printf 'Package: %s-dkms\nPin: version %s-1\nPin-Priority: 1001\n' $name "$v1" > "$root$a/preferences"
cand=$(apt_ install -s $name-dkms 2>&1 | sed -n "s/^Inst $name-dkms .*(\([^ ]*\) .*/\1/p")
apt_ upgrade -y > "$pt_tmp/apt-pin.log" 2>&1
[ "$(v_ $name-dkms)" = "$v1-1" ] && [ -z "$cand" ]
tap_check $? "a pin (Pin: version $v1-1, priority 1001): apt upgrade keeps $v1-1"
: > "$root$a/preferences"

apt_ upgrade -y > "$pt_tmp/apt-upg.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(v_ $name-dkms)" = "$v2-1" ] && in_root dkms status -m $name -v "$v2" | grep -q . &&
	! in_root dkms status -m $name -v "$v1" | grep -q .
tap_check $? "apt upgrade: $name-dkms $v1-1 -> $v2-1 (DKMS has $v2 only)"
transcript "$pt_tmp/apt-upg.log"
[ $rc = 0 ] || pt_log "$pt_tmp/apt-upg.log" 15
step_module 2-upgrade "$v2" "$m2"
[ "$(cat "$root/run/reboot-required" 2> /dev/null)" = '*** System restart required ***' ] &&
	[ "$(grep -c -x "$name-dkms" "$root/run/reboot-required.pkgs" 2> /dev/null)" = 1 ] &&
	grep -q "^$name-dkms: the loaded fusebp $m1 is older than the installed $m2" "$pt_tmp/apt-upg.log"
tap_check $? "fusebp $m1 still loaded (fake /sys): the postinst wrote /var/run/reboot-required and .pkgs, one line"
# A reboot: the upgraded module is the loaded one.
rm -f "$root/run/reboot-required" "$root/run/reboot-required.pkgs"
fake_loaded "$m2"

apt_ install -y --allow-downgrades "$name-dkms=$v1-1" "$name-tools=$v1-1" > "$pt_tmp/apt-down.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(v_ $name-dkms)" = "$v1-1" ] && [ "$(v_ $name-tools)" = "$v1-1" ] &&
	in_root dkms status -m $name -v "$v1" | grep -q . && ! in_root dkms status -m $name -v "$v2" | grep -q .
tap_check $? "rollback: apt install $name-dkms=$v1-1: back at $v1-1 (DKMS has $v1 only)"
transcript "$pt_tmp/apt-down.log"
[ $rc = 0 ] || pt_log "$pt_tmp/apt-down.log" 15
step_module 3-rollback "$v1" "$m1"
[ -f "$root/run/reboot-required" ] &&
	grep -q "^$name-dkms: the loaded fusebp $m2 is newer than the installed $m1" "$pt_tmp/apt-down.log"
tap_check $? "fusebp $m2 loaded: the rollback's postinst asks for a reboot too"
rm -rf "$root/sys/module" "$root/run/reboot-required" "$root/run/reboot-required.pkgs"

apt_ purge -y $name-dkms $name-tools > "$pt_tmp/apt-purge.log" 2>&1
[ "$(v_ $name-dkms)" = "" ] && ! in_root dkms status -m $name | grep -q . &&
	[ -z "$(find "$root/lib/modules/$rk" -name 'fusebp.ko*' 2> /dev/null)" ]
tap_check $? "apt purge: nothing of ours left"

# --- central signing: the prebuilt modules, signed on the build side -------------
if [ -n "$kmod" ]; then
	flavour=$(echo "$rk" | sed 's/^[0-9][^-]*-\([0-9][0-9]*-\)\{0,1\}//')
	apt_ install -y "$name-modules-$flavour" > "$pt_tmp/apt-kmod.log" 2>&1
	rc=$?
	f=$(in_root modinfo -k "$rk" -F filename fusebp 2> /dev/null)
	sg=$(modinfo -F signer "$root$f" 2> /dev/null)
	[ $rc = 0 ] && [ "$(v_ "$name-modules-$rk")" = "$v2-1" ] && [ "$sg" = "fuse-backport test fleet key" ]
	tap_check $? "apt install $name-modules-$flavour: $name-modules-$rk, $f signed by the operator's certificate (signer: ${sg:-none})"
	transcript "$pt_tmp/apt-kmod.log"
	[ $rc = 0 ] || pt_log "$pt_tmp/apt-kmod.log" 15
	keys=""
	for p in "$name-modules-$rk" "$name-modules-$flavour" "$name-modules-common"; do
		for x in $(in_root dpkg -L "$p" 2> /dev/null); do
			[ -f "$root$x" ] || continue
			case $x in *.key | *.pem | *.priv | *.p12 | *.p8) keys="$keys $x" ;; esac
			grep -a -q -e 'PRIVATE KEY-----' -e "$keyline" "$root$x" && keys="$keys $x"
		done
	done
	[ -z "$keys" ]
	tap_check $? "the host got no key: no file of the three packages (with $name-modules-common) is or holds a private key${keys:+ ($keys)}"
	apt_ purge -y "$name-modules-$flavour" "$name-modules-$rk" "$name-modules-common" > /dev/null 2>&1
fi

# --- the modules of the three steps load, in one VM booting the root's kernel ----
if [ "${FB_PKG_VM:-1}" = 0 ] || ! command -v vng > /dev/null; then
	tap_skip "the modules of install, upgrade and rollback load in a VM" "FB_PKG_VM=0 or no virtme-ng"
else
	out=$(sh tests/vm/boot.sh --kver "$rk" --timeout 900 --log "$pt_tmp/vm.log" -- \
		sh -c "for f in $vmdir/[123]-*; do insmod \$f && cat /sys/module/fusebp/version && rmmod fusebp; done" 2>&1)
	[ "$(echo "$out" | grep -x -e "$m1" -e "$m2" | tr '\n' ' ')" = "$m1 $m2 $m1 " ]
	tap_check $? "in a VM booting $rk: the modules of install, upgrade and rollback load ($(echo "$out" | grep -x -e "$m1" -e "$m2" | tr '\n' ' '))"
	echo "$out" | grep -q -x "$m2" || echo "$out" | tail -n 5 | sed 's/^/#   /'
fi
rm -rf "$vmdir"

tap_done
