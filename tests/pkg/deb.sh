#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Lifecycle of fuse-backport-dkms on this Debian host: build it from a clean
# tree (lintian clean, every base's kernel files in the source package,
# every base's generated tree in the .deb: pkg_bases, 6.12, 7.2 and 7.3),
# and the previous package from the commit before today's PACKAGE_VERSION
# (pt_prev_commit: 2026.12.0-1); apt
# install of the previous one (DKMS builds for every installed kernel with
# headers, a kernel that cannot have the module gets one line, apt
# succeeds), then apt upgrade to today's product version: DKMS rebuilds, the
# old DKMS tree and /usr/src tree are gone, every module has its base's
# MODULE_VERSION; the modules are signed and, in a VM, load; a 6.1 kernel's
# headers package installed again after ours is built for by DKMS's own
# hook; a kernel without headers and one outside every base (faked:
# 7.4.0-fake) are skipped with our message at the upgrade, and so is a kernel whose headers make a required
# probe fail (a fake headers .deb installed with apt: apt exits 0, on dkms
# 3.0.10 too); with a drop-in kernel's headers gone, apt remove still takes
# fuse, cuse and virtiofs away; apt remove and purge leave nothing, and the
# stock fuse.ko loads again in a VM. The host is restored at the end,
# whatever happened.
#
# usage: tests/pkg/deb.sh      environment: FB_PKG_VM=0  no VM checks
#   FB_PKG_PREV=COMMIT  the previous package's commit (default pt_prev_commit)
#   FB_PKG_RED=1        the red run: the previous package gets the epoch 1:
#                       (the new one has none), so the version order and the
#                       upgrade checks must fail; DKMS builds nothing in it
#                       (/etc/dkms/no-autoinstall, made and removed by the
#                       test, which our postinst honours), and the test stops
#                       after the upgrade checks
tap_suite="pkg-deb"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"

pkg=fuse-backport-dkms
fake7=7.4.0-fake
nohdr=6.12.0-fbnohdr-amd64
gatek=6.1.0-999-fbgate-amd64
vm_kver=6.12.95+deb12-amd64

remove_fakes() {
	rm -rf "/usr/src/linux-headers-$fake7" "/lib/modules/$fake7" "/lib/modules/$nohdr"
	[ "$(pt_deb_state "linux-headers-$gatek")" = not-installed ] ||
		dpkg --purge --force-all "linux-headers-$gatek" > /dev/null 2>&1
}

pt_cleanup() {
	[ -z "${red_noauto:-}" ] || rm -f /etc/dkms/no-autoinstall
	remove_fakes
	# the headers the autoinstall test took away come back
	if [ -n "${hdr_k:-}" ] && [ "$(pt_deb_state "linux-headers-$hdr_k")" != installed ]; then
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$hdr_deb" > /dev/null 2>&1 ||
			echo "# WARNING: could not reinstall linux-headers-$hdr_k from $hdr_deb" >&2
	fi
	for p in $pkg fuse-backport-tools; do
		if [ "$(pt_deb_state "$p")" != not-installed ]; then
			DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 purge -y -q "$p" > /dev/null 2>&1 ||
				dpkg --purge --force-all "$p" > /dev/null 2>&1
		fi
	done
	pt_dkms_remove_all
	rm -rf /usr/src/$name-[0-9]*
}

pt_init "$pkg lifecycle" dpkg-buildpackage dh_dkms lintian dkms apt-get
ver=$(pt_version)
mok=$(pt_mok_cn)

# What was here before us goes: a tree from dev/dkms-local.sh, a package.
if [ "$(pt_deb_state $pkg)" != not-installed ] || dkms status -m $name 2> /dev/null | grep -q .; then
	tap_diag "removing an earlier $name from this host"
	pt_cleanup
fi
# The kernels of this host, before anything of ours is faked.
kernels=$(cd /lib/modules && for d in *; do [ -d "$d" ] && echo "$d"; done)

