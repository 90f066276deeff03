set -u
mount --make-rprivate /
mkdir -p /tmp/h30t-host/xfs
[ -f /tmp/h30t-host/xfs.img ] || { truncate -s 600M /tmp/h30t-host/xfs.img; mkfs.xfs -q -f /tmp/h30t-host/xfs.img; }
mount -o loop /tmp/h30t-host/xfs.img /tmp/h30t-host/xfs || exit 1
mountpoint -q /sys/fs/fuse/connections || mount -t fusectl none /sys/fs/fuse/connections
export FB_TOP=/work/h30t FB_XFS=/tmp/h30t-host/xfs FB_TARGET=stock FB_DEV=/dev/fuse FB_FSTYPE=fuse FB_CTL=/sys/fs/fuse/connections FB_SCRATCH=/tmp/h30t-host/s
mkdir -p $FB_SCRATCH
# security.sh's helpers (up to its first section), then section 10d alone
{
	sed -n '1,/^if mount_pt; then$/p' tests/suites/security.sh | sed '$d'
	echo 'FB_BACK=$FB_XFS/mixback tr_fake=${TR_FAKE:-suid}'
	sed -n '/^	# 10d\./,/^	FB_BACK=\$sec_back$/p' tests/suites/security/mixed.sh
	echo tap_done
} > /tmp/h30t-host/sec10d.sh
cd /work/h30t && timeout 300 sh /tmp/h30t-host/sec10d.sh
echo "suite exit $?"
umount -l /tmp/h30t-host/s/mnt 2>/dev/null
umount /tmp/h30t-host/xfs
