// SPDX-License-Identifier: GPL-2.0-only
/*
 * invalid_mnt_idmap: the idmapping that maps no id, which FUSE passes for
 * the requests that must carry no uid/gid to a server that supports
 * idmapped mounts. Added by "fs/mnt_idmapping: introduce an
 * invalid_mnt_idmap" (Alexander Mikhalitsyn, Linux 6.12, in the series that
 * brought idmapped mounts to FUSE). Kernels with a struct mnt_idmap (6.3)
 * but without it (6.3-6.11: Ubuntu 24.04's 6.8) get ours
 * (backports/6.12/compat/invalid_mnt_idmap.c); before 6.3, fb_compat.h.
 */
#include <linux/fs.h>
#include <linux/mnt_idmapping.h>

struct mnt_idmap *fb_probe(void);
struct mnt_idmap *fb_probe(void)
{
	return &invalid_mnt_idmap;
}
