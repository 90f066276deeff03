/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport: included before every file of the module (-include).
 *
 * fb_config.h is generated per target kernel: HAVE_* from scripts/probe.sh,
 * FB_* from the build (flavor, prefix, version).
 */
#ifndef FB_COMPAT_H
#define FB_COMPAT_H

#include "fb_config.h"
#include <linux/export.h>
#include <linux/miscdevice.h>

#ifdef FB_RENAMED
/*
 * Side-by-side flavor: the kernel has FUSE built in, so every name this
 * module registers derives from FB_PREFIX ("fusebp": fs types fusebp and
 * fusebpblk, control fs fusebpctl, /dev/fusebp with a dynamic minor,
 * /sys/fs/fusebp, slab caches fusebp_*, trace system fusebp).
 */
#define FB_NAME		FB_PREFIX
#define FB_BLK_NAME	FB_PREFIX "blk"
#define FB_CTL_NAME	FB_PREFIX "ctl"
#define FB_MISC_MINOR	MISC_DYNAMIC_MINOR
#define FB_TRACE_SYSTEM	FB_PREFIX_TOKEN

/*
 * vmlinux already exports the built-in FUSE's symbols under these names,
 * and nothing links against this module: export nothing.
 */
#undef EXPORT_SYMBOL
#undef EXPORT_SYMBOL_GPL
#define EXPORT_SYMBOL(sym)	extern typeof(sym) sym
#define EXPORT_SYMBOL_GPL(sym)	extern typeof(sym) sym
#else
/* Drop-in flavor: the stock names, so that userspace sees no difference. */
#define FB_NAME		"fuse"
#define FB_BLK_NAME	"fuseblk"
#define FB_CTL_NAME	"fusectl"
#define FB_MISC_MINOR	FUSE_MINOR
#define FB_TRACE_SYSTEM	fuse
#endif

/* Set on the one file of each module that carries its modinfo. */
#ifdef FB_MODINFO
#include <linux/module.h>
MODULE_VERSION(FB_VERSION);
MODULE_INFO(flavor, FB_FLAVOR);
MODULE_INFO(fb_base, FB_BASE);
#endif

#endif /* FB_COMPAT_H */
