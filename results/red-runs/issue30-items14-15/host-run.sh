set -u
mount --make-rprivate /
mkdir -p /tmp/h30c-host/xfs
truncate -s 600M /tmp/h30c-host/xfs.img
mkfs.xfs -q -f /tmp/h30c-host/xfs.img
mount -o loop /tmp/h30c-host/xfs.img /tmp/h30c-host/xfs || exit 1
mountpoint -q /sys/fs/fuse/connections || mount -t fusectl none /sys/fs/fuse/connections
export FB_XFS=/tmp/h30c-host/xfs FB_TARGET=stock FB_DEV=/dev/fuse FB_FSTYPE=fuse FB_CTL=/sys/fs/fuse/connections FB_SCRATCH=/tmp/h30c-host/s FB_BACK=/tmp/h30c-host/s/back
mkdir -p $FB_SCRATCH
timeout 600 sh tests/suites/security.sh
echo "suite exit $?"
umount -l /tmp/h30c-host/s/mnt 2>/dev/null
umount /tmp/h30c-host/xfs
