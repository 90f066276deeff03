// SPDX-License-Identifier: GPL-2.0-only
/*
 * security_dentry_init_security() of Ubuntu's kernels (24.04's 6.8, and
 * 22.04's since 5.19): its LSM stacking patches ("UBUNTU: SAUCE: LSM: Use
 * lsmcontext in security_dentry_init_security", not upstream) return the
 * context in a struct lsmcontext { context, len, slot } in place of the
 * two pointers of dentry_init_security_ctx.c. backports/6.12/include/linux/
 * security.h calls this form for base 6.12.
 */
#include <linux/security.h>

int fb_probe(struct dentry *dentry, const char **name, void **ctx, u32 *len);
int fb_probe(struct dentry *dentry, const char **name, void **ctx, u32 *len)
{
	struct lsmcontext cp = { };
	int err;

	err = security_dentry_init_security(dentry, 0100644, &dentry->d_name,
					    name, &cp);
	*ctx = cp.context;
	*len = cp.len;
	return err;
}
