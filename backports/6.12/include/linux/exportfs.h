/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/exportfs.h>: FILEID_INO64_GEN (6.7) names
 * the file handle types FUSE always used, with the same values.
 */
#ifndef FB_LINUX_EXPORTFS_H
#define FB_LINUX_EXPORTFS_H

#include_next <linux/exportfs.h>

#ifndef HAVE_FILEID_INO64_GEN
#define FILEID_INO64_GEN	0x81
#define FILEID_INO64_GEN_PARENT	0x82
#endif

#endif /* FB_LINUX_EXPORTFS_H */
