// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: invalid_mnt_idmap (6.12) for kernels that pass a user
 * namespace where 6.3 and later pass a struct mnt_idmap (fb_compat.h).
 *
 * A user namespace with no extent in its uid and gid maps has no id mapped:
 * make_vfsuid(), from_vfsuid() and mapped_fsuid() through it give invalid
 * ids, which is what FUSE asks of invalid_mnt_idmap. It is never attached to
 * a mount nor reference counted: only the id mapping helpers read it.
 */
#include <linux/module.h>
#include <linux/user_namespace.h>

struct user_namespace fb_invalid_mnt_idmap = {
	.ns.count = REFCOUNT_INIT(1),
};
EXPORT_SYMBOL_GPL(fb_invalid_mnt_idmap);
