// SPDX-License-Identifier: GPL-2.0-only
/*
 * backing_file_open() takes the user's file, not its path: "lsm: add
 * backing_file LSM hooks" (Paul Moore, upstream 6af36aeb147a, Linux 7.1),
 * backported to 6.12.y in 2026 (Debian 12's 6.12.95 has it). Base 6.12's
 * passthrough calls this form. The older form is backing_file_open_path.c.
 */
#include <linux/backing-file.h>

struct file *fb_probe(struct file *file, const struct cred *cred);
struct file *fb_probe(struct file *file, const struct cred *cred)
{
	struct file *(*open)(const struct file *, int, const struct path *,
			     const struct cred *) = backing_file_open;

	return open(file, file->f_flags, &file->f_path, cred);
}
