// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: the backing-file layer of 6.9 (<linux/backing-file.h>) for
 * kernels without it, built from exported helpers only, the way stacking
 * filesystems of that era (overlayfs) did their own I/O on the real file.
 *
 * Differences from the kernel's layer, all for want of an export:
 *  - the backing file is an ordinary file opened on the real path
 *    (dentry_open()), not one with the user's path attached: /proc/PID/maps
 *    and fdinfo show the real path of a passthrough mapping;
 *  - there is no security_mmap_backing_file() hook (LSMs have already seen
 *    the mmap of the FUSE file);
 *  - on open, the server's credentials must pass inode_permission() on the
 *    real inode for the access mode of the FUSE file, as overlayfs checks.
 */
#include <linux/backing-file.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/slab.h>
#include <linux/splice.h>
#include <linux/workqueue.h>

/* The idmap of a mount: mnt_user_ns() until 6.3 (probes mnt_*.c) */
#ifdef HAVE_MNT_IDMAP
#define fb_mnt_idmap(mnt)	mnt_idmap(mnt)
#else
#define fb_mnt_idmap(mnt)	mnt_user_ns(mnt)
#endif

/*
 * Who takes the freeze protection of a write to the backing file: since
 * 6.8, vfs_iter_write() and vfs_iocb_iter_write() themselves; before, their
 * caller (probe file_write_not_started.c). Either way a queued async write
 * holds it until its completion, which releases it.
 */
#ifdef HAVE_FILE_WRITE_NOT_STARTED
#define FB_CALLER_FREEZES	false
#else
#define FB_CALLER_FREEZES	true
#endif

struct file *fb_backing_file_open(const struct file *user_file, int flags,
				  const struct path *real_path,
				  const struct cred *cred)
{
	struct inode *real_inode = d_inode(real_path->dentry);
	struct mnt_idmap *real_idmap = fb_mnt_idmap(real_path->mnt);
	int acc_mode = ACC_MODE(flags);
	const struct cred *old_cred;
	struct file *f;
	int err;

	if (flags & O_APPEND)
		acc_mode |= MAY_APPEND;

	old_cred = override_creds(cred);
	err = inode_permission(real_idmap, real_inode, MAY_OPEN | acc_mode);
	if (!err && !inode_owner_or_capable(real_idmap, real_inode))
		flags &= ~O_NOATIME;
	revert_creds(old_cred);
	if (err)
		return ERR_PTR(err);

	f = dentry_open(real_path, flags, cred);
	if (!IS_ERR(f) && !S_ISREG(file_inode(f)->i_mode)) {
		fput(f);
		f = ERR_PTR(-EINVAL);
	}
	return f;
}

struct backing_aio {
	struct kiocb iocb;
	refcount_t ref;
	struct kiocb *orig_iocb;
	bool write;
	/* used for aio completion */
	void (*end_write)(struct file *file, loff_t pos, ssize_t ret);
	struct work_struct work;
	long res;
};

#define BACKING_IOCB_MASK \
	(IOCB_NOWAIT | IOCB_HIPRI | IOCB_DSYNC | IOCB_SYNC | IOCB_APPEND)

/* IOCB_NOWAIT, IOCB_HIPRI, ... have the values of their RWF_* flags. */
static rwf_t iocb_to_rw_flags(int flags)
{
	return (__force rwf_t)(flags & BACKING_IOCB_MASK);
}

static void backing_aio_put(struct backing_aio *aio)
{
	if (refcount_dec_and_test(&aio->ref)) {
		fput(aio->iocb.ki_filp);
		kfree(aio);
	}
}

static void backing_aio_cleanup(struct backing_aio *aio, long res)
{
	struct kiocb *iocb = &aio->iocb;
	struct kiocb *orig_iocb = aio->orig_iocb;

	if (aio->end_write)
		aio->end_write(orig_iocb->ki_filp, iocb->ki_pos, res);

	orig_iocb->ki_pos = iocb->ki_pos;
	backing_aio_put(aio);
}

