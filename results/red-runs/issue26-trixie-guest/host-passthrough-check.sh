#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The debian13 suite's passthrough test, on the host's own FUSE (no VM, no module of
# ours): in a private mount namespace, the guest root's passthrough_hp (chroot)
# over a tmpfs; args go to passthrough_hp (--nopassthrough: the red case).
R=/var/cache/fuse-backport/roots/trixie-guest
mkdir -p $R/work/h26t
mount --bind /work/h26t $R/work/h26t
mount -t proc proc $R/proc
mount --bind /dev $R/dev
mount -t tmpfs tmpfs $R/tmp
# shellcheck disable=SC2016 # a script for the chroot's shell
chroot $R env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp sh -c '
FB_TOP=/work/h26t
. $FB_TOP/tests/lib/fuse.sh
. $FB_TOP/tests/lib/daemons.sh
HP=/usr/local/libexec/fuse-backport-test/passthrough_hp
DM_S=/tmp/dm DM_M=/tmp/m
mkdir -p $DM_S/b $DM_M
dm_bk=$DM_S/b
timeout 60 $HP "$@" $DM_S/b $DM_M; echo "mount rc=$? type=$(fb_fstype $DM_M)"
head -c 65536 /dev/zero | tr "\0" a > "$DM_M/pt"
cat "$DM_M/pt" > /dev/null
head -c 65536 /dev/zero | tr "\0" b | dd of="$DM_S/b/pt" conv=notrunc status=none
echo "pt test: first byte now $(head -c 1 $DM_M/pt), non-b count $(tr -d b < $DM_M/pt | wc -c)"
rm -f $DM_M/pt
dm_check_big passthrough_hp; echo big=$?
dm_check_parallel; echo par=$?
timeout 300 fio --name=fb --filename="$DM_M/fio" --rw=randwrite --bs=4k --direct=1 --ioengine=psync \
	--numjobs=4 --size=1M --offset_increment=1M --verify=crc32c --do_verify=1 --group_reporting > /tmp/fio.out 2>&1
echo "fio=$? size=$(stat -c %s $DM_S/b/fio) $(grep -m1 -o "IOPS=[^,]*" /tmp/fio.out)"; grep -i "err\|verify" /tmp/fio.out | head -5
rm -f $DM_M/fio
dm_check_unlink && dm_umount "$HP"; echo umount=$?
' sh "$@"
