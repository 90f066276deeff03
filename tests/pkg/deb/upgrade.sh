# SPDX-License-Identifier: GPL-2.0-only
# tests/pkg/deb.sh, the install of the previous package and the upgrade to
# today's, with a kernel without headers and one outside every base. Sourced
# by it, in its shell and its TAP count, after the parts before it
# (tests/pkg/deb/lib.sh first).
# Its variables are deb.sh's (pkg, name, fake7 ...: words without spaces):
# `shellcheck -x tests/pkg/deb.sh` checks this part in its context.
# shellcheck shell=sh disable=SC2154,SC2034,SC2086

# --- an initramfs for the drop-in kernel ---------------------------------------
# As a kernel install makes it, with fuse3's hook: the kernel's own fuse.ko
# inside. Made here (and removed at the end) where the host has none.
irk=""
for k in $kernels; do
	[ -f "/lib/modules/$k/kernel/fs/fuse/fuse.ko" ] && [ -f /usr/share/initramfs-tools/hooks/fuse ] &&
		command -v mkinitramfs > /dev/null && irk=$k && break
done
if [ -n "$irk" ] && [ ! -e "/boot/initrd.img-$irk" ]; then
	mkinitramfs -o "/boot/initrd.img-$irk" "$irk" > "$pt_tmp/mkinitramfs.log" 2>&1 && irk_made=1
fi
if [ -n "$irk" ]; then
	[ "$(initrd_fuse "$irk")" = kernel/fs/fuse/fuse.ko ]
	tap_check $? "$irk: its initramfs holds the kernel's own fuse.ko before any package of ours ($(initrd_fuse "$irk"))"
else
	irk_why=""
	[ -f /usr/share/initramfs-tools/hooks/fuse ] || irk_why="no fuse3 initramfs hook (package fuse3)"
	command -v mkinitramfs > /dev/null || irk_why="${irk_why:+$irk_why, }no mkinitramfs (package initramfs-tools)"
	tap_check 1 "a drop-in kernel with its own fuse.ko, fuse3's initramfs hook and mkinitramfs for the initramfs checks (${irk_why:-no kernel/fs/fuse/fuse.ko in any of $(echo "$kernels" | tr "\n" " ")})"
fi

# --- install the previous package ---------------------------------------------
# (pkg-deb-upgrade: the default tier has no previous package; the kernel's
# own fuse.ko is then what the initramfs held before ours)
irk_prev=kernel/fs/fuse/fuse.ko
red_noauto=""
if [ "$upgrade" = yes ]; then
	if [ "${FB_PKG_RED:-0}" = 1 ] && [ ! -e /etc/dkms/no-autoinstall ]; then
		mkdir -p /etc/dkms && : > /etc/dkms/no-autoinstall && red_noauto=1
	fi
	# shellcheck disable=SC2086 # no tools .deb: nothing
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$deb0" $tools0 > "$pt_tmp/install0.log" 2>&1
	rc=$?
	tap_check $rc "apt install $(basename "$deb0") $(basename "${tools0:-(no tools .deb)}") (the previous package) exits 0"
	[ $rc = 0 ] || pt_log "$pt_tmp/install0.log" 15
	src0=/usr/src/$name-$prev
	# Lockstep: today's tools beside the previous dkms package are refused
	# (Breaks every other version), and dpkg changes nothing.
	if [ -n "$tools1" ]; then
		# the two bounds, in whatever order dpkg-gencontrol wrote them
		br=$(dpkg-deb -f "$tools1" Breaks)
		brs=$(echo "$br" | tr ',' '\n' | sed 's/^ *//' | grep "^$pkg " | sort | tr '\n' ';')
		dpkg --no-act -i "$tools1" > "$pt_tmp/lockstep.log" 2>&1
		rc=$?
		[ "$brs" = "$pkg (<< $debver1);$pkg (>> $debver1);" ] && [ $rc != 0 ] &&
			grep -q "breaks $pkg (<< $debver1)" "$pt_tmp/lockstep.log" &&
			[ "$(dpkg-query -W -f '${Version}' $pkg)" = "$debver0" ]
		r=$?
		tap_check $r "fuse-backport-tools $debver1 beside $pkg $debver0: dpkg refuses (Breaks: $br), nothing changed"
		[ $r = 0 ] || pt_log "$pt_tmp/lockstep.log" 8
	fi
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
	# The initramfs under the previous package: one from
	# before scripts/initramfs.sh left it as it was, the kernel's own fuse.ko
	# although modprobe loads ours (FB_PKG_PREV=57cc216 shows it); a later one
	# made it again with ours.
	[ ! -f "$pt_tmp/prev/src/scripts/initramfs.sh" ] || irk_prev=updates/dkms/fuse.ko
	if [ -n "$irk" ] && [ -z "$red_noauto" ]; then
		f=$(modinfo -k "$irk" -F filename fuse 2> /dev/null)
		[ "$(initrd_fuse "$irk")" = "$irk_prev" ] && case $f in */updates/dkms/fuse.ko*) true ;; *) false ;; esac
		tap_check $? "$irk, previous package $debver0: modprobe loads ours ($f), the initramfs holds $(initrd_fuse "$irk") (that package's way: $irk_prev)"
	fi
