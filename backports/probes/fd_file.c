// SPDX-License-Identifier: GPL-2.0-only
/* struct fd is opaque, read through fd_file() (6.12) */
#include <linux/file.h>

struct file *fb_probe(int fd);
struct file *fb_probe(int fd)
{
	struct fd f = fdget(fd);
	struct file *file = fd_file(f);

	fdput(f);
	return file;
}
