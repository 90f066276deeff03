// SPDX-License-Identifier: GPL-2.0-only
/*
 * in_group_or_capable() for filesystems, taking the mount's user namespace:
 * "fs: move S_ISGID stripping into the vfs_*() helpers" (Christian Brauner,
 * Linux 6.2), until the mnt_idmap conversion of 6.3
 * (in_group_or_capable.c). Shim: backports/6.12/include/linux/fs.h.
 */
#include <linux/fs.h>

bool fb_probe(struct user_namespace *ns, const struct inode *inode,
	      vfsgid_t gid);
bool fb_probe(struct user_namespace *ns, const struct inode *inode,
	      vfsgid_t gid)
{
	bool (*check)(struct user_namespace *, const struct inode *,
		      vfsgid_t) = in_group_or_capable;

	return check(ns, inode, gid);
}
