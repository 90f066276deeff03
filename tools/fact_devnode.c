// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: /dev/fuse, the node of the misc device 10:229 that
 * the takeover deregisters and registers again (devtmpfs removes the node
 * and makes it anew, mode 0600, until udev applies its rules: 0666
 * root:root on Debian), and whether udev runs here to apply them.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "facts.h"

/*
 * The node at PATH as the takeover leaves it for its openers: a character
 * device MAJ:MIN, its permission bits and owner. false where it is not one.
 */
bool devnode_read(const char *path, unsigned int maj, unsigned int min, struct fb_devnode *n)
{
	struct stat st;

	if (stat(path, &st) || !S_ISCHR(st.st_mode) || major(st.st_rdev) != maj ||
	    minor(st.st_rdev) != min)
		return false;
	n->perm = st.st_mode & 07777;
	n->uid = st.st_uid;
	n->gid = st.st_gid;
	return true;
}

/*
 * udev runs here: its control socket exists (systemd-udevd's, or the one
 * systemd's socket unit holds for it until it starts). An initramfs without
 * udev or a container has none: nothing there applies a mode to a node.
 */
bool udev_running(void)
{
	return fb_exists(FB_UDEV_CONTROL);
}
