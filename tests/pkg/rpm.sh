#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The DKMS rpm: built from a clean tree with rpmbuild (rpmlint clean), the
# generated tree under /usr/src/fuse-backport-<ver>/, the Fedora/EPEL DKMS
# scriptlets; then the scriptlets run for real with this host's dkms: the
# rpm is installed into / with a throw-away rpm database (the host's dpkg
# and Debian's dkms stay the package managers of record), which must build
# and install the module for the newest kernel with headers, and erased,
# which must leave nothing. Its load of the renamed module at boot
# (modules-load.d, scripts/load-renamed.sh) on this host's kernel.
#
# usage: tests/pkg/rpm.sh
tap_suite="pkg-rpm"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"


pt_cleanup() {
	if [ -n "${rpmdb:-}" ] && rpm --dbpath "$rpmdb" -q $name-dkms > /dev/null 2>&1; then
		rpm --dbpath "$rpmdb" -e --nodeps $name-dkms > /dev/null 2>&1
	fi
	pt_dkms_remove_all
	[ "$(pt_deb_state $name-dkms)" = not-installed ] && rm -rf /usr/src/$name-[0-9]*
}

pt_init "$name-dkms rpm" rpmbuild rpm dkms
ver=$(pt_version)

OUT=$pt_tmp/out sh dev/pkg-rpm.sh > "$pt_tmp/build.log" 2>&1
rc=$?
lint="rpmlint clean"
command -v rpmlint > /dev/null || lint="no rpmlint here"
tap_check $rc "make rpm: $name-dkms $ver built from the tracked files, $lint"
[ $rc = 0 ] || pt_log "$pt_tmp/build.log" 20
rpmf=""
for f in "$pt_tmp/out/$name-dkms-$ver"-*.noarch.rpm; do
	[ -f "$f" ] && rpmf=$f
done
if [ -z "$rpmf" ]; then
	tap_diag "no rpm: nothing more to test"
	tap_done
	exit
fi

q() { rpm -qp "$@" "$rpmf" 2> /dev/null; }
[ "$(q --qf '%{ARCH}')" = noarch ] && [ "$(q --qf '%{VERSION}')" = "$ver" ] && [ "$(q --qf '%{RELEASE}')" = 1.el10 ]
tap_check $? "noarch, Version $(q --qf '%{VERSION}-%{RELEASE}') follows PACKAGE_VERSION $ver, Release with EL 10's %{dist}"
q -R | grep -q '^dkms' && ! q -R | grep -q '^perl('
tap_check $? "requires dkms, and nothing found by scanning the source tree: $(q -R | grep -v rpmlib | sort -u | tr '\n' ' ')"

trpm=""
for f in "$pt_tmp/out/fuse-backport-tools-$ver"-*.rpm; do
	[ -f "$f" ] && trpm=$f
done
rel=$(q --qf '%{RELEASE}')
conf=$(rpm -qp --conflicts "$trpm" 2> /dev/null | sort | tr '\n' ';')
[ -n "$trpm" ] && [ "$conf" = "$name-dkms < $ver-$rel;$name-dkms > $ver-$rel;" ]
tap_check $? "fuse-backport-tools conflicts with every other version of $name-dkms (lockstep): ${conf:-none}"
# Debian's rpm macros give no hardening flags: tools/Makefile adds them.
mkdir -p "$pt_tmp/tools-rpm"
(cd "$pt_tmp/tools-rpm" && rpm2cpio "$trpm" | cpio -idm --quiet) 2> /dev/null
lacks=$(pt_hardened "$pt_tmp/tools-rpm/usr/bin/fuse-backport")
[ -f "$pt_tmp/tools-rpm/usr/bin/fuse-backport" ] && [ -z "$lacks" ]
tap_check $? "the tools rpm's /usr/bin/fuse-backport is hardened: bind-now, pie, relro, stack protector, fortify${lacks:+ (lacks: $lacks)}"
# The settings (TAKEOVER, FB_PREFIX, which dkms.conf reads): the package's
# defaults in /usr/lib/fuse-backport, FB_PREFIX named at its default; the
# admin's /etc/fuse-backport/fuse-backport.conf owned but never shipped
# (%ghost %config(noreplace): an upgrade neither replaces nor saves it
# aside).
cflags=$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$trpm" 2> /dev/null | sed -n 's| /etc/fuse-backport/fuse-backport.conf$||p')
case $cflags in *c*) true ;; *) false ;; esac && case $cflags in *n*) true ;; *) false ;; esac &&
	case $cflags in *g*) true ;; *) false ;; esac && [ ! -e "$pt_tmp/tools-rpm/etc/fuse-backport/fuse-backport.conf" ] &&
	grep -qx '#FB_PREFIX=fusebp' "$pt_tmp/tools-rpm/usr/lib/fuse-backport/fuse-backport.conf" &&
	grep -qx 'TAKEOVER=yes' "$pt_tmp/tools-rpm/usr/lib/fuse-backport/fuse-backport.conf"