fi

# --- upgrade to today's product version, with a kernel without headers and one
# we do not serve ----------------------------------------------------------------
# The fakes: a kernel whose headers are not installed, and 7.4 headers (outside every base).
mkdir -p "/lib/modules/$nohdr" "/usr/src/linux-headers-$fake7/include" "/lib/modules/$fake7"
# (tests/pkg/fixtures/headers-7.4.0-fake: a Makefile and .config of $fake7)
cp "$top/tests/pkg/fixtures/headers-$fake7/Makefile" "$top/tests/pkg/fixtures/headers-$fake7/.config" \
	"/usr/src/linux-headers-$fake7/"
ln -sfn "/usr/src/linux-headers-$fake7" "/lib/modules/$fake7/build"

# shellcheck disable=SC2086 # no tools .deb: nothing
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q "$deb1" $tools1 > "$pt_tmp/install1.log" 2>&1
rc=$?
if [ "$upgrade" = yes ]; then
	tap_check $rc "apt upgrade $debver0 -> $debver1 ($(basename "$deb1") $(basename "${tools1:-(no tools .deb)}")) exits 0"
else
	tap_check $rc "apt install $(basename "$deb1") $(basename "${tools1:-(no tools .deb)}") (no earlier package) exits 0"
fi
[ $rc = 0 ] || pt_log "$pt_tmp/install1.log" 15
grep -E "^(Preparing to unpack|Unpacking|Setting up) fuse-backport" "$pt_tmp/install1.log" | sed 's/^/# /'
[ "$(pt_deb_state $pkg)" = installed ] && [ "$(dpkg-query -W -f '${Version}' $pkg)" = "$debver1" ]
tap_check $? "dpkg: $pkg $debver1 is installed and configured ($(pt_deb_state $pkg) $(dpkg-query -W -f '${Version}' $pkg 2> /dev/null))"
st=$(dkms status -m $name 2> /dev/null)
if [ "$upgrade" = yes ]; then
	! echo "$st" | grep -q "$name/${prev}[,:]" && [ ! -e "$src0" ] && [ -d "$src" ] && [ ! -e "/var/lib/dkms/$name/$prev" ]
	tap_check $? "$prev is gone from DKMS (dkms status, /var/lib/dkms) and /usr/src, $ver is there"
fi
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
# The takeover's switch, on by the package's defaults (no conffile), and its
# boot unit: enabled, not run.
wants=/etc/systemd/system/sysinit.target.wants/fuse-backport-takeover.service
grep -qx 'TAKEOVER=yes' /usr/lib/fuse-backport/fuse-backport.conf &&
	[ -z "$(dpkg-query -W -f '${Conffiles}' fuse-backport-tools)" ] &&
	fuse-backport takeover 2> /dev/null | grep -q '(TAKEOVER=yes in /usr/lib/fuse-backport/fuse-backport.conf)' &&
	[ -L "$wants" ] && [ -f "$(readlink -f "$wants")" ]
