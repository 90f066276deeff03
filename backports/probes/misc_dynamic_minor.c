// SPDX-License-Identifier: GPL-2.0-only
/* a misc device can ask for a dynamic minor; the renamed flavor needs one */
#include <linux/miscdevice.h>

int fb_probe(struct miscdevice *m);
int fb_probe(struct miscdevice *m)
{
	m->minor = MISC_DYNAMIC_MINOR;
	return misc_register(m);
}