# Our modules of one kernel as "file file...", from where DKMS puts them.
our_modules() {
	find "/lib/modules/$1/updates/dkms" -maxdepth 1 \
		\( -name 'fusebp.ko*' -o -name 'fuse.ko*' -o -name 'cuse.ko*' -o -name 'virtiofs.ko*' \) \
		2> /dev/null | sort | tr '\n' ' '
}

# --- build ------------------------------------------------------------------
OUT=$pt_tmp/out1 sh dev/pkg-deb.sh > "$pt_tmp/build1.log" 2>&1
rc=$?
tap_check $rc "make deb: source package and $pkg built from the tracked files, lintian clean"
[ $rc = 0 ] || pt_log "$pt_tmp/build1.log" 15
deb1=""
for f in "$pt_tmp/out1/${pkg}_$ver"-*_all.deb; do
	[ -f "$f" ] && deb1=$f
done
if [ -z "$deb1" ]; then
	tap_diag "no $pkg .deb: nothing more to test"
	tap_done
	exit
fi
debver1=$(dpkg-deb -f "$deb1" Version)
[ "${debver1%-*}" = "$ver" ]
tap_check $? "Debian version $debver1 follows PACKAGE_VERSION $ver"

# The previous package, from the commit before today's PACKAGE_VERSION.
prev_epoch=""
[ "${FB_PKG_RED:-0}" = 1 ] && prev_epoch=1
pt_build_prev "$pt_tmp/prev" $prev_epoch
rc=$?
deb0=$pt_prev_deb tools0=$pt_prev_tools prev=$pt_prev_ver
debver0=$(dpkg-deb -f "$deb0" Version 2> /dev/null)
tap_check $rc "the previous package $pkg ${debver0:-none} (product $prev) built from $(pt_prev_commit | cut -c1-12), the commit before PACKAGE_VERSION $ver"
[ $rc = 0 ] || pt_log "$pt_tmp/prev/build.log" 15
# Today's sorts above it for dpkg and rpm (no epoch).
rv=$(rpm --eval "%{lua: print(rpm.vercmp('$ver', '$prev'))}" 2> /dev/null)
dpkg --compare-versions "$debver1" gt "$debver0" && [ "$rv" = 1 ]
tap_check $? "$debver1 sorts above $debver0 (dpkg --compare-versions), $ver above $prev (rpm.vercmp: ${rv:-no rpm})"
if [ -z "$deb0" ]; then
	tap_diag "no previous .deb: nothing more to test"
	tap_done
	exit
fi

# With a kernel's headers gone, dkms.conf still lists every module we may
# have installed there (dkms remove reads that list).
mods_nohdr=$(kernelver=6.1.0-fbgone-amd64 kernel_source_dir=/nonexistent bash -c \
	'. ./dkms.conf 2> /dev/null && echo "${BUILT_MODULE_NAME[*]}"')
[ "$mods_nohdr" = "fuse cuse virtiofs fusebp" ]
tap_check $? "dkms.conf without the headers lists every module of ours ($mods_nohdr)"