tap_check $? "the tools rpm's defaults in /usr/lib/fuse-backport/fuse-backport.conf (TAKEOVER=yes, #FB_PREFIX=fusebp); /etc/fuse-backport/fuse-backport.conf %ghost %config(noreplace), not shipped (flags: ${cflags:-none})"

# The takeover unit: the package's preset enables it; %post presets it on
# a first install only; the trigger on an upgrade from a release without
# the unit (before 2026.12.3) presets it once and says so in one line.
# Each scriptlet run with a systemctl stub that logs its calls.
rpm -qp --requires "$trpm" 2> /dev/null | grep -qx 'kmod'
tap_check $? "the tools rpm requires kmod (modprobe, modinfo)"
mkdir -p "$pt_tmp/tbin"
printf '#!/bin/sh\necho "$*" >> "%s"\n' "$pt_tmp/systemctl.log" > "$pt_tmp/tbin/systemctl"
chmod +x "$pt_tmp/tbin/systemctl"
rpm -qp --qf '%{POSTIN}' "$trpm" > "$pt_tmp/tpost" 2> /dev/null
rpm -qp --qf '[%{TRIGGERSCRIPTS}\n]' "$trpm" > "$pt_tmp/ttrig" 2> /dev/null
trig=$(rpm -qp --triggers "$trpm" 2> /dev/null | head -n 1)
# tsc SCRIPT ARG...: the scriptlet run; its systemctl calls, a line each joined by |
tsc() {
	: > "$pt_tmp/systemctl.log"
	tsc_out=$(PATH="$pt_tmp/tbin:$PATH" sh "$@" 2>&1)
	tsc_calls=$(tr '\n' '|' < "$pt_tmp/systemctl.log")
}
tsc "$pt_tmp/tpost" 1
c1=$tsc_calls
tsc "$pt_tmp/tpost" 2
c2=$tsc_calls
tsc "$pt_tmp/ttrig" 1 1
[ "$(cat "$pt_tmp/tools-rpm/usr/lib/systemd/system-preset/50-fuse-backport.preset" 2> /dev/null)" = 'enable fuse-backport-takeover.service' ] &&
	[ -f "$pt_tmp/tools-rpm/usr/lib/systemd/system/fuse-backport-prometheus.timer" ] &&
	[ -f "$pt_tmp/tools-rpm/usr/lib/systemd/system/fuse-backport-takeover.service" ] &&
	case $c1 in *"preset fuse-backport-takeover.service"*) true ;; *) false ;; esac &&
	[ -z "$c2" ] &&
	case $trig in *"fuse-backport-tools < 2026.12.3"*) true ;; *) false ;; esac &&
	case $tsc_calls in *"preset fuse-backport-takeover.service"*) true ;; *) false ;; esac &&
	[ "$(echo "$tsc_out" | grep -c .)" = 1 ] && case $tsc_out in *"TAKEOVER=no"*) true ;; *) false ;; esac
