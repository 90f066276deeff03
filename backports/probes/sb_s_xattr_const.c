// SPDX-License-Identifier: GPL-2.0-only
/* sb->s_xattr points to a const array (6.7) */
#include <linux/fs.h>
#include <linux/xattr.h>

void fb_probe(struct super_block *sb);

static const struct xattr_handler * const fb_handlers[] = { NULL };

void fb_probe(struct super_block *sb)
{
	sb->s_xattr = fb_handlers;
}