for b in $(pkg_bases); do
	# shellcheck source=backports/6.12/pin
	. "$top/backports/$b/pin"
	c=$(pkg_comp "$b")
	orig_linux=$pt_tmp/out1/${name}_$ver.orig-$c.tar.xz
	! grep -q "$DEBIAN_PACKAGE" debian/control && [ -f "$orig_linux" ] &&
		grep -q "${name}_$ver.orig-$c.tar.xz" "$pt_tmp"/out1/*.dsc &&
		tar -tJf "$orig_linux" | grep -q "^linux-$UPSTREAM_VERSION/fs/fuse/file.c$"
	tap_check $? "base $b: Linux $UPSTREAM_VERSION's kernel files ride in the source package ($(basename "$orig_linux"), in the .dsc); no $DEBIAN_PACKAGE build dependency"
done

dpkg-deb -c "$deb1" | awk '{ print $6 }' | sed 's|^\./|/|' > "$pt_tmp/files1"
src=/usr/src/$name-$ver
pt_tree_missing "$pt_tmp/files1" "$src"
tap_check $? "the .deb carries the generated DKMS tree under $src/${pt_missing:+ (missing:$pt_missing)}"
pt_tree_clean "$pt_tmp/files1" "$src"
tap_check $? "the .deb carries nothing built or foreign (build/, tests/, dev/, *.o, *.ko)"
for b in $(pkg_bases); do
	t=$(pkg_tree "$b")
	dpkg-deb --fsys-tarfile "$deb1" | tar -xO ".$src/src/$t/.fb-import" > "$pt_tmp/fb-import" 2> /dev/null
	grep -qx 'series=all' "$pt_tmp/fb-import" && [ "$(grep -c '^patch=' "$pt_tmp/fb-import")" -gt 1 ]
	tap_check $? "src/$t (base $(sed -n 's/^base=//p' "$pt_tmp/fb-import"), $(sed -n 's/^upstream_version=//p' "$pt_tmp/fb-import")) is patched at package build time ($(grep -c '^patch=' "$pt_tmp/fb-import") patches, $(sed -n 's/^origin=//p' "$pt_tmp/fb-import" | sed 's|.*/||'))"
done

deps=$(dpkg-deb -f "$deb1" Depends)
arch=$(dpkg-deb -f "$deb1" Architecture)
sugg=$(dpkg-deb -f "$deb1" Recommends)
echo "$deps" | grep -q 'dkms' && echo "$deps" | grep -q 'linux-headers-generic' &&
	[ "$arch" = all ] && [ "$sugg" = fuse-backport-tools ]
tap_check $? "control: Architecture $arch; Depends: $deps; Recommends: $sugg"

mkdir "$pt_tmp/ctl"
dpkg-deb -e "$deb1" "$pt_tmp/ctl"
if command -v shellcheck > /dev/null; then
	shellcheck -s sh "$pt_tmp/ctl/postinst" "$pt_tmp/ctl/prerm" > "$pt_tmp/sc.log" 2>&1
	rc=$?
	tap_check $rc "maintainer scripts are shellcheck clean"
	[ $rc = 0 ] || pt_log "$pt_tmp/sc.log"
else
	tap_skip "maintainer scripts are shellcheck clean" "no shellcheck"
fi

tools1=""
for f in "$pt_tmp/out1/fuse-backport-tools_$ver"-*.deb; do
	[ -f "$f" ] && tools1=$f
done

