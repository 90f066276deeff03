// SPDX-License-Identifier: GPL-2.0-only
/* inode ctime seconds/nanoseconds accessors (6.7) */
#include <linux/fs.h>

long fb_probe(const struct inode *inode);
long fb_probe(const struct inode *inode)
{
	return inode_get_ctime_sec(inode) + inode_get_ctime_nsec(inode);
}
