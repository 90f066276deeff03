// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: invalid_mnt_idmap (6.12) for kernels that have a struct
 * mnt_idmap (6.3) but not that one (probe invalid_mnt_idmap.c).
 *
 * struct mnt_idmap is private to fs/mnt_idmapping.c, so this is not one:
 * it is an address of our own that fb_compat.h names invalid_mnt_idmap,
 * and the only helpers base 6.12 hands it to, mapped_fsuid() and
 * mapped_fsgid() (fuse_get_req()), are wrapped to map nothing through it
 * (backports/include/linux/mnt_idmapping.h). It is zeroed and larger than
 * the kernel's struct of 6.5 and later, whose empty uid and gid maps would
 * map nothing either, should a kernel helper ever read it.
 */
#include <linux/module.h>

struct fb_idmap_none fb_invalid_mnt_idmap = { };
EXPORT_SYMBOL_GPL(fb_invalid_mnt_idmap);