tap_check $? "the tools rpm's units in /usr/lib/systemd/system (the metrics timer too, which the preset leaves off), the takeover's enabled by its preset: %post presets it on a first install (${c1:-nothing}), not on an upgrade (${c2:-nothing}); $trig presets it (${tsc_calls:-nothing}) with one line"
tap_diag "$tsc_out"
# %pre on an upgrade from a release that shipped /etc/fuse-backport/
# fuse-backport.conf (2026.12.5's copy, from git, unchanged: it goes; the
# same with the admin's TAKEOVER=no: it stays), on a tmpfs of a mount
# namespace over /etc/fuse-backport.
rpm -qp --qf '%{PREIN}' "$trpm" > "$pt_tmp/tpre" 2> /dev/null
cfrom=2026.12.5
git -C "$top" show 2f003de:tools/fuse-backport.conf > "$pt_tmp/conf125" 2> /dev/null ||
	{ cp "$top/tools/fuse-backport.conf" "$pt_tmp/conf125" && cfrom="this release (no 2026.12.5 in a shallow clone)"; }
pre_ns() { # pre_ns FILE: %pre upgrade with FILE as the /etc file; what is left after it
	mkdir_e=""
	[ -d /etc/fuse-backport ] || { mkdir /etc/fuse-backport && mkdir_e=1; }
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /etc/fuse-backport || exit 99
		cp "$1" /etc/fuse-backport/fuse-backport.conf && sh "$2" 2 > /dev/null 2>&1
		if [ -e /etc/fuse-backport/fuse-backport.conf ]; then md5sum < /etc/fuse-backport/fuse-backport.conf | cut -d" " -f1; else echo gone; fi' \
		sh "$1" "$pt_tmp/tpre"
	[ -z "$mkdir_e" ] || rmdir /etc/fuse-backport
}
printf 'TAKEOVER=no\n' | cat "$pt_tmp/conf125" - > "$pt_tmp/conf125-mine"
p1=$(pre_ns "$pt_tmp/conf125")
p2=$(pre_ns "$pt_tmp/conf125-mine")
[ -s "$pt_tmp/conf125" ] && [ "$p1" = gone ] && [ "$p2" = "$(md5sum < "$pt_tmp/conf125-mine" | cut -d' ' -f1)" ]
tap_check $? "the tools rpm's %pre, upgrading: the unchanged /etc file of $cfrom goes (${p1:-?}), one with the admin's TAKEOVER=no stays (${p2:-?})"

src=/usr/src/$name-$ver
q -l > "$pt_tmp/files"
pt_tree_missing "$pt_tmp/files" "$src"
tap_check $? "rpm -qpl: the generated tree under $src/${pt_missing:+ (missing:$pt_missing)}"
pt_tree_clean "$pt_tmp/files" "$src"
tap_check $? "rpm -qpl: nothing built or foreign (build/, tests/, dev/, *.o, *.ko)"

q --qf '%{POSTIN}' > "$pt_tmp/post"
q --qf '%{PREUN}' > "$pt_tmp/preun"
grep -q "dkms add -m $name -v $ver .*--rpm_safe_upgrade" "$pt_tmp/post" &&
	grep -q "dkms build -m $name -v $ver -k" "$pt_tmp/post" &&
	grep -q "dkms install --rpm_safe_upgrade -m $name -v $ver -k" "$pt_tmp/post" &&
	grep -q 'uname -r' "$pt_tmp/post"
tap_check $? "%post: dkms add --rpm_safe_upgrade, build and install --rpm_safe_upgrade for the running and the newest kernel"
grep -q "dkms remove -m $name -v $ver --all --rpm_safe_upgrade" "$pt_tmp/preun"
tap_check $? "%preun: dkms remove --all --rpm_safe_upgrade"
if command -v shellcheck > /dev/null; then
	{ echo '#!/bin/sh'; cat "$pt_tmp/post"; } > "$pt_tmp/post.sh"
	{ echo '#!/bin/sh'; cat "$pt_tmp/preun"; } > "$pt_tmp/preun.sh"
	shellcheck "$pt_tmp/post.sh" "$pt_tmp/preun.sh" > "$pt_tmp/sc.log" 2>&1
	rc=$?
	tap_check $rc "scriptlets are shellcheck clean"
	[ $rc = 0 ] || pt_log "$pt_tmp/sc.log"
