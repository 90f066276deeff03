// SPDX-License-Identifier: GPL-2.0-only
/*
 * The backing-file API as base 7.3's passthrough calls it: ctx->end_write()
 * gets the kiocb, the splice helpers take a kiocb instead of a loff_t *,
 * and the ctx has no user_file. Upstream: "backing-file: clean up the API"
 * (Miklos Szeredi), Linux 6.13. One probe per variant: base 6.12's is
 * backing_file.c.
 */
#include <linux/backing-file.h>

static void fb_end_write(struct kiocb *iocb, ssize_t ret)
{
}

static void fb_accessed(struct file *file)
{
}

ssize_t fb_probe(struct pipe_inode_info *pipe, struct file *file,
		 struct kiocb *iocb, struct iov_iter *iter,
		 const struct path *path, const struct cred *cred);
ssize_t fb_probe(struct pipe_inode_info *pipe, struct file *file,
		 struct kiocb *iocb, struct iov_iter *iter,
		 const struct path *path, const struct cred *cred)
{
	struct backing_file_ctx ctx = {
		.cred = cred,
		.accessed = fb_accessed,
		.end_write = fb_end_write,
	};
	struct file *f = backing_file_open(file, file->f_flags, path, cred);

	if (IS_ERR(f))
		return PTR_ERR(f);
	return backing_file_read_iter(f, iter, iocb, 0, &ctx) +
	       backing_file_write_iter(f, iter, iocb, 0, &ctx) +
	       backing_file_splice_read(f, iocb, pipe, 1, 0, &ctx) +
	       backing_file_splice_write(pipe, f, iocb, 1, 0, &ctx) +
	       backing_file_mmap(f, NULL, &ctx);
}