tap_check $? "fuse-backport-tools: TAKEOVER=yes by the defaults in /usr/lib/fuse-backport/fuse-backport.conf, no conffile, fuse-backport-takeover.service enabled ($(readlink "$wants" 2> /dev/null || echo 'no link'))"
# The metrics timer for node_exporter: shipped, neither enabled nor started.
ptimer=fuse-backport-prometheus.timer
[ -f "/lib/systemd/system/$ptimer" ] && [ -f /lib/systemd/system/fuse-backport-prometheus.service ] &&
	[ ! -e "/etc/systemd/system/timers.target.wants/$ptimer" ]
tap_check $? "fuse-backport-tools: $ptimer and its service shipped, the timer not enabled"
# No prompt, ever: the admin sets TAKEOVER=no in /etc; the same version
# again with its shipped settings file changed (one comment line more, as
# a release changes them), installed by dpkg with no --force-conf* and no
# terminal: no question, the admin's file untouched and in force.
# (A conffile there would stop dpkg at its prompt: end of file on stdin.)
if [ -n "$tools1" ] && command -v fuse-backport > /dev/null; then
	rm -rf "$pt_tmp/trepack"
	dpkg-deb -R "$tools1" "$pt_tmp/trepack" 2> /dev/null
	for f in usr/lib/fuse-backport/fuse-backport.conf etc/fuse-backport/fuse-backport.conf; do
		[ -f "$pt_tmp/trepack/$f" ] && echo '# a comment a later release adds' >> "$pt_tmp/trepack/$f"
	done
	[ ! -f "$pt_tmp/trepack/DEBIAN/md5sums" ] ||
		(cd "$pt_tmp/trepack" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
	mkdir -p /etc/fuse-backport
	printf '# mine\nTAKEOVER=no\n' >> /etc/fuse-backport/fuse-backport.conf
	before=$(md5sum < /etc/fuse-backport/fuse-backport.conf)
	dpkg-deb -b "$pt_tmp/trepack" "$pt_tmp/tools-changed.deb" > /dev/null 2>&1 &&
		DEBIAN_FRONTEND=noninteractive dpkg -i "$pt_tmp/tools-changed.deb" < /dev/null > "$pt_tmp/noprompt.log" 2>&1
	rc=$?
	[ $rc = 0 ] && [ "$(md5sum < /etc/fuse-backport/fuse-backport.conf)" = "$before" ] &&
		fuse-backport takeover 2> /dev/null | grep -q '(TAKEOVER=no in /etc/fuse-backport/fuse-backport.conf)'
	tap_check $? "the tools' settings changed by a new package while the admin set TAKEOVER=no: dpkg -i, no terminal, no --force-conf: exit $rc, no question, the admin's file kept and in force"
	[ $rc = 0 ] || pt_log "$pt_tmp/noprompt.log" 8
	rm -f /etc/fuse-backport/fuse-backport.conf
	rmdir /etc/fuse-backport 2> /dev/null
	dpkg -i "$tools1" > /dev/null 2>&1
fi
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
if [ -n "$irk" ]; then
	# made again (one line) where the previous package had left the
	# kernel's own in it; left alone where it holds ours already
	remade=0
	grep -q "the initramfs of $irk held kernel/fs/fuse/fuse.ko; made again with ours (updates/dkms/fuse.ko)" "$pt_tmp/install1.log" || remade=1
	[ "$(initrd_fuse "$irk")" = updates/dkms/fuse.ko ] &&
		{ { [ "$irk_prev" = kernel/fs/fuse/fuse.ko ] && [ $remade = 0 ]; } ||
			{ [ "$irk_prev" = updates/dkms/fuse.ko ] && [ $remade = 1 ]; }; }
	tap_check $? "$irk: after the $([ "$upgrade" = yes ] && echo upgrade || echo install) its initramfs holds our fuse.ko ($(initrd_fuse "$irk"); $(grep -m 1 'initramfs of' "$pt_tmp/install1.log" || echo 'not made again'))"
	# The image copies our modprobe.d file, not its helper: each of the
	# three install lines it holds must load the module as modprobe
	# would without the file (modprobe --ignore-install; a stand-in
	# modprobe logs it), with /usr/libexec empty in a namespace.
	ui=$pt_tmp/initrd-unpacked
	rm -rf "$ui"
	unmkinitramfs "/boot/initrd.img-$irk" "$ui" > /dev/null 2>&1
	iconf=$(find "$ui" -path '*/modprobe.d/fuse-backport.conf' 2> /dev/null | head -n 1)
	ihelper=$(find "$ui" -path '*/fuse-backport/modprobe-stock' 2> /dev/null | head -n 1)
	mkdir -p "$pt_tmp/ibin"
	printf '#!/bin/sh\necho "$*" >> %s/icalls\n' "$pt_tmp" > "$pt_tmp/ibin/modprobe"
	chmod 755 "$pt_tmp/ibin/modprobe"
	bad=""
	for n in fuse cuse virtiofs; do
		# shellcheck disable=SC2016 # modprobe's $CMDLINE_OPTS, taken out
		line=$(sed -n "s/^install $n //p" "$iconf" 2> /dev/null | sed 's/\$CMDLINE_OPTS//')
		: > "$pt_tmp/icalls"
		# shellcheck disable=SC2016 # expanded by the inner shell
		[ -n "$line" ] && unshare -m sh -c 'mount -t tmpfs none /usr/libexec || exit 99
			PATH=$1:$PATH; exec /bin/sh -c "$2"' _ "$pt_tmp/ibin" "$line" > "$pt_tmp/iout" 2>&1
		[ "$(cat "$pt_tmp/icalls")" = "--ignore-install $n" ] || bad="$bad $n ($(head -n 1 "$pt_tmp/iout"))"
	done
	[ -n "$iconf" ] && [ -z "$ihelper" ] && [ -z "$bad" ]
	tap_check $? "$irk: its initramfs holds our modprobe.d file (${iconf#"$ui"/}) without the helper, and fuse, cuse and virtiofs each load as modprobe would without it${bad:+; not:$bad}"
	# Another build of ours at the same path: an image made with the
	# kernel's own fuse.ko in place of ours (another srcversion), then ours
	# put back. initramfs.sh compares the builds, not the paths.
	of=$(modinfo -k "$irk" -F filename fuse 2> /dev/null)
	sf=$(find "/lib/modules/$irk/kernel/fs/fuse" -name 'fuse.ko*' | head -n 1)
	case $of in
	*/updates/dkms/fuse.ko)
		cp -p "$of" "$pt_tmp/fuse.ko.ours"
		cp "$sf" "$of" && mkinitramfs -o "/boot/initrd.img-$irk" "$irk" > /dev/null 2>&1
		cp -p "$pt_tmp/fuse.ko.ours" "$of"
		sh /usr/src/$name-$ver/scripts/initramfs.sh "$pkg" "$irk" > "$pt_tmp/same-path.log" 2>&1
		want=$(modinfo -F srcversion "$of")
		rm -rf "$ui"
		unmkinitramfs "/boot/initrd.img-$irk" "$ui" > /dev/null 2>&1
		got=$(find "$ui" -path "*/lib/modules/$irk/updates/dkms/fuse.ko" -exec modinfo -F srcversion {} \; 2> /dev/null | head -n 1)
		grep -q "^$pkg: the initramfs of $irk held updates/dkms/fuse.ko of another build; made again with ours (updates/dkms/fuse.ko)\$" \
			"$pt_tmp/same-path.log" && [ "$got" = "$want" ]
		tap_check $? "$irk: an initramfs holding another build of ours at the same path is made again with this one (srcversion ${got:-none}, want $want; $(head -n 1 "$pt_tmp/same-path.log"))"
		;;
	*) tap_check 1 "$irk: modprobe resolves fuse to ours under updates/dkms (${of:-nothing})" ;;
	esac
fi
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