else
	tap_skip "scriptlets are shellcheck clean" "no shellcheck"
fi

# --- %post on hosts without a served kernel (EL9, Fedora) and with one ---------
# The real %post in a mount namespace of its own: /lib/modules holds fake
# kernels only, /usr/src the package's payload; uname and dkms are stubs
# (dkms logs its calls; its build of an EL9 kernel says "excluded", 77, as
# dkms.conf would, and so does that of a kernel 6.12.0-55.30.1, saying why
# on stderr as dkms.conf does; any other succeeds). /var/lib is a tmpfs
# holding the kernel hook's record of a failed build for each kernel.
ns=$pt_tmp/ns
mkdir -p "$ns/bin" "$ns/payload"
(cd "$ns/payload" && rpm2cpio "$rpmf" | cpio -idm --quiet) 2> /dev/null
# shellcheck disable=SC2016
printf '#!/bin/sh\n[ "$1" = -r ] && exec echo "$FB_NS_RUNNING"\nexec /bin/uname "$@"\n' > "$ns/bin/uname"
# shellcheck disable=SC2016
printf '#!/bin/sh\necho "$*" >> "$FB_NS_LOG"\ncase "$1 $*" in
"build "*.el9*) exit 77 ;;
"build "*6.12.0-55.30.1.*) echo "fuse-backport: not building for this kernel: a reason of dkms.conf" >&2; exit 77 ;;
esac\nexit 0\n' > "$ns/bin/dkms"
chmod +x "$ns/bin/uname" "$ns/bin/dkms"
# post_ns RUNNING KVER...: %post with these kernels installed (each with
# headers and a record of a failed build); its output in $ns/out, its dkms
# calls in $ns/dkms, the records left after it in $ns/records
post_ns() {
	: > "$ns/dkms"
	# shellcheck disable=SC2016
	FB_NS_RUNNING=$1 FB_NS_LOG=$ns/dkms PATH="$ns/bin:$PATH" unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs fb-modules /lib/modules &&
			mount -t tmpfs fb-var /var/lib &&
			mount --bind "$1/payload/usr/src" /usr/src || exit 99
		d=$1
		shift
		mkdir -p /var/lib/fuse-backport/build-failed
		for k; do
			mkdir -p "/lib/modules/$k/build/include"
			printf "0.0\tan old failure\n" > "/var/lib/fuse-backport/build-failed/$k"
		done
		sh "$0"
		r=$?
		ls /var/lib/fuse-backport/build-failed > "$d/records"
		exit $r' "$pt_tmp/post" "$ns" "$@" > "$ns/out" 2>&1
}
if [ ! -f "$ns/payload$src/scripts/flavor.sh" ]; then
	tap_check 1 "%post on fake kernels: the payload has no $src/scripts/flavor.sh"
