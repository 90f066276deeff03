// SPDX-License-Identifier: GPL-2.0-only
/*
 * generic_fillattr() takes a struct mnt_idmap and no request mask: the
 * mnt_idmap conversion of Linux 6.3 ("fs: port ->getattr() to pass
 * mnt_idmap", Christian Brauner) until the request mask came in 6.6
 * (generic_fillattr_mask.c).
 */
#include <linux/fs.h>

void fb_probe(struct mnt_idmap *idmap, struct inode *inode, struct kstat *st);
void fb_probe(struct mnt_idmap *idmap, struct inode *inode, struct kstat *st)
{
	void (*fill)(struct mnt_idmap *, struct inode *, struct kstat *) =
		generic_fillattr;

	fill(idmap, inode, st);
}
