// SPDX-License-Identifier: GPL-2.0-only
/* filemap_splice_read() replaces generic_file_splice_read() (6.5) */
#include <linux/fs.h>
#include <linux/splice.h>

ssize_t fb_probe(struct file *in, loff_t *ppos, struct pipe_inode_info *pipe,
		 size_t len, unsigned int flags);
ssize_t fb_probe(struct file *in, loff_t *ppos, struct pipe_inode_info *pipe,
		 size_t len, unsigned int flags)
{
	return filemap_splice_read(in, ppos, pipe, len, flags);
}
