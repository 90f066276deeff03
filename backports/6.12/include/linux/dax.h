/* SPDX-License-Identifier: GPL-2.0-only */
/* fuse-backport wrapper of <linux/dax.h>: dax_mem2blk_err() (6.3) */
#ifndef FB_LINUX_DAX_H
#define FB_LINUX_DAX_H

#include_next <linux/dax.h>

#ifndef HAVE_DAX_MEM2BLK_ERR
/* A poisoned page is an I/O error to the block layer. */
static inline int dax_mem2blk_err(int err)
{
	return (err == -EHWPOISON) ? -EIO : err;
}
#endif

#endif /* FB_LINUX_DAX_H */
