// SPDX-License-Identifier: GPL-2.0-only
/* kset uevent callbacks take a const kobject (6.3) */
#include <linux/kobject.h>

static int fb_uevent(const struct kobject *kobj, struct kobj_uevent_env *env)
{
	return 0;
}

const struct kset_uevent_ops *fb_probe(void);
const struct kset_uevent_ops *fb_probe(void)
{
	static const struct kset_uevent_ops ops = { .uevent = fb_uevent };

	return &ops;
}
