/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/mnt_idmapping.h>: where the kernel has a
 * struct mnt_idmap but no invalid_mnt_idmap (6.3-6.11, probe
 * invalid_mnt_idmap.c), fb_compat.h names an address of ours so, and the
 * helpers that base 6.12 passes it to map no id through it, as the
 * kernel's do through its own since 6.12.
 */
#ifndef FB_LINUX_MNT_IDMAPPING_H
#define FB_LINUX_MNT_IDMAPPING_H

#include_next <linux/mnt_idmapping.h>

#if defined(HAVE_MNT_IDMAP) && !defined(HAVE_INVALID_MNT_IDMAP)
static inline kuid_t fb_mapped_fsuid(struct mnt_idmap *idmap,
				     struct user_namespace *fs_userns)
{
	if (idmap == &invalid_mnt_idmap)
		return INVALID_UID;
	return mapped_fsuid(idmap, fs_userns);
}

static inline kgid_t fb_mapped_fsgid(struct mnt_idmap *idmap,
				     struct user_namespace *fs_userns)
{
	if (idmap == &invalid_mnt_idmap)
		return INVALID_GID;
	return mapped_fsgid(idmap, fs_userns);
}
#define mapped_fsuid	fb_mapped_fsuid
#define mapped_fsgid	fb_mapped_fsgid
#endif

#endif /* FB_LINUX_MNT_IDMAPPING_H */
