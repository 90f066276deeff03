/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport stand-in for <linux/backing-file.h> (6.8). Where the kernel
 * lacks the backing-file layer, backports/compat/backing_file.c provides the
 * same calls, built on exported helpers (src/Kbuild decides). Where it has
 * one whose calls differ from base 6.12's, scripts/build.sh builds without
 * passthrough (PASSTHROUGH_NEEDS of backports/6.12/pin), but for
 * backing_file_open(), bridged below. Where the kernel's FUSE predates
 * passthrough (6.8: a layer, but no FUSE_PASSTHROUGH) ours is used in
 * place of the kernel's (FB_COMPAT_BACKING_FILE, src/Kbuild), whose
 * declarations are then left out.
 */
#ifndef FB_LINUX_BACKING_FILE_H
#define FB_LINUX_BACKING_FILE_H

#if defined(HAVE_BACKING_FILE) && !defined(FB_COMPAT_BACKING_FILE)
#include_next <linux/backing-file.h>

#if !defined(HAVE_BACKING_FILE_OPEN_FILE) && defined(HAVE_BACKING_FILE_OPEN_PATH)
/*
 * Before "lsm: add backing_file LSM hooks" (7.1, 6.12.y since 2026) the
 * backing file was opened with the user's path rather than the user's file
 * (probes backing_file_open_path.c, backing_file_open_file.c): the path of
 * the file base 6.12's passthrough gives. Such a kernel has no LSM hook that
 * would want the file.
 */
static inline struct file *fb_backing_file_open_user(const struct file *user_file,
						     int flags,
						     const struct path *real_path,
						     const struct cred *cred)
{
	return backing_file_open(&user_file->f_path, flags, real_path, cred);
}
#define backing_file_open	fb_backing_file_open_user
#endif
#else
#include <linux/file.h>
#include <linux/uio.h>
#include <linux/fs.h>

struct backing_file_ctx {
	const struct cred *cred;
	struct file *user_file;
	void (*accessed)(struct file *file);
	void (*end_write)(struct file *file, loff_t pos, ssize_t ret);
};

struct file *fb_backing_file_open(const struct file *user_file, int flags,
				  const struct path *real_path,
				  const struct cred *cred);
ssize_t fb_backing_file_read_iter(struct file *file, struct iov_iter *iter,
				  struct kiocb *iocb, int flags,
				  struct backing_file_ctx *ctx);
ssize_t fb_backing_file_write_iter(struct file *file, struct iov_iter *iter,
				   struct kiocb *iocb, int flags,
				   struct backing_file_ctx *ctx);
ssize_t fb_backing_file_splice_read(struct file *in, loff_t *ppos,
				    struct pipe_inode_info *pipe, size_t len,
				    unsigned int flags,
				    struct backing_file_ctx *ctx);
ssize_t fb_backing_file_splice_write(struct pipe_inode_info *pipe,
				     struct file *out, loff_t *ppos,
				     size_t len, unsigned int flags,
				     struct backing_file_ctx *ctx);
int fb_backing_file_mmap(struct file *file, struct vm_area_struct *vma,
			 struct backing_file_ctx *ctx);

#define backing_file_open		fb_backing_file_open
#define backing_file_read_iter		fb_backing_file_read_iter
#define backing_file_write_iter		fb_backing_file_write_iter
#define backing_file_splice_read	fb_backing_file_splice_read
#define backing_file_splice_write	fb_backing_file_splice_write
#define backing_file_mmap		fb_backing_file_mmap
#endif

#endif /* FB_LINUX_BACKING_FILE_H */
