/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport stand-in for <linux/filelock.h> of 6.9: before it, struct
 * file_lock had its fl_type, fl_pid, fl_flags and fl_owner in itself rather
 * than in a file_lock_core, and the lock declarations were in the
 * kernel's <linux/filelock.h> (6.3 to 6.8, probe filelock_h_fl.c) or, before
 * 6.3, in <linux/fs.h>. fb_flc(fl) gives where the flc_* fields are on
 * every such kernel.
 */
#ifndef FB_LINUX_FILELOCK_H
#define FB_LINUX_FILELOCK_H

#ifdef HAVE_FILELOCK_H
#include_next <linux/filelock.h>
#define fb_flc(fl)	(&(fl)->c)
#else
#ifdef HAVE_FILELOCK_H_FL
#include_next <linux/filelock.h>
#else
#include <linux/fs.h>
#endif
#define fb_flc(fl)	(fl)
#define flc_type	fl_type
#define flc_pid		fl_pid
#define flc_flags	fl_flags
#define flc_owner	fl_owner
#endif

#endif /* FB_LINUX_FILELOCK_H */
