// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inode permission helpers take a struct mnt_idmap, read with mnt_idmap():
 * the mnt_idmap conversion of Linux 6.3 ("fs: port inode_permission() to
 * mnt_idmap" and the rest of the series, Christian Brauner). The older form
 * is mnt_user_ns.c.
 */
#include <linux/fs.h>
#include <linux/mount.h>

int fb_probe(struct inode *inode, struct vfsmount *mnt);
int fb_probe(struct inode *inode, struct vfsmount *mnt)
{
	int (*permission)(struct mnt_idmap *, struct inode *, int) =
		inode_permission;

	return permission(mnt ? mnt_idmap(mnt) : &nop_mnt_idmap, inode,
			  MAY_READ);
}
