/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport stand-in for <linux/cleanup.h> (6.5; 6.1.y since 6.1.79):
 * the kernel's header where it has one, and where it lacks what
 * virtio_fs.c uses of it (probe define_free.c), DEFINE_FREE(), __free()
 * and no_free_ptr() of our own, each only if the kernel has not defined it.
 */
#ifndef FB_LINUX_CLEANUP_H
#define FB_LINUX_CLEANUP_H

#if __has_include_next("linux/cleanup.h")
#include_next <linux/cleanup.h>
#endif

#ifndef HAVE_DEFINE_FREE
/*
 * A variable declared __free(name) is handed, by address, to the function
 * DEFINE_FREE(name, ...) made when it goes out of scope (the compiler's
 * cleanup attribute), which runs the free expression on its value _T. The
 * function has the kernel's name for it, so that either half may be the
 * kernel's.
 */
#ifndef DEFINE_FREE
#define DEFINE_FREE(_name, _type, _free)				\
	static inline void __free_##_name(void *p)			\
	{								\
		_type _T = *(_type *)p;					\
		_free;							\
	}
#endif

#ifndef __free
#define __free(_name)	__attribute__((__cleanup__(__free_##_name)))
#endif

/* Take the value out of a __free() variable, which is left NULL. */
#ifndef no_free_ptr
#define no_free_ptr(p)							\
	({								\
		__auto_type __fb_ptr = (p);				\
		(p) = NULL;						\
		__fb_ptr;						\
	})
#endif
#endif /* HAVE_DEFINE_FREE */

#endif /* FB_LINUX_CLEANUP_H */
