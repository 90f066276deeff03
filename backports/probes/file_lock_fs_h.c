// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file locking declarations in <linux/fs.h>, struct file_lock with its
 * own fl_flags, fl_type, fl_pid and fl_owner: before "filelock: move file
 * locking definitions to separate header file" (Jeff Layton, Linux 6.3;
 * Debian's 6.1). The later forms are filelock_h_fl.c (6.3-6.8) and
 * filelock_h.c (6.9).
 */
#include <linux/fs.h>

int fb_probe(struct file *file, struct file_lock *fl);
int fb_probe(struct file *file, struct file_lock *fl)
{
	if (fl->fl_flags & FL_SLEEP)
		return locks_lock_file_wait(file, fl);
	if (fl->fl_type == F_UNLCK)
		posix_test_lock(file, fl);
	return posix_lock_file(file, fl, NULL);
}
