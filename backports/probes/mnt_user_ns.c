// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inode permission helpers take the mount's user namespace, read with
 * mnt_user_ns(): the VFS before the mnt_idmap conversion of Linux 6.3
 * ("fs: port inode_permission() to mnt_idmap" and the rest of the series,
 * Christian Brauner), which removed mnt_user_ns(). The other form is
 * mnt_idmap.c; without it, fb_compat.h maps mnt_idmap to this one.
 */
#include <linux/fs.h>
#include <linux/mount.h>

int fb_probe(struct inode *inode, struct vfsmount *mnt);
int fb_probe(struct inode *inode, struct vfsmount *mnt)
{
	int (*permission)(struct user_namespace *, struct inode *, int) =
		inode_permission;

	return permission(mnt_user_ns(mnt), inode, MAY_READ);
}