# check_kernel KVER LOG VERSION [MODVER]: our modules for KVER are what
# dkms.conf and the build decide: installed by DKMS as VERSION (the
# product's), signed, of MODVER (default: the module version of KVER's base);
# or one line in LOG saying why not.
check_kernel() {
	k=$1 log=$2 v=$3
	kd=/lib/modules/$k/build
	mv=${4:-$(pt_modver "$k" "$kd")}
	if [ ! -e "$kd/include" ]; then
		grep -q "not building for $k: its headers are not installed" "$log"
		tap_check $? "$k: no headers: one line says so, nothing built"
		return
	fi
	if ! fl=$(bash scripts/flavor.sh "$k" "$kd" 2>&1); then
		grep -q "not building for $k: " "$log" && [ -z "$(our_modules "$k")" ]
		tap_check $? "$k: not served ($fl): skipped with one line"
		return
	fi
	if grep -q "the build for $k failed" "$log"; then
		why=$(grep "the build for $k failed" "$log" | head -n 1)
		echo "$why" | grep -q 'not supported yet' && [ -z "$(our_modules "$k")" ]
		tap_check $? "$k: not supported yet by the build, one line, apt unaffected"
		tap_diag "$why"
		return
	fi
	mods=$(our_modules "$k")
	want=${fl#* }
	n_want=$(echo "$want" | wc -w)
	good=0
	for f in $mods; do
		[ "$(modinfo -F version "$f" 2> /dev/null)" = "$mv" ] || good=1
	done
	dkms status -m $name -v "$v" -k "$k" 2> /dev/null | grep -q ': installed' &&
		[ "$(echo "$mods" | wc -w)" = "$n_want" ] && [ $good = 0 ]
	tap_check $? "$k: ${fl%% *} flavor, $n_want module(s) ($want) installed by DKMS $name/$v, modinfo version $mv"
	if grep -qx 'CONFIG_MODULE_SIG=y' "$kd/.config"; then
		# DKMS makes its MOK at its first build: on a fresh host, after
		# this test started.
		[ -n "$mok" ] || mok=$(pt_mok_cn)
		signers=$(for f in $mods; do modinfo -F signer "$f" 2> /dev/null; echo; done | sort -u | grep . | tr '\n' ';')
		[ -n "$mok" ] && [ "$signers" = "$mok;" ]
		tap_check $? "$k: modules signed by the DKMS MOK (signer: ${signers%;}, MOK: ${mok:-none})"
	fi
}

# --- install the previous package ---------------------------------------------
red_noauto=""
if [ "${FB_PKG_RED:-0}" = 1 ] && [ ! -e /etc/dkms/no-autoinstall ]; then
	mkdir -p /etc/dkms && : > /etc/dkms/no-autoinstall && red_noauto=1
fi
# shellcheck disable=SC2086 # no tools .deb: nothing
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$deb0" $tools0 > "$pt_tmp/install0.log" 2>&1
rc=$?
tap_check $rc "apt install $(basename "$deb0") $(basename "${tools0:-(no tools .deb)}") (the previous package) exits 0"
[ $rc = 0 ] || pt_log "$pt_tmp/install0.log" 15
src0=/usr/src/$name-$prev
[ "$(pt_deb_state $pkg)" = installed ] && [ "$(dpkg-query -W -f '${Version}' $pkg)" = "$debver0" ] && [ -d "$src0" ]
tap_check $? "dpkg: $pkg $debver0 is installed and configured, $src0 there"
# The previous package's module version for a kernel: its base's, by the
# previous tree's own pins (2026.12.0 on); a package from before the product
# version (no flavor.sh --base, or no pin it names) had its one module
# version as its version.
prev_modver() {
	pb=$(bash "$pt_tmp/prev/src/scripts/flavor.sh" --base "$1" "/lib/modules/$1/build" 2> /dev/null) || {
		echo "$prev"
		return
	}
	pp=$pt_tmp/prev/src/backports/${pb%% *}/pin
	[ -f "$pp" ] || {
		echo "$prev"
		return
	}
	echo "$(sed -n 's/^UPSTREAM_VERSION=//p' "$pp")+fb$(sed -n 's/^FB_RELEASE=//p' "$pp")"
}
for k in $kernels; do
	[ -z "$red_noauto" ] || break
	case $k in 6.*) ;; *) continue ;; esac # served by every previous package
	check_kernel "$k" "$pt_tmp/install0.log" "$prev" "$(prev_modver "$k")"
done

# --- upgrade to today's product version, with a kernel without headers and one
# we do not serve ----------------------------------------------------------------
# The fakes: a kernel whose headers are not installed, and 7.4 headers (outside every base).
mkdir -p "/lib/modules/$nohdr" "/usr/src/linux-headers-$fake7/include" "/lib/modules/$fake7"
printf 'VERSION = 7\nPATCHLEVEL = 4\nSUBLEVEL = 0\nEXTRAVERSION = -fake\nmodules:\n\t@false\n' \
	> "/usr/src/linux-headers-$fake7/Makefile"
printf 'CONFIG_MODULES=y\nCONFIG_FUSE_FS=y\nCONFIG_MODULE_SIG=y\n' > "/usr/src/linux-headers-$fake7/.config"
ln -sfn "/usr/src/linux-headers-$fake7" "/lib/modules/$fake7/build"