else
	post_ns 5.14.0-570.el9_6.x86_64 5.14.0-570.el9_6.x86_64 5.14.0-503.el9.x86_64
	rc=$?
	[ $rc = 0 ] && [ "$(wc -l < "$ns/out")" = 1 ] &&
		grep -Eq "^$name-dkms: nothing to build: every kernel here is outside the series fuse-backport serves \(5\.14\.0-503\.el9\.x86_64 5\.14\.0-570\.el9_6\.x86_64; served: 6\.1 to 6\.12 .*\); the stock FUSE stays in use\$" "$ns/out" &&
		! grep -q '^build' "$ns/dkms" && grep -q "^add -m $name -v $ver" "$ns/dkms"
	tap_check $? "%post, EL9's kernels only: one line, no dkms build ($(head -n 1 "$ns/out"); dkms: $(cut -d' ' -f1 "$ns/dkms" | tr '\n' ' '))"
	[ $rc = 0 ] || pt_log "$ns/out"
	post_ns 5.14.0-570.el9_6.x86_64 5.14.0-570.el9_6.x86_64 6.12.0-55.24.1.el10_0.x86_64
	rc=$?
	[ $rc = 0 ] && ! grep -q 'nothing to build' "$ns/out" &&
		grep -q "^build -m $name -v $ver -k 6.12.0-55.24.1.el10_0.x86_64" "$ns/dkms"
	tap_check $? "%post, an EL9 and a RHEL 10 kernel: dkms builds for 6.12.0-55.24.1.el10_0.x86_64 ($(tr '\n' ' ' < "$ns/out"))"
	post_ns 6.12.0-55.24.1.el10_0.x86_64 6.12.0-55.24.1.el10_0.x86_64 6.12.0-55.30.1.el10_0.x86_64
	rc=$?
	[ $rc = 0 ] && [ ! -s "$ns/records" ] &&
		grep -qx "$name-dkms: not building for 6.12.0-55.30.1.el10_0.x86_64: a reason of dkms.conf" "$ns/out"
	tap_check $? "%post, a kernel dkms.conf excludes: the reason in one line; every record of a failed build gone, a new try ($(tr '\n' ' ' < "$ns/out"); left: $(tr '\n' ' ' < "$ns/records"))"
fi

# --- the kernel-install hook: a failed build leaves one line, never a failure ---
# The payload's 39-fuse-backport.install (scripts/kernel-hook.sh), before
# dkms's 40-dkms.install, as kernel-install calls it ("add KVER DIR IMAGE"),
# in a mount namespace with /var/lib on a tmpfs: DKMS has this version, its
# install fails (a stub, exit 10) and the build's make.log ends with
# scripts/build.sh's line. Expected: exit 0, one line naming the failure,
# and the record that makes dkms.conf leave the kernel to the stock module.
hook=$ns/payload/usr/lib/kernel/install.d/39-fuse-backport.install
hk=6.12.0-55.99.1.el10_0.x86_64
if [ ! -x "$hook" ]; then
	tap_check 1 "the rpm has the kernel-install hook /usr/lib/kernel/install.d/39-fuse-backport.install"
else
	mkdir -p "$ns/hbin"
	# shellcheck disable=SC2016
	printf '#!/bin/sh
[ "$1" = install ] && exit 10
exit 0
' > "$ns/hbin/dkms"
	chmod +x "$ns/hbin/dkms"
	# shellcheck disable=SC2016
	PATH="$ns/hbin:$PATH" unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs fb-var /var/lib && mount -t tmpfs fb-modules /lib/modules || exit 99
		mkdir -p "/lib/modules/$2/build/include" "/var/lib/dkms/fuse-backport/$3/source" "/var/lib/dkms/fuse-backport/$3/build"
		echo "fuse-backport: $2: the build failed: modpost: file_write_and_wait_range (not exported by this kernel); full log: /x/kbuild.log" \
			> "/var/lib/dkms/fuse-backport/$3/build/make.log"
		sh "$1" add "$2" "/boot/loader/entries" "/lib/modules/$2/vmlinuz" 2> /tmp/fb-hook.err
		echo "rc=$?"
		sh "$1" remove "$2" 2>> /tmp/fb-hook.err
		echo "rc=$?"
		cat /tmp/fb-hook.err
		echo "record: $(tr "\t" "|" < "/var/lib/fuse-backport/build-failed/$2")"
		rm -f /tmp/fb-hook.err' _ "$hook" "$hk" "$ver" > "$ns/hook.out" 2>&1
	[ "$(grep -c '^rc=0$' "$ns/hook.out")" = 2 ] &&
		[ "$(grep -c "^$name-dkms: not installed for $hk: the build failed: modpost: file_write_and_wait_range (not exported by this kernel); full log: /x/kbuild.log; the stock FUSE stays in use on $hk" "$ns/hook.out")" = 1 ] &&
		grep -qx "record: $ver|modpost: file_write_and_wait_range (not exported by this kernel); full log: /x/kbuild.log" "$ns/hook.out"
	tap_check $? "kernel-install add $hk, its build failing: exit 0, one line, the kernel left to the stock module ($(grep -v '^rc=' "$ns/hook.out" | tr '\n' ' ' | cut -c1-160))"
