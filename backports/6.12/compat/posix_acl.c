// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: POSIX ACLs for kernels before 6.2, whose inode operations
 * have get_acl(inode) for permission checks and set_acl(inode), and whose
 * system.posix_acl_* xattrs go through the superblock's xattr handlers
 * rather than through get_acl/set_acl(dentry). The handlers below give those
 * xattrs what 6.12's VFS gives them:
 *  - get: fuse_get_acl() (-EOPNOTSUPP where FUSE refuses ACLs, else the
 *    server's ACL, uncached), never the permission-check variant;
 *  - set: set_posix_acl(), which makes the VFS checks of 6.12's vfs_set_acl()
 *    and calls i_op->set_acl, that is fb_fuse_set_acl_inode().
 */
#include "fuse_i.h"

#include <linux/dcache.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <linux/xattr.h>

/* i_op->set_acl() has only the inode: FUSE's only wants d_inode(dentry) */
int fb_fuse_set_acl_inode(struct user_namespace *mnt_userns,
			  struct inode *inode, struct posix_acl *acl, int type)
{
	struct dentry *dentry = d_find_any_alias(inode);
	int ret;

	if (!dentry)
		return -ENOENT;
	ret = fuse_set_acl(mnt_userns, dentry, acl, type);
	dput(dentry);
	return ret;
}

static int fb_fuse_acl_xattr_get(const struct xattr_handler *handler,
				 struct dentry *dentry, struct inode *inode,
				 const char *name, void *value, size_t size)
{
	struct dentry *alias = NULL;
	struct posix_acl *acl;
	int ret;

	if (S_ISLNK(inode->i_mode))
		return -EOPNOTSUPP;
	if (!dentry) {
		dentry = alias = d_find_any_alias(inode);
		if (!dentry)
			return -EOPNOTSUPP;
	}
	acl = fuse_get_acl(&nop_mnt_idmap, dentry, handler->flags);
	dput(alias);
	if (IS_ERR(acl))
		return PTR_ERR(acl);
	if (!acl)
		return -ENODATA;

	/* The VFS maps the ids from the initial namespace to the caller's */
	ret = posix_acl_to_xattr(&init_user_ns, acl, value, size);
	posix_acl_release(acl);
	return ret;
}

static int fb_fuse_acl_xattr_set(const struct xattr_handler *handler,
				 struct user_namespace *mnt_userns,
				 struct dentry *dentry, struct inode *inode,
				 const char *name, const void *value,
				 size_t size, int flags)
{
	struct posix_acl *acl = NULL;
	int ret;

	if (value) {
		acl = posix_acl_from_xattr(&init_user_ns, value, size);
		if (IS_ERR(acl))
			return PTR_ERR(acl);
	}
	ret = set_posix_acl(mnt_userns, inode, handler->flags, acl);
	posix_acl_release(acl);
	return ret;
}

const struct xattr_handler fb_fuse_acl_access_xattr_handler = {
	.name	= XATTR_NAME_POSIX_ACL_ACCESS,
	.flags	= ACL_TYPE_ACCESS,
	.get	= fb_fuse_acl_xattr_get,
	.set	= fb_fuse_acl_xattr_set,
};

const struct xattr_handler fb_fuse_acl_default_xattr_handler = {
	.name	= XATTR_NAME_POSIX_ACL_DEFAULT,
	.flags	= ACL_TYPE_DEFAULT,
	.get	= fb_fuse_acl_xattr_get,
	.set	= fb_fuse_acl_xattr_set,
};