# shellcheck disable=SC2086 # no tools .deb: nothing
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$deb1" $tools1 > "$pt_tmp/install1.log" 2>&1
rc=$?
tap_check $rc "apt upgrade $debver0 -> $debver1 ($(basename "$deb1") $(basename "${tools1:-(no tools .deb)}")) exits 0"
[ $rc = 0 ] || pt_log "$pt_tmp/install1.log" 15
grep -E "^(Preparing to unpack|Unpacking|Setting up) fuse-backport" "$pt_tmp/install1.log" | sed 's/^/# /'
[ "$(pt_deb_state $pkg)" = installed ] && [ "$(dpkg-query -W -f '${Version}' $pkg)" = "$debver1" ]
tap_check $? "dpkg: $pkg $debver1 is installed and configured ($(pt_deb_state $pkg) $(dpkg-query -W -f '${Version}' $pkg 2> /dev/null))"
st=$(dkms status -m $name 2> /dev/null)
! echo "$st" | grep -q "$name/${prev}[,:]" && [ ! -e "$src0" ] && [ -d "$src" ] && [ ! -e "/var/lib/dkms/$name/$prev" ]
tap_check $? "$prev is gone from DKMS (dkms status, /var/lib/dkms) and /usr/src, $ver is there"
echo "$st" | sed 's/^/# /'
if [ "${FB_PKG_RED:-0}" = 1 ]; then
	tap_diag "red run (FB_PKG_RED=1): stopping after the upgrade checks"
	grep -E '^E:|downgrad' "$pt_tmp/install1.log" | head -n 4 | sed 's/^/# /'
	tap_done
	exit
fi
tv=$(fuse-backport --version 2>&1)
# Every base's module version, in the order of the tools' build (the
# sorted pins, tools/Makefile).
modvers=$(for p in "$top"/backports/*/pin; do p=${p%/pin}; pkg_modver "${p##*/}"; done | tr '\n' ' ')
modvers=${modvers% }
tv_ok=1
case $tv in "fuse-backport $ver (modules $modvers,"*) tv_ok=0 ;; esac
[ -n "$tools1" ] && [ $tv_ok = 0 ] && [ -x /usr/sbin/mount.fusebp ]
tap_check $? "fuse-backport-tools: fuse-backport --version says $ver and every base's module version ($modvers: $tv), mount.fusebp is there"
dpkg -L $pkg > "$pt_tmp/dpkg-L" 2> /dev/null
trees_missing=""
for t in $(pt_trees); do
	grep -qx "$src/$t/fs/fuse/file.c" "$pt_tmp/dpkg-L" || trees_missing="$trees_missing $t"
done
[ -s "$pt_tmp/dpkg-L" ] && [ -z "$trees_missing" ]
tap_check $? "dpkg -L lists every base's tree under $src ($(pt_trees))${trees_missing:+ (missing:$trees_missing)}"
for k in $kernels; do
	check_kernel "$k" "$pt_tmp/install1.log" "$ver"
done
check_kernel $nohdr "$pt_tmp/install1.log" "$ver"
grep -q "not building for $fake7: kernel $fake7 is outside every base" "$pt_tmp/install1.log" &&
	! dkms status -m $name 2> /dev/null | grep -q ", $fake7," && [ -z "$(our_modules $fake7)" ]
tap_check $? "$fake7 (unsupported): skipped with our message, nothing built"
grep "not building for $fake7" "$pt_tmp/install1.log" | sed 's/^/# /'

# What dkms's kernel hooks do when such a kernel's packages arrive later.
out=$(/etc/kernel/header_postinst.d/dkms $fake7 2>&1)
rc=$?
echo "$out" | grep -E -q "fuse-backport: not building for ($fake7|this kernel): kernel $fake7 is outside" &&
	[ -z "$(our_modules $fake7)" ]
