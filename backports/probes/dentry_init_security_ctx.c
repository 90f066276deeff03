// SPDX-License-Identifier: GPL-2.0-only
/*
 * security_dentry_init_security() as base 6.12 calls it: six arguments,
 * the context and its length through two pointers (upstream's form from
 * 5.15, which added xattr_name, until 6.14 passed a struct lsm_context;
 * Debian's 6.1 and 6.12). The other form is
 * dentry_init_security_lsmcontext.c.
 */
#include <linux/security.h>

int fb_probe(struct dentry *dentry, const char **name, void **ctx, u32 *len);
int fb_probe(struct dentry *dentry, const char **name, void **ctx, u32 *len)
{
	return security_dentry_init_security(dentry, 0100644, &dentry->d_name,
					     name, ctx, len);
}
