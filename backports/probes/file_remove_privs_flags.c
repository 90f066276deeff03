// SPDX-License-Identifier: GPL-2.0-only
/* file_remove_privs_flags() exported (6.7; static before) */
#include <linux/fs.h>

int fb_probe(struct file *file);
int fb_probe(struct file *file)
{
	return file_remove_privs_flags(file, IOCB_NOWAIT);
}
