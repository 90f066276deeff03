// SPDX-License-Identifier: GPL-2.0-only
/*
 * The backing-file calls as base 6.12's passthrough makes them: the ctx
 * has the user file, ctx->end_write() gets the file, the end position and
 * the result ("fs: pass offset and result to backing_file end_write()
 * callback", Amir Goldstein, Linux 6.12; before it, the file only), and the
 * splice helpers take a loff_t * (a kiocb since "backing-file: clean up the
 * API", Linux 6.13: backing_file_kiocb.c). backing_file_open() is probed
 * apart (backing_file_open_file.c, backing_file_open_path.c).
 */
#include <linux/backing-file.h>

static void fb_end_write(struct file *file, loff_t pos, ssize_t ret)
{
}

static void fb_accessed(struct file *file)
{
}

ssize_t fb_probe(struct pipe_inode_info *pipe, struct file *file,
		 struct kiocb *iocb, struct iov_iter *iter, loff_t *ppos,
		 const struct cred *cred);
ssize_t fb_probe(struct pipe_inode_info *pipe, struct file *file,
		 struct kiocb *iocb, struct iov_iter *iter, loff_t *ppos,
		 const struct cred *cred)
{
	struct backing_file_ctx ctx = {
		.cred = cred,
		.user_file = file,
		.accessed = fb_accessed,
		.end_write = fb_end_write,
	};

	return backing_file_read_iter(file, iter, iocb, 0, &ctx) +
	       backing_file_write_iter(file, iter, iocb, 0, &ctx) +
	       backing_file_splice_read(file, ppos, pipe, 1, 0, &ctx) +
	       backing_file_splice_write(pipe, file, ppos, 1, 0, &ctx) +
	       backing_file_mmap(file, NULL, &ctx);
}