tap_check $? "$fake7 headers hook: our message, nothing built"
# dkms < 3.0.11 fails autoinstall on a BUILD_EXCLUSIVE skip
# (dkms-project/dkms#302): dkms.conf takes us out of it there.
dkmsver=$(dpkg-query -W -f '${Version}' dkms)
tap_check $rc "$fake7 headers hook exits 0 (dkms $dkmsver)"
[ $rc = 0 ] || echo "$out" | tail -n 5 | sed 's/^/#   /'
/etc/kernel/postinst.d/dkms $nohdr > "$pt_tmp/hook.log" 2>&1
rc=$?
grep -q 'headers' "$pt_tmp/hook.log"
tap_check $(($? + rc)) "$nohdr image hook: says the headers are missing, exits 0 ($rc)"
remove_fakes
dkms status -m $name 2> /dev/null | grep -q -e $fake7 -e $nohdr && dkms remove -m $name -v "$ver" -k $fake7 > /dev/null 2>&1

# --- a new kernel's headers arrive: DKMS's own hook builds, nobody runs dkms ---
# One drop-in kernel (not the VM's) loses our build and its headers package,
# then apt installs that headers package again, as an upgrade brings a new
# ABI's headers. The .deb comes from apt's cache or the archive; the host
# gets it back in pt_cleanup whatever happens.
hdr_k="" hdr_deb=""
for k in $kernels; do
	case $k in "$vm_kver" | *-rt-* | *-cloud-*) continue ;; esac
	case $(our_modules "$k") in */fuse.ko*) ;; *) continue ;; esac
	p=linux-headers-$k
	[ "$(pt_deb_state "$p")" = installed ] || continue
	v=$(dpkg-query -W -f '${Version}' "$p")
	f=/var/cache/apt/archives/${p}_$(echo "$v" | sed 's/:/%3a/')_amd64.deb
	if [ ! -f "$f" ]; then
		(cd "$pt_tmp" && apt-get download -q "$p=$v" > /dev/null 2>&1)
		for f in "$pt_tmp/${p}_"*.deb; do break; done
	fi
	if [ -n "$f" ] && [ -f "$f" ] && dpkg-deb -W "$f" > /dev/null 2>&1; then
		hdr_k=$k hdr_deb=$f
		break
	fi
done
if [ -z "$hdr_k" ]; then
	tap_skip "new headers: DKMS builds for them by itself" \
		"no installed drop-in kernel whose headers .deb is in apt's cache or the archive"
else
	dkms remove -m $name -v "$ver" -k "$hdr_k" > /dev/null 2>&1
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 remove -y -q "linux-headers-$hdr_k" > "$pt_tmp/hdr-rm.log" 2>&1
	[ -z "$(our_modules "$hdr_k")" ] && [ ! -e "/lib/modules/$hdr_k/build/include" ]
	tap_check $? "$hdr_k: our build and linux-headers-$hdr_k removed (the starting point)"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$hdr_deb" > "$pt_tmp/hdr-in.log" 2>&1
	rc=$?
	tap_check $rc "apt install $(basename "$hdr_deb") exits 0"
	[ $rc = 0 ] || pt_log "$pt_tmp/hdr-in.log" 15
	check_kernel "$hdr_k" "$pt_tmp/hdr-in.log" "$ver"
	grep -q -i "dkms.*auto.*install.*$hdr_k" "$pt_tmp/hdr-in.log"
	tap_check $? "$hdr_k: the headers package's hook ran DKMS's autoinstall ($(grep -i -m 1 "dkms.*auto.*install.*$hdr_k" "$pt_tmp/hdr-in.log"))"
fi