static void backing_aio_rw_complete(struct kiocb *iocb, long res)
{
	struct backing_aio *aio = container_of(iocb, struct backing_aio, iocb);
	struct kiocb *orig_iocb = aio->orig_iocb;

	/* Held since submission: see write_iter */
	if (aio->write)
		kiocb_end_write(iocb);

	backing_aio_cleanup(aio, res);
	orig_iocb->ki_complete(orig_iocb, res);
}

static void backing_aio_complete_work(struct work_struct *work)
{
	struct backing_aio *aio = container_of(work, struct backing_aio, work);

	backing_aio_rw_complete(&aio->iocb, aio->res);
}

static void backing_aio_queue_completion(struct kiocb *iocb, long res)
{
	struct backing_aio *aio = container_of(iocb, struct backing_aio, iocb);

	/*
	 * Punt to a work queue to serialize updates of mtime/size, and to get
	 * out of the interrupt context a direct I/O may complete in.
	 */
	aio->res = res;
	INIT_WORK(&aio->work, backing_aio_complete_work);
	queue_work(file_inode(aio->orig_iocb->ki_filp)->i_sb->s_dio_done_wq,
		   &aio->work);
}

/*
 * sb_init_dio_done_wq() is not exported before 6.9: the same, from exported
 * calls. The VFS destroys sb->s_dio_done_wq with the superblock.
 */
static int backing_aio_init_wq(struct kiocb *iocb)
{
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;
	struct workqueue_struct *wq;

	if (READ_ONCE(sb->s_dio_done_wq))
		return 0;

	wq = alloc_workqueue("dio/%s", WQ_MEM_RECLAIM, 0, sb->s_id);
	if (!wq)
		return -ENOMEM;
	/* Another task may have set it up concurrently: keep only one */
	if (cmpxchg(&sb->s_dio_done_wq, NULL, wq))
		destroy_workqueue(wq);
	return 0;
}

ssize_t fb_backing_file_read_iter(struct file *file, struct iov_iter *iter,
				  struct kiocb *iocb, int flags,
				  struct backing_file_ctx *ctx)
{
	struct backing_aio *aio = NULL;
	const struct cred *old_cred;
	ssize_t ret;

	if (!iov_iter_count(iter))
		return 0;

	if (iocb->ki_flags & IOCB_DIRECT &&
	    !(file->f_mode & FMODE_CAN_ODIRECT))
		return -EINVAL;

	old_cred = override_creds(ctx->cred);
	if (is_sync_kiocb(iocb)) {
		rwf_t rwf = iocb_to_rw_flags(flags);

		ret = vfs_iter_read(file, iter, &iocb->ki_pos, rwf);
	} else {
		ret = -ENOMEM;
		aio = kzalloc(sizeof(*aio), GFP_KERNEL);
		if (!aio)
			goto out;

		aio->orig_iocb = iocb;
		kiocb_clone(&aio->iocb, iocb, get_file(file));
		aio->iocb.ki_complete = backing_aio_rw_complete;
		refcount_set(&aio->ref, 2);
		ret = vfs_iocb_iter_read(file, &aio->iocb, iter);
		backing_aio_put(aio);
		if (ret != -EIOCBQUEUED)
			backing_aio_cleanup(aio, ret);
	}
out:
	revert_creds(old_cred);

	if (ctx->accessed)
		ctx->accessed(ctx->user_file);

	return ret;
}

ssize_t fb_backing_file_write_iter(struct file *file, struct iov_iter *iter,
				   struct kiocb *iocb, int flags,
				   struct backing_file_ctx *ctx)
{
	const struct cred *old_cred;
	ssize_t ret;

	if (!iov_iter_count(iter))
		return 0;

	ret = file_remove_privs(ctx->user_file);
	if (ret)
		return ret;

	if (iocb->ki_flags & IOCB_DIRECT &&
	    !(file->f_mode & FMODE_CAN_ODIRECT))
		return -EINVAL;