fi

# --- the renamed module's load at boot -------------------------------------------
# The payload's modules-load.d file, modprobe.d install command and helper,
# in their places in a mount namespace, run by systemd-modules-load on this
# host's kernel (no fusebp): exit 0, one line, nothing loaded.
pt_boot_load "$name-dkms rpm" "$ns/payload"

# --- the scriptlets for real ----------------------------------------------------
if [ "$(pt_deb_state $name-dkms)" != not-installed ]; then
	tap_skip "rpm install/erase with this host's dkms" "the Debian $name-dkms package owns $src here"
	tap_done
	exit
fi
pt_dkms_remove_all
rm -rf /usr/src/$name-[0-9]*
# The kernel %post picks besides the running one: the newest with headers.
newest=$(for d in /lib/modules/*; do
	[ -e "$d/build/include" ] && echo "${d##*/}"
done | sort -V | tail -n 1)
rpmdb=$pt_tmp/rpmdb
mkdir -p "$rpmdb"
rpm --dbpath "$rpmdb" --initdb
rpm --dbpath "$rpmdb" -i --nodeps "$rpmf" > "$pt_tmp/install.log" 2>&1
rc=$?
tap_check $rc "rpm -i (throw-away rpmdb, real scriptlets) exits 0"
[ $rc = 0 ] || pt_log "$pt_tmp/install.log"
sed 's/^/# /' "$pt_tmp/install.log" | grep -v readelf
trees_missing=$(pt_trees_lacking "$src" .fb-import)
[ -f "$src/dkms.conf" ] && [ -z "$trees_missing" ]
tap_check $? "the tree is in $src, every base's ($(pt_trees))${trees_missing:+ (missing:$trees_missing)}"
if [ -n "$newest" ]; then
	fl=$(bash scripts/flavor.sh "$newest" "/lib/modules/$newest/build" 2> "$pt_tmp/flavor.err")
	if [ -n "$fl" ]; then
		mods=$(find "/lib/modules/$newest/updates/dkms" -name "${fl##* }.ko*" 2> /dev/null)
		mv=$(pt_modver "$newest")
		dkms status -m $name -v "$ver" -k "$newest" 2> /dev/null | grep -q ': installed' &&
			[ -n "$mods" ] && [ "$(modinfo -F version "$mods" 2> /dev/null)" = "$mv" ]
		tap_check $? "%post built and installed $ver for the newest kernel with headers, $newest (${fl%% *}: ${mods:-none}, modinfo version $mv)"
		if grep -qx 'CONFIG_MODULE_SIG=y' "/lib/modules/$newest/build/.config" && [ -n "$mods" ]; then
			s=$(modinfo -F signer "$mods" 2> /dev/null)
			[ -n "$s" ] && [ "$s" = "$(pt_mok_cn)" ]
			tap_check $? "signed by the DKMS MOK (signer: ${s:-none})"
		fi
	elif sb=$(fb_must_serve "$top" "$newest" "/lib/modules/$newest/build/.config"); then
		tap_check 1 "%post: $newest, which base $sb serves (backports/$sb/pin), refused: $(cat "$pt_tmp/flavor.err")"
	else
		grep -q "not building for $newest" "$pt_tmp/install.log"
		tap_check $? "%post: $newest is not served, one line says so"
	fi
else
	tap_skip "%post builds for the newest kernel" "no kernel headers on this host"
fi

