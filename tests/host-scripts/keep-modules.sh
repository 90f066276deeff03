# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: an upgrade keeps the modules it cannot build
# again (scripts/keep-modules.sh), on a fake module tree: kernel A has no
# headers and ours in updates/dkms, B has headers and ours, C no headers
# and a stock module only. modinfo is a stand-in that reads a module's
# version from the file itself (a line "version=..."), depmod one that logs
# its calls. Sourced by run.sh, in its shell and TAP count ($top, $work,
# ok, notok).
# shellcheck shell=sh disable=SC2154

km=$work/keep
rm -rf "$km"
mkdir -p "$km/bin" "$km/mod/6.1.0-1-a/updates/dkms" "$km/mod/6.1.0-1-b/updates/dkms" \
	"$km/mod/6.1.0-1-b/build/include" "$km/mod/6.1.0-1-c/updates/dkms"
cat > "$km/bin/modinfo" << 'EOS'
#!/bin/sh
# modinfo -F version FILE
[ "$1" = -F ] && [ -f "$3" ] || exit 1
sed -n "s/^$2=//p" "$3"
EOS
printf '#!/bin/sh\necho "$*" >> "%s"\n' "$km/depmod.log" > "$km/bin/depmod"
chmod 755 "$km/bin/modinfo" "$km/bin/depmod"
for m in fuse cuse; do
	echo "version=6.12.118+fb6" > "$km/mod/6.1.0-1-a/updates/dkms/$m.ko.xz"
	echo "version=6.12.118+fb6" > "$km/mod/6.1.0-1-b/updates/dkms/$m.ko.xz"
done
echo "version=" > "$km/mod/6.1.0-1-c/updates/dkms/fuse.ko.xz"
# km_run WHAT...: the script on the fake tree; $out (stdout and stderr)
km_run() {
	out=$(PATH="$km/bin:$PATH" FB_MODROOT=$km/mod FB_KEEPDIR=$km/kept FB_DEPMOD=$km/bin/depmod \
		FB_PREFIX=fusebp sh "$top/scripts/keep-modules.sh" fuse-backport-dkms "$@" 2>&1)
}
km_list() { (cd "$km" && find kept mod -path '*kept*' -type f 2> /dev/null | sort | tr '\n' ' '); }

# The prerm on upgrade: A's modules stashed, not B's (headers: rebuilt),
# not C's (not ours).
km_run stash
[ -z "$out" ] && [ "$(km_list)" = "kept/6.1.0-1-a/cuse.ko.xz kept/6.1.0-1-a/fuse.ko.xz " ]
r=$?
if [ $r = 0 ]; then
	ok "stash: the modules of ours of the kernel without headers only ($(km_list))"
else
	notok "stash: the modules of ours of the kernel without headers only ($(km_list); $out)"
fi
# dh_dkms's dkms remove --all, then the new postinst builds B only
rm -f "$km"/mod/*/updates/dkms/fuse.ko.xz "$km"/mod/*/updates/dkms/cuse.ko.xz
echo "version=6.12.118+fb7" > "$km/mod/6.1.0-1-b/updates/dkms/fuse.ko.xz"
: > "$km/depmod.log"
km_run restore
a=$km/mod/6.1.0-1-a/updates/fuse-backport-kept
[ -f "$a/fuse.ko.xz" ] && [ -f "$a/cuse.ko.xz" ] && [ ! -e "$km/kept" ] &&
	[ "$(cat "$km/depmod.log")" = "-a 6.1.0-1-a" ] && [ "$(echo "$out" | grep -c .)" = 1 ] &&
	case $out in "fuse-backport-dkms: 6.1.0-1-a has no headers: its module of ours (6.12.118+fb6) is kept in $km/mod/6.1.0-1-a/updates/fuse-backport-kept; install linux-headers-6.1.0-1-a"*) true ;; *) false ;; esac
r=$?
if [ $r = 0 ]; then
	ok "restore: the kernel without headers gets its modules back beside DKMS's tree, depmod, one line"
else
	notok "restore: the kernel without headers gets its modules back beside DKMS's tree, depmod, one line ($(km_list); depmod: $(cat "$km/depmod.log"); $out)"
fi
# Its headers come back and the kernel hook installs this release: the
# kept copy goes.
echo "version=6.12.118+fb7" > "$km/mod/6.1.0-1-a/updates/dkms/fuse.ko.xz"
km_run drop 6.1.0-1-a
[ ! -e "$a" ] && [ -z "$out" ]
r=$?
if [ $r = 0 ]; then
	ok "drop: the kept copy goes once this release is installed for the kernel"
else
	notok "drop: the kept copy goes once this release is installed for the kernel ($(km_list); $out)"
fi
# Removal takes every kept copy.
mkdir -p "$a" && echo "version=6.12.118+fb6" > "$a/fuse.ko.xz"
km_run forget
[ -z "$(km_list)" ]
r=$?
if [ $r = 0 ]; then
	ok "forget: removal leaves no kept copy"
else
	notok "forget: removal leaves no kept copy ($(km_list))"
fi
# dkms on Fedora and EL installs into extra/: kept the same.
mkdir -p "$km/mod/6.12.0-55.el10.x86_64/extra"
echo "version=6.12.118+fb6" > "$km/mod/6.12.0-55.el10.x86_64/extra/fuse.ko.xz"
km_run stash
if [ -f "$km/kept/6.12.0-55.el10.x86_64/fuse.ko.xz" ] && [ -z "$out" ]; then
	ok "stash: a module of ours in extra/ (dkms on Fedora and EL) is kept too"
else
	notok "stash: a module of ours in extra/ (dkms on Fedora and EL) is kept too ($(km_list); $out)"
fi
