/* SPDX-License-Identifier: GPL-2.0-only */
/* fuse-backport wrapper of <linux/device/class.h>: class_create(name) (6.4) */
#ifndef FB_LINUX_DEVICE_CLASS_H
#define FB_LINUX_DEVICE_CLASS_H

#include_next <linux/device/class.h>

#ifndef HAVE_CLASS_CREATE_NAME
/* The owner argument went away: it was always THIS_MODULE. */
#undef class_create
#define class_create(name)						\
({									\
	static struct lock_class_key __key;				\
	__class_create(THIS_MODULE, name, &__key);			\
})
#endif

#endif /* FB_LINUX_DEVICE_CLASS_H */
