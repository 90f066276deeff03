// SPDX-License-Identifier: GPL-2.0-only
/*
 * vfs_iter_write() and vfs_iocb_iter_write() take the freeze protection
 * themselves; before, the caller did (file_start_write(),
 * kiocb_start_write()). "fs: move file_start_write() into vfs_iter_write()"
 * and "fs: move kiocb_start_write() into vfs_iocb_iter_write()" (Amir
 * Goldstein, Linux 6.8) changed the rule in the series that added
 * file_write_not_started(), which is what this probes: the rule itself has
 * no signature. backports/6.12/compat/backing_file.c follows the rule it says.
 */
#include <linux/fs.h>

bool fb_probe(const struct file *file);
bool fb_probe(const struct file *file)
{
	bool (*not_started)(const struct file *) = file_write_not_started;

	return not_started(file);
}
