// SPDX-License-Identifier: GPL-2.0-only
/*
 * generic_fillattr() takes the request mask: "fs: pass the request_mask to
 * generic_fillattr" (Jeff Layton, Linux 6.6). The forms before it are
 * generic_fillattr_idmap.c (6.3-6.5) and generic_fillattr_userns.c (up to
 * 6.2). Shim: backports/6.12/include/linux/fs.h.
 */
#include <linux/fs.h>

void fb_probe(struct mnt_idmap *idmap, struct inode *inode, struct kstat *st);
void fb_probe(struct mnt_idmap *idmap, struct inode *inode, struct kstat *st)
{
	void (*fill)(struct mnt_idmap *, u32, struct inode *, struct kstat *) =
		generic_fillattr;

	fill(idmap, STATX_BASIC_STATS, inode, st);
}
