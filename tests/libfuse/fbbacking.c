// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbbacking: a plain libfuse 3 file system (high-level API) that mirrors a
 * backing directory. It knows nothing of fuse-backport: the tests mount it
 * with `fuse-backport run` and mount.fusebp to show that an unmodified
 * libfuse daemon serves a -t fusebp mount through /dev/fd/N.
 *
 * usage: fbbacking BACKING_DIR MOUNTPOINT [libfuse options]
 */
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static char *backing;

/* The backing path of PATH (which starts with '/'). */
static int bpath(char *buf, const char *path)
{
	return snprintf(buf, PATH_MAX, "%s%s", backing, path) >= PATH_MAX;
}

static int fb_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	if (fi)
		return fstat(fi->fh, st) < 0 ? -errno : 0;
	return lstat(p, st) < 0 ? -errno : 0;
}

static int fb_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	char p[PATH_MAX];

	if (bpath(p, path))
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

static int fb_mkdir(const char *path, mode_t mode)
{
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	return mkdir(p, mode) < 0 ? -errno : 0;
}

static int fb_rmdir(const char *path)
{
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	return rmdir(p) < 0 ? -errno : 0;
}

static int fb_unlink(const char *path)
{
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	return unlink(p) < 0 ? -errno : 0;
}

static int fb_rename(const char *from, const char *to, unsigned int flags)
{
	char f[PATH_MAX];
	char t[PATH_MAX];

	if (bpath(f, from))
		return -ENAMETOOLONG;
	if (bpath(t, to))
		return -ENAMETOOLONG;
	if (flags)
		return -EINVAL;
	return rename(f, t) < 0 ? -errno : 0;
}

static int fb_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	if (fi)
		return fchmod(fi->fh, mode) < 0 ? -errno : 0;
	return chmod(p, mode) < 0 ? -errno : 0;
}

static int fb_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	if (fi)
		return ftruncate(fi->fh, size) < 0 ? -errno : 0;
	return truncate(p, size) < 0 ? -errno : 0;
}

static int fb_utimens(const char *path, const struct timespec ts[2],
		      struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	if (fi)
		return futimens(fi->fh, ts) < 0 ? -errno : 0;
	return utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int fb_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int fd;
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	fd = open(p, fi->flags | O_CREAT, mode);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	return 0;
}

static int fb_open(const char *path, struct fuse_file_info *fi)
{
	int fd;
	char p[PATH_MAX];

	if (bpath(p, path))
		return -ENAMETOOLONG;
	fd = open(p, fi->flags);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	return 0;
}

static int fb_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	ssize_t n = pread(fi->fh, buf, size, off);

	(void)path;
	return n < 0 ? -errno : (int)n;
}

static int fb_write(const char *path, const char *buf, size_t size,
		    off_t off, struct fuse_file_info *fi)
{
	ssize_t n = pwrite(fi->fh, buf, size, off);

	(void)path;
	return n < 0 ? -errno : (int)n;
}

static int fb_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	return statvfs(backing, sv) < 0 ? -errno : 0;
}

static int fb_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close(fi->fh);
	return 0;
}

static int fb_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	if (datasync)
		return fdatasync(fi->fh) < 0 ? -errno : 0;
	return fsync(fi->fh) < 0 ? -errno : 0;
}

static void *fb_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* The backing directory changes only through us: inode numbers too. */
	cfg->use_ino = 1;
	return NULL;
}

static const struct fuse_operations fb_ops = {
	.init		= fb_init,
	.getattr	= fb_getattr,
	.readdir	= fb_readdir,
	.mkdir		= fb_mkdir,
	.rmdir		= fb_rmdir,
	.unlink		= fb_unlink,
	.rename		= fb_rename,
	.chmod		= fb_chmod,
	.truncate	= fb_truncate,
	.utimens	= fb_utimens,
	.create		= fb_create,
	.open		= fb_open,
	.read		= fb_read,
	.write		= fb_write,
	.statfs		= fb_statfs,
	.release	= fb_release,
	.fsync		= fb_fsync,
};

int main(int argc, char **argv)
{
	struct stat st;

	if (argc < 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: fbbacking BACKING_DIR MOUNTPOINT [libfuse options]\n");
		return 2;
	}
	/* libfuse moves to / when it goes to the background */
	backing = realpath(argv[1], NULL);
	if (!backing || stat(backing, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "fbbacking: %s is not a directory\n", argv[1]);
		return 1;
	}
	argv[1] = argv[0];
	return fuse_main(argc - 1, argv + 1, &fb_ops, NULL);
}
