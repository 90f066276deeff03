// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_get_link_raw(): the symlink body in the page cache, not cut at
 * i_size as page_get_link() cuts it. Added by "fuse: don't truncate cached,
 * mutated symlink" (Miklos Szeredi, Linux 6.14; in 6.12.y and 6.1.y through
 * stable, so every Debian kernel has it); a kernel of 6.12 without that
 * backport lacks it (RHEL 10.0). fuse_get_link() calls it; without it
 * backports/6.12/include/linux/pagemap.h has our own.
 */
#include <linux/fs.h>

const char *fb_probe(struct dentry *dentry, struct inode *inode,
		     struct delayed_call *callback);
const char *fb_probe(struct dentry *dentry, struct inode *inode,
		     struct delayed_call *callback)
{
	const char *(*get_link)(struct dentry *, struct inode *,
				struct delayed_call *) = page_get_link_raw;

	return get_link(dentry, inode, callback);
}
