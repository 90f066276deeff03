// SPDX-License-Identifier: GPL-2.0-only
/* a superblock can refuse idmapped mounts by itself: SB_I_NOIDMAP (6.12) */
#include <linux/fs.h>

void fb_probe(struct super_block *sb);
void fb_probe(struct super_block *sb)
{
	sb->s_iflags |= SB_I_NOIDMAP;
}
