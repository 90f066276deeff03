/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/security.h>: security_dentry_init_security()
 * in the form base 6.12 calls (context and length through two pointers)
 * where the kernel has Ubuntu's struct lsmcontext form (probes
 * dentry_init_security_ctx.c, dentry_init_security_lsmcontext.c). A kernel
 * with neither is refused (backports/6.12/required).
 */
#ifndef FB_LINUX_SECURITY_H
#define FB_LINUX_SECURITY_H

#include_next <linux/security.h>

#if !defined(HAVE_DENTRY_INIT_SECURITY_CTX) && \
	defined(HAVE_DENTRY_INIT_SECURITY_LSMCONTEXT)
/*
 * The context is the LSM's own allocation either way: the caller frees it
 * with kfree() (get_security_context()), as with the upstream form.
 */
static inline int fb_security_dentry_init_security(struct dentry *dentry,
						   int mode,
						   const struct qstr *name,
						   const char **xattr_name,
						   void **ctx, u32 *ctxlen)
{
	struct lsmcontext cp = { };
	int err;

	err = security_dentry_init_security(dentry, mode, name, xattr_name,
					    &cp);
	*ctx = cp.context;
	*ctxlen = cp.len;
	return err;
}
#define security_dentry_init_security	fb_security_dentry_init_security
#endif

#endif /* FB_LINUX_SECURITY_H */