	old_cred = override_creds(ctx->cred);
	if (is_sync_kiocb(iocb)) {
		rwf_t rwf = iocb_to_rw_flags(flags);

		if (FB_CALLER_FREEZES)
			file_start_write(file);
		ret = vfs_iter_write(file, iter, &iocb->ki_pos, rwf);
		if (FB_CALLER_FREEZES)
			file_end_write(file);
		if (ctx->end_write)
			ctx->end_write(ctx->user_file, iocb->ki_pos, ret);
	} else {
		struct backing_aio *aio;

		ret = backing_aio_init_wq(iocb);
		if (ret)
			goto out;

		ret = -ENOMEM;
		aio = kzalloc(sizeof(*aio), GFP_KERNEL);
		if (!aio)
			goto out;

		aio->orig_iocb = iocb;
		aio->write = true;
		aio->end_write = ctx->end_write;
		kiocb_clone(&aio->iocb, iocb, get_file(file));
		aio->iocb.ki_flags = flags;
		aio->iocb.ki_complete = backing_aio_queue_completion;
		refcount_set(&aio->ref, 2);
		if (FB_CALLER_FREEZES)
			kiocb_start_write(&aio->iocb);
		ret = vfs_iocb_iter_write(file, &aio->iocb, iter);
		if (FB_CALLER_FREEZES && ret != -EIOCBQUEUED)
			kiocb_end_write(&aio->iocb);
		backing_aio_put(aio);
		if (ret != -EIOCBQUEUED)
			backing_aio_cleanup(aio, ret);
	}
out:
	revert_creds(old_cred);

	return ret;
}

ssize_t fb_backing_file_splice_read(struct file *in, loff_t *ppos,
				    struct pipe_inode_info *pipe, size_t len,
				    unsigned int flags,
				    struct backing_file_ctx *ctx)
{
	const struct cred *old_cred;
	ssize_t ret;

	/* vfs_splice_read() (6.5), from the exported checks it makes */
	if (unlikely(!(in->f_mode & FMODE_READ)))
		return -EBADF;
	if (!len)
		return 0;
	if (unlikely(!in->f_op->splice_read))
		return -EINVAL;

	old_cred = override_creds(ctx->cred);
	ret = rw_verify_area(READ, in, ppos, len);
	if (ret >= 0) {
		if (unlikely(len > MAX_RW_COUNT))
			len = MAX_RW_COUNT;
		ret = in->f_op->splice_read(in, ppos, pipe, len, flags);
	}
	revert_creds(old_cred);

	if (ctx->accessed)
		ctx->accessed(ctx->user_file);

	return ret;
}

ssize_t fb_backing_file_splice_write(struct pipe_inode_info *pipe,
				     struct file *out, loff_t *ppos,
				     size_t len, unsigned int flags,
				     struct backing_file_ctx *ctx)
{
	const struct cred *old_cred;
	ssize_t ret;

	if (!out->f_op->splice_write)
		return -EINVAL;

	ret = file_remove_privs(ctx->user_file);
	if (ret)
		return ret;

	old_cred = override_creds(ctx->cred);
	file_start_write(out);
	ret = out->f_op->splice_write(pipe, out, ppos, len, flags);
	file_end_write(out);
	revert_creds(old_cred);

	if (ctx->end_write)
		ctx->end_write(ctx->user_file, ppos ? *ppos : 0, ret);

	return ret;
}

int fb_backing_file_mmap(struct file *file, struct vm_area_struct *vma,
			 struct backing_file_ctx *ctx)
{
	const struct cred *old_cred;
	int ret;

	if (WARN_ON_ONCE(ctx->user_file != vma->vm_file))
		return -EIO;

	if (!file->f_op->mmap)
		return -ENODEV;

	vma_set_file(vma, file);

	old_cred = override_creds(ctx->cred);
	ret = call_mmap(vma->vm_file, vma);
	revert_creds(old_cred);

	if (ctx->accessed)
		ctx->accessed(ctx->user_file);

	return ret;
}
