// SPDX-License-Identifier: GPL-2.0-only
/* file locking declarations split out of fs.h (6.9) */
#include <linux/filelock.h>

bool fb_probe(struct file_lock *fl);
bool fb_probe(struct file_lock *fl)
{
	return lock_is_unlock(fl);
}
