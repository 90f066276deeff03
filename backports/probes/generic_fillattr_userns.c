// SPDX-License-Identifier: GPL-2.0-only
/*
 * generic_fillattr() takes the mount's user namespace: its form up to 6.2,
 * before the mnt_idmap conversion of 6.3 (generic_fillattr_idmap.c).
 */
#include <linux/fs.h>

void fb_probe(struct user_namespace *ns, struct inode *inode,
	      struct kstat *st);
void fb_probe(struct user_namespace *ns, struct inode *inode,
	      struct kstat *st)
{
	void (*fill)(struct user_namespace *, struct inode *, struct kstat *) =
		generic_fillattr;

	fill(ns, inode, st);
}
