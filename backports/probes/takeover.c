// SPDX-License-Identifier: GPL-2.0-only
/*
 * The takeover of a built-in FUSE (backports/takeover/takeover.c): the misc
 * class's device of a devt through class_find_device() with a const class
 * (6.4) and device_match_devt() (5.4), and iterate_supers_type().
 */
#include <linux/device.h>
#include <linux/fs.h>

struct device *fb_probe(const struct class *c, dev_t *devt,
			struct file_system_type *t,
			void (*f)(struct super_block *, void *));
struct device *fb_probe(const struct class *c, dev_t *devt,
			struct file_system_type *t,
			void (*f)(struct super_block *, void *))
{
	iterate_supers_type(t, f, NULL);
	return class_find_device(c, NULL, devt, device_match_devt);
}
