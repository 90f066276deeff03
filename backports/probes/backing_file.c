// SPDX-License-Identifier: GPL-2.0-only
/* the stacking-filesystem helpers of fs/backing-file.c (6.9) */
#include <linux/backing-file.h>

ssize_t fb_probe(struct file *file, struct kiocb *iocb, struct iov_iter *iter,
		 struct backing_file_ctx *ctx);
ssize_t fb_probe(struct file *file, struct kiocb *iocb, struct iov_iter *iter,
		 struct backing_file_ctx *ctx)
{
	return backing_file_write_iter(file, iter, iocb, 0, ctx);
}
