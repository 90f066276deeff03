// SPDX-License-Identifier: GPL-2.0-only
/*
 * backing_file_open() takes the user's path: its form from fs/backing-file.c
 * (Linux 6.8) until "lsm: add backing_file LSM hooks" (upstream 6af36aeb147a,
 * Linux 7.1; in 6.12.y since its 2026 backport). Where the kernel has only
 * this form, backports/6.12/include/linux/backing-file.h passes it the path of
 * the file base 6.12's passthrough gives.
 */
#include <linux/backing-file.h>

struct file *fb_probe(struct file *file, const struct cred *cred);
struct file *fb_probe(struct file *file, const struct cred *cred)
{
	struct file *(*open)(const struct path *, int, const struct path *,
			     const struct cred *) = backing_file_open;

	return open(&file->f_path, file->f_flags, &file->f_path, cred);
}