# --- in a VM: the installed module loads and is ours ---------------------------
# vm_modprobe KVER MODULE WHAT: boots KVER, modprobes MODULE; $out has its
# /sys/module version ("none" without one) and the file it came from (the
# last lines go out as diagnostics when the VM run failed). Returns 1 (after
# a loud skip of WHAT) when no VM can run.
vm_modprobe() {
	if [ "${FB_PKG_VM:-1}" = 0 ]; then
		tap_skip "$3" "FB_PKG_VM=0"
		return 1
	fi
	if ! command -v vng > /dev/null || ! command -v qemu-system-x86_64 > /dev/null; then
		tap_skip "$3" "no virtme-ng/QEMU (sh dev/deps.sh test)"
		return 1
	fi
	out=$(sh tests/vm/boot.sh --kver "$1" --timeout 600 --log "$pt_tmp/vm-$1.log" -- \
		sh -c "modprobe $2 && { cat /sys/module/$2/version 2> /dev/null || echo none; } &&
			modinfo -F filename $2 && grep -w $2 /proc/filesystems" 2>&1) ||
		echo "$out" | tail -n 5 | sed 's/^/#   /'
	return 0
}
vm_check() { # KVER MODULE
	mv=$(pt_modver "$1")
	what="$1: in a VM, modprobe $2 loads the DKMS module, /sys/module/$2/version $mv"
	vm_modprobe "$1" "$2" "$what" || return
	echo "$out" | grep -qx "$mv" && echo "$out" | grep -q "/updates/dkms/$2.ko"
	tap_check $? "$what"
}
# The renamed flavor on $vm_kver; the drop-in flavor on the first kernel that
# has it and whose image is installed.
case $(our_modules "$vm_kver") in
*/fusebp.ko*) vm_check "$vm_kver" fusebp ;;
esac
for k in $kernels; do
	case $(our_modules "$k") in
	*/fuse.ko*)
		if [ -f "/boot/vmlinuz-$k" ]; then
			vm_check "$k" fuse
			dropin_vm_k=$k
			break
		fi
		;;
	esac
done

# --- a kernel the build refuses: its headers package installs, apt exits 0 ---
# Fake headers of a served 6.1 kernel whose <linux/miscdevice.h> is hidden,
# so the required probe HAVE_MISC_DYNAMIC_MINOR fails (scripts/build.sh
# would exit 3). Their postinst runs DKMS's hook as Debian's headers do.
if pt_fake_headers_deb $gatek "$pt_tmp/fake" 2> "$pt_tmp/fake.log"; then
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$pt_tmp/fake/linux-headers-$gatek.deb" \
		> "$pt_tmp/gate.log" 2>&1
	rc=$?
	tap_check $rc "apt install headers of $gatek (required probe fails, ours installed) exits 0 (dkms $(dpkg-query -W -f '${Version}' dkms))"
	[ $rc = 0 ] || pt_log "$pt_tmp/gate.log" 15
	line=$(grep "fuse-backport: not building for $gatek: " "$pt_tmp/gate.log")
	[ "$(echo "$line" | grep -c .)" = 1 ] && echo "$line" | grep -q 'not supported yet by base .*HAVE_MISC_DYNAMIC_MINOR' &&
		[ "$(pt_deb_state "linux-headers-$gatek")" = installed ] && [ -z "$(our_modules $gatek)" ] &&
		! dkms status -m $name 2> /dev/null | grep -q ", $gatek,"
	tap_check $? "$gatek: skipped with one line, headers configured, nothing built"
	echo "$line" | sed 's/^/# /'
	dpkg --purge "linux-headers-$gatek" > /dev/null 2>&1
else
	tap_check 1 "fake headers of $gatek built ($(tail -n 1 "$pt_tmp/fake.log"))"
fi

# --- the headers of a drop-in kernel go before we do --------------------------
# Golden images purge headers after building: removal must still take
# fuse.ko, cuse.ko and virtiofs.ko away. pt_cleanup reinstalls the headers.
gone_k=""
if [ -n "$hdr_k" ]; then
	before=$(our_modules "$hdr_k")
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 remove -y -q "linux-headers-$hdr_k" > "$pt_tmp/hdr-rm2.log" 2>&1
	[ ! -e "/lib/modules/$hdr_k/build/.config" ] &&
		echo "$before" | grep -q /cuse.ko && echo "$before" | grep -q /virtiofs.ko && echo "$before" | grep -q /fuse.ko
	tap_check $? "$hdr_k: headers removed, with fuse, cuse and virtiofs of ours installed"
	gone_k=$hdr_k
