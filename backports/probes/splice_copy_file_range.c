// SPDX-License-Identifier: GPL-2.0-only
/* splice_copy_file_range() (6.8) */
#include <linux/fs.h>
#include <linux/splice.h>

ssize_t fb_probe(struct file *in, struct file *out, size_t len);
ssize_t fb_probe(struct file *in, struct file *out, size_t len)
{
	return splice_copy_file_range(in, 0, out, 0, len);
}
