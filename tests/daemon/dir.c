// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - directories: LOOKUP, MKNOD, MKDIR, SYMLINK, UNLINK, RMDIR,
 * RENAME(2), LINK, READLINK and the listings (OPENDIR, READDIR,
 * RELEASEDIR).
 */
#include "ops.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static dev_t decode_dev(uint32_t d)
{
	return makedev((d & 0xfff00) >> 8, (d & 0xff) | ((d >> 12) & 0xfff00));
}

static void reply_entry(struct fb_req *req, struct fb_node *parent,
			const char *name)
{
	struct fuse_entry_out e;
	int err = do_lookup(req, parent, name, &e);

	if (err) {
		reply_err(req, -err);
		return;
	}
	memcpy(reply_alloc(req, entry_out_size()), &e, entry_out_size());
}

/* give a freshly created object to the caller, as a kernel fs would */
void set_owner(const struct fb_req *req, struct fb_node *parent,
		      const char *name)
{
	struct stat pst;
	gid_t gid = req->in->gid;

	if (geteuid() != 0)
		return;
	if (fstat(parent->fd, &pst) == 0 && (pst.st_mode & S_ISGID))
		gid = (gid_t)-1;	/* keep the inherited group */
	if (fchownat(parent->fd, name, req->in->uid, gid,
		     AT_SYMLINK_NOFOLLOW) < 0) {
		/* not fatal: the object exists, owned by us */
	}
}

void op_lookup(struct fb_req *req, struct fb_node *node)
{
	reply_entry(req, node, req->arg);
}

void op_mknod(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_mknod_in *mi = (const void *)req->arg;
	size_t hdr = sess.kminor < 12 ? FUSE_COMPAT_MKNOD_IN_SIZE : sizeof(*mi);
	const char *name = req->arg + hdr;

	if (mknodat(node->fd, name, mi->mode, decode_dev(mi->rdev)) < 0) {
		reply_err(req, errno);
		return;
	}
	set_owner(req, node, name);
	reply_entry(req, node, name);
}

void op_mkdir(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_mkdir_in *mi = (const void *)req->arg;
	const char *name = req->arg + sizeof(*mi);

	if (mkdirat(node->fd, name, mi->mode & 07777) < 0) {
		reply_err(req, errno);
		return;
	}
	set_owner(req, node, name);
	reply_entry(req, node, name);
}

void op_symlink(struct fb_req *req, struct fb_node *node)
{
	const char *name = req->arg;
	const char *target = name + strlen(name) + 1;

	if (symlinkat(target, node->fd, name) < 0) {
		reply_err(req, errno);
		return;
	}
	set_owner(req, node, name);
	reply_entry(req, node, name);
}

void op_unlink(struct fb_req *req, struct fb_node *node, int flags)
{
	if (unlinkat(node->fd, req->arg, flags) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}

void op_rename(struct fb_req *req, struct fb_node *node, bool v2)
{
	uint64_t newdir;
	uint32_t flags = 0;
	const char *oldname, *newname;
	struct fb_node *nd;

	if (v2) {
		const struct fuse_rename2_in *ri = (const void *)req->arg;

		newdir = ri->newdir;
		flags = ri->flags;
		oldname = req->arg + sizeof(*ri);
	} else {
		const struct fuse_rename_in *ri = (const void *)req->arg;

		newdir = ri->newdir;
		oldname = req->arg + sizeof(*ri);
	}
	newname = oldname + strlen(oldname) + 1;
	if (flags & ~RENAME_NOREPLACE) {
		reply_err(req, EINVAL);
		return;
	}
	nd = node_get(newdir);
	if (!nd) {
		reply_err(req, ESTALE);
		return;
	}
	if (renameat2(node->fd, oldname, nd->fd, newname, flags) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
	node_put(nd);
}

void op_link(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_link_in *li = (const void *)req->arg;
	const char *name = req->arg + sizeof(*li);
	struct fb_node *old = node_get(li->oldnodeid);
	char p[64];

	if (!old) {
		reply_err(req, ESTALE);
		return;
	}
	procpath(p, sizeof(p), old->fd);
	if (linkat(AT_FDCWD, p, node->fd, name, AT_SYMLINK_FOLLOW) < 0)
		reply_err(req, errno);
	else
		reply_entry(req, node, name);
	node_put(old);
}

void op_readlink(struct fb_req *req, struct fb_node *node)
{
	ssize_t n = readlinkat(node->fd, "", req->out, PATH_MAX);

	if (n < 0) {
		reply_err(req, errno);
		return;
	}
	req->error = 0;
	req->outlen = n;
}

void op_opendir(struct fb_req *req, struct fb_node *node)
{
	struct fuse_open_out *oo;
	struct fb_dir *d;
	int fd;

	fd = openat(node->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		reply_err(req, errno);
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		reply_err(req, ENOMEM);
		return;
	}
	d->dp = fdopendir(fd);
	if (!d->dp) {
		close(fd);
		free(d);
		reply_err(req, errno);
		return;
	}
	pthread_mutex_init(&d->lock, NULL);
	oo = reply_alloc(req, sizeof(*oo));
	oo->fh = (uintptr_t)d;
}

void op_readdir(struct fb_req *req)
{
	const struct fuse_read_in *ri = (const void *)req->arg;
	struct fb_dir *d = (void *)(uintptr_t)ri->fh;
	size_t size = ri->size, used = 0;
	struct dirent *ent;

	if (size > FB_OUT_CAP / 2)
		size = FB_OUT_CAP / 2;
	pthread_mutex_lock(&d->lock);
	if ((off_t)ri->offset != d->pos) {
		seekdir(d->dp, ri->offset);
		d->pending = NULL;
		d->pos = ri->offset;
	}
	for (;;) {
		struct fuse_dirent *de;
		size_t nl, rec;

		if (d->pending) {
			ent = d->pending;
		} else {
			errno = 0;
			ent = readdir(d->dp);
			if (!ent) {
				if (errno && !used) {
					int e = errno;

					pthread_mutex_unlock(&d->lock);
					reply_err(req, e);
					return;
				}
				break;
			}
		}
		nl = strlen(ent->d_name);
		rec = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + nl);
		if (used + rec > size) {
			d->pending = ent;
			break;
		}
		de = (struct fuse_dirent *)(req->out + used);
		memset(de, 0, rec);
		de->ino = ent->d_ino;
		de->off = ent->d_off;
		de->namelen = nl;
		de->type = ent->d_type;
		memcpy(de->name, ent->d_name, nl);
		used += rec;
		d->pending = NULL;
		d->pos = ent->d_off;
	}
	pthread_mutex_unlock(&d->lock);
	req->error = 0;
	req->outlen = used;
}

void op_releasedir(struct fb_req *req)
{
	const struct fuse_release_in *ri = (const void *)req->arg;
	struct fb_dir *d = (void *)(uintptr_t)ri->fh;

	closedir(d->dp);
	pthread_mutex_destroy(&d->lock);
	free(d);
	reply_err(req, 0);
}