fi

# --- remove, purge ------------------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 remove -y -q $pkg fuse-backport-tools > "$pt_tmp/remove.log" 2>&1
rc=$?
tap_check $rc "apt remove $pkg exits 0"
[ $rc = 0 ] || pt_log "$pt_tmp/remove.log"
left=""
for k in $kernels; do
	left="$left$(our_modules "$k")"
done
[ -z "$left" ]
tap_check $? "no module of ours left in any /lib/modules/*/updates/dkms${left:+ ($left)}"
if [ -n "$gone_k" ]; then
	# modprobe must not resolve to a module of ours any more. Whether it
	# finds the stock fuse.ko depends on the kernel image being installed,
	# which for a headers-only kernel on this host it is not (6.1.0-57's
	# stock module is checked below).
	dep=/lib/modules/$gone_k/modules.dep
	[ -z "$(our_modules "$gone_k")" ] && { [ ! -e "$dep" ] ||
		! grep -Eq '(^|/)updates/dkms/(fuse|cuse|virtiofs|fusebp)\.ko' "$dep"; }
	tap_check $? "$gone_k (no headers): fuse, cuse, virtiofs of ours removed$([ -e "$dep" ] && echo ', modules.dep names none of them')"
fi
! dkms status -m $name 2> /dev/null | grep -q . && [ ! -e "/var/lib/dkms/$name" ]
tap_check $? "dkms status has no $name, /var/lib/dkms/$name is gone"
! ls -d /usr/src/$name-[0-9]* > /dev/null 2>&1
tap_check $? "no /usr/src/$name-* tree left"
if [ -e "/lib/modules/$vm_kver/modules.dep" ]; then
	! modinfo -k "$vm_kver" fusebp > /dev/null 2>&1
	tap_check $? "depmod ran: $vm_kver no longer knows fusebp"
fi
# The drop-in kernel checked in a VM above has the stock fuse.ko back: what
# modprobe resolves to on the host, and what loads and registers in a VM.
if [ -n "${dropin_vm_k:-}" ]; then
	k=$dropin_vm_k
	f=$(modinfo -k "$k" -F filename fuse 2> /dev/null)
	case $f in */kernel/fs/fuse/fuse.ko*) r=0 ;; *) r=1 ;; esac
	tap_check $r "$k: modprobe resolves fuse to the stock module again (${f:-nothing})"
	what="$k: in a VM, the stock fuse.ko loads after apt remove"
	if vm_modprobe "$k" fuse "$what"; then
		echo "$out" | grep -q '/kernel/fs/fuse/fuse\.ko' && ! echo "$out" | grep -q '+fb' &&
			echo "$out" | grep -q 'fuse$'
		tap_check $? "$what (version: $(echo "$out" | grep -x -m 1 'none\|[0-9].*'))"
	fi
fi
# Nothing is left to purge (no conffiles): dpkg --purge must agree.
dpkg --purge $pkg fuse-backport-tools > "$pt_tmp/purge.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(pt_deb_state $pkg)" = not-installed ]
tap_check $? "dpkg --purge: dpkg knows nothing of $pkg"
[ $rc = 0 ] || pt_log "$pt_tmp/purge.log"
dpkg --audit > "$pt_tmp/audit.log" 2>&1
[ ! -s "$pt_tmp/audit.log" ]
tap_check $? "dpkg --audit: nothing half-installed or half-configured"
[ ! -e "/lib/modules/$fake7" ] && [ ! -e "/lib/modules/$nohdr" ] && [ ! -e "/usr/src/linux-headers-$fake7" ]
tap_check $? "the fake kernels are gone"

tap_done
