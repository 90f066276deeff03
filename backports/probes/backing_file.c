// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel has a backing-file layer (fs/backing-file.c, Linux 6.8), in
 * whatever form: backing_file_write_iter() kept its signature through every
 * one. Which form is probed apart (backing_file_end_write_pos.c,
 * backing_file_open_*.c, backing_file_kiocb.c); without a layer, base 6.12
 * builds its own (backports/6.12/compat).
 */
#include <linux/backing-file.h>

ssize_t fb_probe(struct file *file, struct kiocb *iocb, struct iov_iter *iter,
		 struct backing_file_ctx *ctx);
ssize_t fb_probe(struct file *file, struct kiocb *iocb, struct iov_iter *iter,
		 struct backing_file_ctx *ctx)
{
	return backing_file_write_iter(file, iter, iocb, 0, ctx);
}
