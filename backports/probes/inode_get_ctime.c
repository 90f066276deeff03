// SPDX-License-Identifier: GPL-2.0-only
/* inode ctime behind accessors (6.6) */
#include <linux/fs.h>

struct timespec64 fb_probe(struct inode *inode);
struct timespec64 fb_probe(struct inode *inode)
{
	inode_set_ctime_to_ts(inode, inode_get_ctime(inode));
	return inode_set_ctime_current(inode);
}
