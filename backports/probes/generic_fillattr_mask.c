// SPDX-License-Identifier: GPL-2.0-only
/* generic_fillattr() takes the request mask (6.6) */
#include <linux/fs.h>

void fb_probe(struct mnt_idmap *idmap, struct inode *inode, struct kstat *st);
void fb_probe(struct mnt_idmap *idmap, struct inode *inode, struct kstat *st)
{
	generic_fillattr(idmap, STATX_BASIC_STATS, inode, st);
}
