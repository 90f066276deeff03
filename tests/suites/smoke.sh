#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Smoke suite (guest): in every daemon mode, mount, create/write/read/stat,
# rename, unlink, mkdir/readdir/rmdir, truncate, shared mmap write and read,
# unmount; then, for our module, unload and load again.
# Environment: see tests/lib/fuse.sh (FB_TARGET, FB_DEV, FB_FSTYPE, ...).
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"
. "$FB_TOP/tests/lib/fuse.sh"
mmap=$FB_TOP/tests/bin/fbmmap
mkdir -p "$FB_SCRATCH"

modes="cached direct parallel passthrough passthrough-parallel"

for mode in $modes; do
	case $mode in
	cached) args="--mode cached" ;;
	direct) args="--mode direct" ;;
	parallel) args="--mode direct --parallel" ;;
	passthrough) args="--mode passthrough" ;;
	passthrough-parallel) args="--mode passthrough --parallel" ;;
	esac
	rm -rf "$FB_BACK"
	# shellcheck disable=SC2086
	if ! fb_mount $args 2> "$FB_SCRATCH/mount.err"; then
		case $mode in
		passthrough*)
			# only the daemon's own refusal: the kernel did not offer it
			if grep -q 'did not offer FUSE_PASSTHROUGH in INIT' "$FB_SCRATCH/mount.err"; then
				tap_skip "$mode: mount" "mount: $(grep -m 1 'did not offer FUSE_PASSTHROUGH' "$FB_SCRATCH/mount.err")"
				continue
			fi
			;;
		esac
		tap_check 1 "$mode: mount ($(head -n 1 "$FB_SCRATCH/mount.err"))"
		continue
	fi
	tap_check 0 "$mode: mount -t $FB_FSTYPE"
	m=$FB_MNT b=$FB_BACK

	echo "hello $mode" > "$m/a" && [ "$(cat "$m/a")" = "hello $mode" ] &&
		[ "$(cat "$b/a")" = "hello $mode" ]
	tap_check $? "$mode: create, write, read back; backing file has the bytes"

	head -c 1000000 /dev/urandom > "$FB_SCRATCH/ref"
	dd if="$FB_SCRATCH/ref" of="$m/big" bs=65536 2> /dev/null &&
		[ "$(stat -c %s "$m/big")" = 1000000 ] && cmp -s "$FB_SCRATCH/ref" "$m/big" &&
		cmp -s "$FB_SCRATCH/ref" "$b/big"
	tap_check $? "$mode: 1 MB file: size by stat, bytes through the mount and in the backing file"

	mv "$m/a" "$m/renamed" && [ ! -e "$m/a" ] && [ -f "$b/renamed" ] &&
		[ "$(cat "$m/renamed")" = "hello $mode" ]
	tap_check $? "$mode: rename"

	rm "$m/renamed" && [ ! -e "$m/renamed" ] && [ ! -e "$b/renamed" ]
	tap_check $? "$mode: unlink"

	mkdir "$m/d" && touch "$m/d/x" "$m/d/y" &&
		[ "$(find "$m/d" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')" = "x y " ] &&
		rm "$m/d/x" "$m/d/y" && rmdir "$m/d" && [ ! -e "$b/d" ]
	tap_check $? "$mode: mkdir, readdir, rmdir"

	truncate -s 4000 "$m/big" && [ "$(stat -c %s "$m/big")" = 4000 ] &&
		[ "$(stat -c %s "$b/big")" = 4000 ] &&
		head -c 4000 "$FB_SCRATCH/ref" | cmp -s - "$m/big" &&
		truncate -s 9000 "$m/big" && [ "$(stat -c %s "$b/big")" = 9000 ] &&
		[ "$(tail -c 5000 "$m/big" | tr -d '\0' | wc -c)" = 0 ]
	tap_check $? "$mode: truncate smaller keeps the head, larger reads zeros"

	if "$mmap" write "$m/map" 300000 11 2> "$FB_SCRATCH/mmap.err" && "$mmap" check "$b/map" 300000 11 &&
	   echo 3 > /proc/sys/vm/drop_caches && "$mmap" check "$m/map" 300000 11; then
		tap_check 0 "$mode: shared mmap write reaches the backing file, mmap read sees it"
	else
		case $mode in
		direct | parallel)
			# FOPEN_DIRECT_IO files support shared mmap only with
			# FUSE_DIRECT_IO_ALLOW_MMAP (6.6), which fbtestd asks for:
			# ENODEV only where the kernel did not grant it.
			mm=$(fb_stat init_direct_io_allow_mmap)
			[ "$mm" = 0 ] && grep -q 'mmap .*No such device' "$FB_SCRATCH/mmap.err"
			tap_check $? "$mode: shared mmap is refused with ENODEV, the kernel did not grant FUSE_DIRECT_IO_ALLOW_MMAP (granted: ${mm:-no statistics})"
			;;
		*) tap_check 1 "$mode: shared mmap write reaches the backing file, mmap read sees it" ;;
		esac
	fi

	fb_umount && ! grep -q " $m " /proc/mounts
	tap_check $? "$mode: unmount, daemon gone"
done

case $FB_TARGET in
ours | unpatched)
	fb_unload_ours && [ ! -d "/sys/module/$FB_MODNAME" ]
	tap_check $? "unload $FB_MODNAME"
	fb_use "$FB_TARGET" > /dev/null 2>&1 && [ -c "$FB_DEV" ]
	tap_check $? "load $FB_MODNAME again"
	;;
esac
tap_done