# --- upgrade and downgrade, scriptlets on -----------------------------------
# rpm runs the new package's %post before the old one's %preun, so the old
# module is still installed when the new one is: dkms will not replace it
# by an equal or an older one unless forced, and the old %preun then takes
# the one left away. A second package, product version $ver.1 with the
# module of $newest's base one release higher ($mv2), built from a copy of
# the tracked files: rpm -U to it, and back to $ver (--oldpackage, dnf
# downgrade's transaction). After each, DKMS has the package's version
# installed for $newest and the file there is that package's module.
rpm_active() { # VER MODVER: what is installed for $newest is VER's MODVER
	ra=$(find "/lib/modules/$newest/updates/dkms" -name "${fl##* }.ko*" 2> /dev/null | head -n 1)
	ra_v=$(modinfo -F version "$ra" 2> /dev/null)
	dkms status -m $name -v "$1" -k "$newest" 2> /dev/null | grep -q ': installed' && [ "$ra_v" = "$2" ]
}
if [ -n "$newest" ] && [ -n "${fl:-}" ] && [ -n "${mods:-}" ]; then
	b=$(bash scripts/flavor.sh --base "$newest" "/lib/modules/$newest/build" 2> /dev/null)
	b=${b%% *}
	u=$pt_tmp/up
	v2=$ver.1
	mkdir -p "$u/src"
	git ls-files | while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done > "$u/list"
	tar -cf - -T "$u/list" | tar -C "$u/src" -xf -
	r=$(sed -n 's/^FB_RELEASE=//p' "$u/src/backports/$b/pin")
	mv2=$(sed -n 's/^UPSTREAM_VERSION=//p' "$u/src/backports/$b/pin")+fb$((r + 1))
	sed -i "s/^FB_RELEASE=.*/FB_RELEASE=$((r + 1))/" "$u/src/backports/$b/pin"
	sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$v2\"/" "$u/src/dkms.conf"
	sed -i "s/^Version:.*/Version: $v2/" "$u/src/rpm/fuse-backport-dkms.spec" "$u/src/rpm/fuse-backport-tools.spec"
	(cd "$u/src" && git init -q && git add -A && git -c user.name=t -c user.email=t@t.invalid commit -q -m up) &&
		OUT=$u/out RPMLINT=0 sh "$u/src/dev/pkg-rpm.sh" > "$u/build.log" 2>&1
	rc=$?
	rpm2=""
	for f in "$u/out/$name-dkms-$v2"-*.noarch.rpm; do
		[ -f "$f" ] && rpm2=$f
	done
	[ $rc = 0 ] && [ -n "$rpm2" ]
	tap_check $? "builds $name-dkms $v2 (module $mv2 for $newest) from a copy of the tracked files"
	[ -n "$rpm2" ] || pt_log "$u/build.log" 15
	if [ -n "$rpm2" ]; then
		rpm --dbpath "$rpmdb" -U --nodeps "$rpm2" > "$pt_tmp/up.log" 2>&1
		rc=$?
		sed 's/^/# /' "$pt_tmp/up.log" | grep -v readelf
		[ $rc = 0 ] && rpm_active "$v2" "$mv2"
		tap_check $? "rpm -U $ver -> $v2 (new %post, then old %preun): $v2 installed for $newest, its module $mv2 (file: ${ra_v:-none})"
		rpm --dbpath "$rpmdb" -U --oldpackage --nodeps "$rpmf" > "$pt_tmp/down.log" 2>&1
		rc=$?
		sed 's/^/# /' "$pt_tmp/down.log" | grep -v readelf
		[ $rc = 0 ] && rpm_active "$ver" "$mv"
		tap_check $? "rpm -U --oldpackage $v2 -> $ver (a downgrade): $ver installed for $newest, its module $mv (file: ${ra_v:-none})"
	fi
fi
rpm --dbpath "$rpmdb" -e --nodeps $name-dkms > "$pt_tmp/erase.log" 2>&1
rc=$?
tap_check $rc "rpm -e exits 0"
[ $rc = 0 ] || pt_log "$pt_tmp/erase.log"
! dkms status -m $name 2> /dev/null | grep -q . && [ ! -e "$src" ] &&
	[ -z "$(find /lib/modules/*/updates/dkms -name 'fusebp.ko*' 2> /dev/null)" ]
tap_check $? "%preun removed it from DKMS and every kernel, the tree is gone"

tap_done
