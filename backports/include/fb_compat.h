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

/*
 * Older kernels: every API base 6.12 uses that a kernel lacks, by probe
 * (HAVE_*, scripts/probe.sh), never by version. Shims of what a kernel
 * header declares are in stand-ins for that header (backports/include/linux/,
 * found before the kernel's): this file includes no header, so that every
 * source file's own first #define (pr_fmt) still comes first.
 */
#ifndef HAVE_MNT_IDMAP
/*
 * Before 6.3 the VFS passed the mount's user namespace where it now passes a
 * struct mnt_idmap, with the same meaning: &init_user_ns is the identity
 * (&nop_mnt_idmap). fb_invalid_mnt_idmap maps no id at all, as
 * invalid_mnt_idmap does (backports/compat/mnt_idmap.c).
 */
#define mnt_idmap		user_namespace
#define nop_mnt_idmap		init_user_ns
#define invalid_mnt_idmap	fb_invalid_mnt_idmap
struct user_namespace;
extern struct user_namespace fb_invalid_mnt_idmap;
#define file_mnt_idmap(file)	file_mnt_user_ns(file)
#elif !defined(HAVE_INVALID_MNT_IDMAP)
/*
 * A struct mnt_idmap (6.3) but no invalid_mnt_idmap ("fs/mnt_idmapping:
 * introduce an invalid_mnt_idmap", 6.12; Ubuntu 24.04's 6.8 lacks it):
 * an address of ours (backports/compat/invalid_mnt_idmap.c) that
 * mapped_fsuid() and mapped_fsgid() map nothing through
 * (backports/include/linux/mnt_idmapping.h). Base 6.12 hands it to nothing
 * else.
 */
struct fb_idmap_none {
	unsigned long zero[64];
};
extern struct fb_idmap_none fb_invalid_mnt_idmap;
#define invalid_mnt_idmap	(*(struct mnt_idmap *)&fb_invalid_mnt_idmap)
#endif

/*
 * The kernel enables FUSE passthrough but lacks an API the base's
 * passthrough needs with the signature it calls (scripts/build.sh,
 * PASSTHROUGH_NEEDS of the pin): the module is built without it.
 */
#ifdef FB_NO_PASSTHROUGH
#undef CONFIG_FUSE_PASSTHROUGH
#endif

/*
 * Set on the one file of each module that carries its modinfo. The entries
 * are what MODULE_VERSION() and MODULE_INFO() make, without <linux/module.h>:
 * a header included here would come before the file's own pr_fmt.
 */
#ifdef FB_MODINFO
#define FB_MODULE_INFO(tag, info)					\
	static const char __UNIQUE_ID(tag)[] __used __section(".modinfo") \
		__aligned(1) = #tag "=" info
FB_MODULE_INFO(version, FB_VERSION);
FB_MODULE_INFO(flavor, FB_FLAVOR);
FB_MODULE_INFO(fb_base, FB_BASE);
/* current, ahead, older-series, unknown: scripts/fuse-age.sh at build */
FB_MODULE_INFO(fb_fuse_age, FB_FUSE_AGE);
#endif

#endif /* FB_COMPAT_H */
