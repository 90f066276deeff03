// SPDX-License-Identifier: GPL-2.0-only
/*
 * The takeover of a built-in FUSE (backports/takeover/takeover.c): the misc
 * class's device of a devt through class_find_device() with a const class
 * (6.4) and device_match_devt() (5.4).
 */
#include <linux/device.h>

struct device *fb_probe(const struct class *c, dev_t *devt);
struct device *fb_probe(const struct class *c, dev_t *devt)
{
	return class_find_device(c, NULL, devt, device_match_devt);
}
