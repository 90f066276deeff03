// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file locking declarations in <linux/filelock.h> ("filelock: move file
 * locking definitions to separate header file", Jeff Layton, Linux 6.3)
 * with a struct file_lock that still holds fl_flags, fl_type, fl_pid and
 * fl_owner itself: 6.3 to 6.8 (Ubuntu 24.04). Since 6.9 they are in a
 * struct file_lock_core (filelock_h.c); before 6.3 all of it was in
 * <linux/fs.h>. backports/6.12/include/linux/filelock.h serves all three.
 */
#include <linux/filelock.h>

int fb_probe(struct file *file, struct file_lock *fl);
int fb_probe(struct file *file, struct file_lock *fl)
{
	if (fl->fl_flags & FL_SLEEP)
		return locks_lock_file_wait(file, fl);
	if (fl->fl_type == F_UNLCK)
		posix_test_lock(file, fl);
	return posix_lock_file(file, fl, NULL);
}
