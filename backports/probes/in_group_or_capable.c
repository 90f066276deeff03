// SPDX-License-Identifier: GPL-2.0-only
/*
 * in_group_or_capable() for filesystems, taking a struct mnt_idmap (the
 * mnt_idmap conversion of Linux 6.3). It was exported taking a
 * user_namespace in 6.2 ("fs: move S_ISGID stripping into the vfs_*()
 * helpers", Christian Brauner): in_group_or_capable_userns.c.
 * Shim: backports/6.12/include/linux/fs.h.
 */
#include <linux/fs.h>

bool fb_probe(struct mnt_idmap *idmap, const struct inode *inode,
	      vfsgid_t gid);
bool fb_probe(struct mnt_idmap *idmap, const struct inode *inode,
	      vfsgid_t gid)
{
	bool (*check)(struct mnt_idmap *, const struct inode *, vfsgid_t) =
		in_group_or_capable;

	return check(idmap, inode, gid);
}
