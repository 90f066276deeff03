// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - attributes: GETATTR, SETATTR (and the suid/sgid kill of
 * FUSE_HANDLE_KILLPRIV_V2) and STATFS.
 */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

static uint32_t encode_dev(dev_t d)
{
	uint32_t ma = major(d), mi = minor(d);

	return (mi & 0xff) | (ma << 8) | ((mi & ~0xffu) << 12);
}

void fill_attr(struct fuse_attr *a, const struct stat *st)
{
	memset(a, 0, sizeof(*a));
	a->ino = st->st_ino;
	a->size = st->st_size;
	a->blocks = st->st_blocks;
	a->atime = st->st_atim.tv_sec;
	a->mtime = st->st_mtim.tv_sec;
	a->ctime = st->st_ctim.tv_sec;
	a->atimensec = st->st_atim.tv_nsec;
	a->mtimensec = st->st_mtim.tv_nsec;
	a->ctimensec = st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	/*
	 * --fake-suid: privileges the kernel sees only in our replies, so a
	 * test can add them while a write holds the backing inode's lock
	 */
	if (cfg.fake_suid && S_ISREG(st->st_mode) &&
	    !__atomic_load_n(&fake_suid_ended, __ATOMIC_ACQUIRE) &&
	    access(cfg.fake_suid, F_OK) == 0)
		a->mode |= S_ISUID;
	a->nlink = st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = encode_dev(st->st_rdev);
	a->blksize = st->st_blksize;
}

static size_t attr_out_size(void)
{
	return sess.kminor < 9 ? FUSE_COMPAT_ATTR_OUT_SIZE :
				 sizeof(struct fuse_attr_out);
}

static void reply_attr_stat(struct fb_req *req, const struct stat *st)
{
	struct fuse_attr_out ao;

	memset(&ao, 0, sizeof(ao));
	ao.attr_valid = cfg.attr_timeout;
	fill_attr(&ao.attr, st);
	memcpy(reply_alloc(req, attr_out_size()), &ao, attr_out_size());
}

int kill_suidgid(int fd, struct fb_node *node)
{
	char p[64];
	struct stat st;
	mode_t m;
	int res;

	if (fd >= 0) {
		res = fstat(fd, &st);
	} else {
		res = fstatat(node->fd, "", &st,
			      AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	}
	if (res < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	m = st.st_mode & ~S_ISUID;
	if (st.st_mode & S_IXGRP)
		m &= ~S_ISGID;
	if (m == st.st_mode)
		return 0;
	if (fd >= 0) {
		res = fchmod(fd, m & 07777);
	} else {
		procpath(p, sizeof(p), node->fd);
		res = chmod(p, m & 07777);
	}
	return res < 0 ? -errno : 0;
}

void op_getattr(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_getattr_in *gi = (const void *)req->arg;
	struct stat st;
	int res;

	if (req->arglen >= sizeof(*gi) && (gi->getattr_flags & FUSE_GETATTR_FH)) {
		struct fb_file *f = (void *)(uintptr_t)gi->fh;

		res = fstat(f->fd, &st);
	} else {
		res = fstatat(node->fd, "", &st,
			      AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	}
	if (res < 0) {
		reply_err(req, errno);
		return;
	}
	reply_attr_stat(req, &st);
}

void op_setattr(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_setattr_in *si = (const void *)req->arg;
	uint32_t valid;
	struct stat st;
	char p[64];
	int fd = -1, res = 0;

	if (req->arglen < sizeof(*si)) {
		reply_err(req, EINVAL);
		return;
	}
	valid = si->valid;
	if (valid & FATTR_FH)
		fd = ((struct fb_file *)(uintptr_t)si->fh)->fd;
	procpath(p, sizeof(p), node->fd);

	if ((valid & FATTR_KILL_SUIDGID) && sess.killpriv_v2) {
		res = kill_suidgid(fd, node);
		if (res < 0)
			goto err;
	}
	if ((valid & FATTR_MODE) && cfg.chmod_owner_only && req->in->uid &&
	    (fstatat(node->fd, "", &st, AT_EMPTY_PATH) < 0 ||
	     st.st_uid != req->in->uid)) {
		res = -EPERM;
		goto err;
	}
	/* the mode set (or suid killed) replaces the one --fake-suid shows */
	if (cfg.fake_suid && (valid & (FATTR_MODE | FATTR_KILL_SUIDGID)) &&
	    access(cfg.fake_suid, F_OK) == 0)
		__atomic_store_n(&fake_suid_ended, true, __ATOMIC_RELEASE);
	if (valid & FATTR_MODE) {
		res = fd >= 0 ? fchmod(fd, si->mode & 07777) :
				chmod(p, si->mode & 07777);
		if (res < 0)
			goto err_errno;
	}
	if (valid & (FATTR_UID | FATTR_GID)) {
		uid_t uid = (valid & FATTR_UID) ? si->uid : (uid_t)-1;
		gid_t gid = (valid & FATTR_GID) ? si->gid : (gid_t)-1;

		res = fchownat(node->fd, "", uid, gid,
			       AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
		if (res < 0)
			goto err_errno;
	}
	if (valid & FATTR_SIZE) {
		res = fd >= 0 ? ftruncate(fd, si->size) :
				truncate(p, si->size);
		if (res < 0)
			goto err_errno;
	}
	if (valid & (FATTR_ATIME | FATTR_MTIME)) {
		struct timespec ts[2];

		ts[0].tv_sec = 0;
		ts[0].tv_nsec = UTIME_OMIT;
		ts[1] = ts[0];
		if (valid & FATTR_ATIME_NOW) {
			ts[0].tv_nsec = UTIME_NOW;
		} else if (valid & FATTR_ATIME) {
			ts[0].tv_sec = si->atime;
			ts[0].tv_nsec = si->atimensec;
		}
		if (valid & FATTR_MTIME_NOW) {
			ts[1].tv_nsec = UTIME_NOW;
		} else if (valid & FATTR_MTIME) {
			ts[1].tv_sec = si->mtime;
			ts[1].tv_nsec = si->mtimensec;
		}
		res = fd >= 0 ? futimens(fd, ts) :
				utimensat(AT_FDCWD, p, ts, 0);
		if (res < 0)
			goto err_errno;
	}

	res = fd >= 0 ? fstat(fd, &st) :
			fstatat(node->fd, "", &st,
				AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	if (res < 0)
		goto err_errno;
	reply_attr_stat(req, &st);
	return;
err_errno:
	res = -errno;
err:
	reply_err(req, -res);
}

void op_statfs(struct fb_req *req, struct fb_node *node)
{
	struct fuse_statfs_out *so;
	struct statvfs sv;

	if (fstatvfs(node->fd, &sv) < 0) {
		reply_err(req, errno);
		return;
	}
	so = reply_alloc(req, sess.kminor < 4 ? FUSE_COMPAT_STATFS_SIZE :
						sizeof(*so));
	so->st.blocks = sv.f_blocks;
	so->st.bfree = sv.f_bfree;
	so->st.bavail = sv.f_bavail;
	so->st.files = sv.f_files;
	so->st.ffree = sv.f_ffree;
	so->st.bsize = sv.f_bsize;
	so->st.namelen = sv.f_namemax;
	so->st.frsize = sv.f_frsize;
}
