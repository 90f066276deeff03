/* SPDX-License-Identifier: GPL-2.0-only */
/* fuse-backport wrapper of <linux/file.h>: fd_file() (6.12) */
#ifndef FB_LINUX_FILE_H
#define FB_LINUX_FILE_H

#include_next <linux/file.h>

#ifndef HAVE_FD_FILE
#define fd_file(f)	((f).file)
#endif

#endif /* FB_LINUX_FILE_H */
