// SPDX-License-Identifier: GPL-2.0-only
/* the building blocks of a stacking layer: vfs_iocb_iter_{read,write} (5.6), kiocb_clone, FMODE_CAN_ODIRECT */
#include <linux/fs.h>

ssize_t fb_probe(struct file *f, struct kiocb *iocb, struct kiocb *src,
		 struct iov_iter *iter);
ssize_t fb_probe(struct file *f, struct kiocb *iocb, struct kiocb *src,
		 struct iov_iter *iter)
{
	kiocb_clone(iocb, src, f);
	if (!(f->f_mode & FMODE_CAN_ODIRECT))
		return vfs_iocb_iter_read(f, iocb, iter);
	return vfs_iocb_iter_write(f, iocb, iter);
}
