/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A libfuse 3 file system (high-level API) that mirrors the directory
 * `backing` (an absolute path: libfuse moves to / when it goes to the
 * background): backing_ops has every operation the test daemons need, each
 * also exported so that a daemon can wrap or replace it.
 */
#ifndef FB_BACKING_OPS_H
#define FB_BACKING_OPS_H

#define FUSE_USE_VERSION 31
#include <fuse.h>

extern char *backing;
extern const struct fuse_operations backing_ops;

/* BUF (PATH_MAX bytes) = backing + PATH (which starts with '/'); 1 if too long. */
int backing_path(char *buf, const char *path);

int backing_getattr(const char *path, struct stat *st,
		    struct fuse_file_info *fi);
int backing_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		    off_t off, struct fuse_file_info *fi,
		    enum fuse_readdir_flags flags);
int backing_mkdir(const char *path, mode_t mode);
int backing_rmdir(const char *path);
int backing_unlink(const char *path);
int backing_rename(const char *from, const char *to, unsigned int flags);
int backing_chmod(const char *path, mode_t mode, struct fuse_file_info *fi);
int backing_truncate(const char *path, off_t size, struct fuse_file_info *fi);
int backing_utimens(const char *path, const struct timespec ts[2],
		    struct fuse_file_info *fi);
int backing_create(const char *path, mode_t mode, struct fuse_file_info *fi);
int backing_open(const char *path, struct fuse_file_info *fi);
int backing_read(const char *path, char *buf, size_t size, off_t off,
		 struct fuse_file_info *fi);
int backing_write(const char *path, const char *buf, size_t size,
		  off_t off, struct fuse_file_info *fi);
int backing_statfs(const char *path, struct statvfs *sv);
int backing_release(const char *path, struct fuse_file_info *fi);
int backing_fsync(const char *path, int datasync, struct fuse_file_info *fi);

#endif /* FB_BACKING_OPS_H */
