// SPDX-License-Identifier: GPL-2.0-only
/*
 * The operations of a libfuse 3 file system (high-level API) that mirrors
 * a backing directory, shared by the test daemons fbbacking, fbperm
 * (tests/libfuse) and fbmixd (tests/splice, which replaces open, create,
 * write and release). See backing_ops.h.
 */
#include "backing_ops.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

char *backing;

int backing_path(char *buf, const char *path)
{
	return snprintf(buf, PATH_MAX, "%s%s", backing, path) >= PATH_MAX;
}

int backing_getattr(const char *path, struct stat *st,
		    struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	if (fi)
		return fstat(fi->fh, st) < 0 ? -errno : 0;
	return lstat(p, st) < 0 ? -errno : 0;
}

int backing_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		    off_t off, struct fuse_file_info *fi,
		    enum fuse_readdir_flags flags)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	(void)off;
	(void)fi;
	(void)flags;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		memset(&st, 0, sizeof(st));
		st.st_ino = de->d_ino;
		st.st_mode = de->d_type << 12;
		if (fill(buf, de->d_name, &st, 0, 0))
			break;
	}
	closedir(d);
	return 0;
}

int backing_mkdir(const char *path, mode_t mode)
{
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	return mkdir(p, mode) < 0 ? -errno : 0;
}

int backing_rmdir(const char *path)
{
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	return rmdir(p) < 0 ? -errno : 0;
}

int backing_unlink(const char *path)
{
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	return unlink(p) < 0 ? -errno : 0;
}

int backing_rename(const char *from, const char *to, unsigned int flags)
{
	char f[PATH_MAX];
	char t[PATH_MAX];

	if (backing_path(f, from))
		return -ENAMETOOLONG;
	if (backing_path(t, to))
		return -ENAMETOOLONG;
	if (flags)
		return -EINVAL;
	return rename(f, t) < 0 ? -errno : 0;
}

int backing_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	if (fi)
		return fchmod(fi->fh, mode) < 0 ? -errno : 0;
	return chmod(p, mode) < 0 ? -errno : 0;
}

int backing_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	if (fi)
		return ftruncate(fi->fh, size) < 0 ? -errno : 0;
	return truncate(p, size) < 0 ? -errno : 0;
}

int backing_utimens(const char *path, const struct timespec ts[2],
		    struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	if (fi)
		return futimens(fi->fh, ts) < 0 ? -errno : 0;
	return utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

int backing_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int fd;
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	fd = open(p, fi->flags | O_CREAT, mode);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	return 0;
}

int backing_open(const char *path, struct fuse_file_info *fi)
{
	int fd;
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	fd = open(p, fi->flags);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	return 0;
}

int backing_read(const char *path, char *buf, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	ssize_t n = pread(fi->fh, buf, size, off);

	(void)path;
	return n < 0 ? -errno : (int)n;
}

int backing_write(const char *path, const char *buf, size_t size,
		  off_t off, struct fuse_file_info *fi)
{
	ssize_t n = pwrite(fi->fh, buf, size, off);

	(void)path;
	return n < 0 ? -errno : (int)n;
}

int backing_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	return statvfs(backing, sv) < 0 ? -errno : 0;
}

int backing_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close(fi->fh);
	return 0;
}

int backing_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	if (datasync)
		return fdatasync(fi->fh) < 0 ? -errno : 0;
	return fsync(fi->fh) < 0 ? -errno : 0;
}

static void *backing_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* The backing directory changes only through us: inode numbers too. */
	cfg->use_ino = 1;
	return NULL;
}

const struct fuse_operations backing_ops = {
	.init		= backing_init,
	.getattr	= backing_getattr,
	.readdir	= backing_readdir,
	.mkdir		= backing_mkdir,
	.rmdir		= backing_rmdir,
	.unlink		= backing_unlink,
	.rename		= backing_rename,
	.chmod		= backing_chmod,
	.truncate	= backing_truncate,
	.utimens	= backing_utimens,
	.create		= backing_create,
	.open		= backing_open,
	.read		= backing_read,
	.write		= backing_write,
	.statfs		= backing_statfs,
	.release	= backing_release,
	.fsync		= backing_fsync,
};
