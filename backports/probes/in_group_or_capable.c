// SPDX-License-Identifier: GPL-2.0-only
/* in_group_or_capable() declared for filesystems (6.2) */
#include <linux/fs.h>
#include <linux/mnt_idmapping.h>

bool fb_probe(struct mnt_idmap *idmap, const struct inode *inode);
bool fb_probe(struct mnt_idmap *idmap, const struct inode *inode)
{
	return in_group_or_capable(idmap, inode, i_gid_into_vfsgid(idmap, inode));
}
