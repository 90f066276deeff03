/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/fs.h>: what base 6.12 uses of it that an
 * older kernel lacks, by probe (fb_config.h).
 */
#ifndef FB_LINUX_FS_H
#define FB_LINUX_FS_H

#include_next <linux/fs.h>

#ifndef HAVE_SB_I_NOIDMAP
/*
 * The VFS allows idmapped mounts per filesystem type (FS_ALLOW_IDMAP), not
 * per superblock (SB_I_NOIDMAP, 6.12), so it cannot leave the choice to the
 * server at INIT: refuse idmapped mounts. SB_I_NOIDMAP is then a bit of our
 * own, read only by us, with the value it has in 6.12 (unused before).
 */
#define SB_I_NOIDMAP		0x00002000
#undef FS_ALLOW_IDMAP
#define FS_ALLOW_IDMAP		0
#endif

#ifndef HAVE_INODE_GET_CTIME
static inline struct timespec64 inode_get_ctime(const struct inode *inode)
{
	return inode->i_ctime;
}

static inline struct timespec64 inode_set_ctime_to_ts(struct inode *inode,
						      struct timespec64 ts)
{
	inode->i_ctime = ts;
	return ts;
}

static inline struct timespec64 inode_set_ctime(struct inode *inode,
						time64_t sec, long nsec)
{
	struct timespec64 ts = { .tv_sec = sec, .tv_nsec = nsec };

	return inode_set_ctime_to_ts(inode, ts);
}

static inline struct timespec64 inode_set_ctime_current(struct inode *inode)
{
	return inode_set_ctime_to_ts(inode, current_time(inode));
}
#endif

#ifndef HAVE_INODE_GET_CTIME_SEC
static inline time64_t inode_get_ctime_sec(const struct inode *inode)
{
	return inode_get_ctime(inode).tv_sec;
}

static inline long inode_get_ctime_nsec(const struct inode *inode)
{
	return inode_get_ctime(inode).tv_nsec;
}
#endif

#ifndef HAVE_INODE_GET_MTIME
#define FB_INODE_TIME(x)						\
static inline struct timespec64 inode_get_##x##time(const struct inode *inode) \
{									\
	return inode->i_##x##time;					\
}									\
static inline time64_t inode_get_##x##time_sec(const struct inode *inode) \
{									\
	return inode->i_##x##time.tv_sec;				\
}									\
static inline long inode_get_##x##time_nsec(const struct inode *inode)	\
{									\
	return inode->i_##x##time.tv_nsec;				\
}									\
static inline struct timespec64						\
inode_set_##x##time_to_ts(struct inode *inode, struct timespec64 ts)	\
{									\
	inode->i_##x##time = ts;					\
	return ts;							\
}									\
static inline struct timespec64						\
inode_set_##x##time(struct inode *inode, time64_t sec, long nsec)	\
{									\
	struct timespec64 ts = { .tv_sec = sec, .tv_nsec = nsec };	\
									\
	return inode_set_##x##time_to_ts(inode, ts);			\
}
FB_INODE_TIME(a)
FB_INODE_TIME(m)
#undef FB_INODE_TIME
#endif

#ifndef HAVE_SIMPLE_INODE_INIT_TS
static inline struct timespec64 simple_inode_init_ts(struct inode *inode)
{
	struct timespec64 ts = inode_set_ctime_current(inode);

	inode_set_atime_to_ts(inode, ts);
	inode_set_mtime_to_ts(inode, ts);
	return ts;
}
#endif

#ifndef HAVE_GENERIC_FILLATTR_MASK
/*
 * The request mask only matters for STATX_CHANGE_COOKIE, unknown before.
 * The kernel's generic_fillattr() takes what the code passes (struct
 * mnt_idmap, or the user_namespace of fb_compat.h before 6.3): a kernel
 * where it does not is refused (backports/6.12/required).
 */
static inline void fb_generic_fillattr(struct mnt_idmap *idmap,
				       u32 request_mask, struct inode *inode,
				       struct kstat *stat)
{
	generic_fillattr(idmap, inode, stat);
}
#define generic_fillattr fb_generic_fillattr
#endif

#if (defined(HAVE_MNT_IDMAP) && !defined(HAVE_IN_GROUP_OR_CAPABLE)) || \
	(!defined(HAVE_MNT_IDMAP) && !defined(HAVE_IN_GROUP_OR_CAPABLE_USERNS))
/*
 * Not exported before 6.2, nor in the form the code calls (struct
 * mnt_idmap, or the user_namespace fb_compat.h maps it to before 6.3): the
 * same check from exported helpers, under a name of our own so that it
 * cannot clash with the kernel's other form.
 */
static inline bool fb_in_group_or_capable(struct mnt_idmap *idmap,
					  const struct inode *inode,
					  vfsgid_t vfsgid)
{
	if (vfsgid_in_group_p(vfsgid))
		return true;
	return capable_wrt_inode_uidgid(idmap, inode, CAP_FSETID);
}
#define in_group_or_capable fb_in_group_or_capable
#endif

#ifndef HAVE_FILEMAP_SPLICE_READ
/* Before 6.5 the page cache splice helper had the generic name. */
#define filemap_splice_read	generic_file_splice_read
#endif

#ifndef HAVE_FILE_REMOVE_PRIVS_FLAGS
/*
 * Not exported before 6.7: without IOCB_NOWAIT it is file_remove_privs();
 * with it, anything that might have to be removed is -EAGAIN (the caller
 * retries without), and only S_NOSEC says that nothing has to be.
 */
static inline int file_remove_privs_flags(struct file *file,
					  unsigned int flags)
{
	if ((flags & IOCB_NOWAIT) && !IS_NOSEC(file_inode(file)))
		return -EAGAIN;
	return file_remove_privs(file);
}
#endif

#ifndef HAVE_KIOCB_START_WRITE
/*
 * Before 6.6 (6.1.y: before November 2024) the callers did it themselves:
 * the freeze protection taken at submission is released at completion,
 * maybe by another task, so lockdep is told that the submitter no longer
 * holds it, and that the completion holds it again.
 */
static inline void fb_kiocb_start_write(struct kiocb *iocb)
{
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	sb_start_write(sb);
	__sb_writers_release(sb, SB_FREEZE_WRITE);
}

static inline void fb_kiocb_end_write(struct kiocb *iocb)
{
	struct super_block *sb = file_inode(iocb->ki_filp)->i_sb;

	__sb_writers_acquired(sb, SB_FREEZE_WRITE);
	sb_end_write(sb);
}
#define kiocb_start_write	fb_kiocb_start_write
#define kiocb_end_write		fb_kiocb_end_write
#endif

#ifndef HAVE_SPLICE_COPY_FILE_RANGE
/* splice_copy_file_range() (6.8) was generic_copy_file_range() */
#define splice_copy_file_range(in, pos_in, out, pos_out, len)		\
	generic_copy_file_range(in, pos_in, out, pos_out, len, 0)
#endif

#endif /* FB_LINUX_FS_H */
