// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - node table and FUSE request handlers.
 *
 * Every node the kernel knows about is backed by an O_PATH file descriptor
 * of the backing object, keyed by (st_dev, st_ino) so that hard links and
 * repeated lookups map to one nodeid.  Node ids are never reused (the
 * generation is always 0).  Operations that need a real open of a node go
 * through /proc/self/fd/N, so /proc must be mounted.
 */
#include "fbtestd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#define NODE_HASH_BITS	16
#define NODE_HASH_SIZE	(1u << NODE_HASH_BITS)

struct fb_node {
	uint64_t nodeid;
	uint64_t nlookup;
	uint64_t refs;
	dev_t dev;
	ino_t ino;
	int fd;				/* O_PATH */
	mode_t type;			/* S_IFMT bits */
	int backing_id;			/* passthrough: one id per inode */
	unsigned int backing_users;	/* open files using backing_id */
	struct fb_node *id_next;
	struct fb_node *ino_next;
};

struct fb_file {
	int fd;
	bool direct;			/* fd has O_DIRECT: aligned buffers */
	int backing_id;			/* > 0 while registered (faults) */
	struct fb_node *node;		/* holds a ref while sharing its id */
};

struct fb_dir {
	pthread_mutex_t lock;
	DIR *dp;
	off_t pos;
	struct dirent *pending;		/* read but not yet returned */
};

static pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fb_node *id_hash[NODE_HASH_SIZE];
static struct fb_node *ino_hash[NODE_HASH_SIZE];
static uint64_t next_nodeid = FUSE_ROOT_ID + 1;

static unsigned int hash64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return (unsigned int)(v & (NODE_HASH_SIZE - 1));
}

static unsigned int hash_ino(dev_t dev, ino_t ino)
{
	return hash64((uint64_t)ino * 31 + (uint64_t)dev);
}

static void node_insert(struct fb_node *n)
{
	unsigned int h = hash64(n->nodeid);
	unsigned int hi = hash_ino(n->dev, n->ino);

	n->id_next = id_hash[h];
	id_hash[h] = n;
	n->ino_next = ino_hash[hi];
	ino_hash[hi] = n;
}

static struct fb_node *node_find_id(uint64_t nodeid)
{
	struct fb_node *n;

	for (n = id_hash[hash64(nodeid)]; n; n = n->id_next)
		if (n->nodeid == nodeid)
			return n;
	return NULL;
}

static struct fb_node *node_find_ino(dev_t dev, ino_t ino)
{
	struct fb_node *n;

	for (n = ino_hash[hash_ino(dev, ino)]; n; n = n->ino_next)
		if (n->dev == dev && n->ino == ino)
			return n;
	return NULL;
}

/* called with node_lock held; may free @n */
static void node_maybe_free(struct fb_node *n)
{
	struct fb_node **pp;

	if (n->nlookup || n->refs || n->nodeid == FUSE_ROOT_ID)
		return;
	for (pp = &id_hash[hash64(n->nodeid)]; *pp; pp = &(*pp)->id_next) {
		if (*pp == n) {
			*pp = n->id_next;
			break;
		}
	}
	for (pp = &ino_hash[hash_ino(n->dev, n->ino)]; *pp;
	     pp = &(*pp)->ino_next) {
		if (*pp == n) {
			*pp = n->ino_next;
			break;
		}
	}
	close(n->fd);
	free(n);
	fb_atomic_dec(&stats.nodes);
}

int fb_nodes_init(int rootfd)
{
	struct fb_node *root;
	struct stat st;

	if (fstat(rootfd, &st) < 0)
		return -errno;
	root = calloc(1, sizeof(*root));
	if (!root)
		return -ENOMEM;
	root->nodeid = FUSE_ROOT_ID;
	root->nlookup = 1;
	root->dev = st.st_dev;
	root->ino = st.st_ino;
	root->fd = rootfd;
	root->type = st.st_mode & S_IFMT;
	node_insert(root);
	return 0;
}

static struct fb_node *node_get(uint64_t nodeid)
{
	struct fb_node *n;

	pthread_mutex_lock(&node_lock);
	n = node_find_id(nodeid);
	if (n)
		n->refs++;
	pthread_mutex_unlock(&node_lock);
	return n;
}

static void node_put(struct fb_node *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&node_lock);
	n->refs--;
	node_maybe_free(n);
	pthread_mutex_unlock(&node_lock);
}

static void node_forget(uint64_t nodeid, uint64_t nlookup)
{
	struct fb_node *n;

	pthread_mutex_lock(&node_lock);
	n = node_find_id(nodeid);
	if (n && n->nodeid != FUSE_ROOT_ID) {
		n->nlookup = nlookup > n->nlookup ? 0 : n->nlookup - nlookup;
		node_maybe_free(n);
	}
	pthread_mutex_unlock(&node_lock);
}

void fb_node_unref_lookup(uint64_t nodeid)
{
	node_forget(nodeid, 1);
}

bool fb_node_is_reg(uint64_t nodeid)
{
	struct fb_node *n;
	bool reg;

	pthread_mutex_lock(&node_lock);
	n = node_find_id(nodeid);
	reg = n && n->type == S_IFREG;
	pthread_mutex_unlock(&node_lock);
	return reg;
}

static void procpath(char *buf, size_t sz, int fd)
{
	snprintf(buf, sz, "/proc/self/fd/%d", fd);
}

static uint32_t encode_dev(dev_t d)
{
	uint32_t ma = major(d), mi = minor(d);

	return (mi & 0xff) | (ma << 8) | ((mi & ~0xffu) << 12);
}

static dev_t decode_dev(uint32_t d)
{
	return makedev((d & 0xfff00) >> 8, (d & 0xff) | ((d >> 12) & 0xfff00));
}

static void fill_attr(struct fuse_attr *a, const struct stat *st)
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
	a->nlink = st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = encode_dev(st->st_rdev);
	a->blksize = st->st_blksize;
}

static size_t entry_out_size(void)
{
	return sess.kminor < 9 ? FUSE_COMPAT_ENTRY_OUT_SIZE :
				 sizeof(struct fuse_entry_out);
}

static size_t attr_out_size(void)
{
	return sess.kminor < 9 ? FUSE_COMPAT_ATTR_OUT_SIZE :
				 sizeof(struct fuse_attr_out);
}

static void *reply_alloc(struct fb_req *req, size_t len)
{
	memset(req->out, 0, len);
	req->outlen = len;
	req->error = 0;
	return req->out;
}

static void reply_err(struct fb_req *req, int err)
{
	/* err: positive errno */
	req->error = -err;
	req->outlen = 0;
}

static void warn_emfile(void)
{
	static bool warned;

	if (!__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
		fb_errmsg("out of file descriptors with %llu known nodes (one O_PATH fd each): raise RLIMIT_NOFILE",
			  (unsigned long long)__atomic_load_n(&stats.nodes,
							      __ATOMIC_RELAXED));
}

/* Look @name up under @parent; bumps the nlookup of the result. */
static int do_lookup(struct fb_req *req, struct fb_node *parent,
		     const char *name, struct fuse_entry_out *e)
{
	struct fb_node *n, *fresh = NULL;
	struct stat st;
	int fd, err;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -EMFILE)
			warn_emfile();
		return err;
	}
	if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
		err = -errno;
		close(fd);
		return err;
	}

	pthread_mutex_lock(&node_lock);
	n = node_find_ino(st.st_dev, st.st_ino);
	if (n) {
		n->nlookup++;
	} else {
		fresh = calloc(1, sizeof(*fresh));
		if (!fresh) {
			pthread_mutex_unlock(&node_lock);
			close(fd);
			return -ENOMEM;
		}
		fresh->nodeid = next_nodeid++;
		fresh->nlookup = 1;
		fresh->dev = st.st_dev;
		fresh->ino = st.st_ino;
		fresh->fd = fd;
		fresh->type = st.st_mode & S_IFMT;
		node_insert(fresh);
		fb_atomic_inc(&stats.nodes);
		n = fresh;
	}
	memset(e, 0, sizeof(*e));
	e->nodeid = n->nodeid;
	pthread_mutex_unlock(&node_lock);
	if (!fresh)
		close(fd);

	e->generation = 0;
	e->entry_valid = cfg.attr_timeout;
	e->attr_valid = cfg.attr_timeout;
	fill_attr(&e->attr, &st);
	req->entry_nodeid = e->nodeid;
	return 0;
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

static void reply_attr_stat(struct fb_req *req, const struct stat *st)
{
	struct fuse_attr_out ao;

	memset(&ao, 0, sizeof(ao));
	ao.attr_valid = cfg.attr_timeout;
	fill_attr(&ao.attr, st);
	memcpy(reply_alloc(req, attr_out_size()), &ao, attr_out_size());
}

/* give a freshly created object to the caller, as a kernel fs would */
static void set_owner(const struct fb_req *req, struct fb_node *parent,
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

static int kill_suidgid(int fd, struct fb_node *node)
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

/* ---------------------------------------------------------------- */

static void op_getattr(struct fb_req *req, struct fb_node *node)
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

static void op_setattr(struct fb_req *req, struct fb_node *node)
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

static void op_lookup(struct fb_req *req, struct fb_node *node)
{
	reply_entry(req, node, req->arg);
}

static void op_mknod(struct fb_req *req, struct fb_node *node)
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

static void op_mkdir(struct fb_req *req, struct fb_node *node)
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

static void op_symlink(struct fb_req *req, struct fb_node *node)
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

static void op_unlink(struct fb_req *req, struct fb_node *node, int flags)
{
	if (unlinkat(node->fd, req->arg, flags) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}

static void op_rename(struct fb_req *req, struct fb_node *node, bool v2)
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

static void op_link(struct fb_req *req, struct fb_node *node)
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

static void op_readlink(struct fb_req *req, struct fb_node *node)
{
	ssize_t n = readlinkat(node->fd, "", req->out, PATH_MAX);

	if (n < 0) {
		reply_err(req, errno);
		return;
	}
	req->error = 0;
	req->outlen = n;
}

/* ---------------------------------------------------------------- */
/* open / passthrough */

static int backing_ioctl(struct fuse_backing_map *map)
{
	int r = ioctl(sess.devfd, FUSE_DEV_IOC_BACKING_OPEN, map);

	r = r < 0 ? -errno : r;
	__atomic_store_n(&stats.backing_open_errno, r < 0 ? -r : 0,
			 __ATOMIC_RELAXED);
	return r;
}

static void backing_close(int id)
{
	uint32_t bid = id;

	if (id > 0 && ioctl(sess.devfd, FUSE_DEV_IOC_BACKING_CLOSE, &bid) < 0)
		fb_errmsg("BACKING_CLOSE %d: %s", id, strerror(errno));
}

/* BACKING_OPEN from a forked child that dropped CAP_SYS_ADMIN */
static int backing_open_nocap(int fd)
{
	int pfd[2], res[2] = { -EIO, 0 };
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		struct __user_cap_header_struct h = {
			.version = _LINUX_CAPABILITY_VERSION_3,
			.pid = 0,
		};
		struct __user_cap_data_struct d[2];
		struct fuse_backing_map map = { .fd = fd };
		int r;

		if (syscall(SYS_capget, &h, d) < 0) {
			res[0] = -errno;
		} else {
			d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &=
				~CAP_TO_MASK(CAP_SYS_ADMIN);
			d[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted &=
				~CAP_TO_MASK(CAP_SYS_ADMIN);
			if (syscall(SYS_capset, &h, d) < 0) {
				res[0] = -errno;
				res[1] = 1;	/* capset failed */
			} else {
				r = ioctl(sess.devfd,
					  FUSE_DEV_IOC_BACKING_OPEN, &map);
				res[0] = r < 0 ? -errno : r;
			}
		}
		if (write(pfd[1], res, sizeof(res)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], res, sizeof(res)) != sizeof(res))
		res[0] = -EIO;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	if (res[1])
		fb_errmsg("bo-nocap: capset failed: %s", strerror(-res[0]));
	__atomic_store_n(&stats.backing_open_errno,
			 res[0] < 0 ? -res[0] : 0, __ATOMIC_RELAXED);
	return res[0];
}

static int open_fifo_fd(void)
{
	char dir[] = "/tmp/fbtestd-fifo.XXXXXX";
	char path[64];
	int fd;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (mkfifo(path, 0600) < 0) {
		rmdir(dir);
		return -1;
	}
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	unlink(path);
	rmdir(dir);
	return fd;
}

/*
 * Open-time faults (passthrough/backing).  Returns 0 with *id filled for a
 * passthrough reply, or a negative errno to answer the open with.
 * *close_id tells whether the id must be closed at RELEASE.
 */
static int open_fault(struct fb_req *req, const struct fb_fault *flt,
		      int fd, int *id, bool *close_id)
{
	struct fuse_backing_map map = { .fd = fd };
	int kind = fb_fault_open_kind(flt);
	int xfd = -1, r;
	char path[PATH_MAX];

	*close_id = false;
	switch (kind) {
	case FB_OF_PT_ID0:
		*id = 0;
		return 0;
	case FB_OF_PT_UNKNOWN:
		*id = 0x7ffffff0;
		return 0;
	case FB_OF_PT_CLOSED:
		r = backing_ioctl(&map);
		if (r < 0) {
			fb_fault_note(req, flt, "BACKING_OPEN", r, -r);
			return r;
		}
		backing_close(r);
		*id = r;
		return 0;
	case FB_OF_BO_DIR:
		xfd = openat(sess.rootfd, ".", O_RDONLY | O_DIRECTORY |
			     O_CLOEXEC);
		break;
	case FB_OF_BO_FIFO:
		xfd = open_fifo_fd();
		break;
	case FB_OF_BO_NESTED:
		snprintf(path, sizeof(path), "%s/fbtestd-nested",
			 cfg.backing_nested);
		xfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		break;
	case FB_OF_BO_FLAGS:
		map.flags = 1;
		break;
	case FB_OF_BO_PADDING:
		map.padding = 1;
		break;
	case FB_OF_BO_BADFD:
		map.fd = -1;
		break;
	case FB_OF_BO_NOCAP:
		break;
	default:
		return -EIO;
	}
	if ((kind == FB_OF_BO_DIR || kind == FB_OF_BO_FIFO ||
	     kind == FB_OF_BO_NESTED)) {
		if (xfd < 0) {
			r = -errno;
			fb_errmsg("fault %s: cannot open its backing object: %s",
				  fb_fault_name(flt), strerror(errno));
			return r;
		}
		map.fd = xfd;
	}
	if (kind == FB_OF_BO_NOCAP)
		r = backing_open_nocap(fd);
	else
		r = backing_ioctl(&map);
	if (xfd >= 0)
		close(xfd);
	fb_fault_note(req, flt, "BACKING_OPEN ioctl", r, r < 0 ? -r : 0);
	__atomic_store_n(&stats.fault_backing_open_errno, r < 0 ? -r : 0,
			 __ATOMIC_RELAXED);
	if (r < 0)
		return r;
	*id = r;
	*close_id = true;
	return 0;
}

/*
 * Fill @oo for a freshly opened backing fd; consumes fd on error.
 *
 * Passthrough: the backing fd (opened with the caller's open flags) is
 * registered with FUSE_DEV_IOC_BACKING_OPEN and the id is closed with
 * FUSE_DEV_IOC_BACKING_CLOSE at RELEASE, not right after the open reply:
 * the kernel resolves the id in the opener's context after our write(2)
 * returned, so an early close would race with it.  All opens of one inode
 * share one backing id, as real servers do: the kernel refuses (EIO) an open
 * whose backing file differs from the one the inode already passes through
 * to.
 */
static int node_backing_get(struct fb_node *n, int fd)
{
	int r;

	pthread_mutex_lock(&node_lock);
	if (n->backing_users) {
		n->backing_users++;
		r = n->backing_id;
	} else {
		struct fuse_backing_map map = { .fd = fd };

		r = backing_ioctl(&map);
		if (r > 0) {
			n->backing_id = r;
			n->backing_users = 1;
		}
	}
	pthread_mutex_unlock(&node_lock);
	return r;
}

static void node_backing_put(struct fb_node *n)
{
	int id = 0;

	pthread_mutex_lock(&node_lock);
	if (!--n->backing_users) {
		id = n->backing_id;
		n->backing_id = 0;
	}
	pthread_mutex_unlock(&node_lock);
	if (id > 0)
		backing_close(id);
	node_put(n);
}

/* the mode an open gets: --mode, or --mode-for-uid's for that uid */
static int req_mode(const struct fb_req *req)
{
	if (cfg.mode_uid >= 0 && req->in->uid == (uint32_t)cfg.mode_uid)
		return cfg.mode_for_uid;
	return cfg.mode;
}

static int open_finish(struct fb_req *req, int fd, struct fuse_open_out *oo,
		       uint64_t nodeid)
{
	int mode = req_mode(req);
	struct fb_file *f;
	struct fb_fault *flt = NULL;
	int id = 0, r;
	bool close_id = false;

	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	f->direct = mode != FB_MODE_PASSTHROUGH &&
		    (fcntl(fd, F_GETFL) & O_DIRECT);
	memset(oo, 0, sizeof(*oo));

	if (sess.passthrough)
		flt = fb_fault_take_open(req);
	if (flt) {
		r = open_fault(req, flt, fd, &id, &close_id);
		req->ofault = flt;
		if (r < 0) {
			free(f);
			close(fd);
			return r;
		}
		oo->open_flags |= FOPEN_PASSTHROUGH;
		oo->backing_id = id;
		if (close_id)
			f->backing_id = id;
	} else if (mode == FB_MODE_PASSTHROUGH) {
		f->node = node_get(nodeid);
		r = f->node ? node_backing_get(f->node, fd) : -ESTALE;
		if (r < 0) {
			fb_errmsg("BACKING_OPEN failed: %s", strerror(-r));
			node_put(f->node);
			free(f);
			close(fd);
			return r;
		}
		oo->open_flags |= FOPEN_PASSTHROUGH;
		oo->backing_id = r;
		fb_atomic_inc(&stats.passthrough_opens);
	} else if (mode == FB_MODE_DIRECT) {
		oo->open_flags |= FOPEN_DIRECT_IO;
	}
	if (cfg.parallel)
		oo->open_flags |= FOPEN_PARALLEL_DIRECT_WRITES;
	oo->fh = (uintptr_t)f;
	return 0;
}

static void file_free(struct fb_file *f)
{
	if (f->backing_id > 0)
		backing_close(f->backing_id);
	if (f->node)
		node_backing_put(f->node);
	close(f->fd);
	free(f);
}

static int backing_flags(const struct fb_req *req, uint32_t flags)
{
	flags &= ~(O_CREAT | O_EXCL | O_NOCTTY | O_NOFOLLOW);
	/*
	 * our own I/O uses the unaligned request buffers: no O_DIRECT unless
	 * the kernel does the I/O itself (passthrough) or we bounce
	 */
	if (req_mode(req) != FB_MODE_PASSTHROUGH && !cfg.backing_direct)
		flags &= ~O_DIRECT;
	return flags | O_CLOEXEC;
}

static void op_open(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_open_in *oi = (const void *)req->arg;
	struct fuse_open_out oo;
	char p[64];
	int fd, r;

	procpath(p, sizeof(p), node->fd);
	fd = open(p, backing_flags(req, oi->flags));
	if (fd < 0) {
		reply_err(req, errno);
		return;
	}
	if ((oi->open_flags & FUSE_OPEN_KILL_SUIDGID) && sess.killpriv_v2)
		kill_suidgid(fd, node);
	r = open_finish(req, fd, &oo, node->nodeid);
	if (r < 0) {
		reply_err(req, -r);
		return;
	}
	memcpy(reply_alloc(req, sizeof(oo)), &oo, sizeof(oo));
}

static void op_create(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_create_in *ci = (const void *)req->arg;
	size_t hdr = sess.kminor < 12 ? sizeof(struct fuse_open_in) :
					sizeof(*ci);
	const char *name = req->arg + hdr;
	struct fuse_entry_out e;
	struct fuse_open_out oo;
	size_t esz = entry_out_size();
	char *out;
	int fd, r;

	fd = openat(node->fd, name,
		    backing_flags(req, ci->flags) | O_CREAT | (ci->flags & O_EXCL),
		    ci->mode & 07777);
	if (fd < 0) {
		reply_err(req, errno);
		return;
	}
	set_owner(req, node, name);
	r = do_lookup(req, node, name, &e);
	if (r < 0) {
		close(fd);
		reply_err(req, -r);
		return;
	}
	r = open_finish(req, fd, &oo, e.nodeid);
	if (r < 0) {
		fb_node_unref_lookup(e.nodeid);
		req->entry_nodeid = 0;
		reply_err(req, -r);
		return;
	}
	out = reply_alloc(req, esz + sizeof(oo));
	memcpy(out, &e, esz);
	memcpy(out + esz, &oo, sizeof(oo));
}

static void inflight_enter(uint64_t *cur, uint64_t *max)
{
	uint64_t v = fb_atomic_inc(cur);
	uint64_t m = __atomic_load_n(max, __ATOMIC_RELAXED);

	while (v > m && !__atomic_compare_exchange_n(max, &m, v, false,
						     __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;
}

static void io_delay(void)
{
	if (cfg.delay_us)
		usleep(cfg.delay_us);
}

/*
 * This thread's buffer for I/O on O_DIRECT backing files, which want
 * memory aligned to the logical block size (4096 covers every device).
 */
static char *bounce_buf(void)
{
	static __thread char *buf;

	if (!buf && posix_memalign((void **)&buf, 4096, FB_MAX_WRITE))
		buf = NULL;
	return buf;
}

static void op_read(struct fb_req *req)
{
	const struct fuse_read_in *ri = (const void *)req->arg;
	struct fb_file *f = (void *)(uintptr_t)ri->fh;
	size_t size = ri->size, done = 0;
	char *buf = req->out;
	ssize_t n = 0;

	if (size > FB_MAX_WRITE)
		size = FB_MAX_WRITE;
	if (f->direct) {
		buf = bounce_buf();
		if (!buf) {
			reply_err(req, ENOMEM);
			return;
		}
	}
	inflight_enter(&stats.inflight_read, &stats.max_inflight_read);
	inflight_enter(&stats.inflight_io, &stats.max_inflight_io);
	io_delay();
	while (done < size) {
		n = pread(f->fd, buf + done, size - done,
			  ri->offset + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	fb_atomic_dec(&stats.inflight_io);
	fb_atomic_dec(&stats.inflight_read);
	if (n < 0 && done == 0) {
		reply_err(req, errno);
		return;
	}
	if (buf != req->out)
		memcpy(req->out, buf, done);
	req->error = 0;
	req->outlen = done;
}

static void op_write(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_write_in *wi = (const void *)req->arg;
	size_t hdr = sess.kminor < 9 ? FUSE_COMPAT_WRITE_IN_SIZE : sizeof(*wi);
	struct fb_file *f = (void *)(uintptr_t)wi->fh;
	const char *data = req->arg + hdr;
	size_t size = wi->size, done = 0;
	struct fuse_write_out *wo;
	ssize_t n = 0;
	int err = 0;

	if (req->arglen < hdr || req->arglen - hdr < size) {
		reply_err(req, EINVAL);
		return;
	}
	if (f->direct) {
		char *buf = bounce_buf();

		if (!buf || size > FB_MAX_WRITE) {
			reply_err(req, buf ? EINVAL : ENOMEM);
			return;
		}
		data = memcpy(buf, data, size);
	}
	inflight_enter(&stats.inflight_write, &stats.max_inflight_write);
	inflight_enter(&stats.inflight_io, &stats.max_inflight_io);
	io_delay();
	if (fb_fault_write_lost(req))
		done = size;
	while (done < size) {
		n = pwrite(f->fd, data + done, size - done,
			   wi->offset + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
		done += n;
	}
	if ((wi->write_flags & FUSE_WRITE_KILL_SUIDGID) && sess.killpriv_v2)
		kill_suidgid(f->fd, node);
	fb_atomic_dec(&stats.inflight_io);
	fb_atomic_dec(&stats.inflight_write);
	if (done == 0 && size) {
		reply_err(req, err);
		return;
	}
	wo = reply_alloc(req, sizeof(*wo));
	wo->size = done;
}

static void op_flush(struct fb_req *req)
{
	const struct fuse_flush_in *fi = (const void *)req->arg;
	struct fb_file *f = (void *)(uintptr_t)fi->fh;
	int fd = dup(f->fd);

	if (fd < 0 || close(fd) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}

static void op_release(struct fb_req *req)
{
	const struct fuse_release_in *ri = (const void *)req->arg;

	file_free((void *)(uintptr_t)ri->fh);
	reply_err(req, 0);
}

static void op_fsync(struct fb_req *req, bool dir)
{
	const struct fuse_fsync_in *fi = (const void *)req->arg;
	int fd, res;

	if (dir)
		fd = dirfd(((struct fb_dir *)(uintptr_t)fi->fh)->dp);
	else
		fd = ((struct fb_file *)(uintptr_t)fi->fh)->fd;
	res = (fi->fsync_flags & FUSE_FSYNC_FDATASYNC) ? fdatasync(fd) :
							   fsync(fd);
	reply_err(req, res < 0 ? errno : 0);
}

static void op_opendir(struct fb_req *req, struct fb_node *node)
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

static void op_readdir(struct fb_req *req)
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

static void op_releasedir(struct fb_req *req)
{
	const struct fuse_release_in *ri = (const void *)req->arg;
	struct fb_dir *d = (void *)(uintptr_t)ri->fh;

	closedir(d->dp);
	pthread_mutex_destroy(&d->lock);
	free(d);
	reply_err(req, 0);
}

static void op_statfs(struct fb_req *req, struct fb_node *node)
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

static void op_fallocate(struct fb_req *req)
{
	const struct fuse_fallocate_in *fi = (const void *)req->arg;
	struct fb_file *f = (void *)(uintptr_t)fi->fh;

	if (fallocate(f->fd, fi->mode, fi->offset, fi->length) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}

static void op_copy_file_range(struct fb_req *req)
{
	const struct fuse_copy_file_range_in *ci = (const void *)req->arg;
	struct fb_file *in = (void *)(uintptr_t)ci->fh_in;
	struct fb_file *out = (void *)(uintptr_t)ci->fh_out;
	loff_t off_in = ci->off_in, off_out = ci->off_out;
	struct fuse_write_out *wo;
	ssize_t n;

	n = copy_file_range(in->fd, &off_in, out->fd, &off_out, ci->len, 0);
	if (n < 0) {
		reply_err(req, errno);
		return;
	}
	wo = reply_alloc(req, sizeof(*wo));
	wo->size = n;
}

static void op_lseek(struct fb_req *req)
{
	const struct fuse_lseek_in *li = (const void *)req->arg;
	struct fb_file *f = (void *)(uintptr_t)li->fh;
	struct fuse_lseek_out *lo;
	off_t r = lseek(f->fd, li->offset, li->whence);

	if (r < 0) {
		reply_err(req, errno);
		return;
	}
	lo = reply_alloc(req, sizeof(*lo));
	lo->offset = r;
}

static void xattr_size_reply(struct fb_req *req, ssize_t n, uint32_t size)
{
	struct fuse_getxattr_out *go;

	if (n < 0) {
		reply_err(req, errno);
	} else if (size == 0) {
		go = reply_alloc(req, sizeof(*go));
		go->size = n;
	} else {
		req->error = 0;
		req->outlen = n;
	}
}

/* --caps-in-daemon: where security.capability is kept */
static const char *xattr_name(const char *name)
{
	if (cfg.caps_in_daemon && !strcmp(name, "security.capability"))
		return "trusted.fbtestd.capability";
	return name;
}

static void op_getxattr(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_getxattr_in *gi = (const void *)req->arg;
	const char *name = xattr_name(req->arg + sizeof(*gi));
	uint32_t size = gi->size;
	char p[64];

	if (size > FB_OUT_CAP / 2)
		size = FB_OUT_CAP / 2;
	procpath(p, sizeof(p), node->fd);
	xattr_size_reply(req, getxattr(p, name, size ? req->out : NULL, size),
			 size);
}

static void op_listxattr(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_getxattr_in *gi = (const void *)req->arg;
	uint32_t size = gi->size;
	char p[64];

	if (size > FB_OUT_CAP / 2)
		size = FB_OUT_CAP / 2;
	procpath(p, sizeof(p), node->fd);
	xattr_size_reply(req, listxattr(p, size ? req->out : NULL, size),
			 size);
}

static void op_setxattr(struct fb_req *req, struct fb_node *node)
{
	const struct fuse_setxattr_in *si = (const void *)req->arg;
	size_t hdr = (sess.wflags & FUSE_SETXATTR_EXT) ? sizeof(*si) :
			FUSE_COMPAT_SETXATTR_IN_SIZE;
	const char *name = req->arg + hdr;
	const char *value = name + strlen(name) + 1;
	char p[64];

	procpath(p, sizeof(p), node->fd);
	if (setxattr(p, xattr_name(name), value, si->size, si->flags) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}

static void op_removexattr(struct fb_req *req, struct fb_node *node)
{
	char p[64];

	procpath(p, sizeof(p), node->fd);
	if (removexattr(p, xattr_name(req->arg)) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}

static void op_forget(struct fb_req *req)
{
	const struct fuse_forget_in *fi = (const void *)req->arg;

	node_forget(req->in->nodeid, fi->nlookup);
	req->noreply = true;
}

static void op_batch_forget(struct fb_req *req)
{
	const struct fuse_batch_forget_in *bi = (const void *)req->arg;
	const struct fuse_forget_one *one = (const void *)(bi + 1);
	size_t max = (req->arglen - sizeof(*bi)) / sizeof(*one);
	uint32_t i;

	for (i = 0; i < bi->count && i < max; i++)
		node_forget(one[i].nodeid, one[i].nlookup);
	req->noreply = true;
}

/* ---------------------------------------------------------------- */
/* INIT */

static void op_init(struct fb_req *req)
{
	const struct fuse_init_in *ii = (const void *)req->arg;
	struct fuse_init_out *io;
	uint64_t kflags, want, granted;
	bool need_pt;
	size_t outsz;

	if (req->arglen < offsetof(struct fuse_init_in, flags2)) {
		reply_err(req, EPROTO);
		sess.init_failed = true;
		fb_errmsg("INIT request too short (%zu bytes)", req->arglen);
		return;
	}
	if (ii->major > FUSE_KERNEL_VERSION) {
		/* ask the kernel to retry with our major */
		io = reply_alloc(req, FUSE_COMPAT_INIT_OUT_SIZE);
		io->major = FUSE_KERNEL_VERSION;
		io->minor = FUSE_KERNEL_MINOR_VERSION;
		return;
	}
	if (ii->major < FUSE_KERNEL_VERSION) {
		fb_errmsg("kernel FUSE protocol %u.%u is too old",
			  ii->major, ii->minor);
		sess.init_failed = true;
		reply_err(req, EPROTO);
		return;
	}
	kflags = ii->flags;
	if ((ii->flags & FUSE_INIT_EXT) &&
	    req->arglen >= offsetof(struct fuse_init_in, flags2) + 4)
		kflags |= (uint64_t)ii->flags2 << 32;
	sess.kminor = ii->minor;
	sess.kflags = kflags;

	want = FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_ASYNC_DIO |
	       FUSE_MAX_PAGES;
	if (cfg.killpriv_v2) {
		if (!(kflags & FUSE_HANDLE_KILLPRIV_V2))
			fb_errmsg("warning: kernel does not offer FUSE_HANDLE_KILLPRIV_V2");
		want |= FUSE_HANDLE_KILLPRIV_V2;
	}
	if (cfg.mode == FB_MODE_DIRECT)
		want |= FUSE_DIRECT_IO_ALLOW_MMAP;	/* shared mmap works */
	need_pt = cfg.mode == FB_MODE_PASSTHROUGH ||
		  fb_fault_need_passthrough();
	if (need_pt) {
		if (!(kflags & FUSE_PASSTHROUGH)) {
			fb_errmsg("kernel (FUSE %u.%u) did not offer FUSE_PASSTHROUGH in INIT; refusing to serve %s",
				  ii->major, ii->minor,
				  cfg.mode == FB_MODE_PASSTHROUGH ?
				  "--mode passthrough" : "passthrough faults");
			sess.init_failed = true;
			reply_err(req, EPROTO);
			return;
		}
		want |= FUSE_PASSTHROUGH;
	}
	granted = want & kflags;
	sess.passthrough = !!(granted & FUSE_PASSTHROUGH);
	sess.killpriv_v2 = !!(granted & FUSE_HANDLE_KILLPRIV_V2);
	if (granted >> 32)
		granted |= FUSE_INIT_EXT;
	sess.wflags = granted;

	if (sess.kminor < 5)
		outsz = FUSE_COMPAT_INIT_OUT_SIZE;
	else if (sess.kminor < 23)
		outsz = FUSE_COMPAT_22_INIT_OUT_SIZE;
	else
		outsz = sizeof(*io);
	io = reply_alloc(req, sizeof(*io));
	req->outlen = outsz;
	io->major = FUSE_KERNEL_VERSION;
	io->minor = FUSE_KERNEL_MINOR_VERSION;
	io->max_readahead = ii->max_readahead;
	io->flags = (uint32_t)granted;
	io->flags2 = (uint32_t)(granted >> 32);
	io->max_background = 64;
	io->congestion_threshold = 48;
	io->max_write = FB_MAX_WRITE;
	io->time_gran = 1;
	io->max_pages = (granted & FUSE_MAX_PAGES) ? FB_MAX_PAGES : 0;
	io->max_stack_depth = sess.passthrough ? 1 : 0;
	sess.init_done = true;
}

/* ---------------------------------------------------------------- */

/*
 * A successful reply that the kernel did not take (the request was
 * interrupted): drop what the reply handed over, nobody will release it.
 */
static void undo_reply(struct fb_req *req)
{
	const struct fuse_open_out *oo;

	switch (req->in->opcode) {
	case FUSE_OPEN:
		oo = (const void *)req->out;
		file_free((void *)(uintptr_t)oo->fh);
		break;
	case FUSE_CREATE:
		oo = (const void *)(req->out + entry_out_size());
		file_free((void *)(uintptr_t)oo->fh);
		break;
	case FUSE_OPENDIR: {
		struct fb_dir *d;

		oo = (const void *)req->out;
		d = (void *)(uintptr_t)oo->fh;
		closedir(d->dp);
		pthread_mutex_destroy(&d->lock);
		free(d);
		break;
	}
	}
	if (req->entry_nodeid)
		fb_node_unref_lookup(req->entry_nodeid);
}

static bool needs_node(uint32_t op)
{
	switch (op) {
	case FUSE_INIT:
	case FUSE_DESTROY:
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
	case FUSE_READ:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_READDIR:
	case FUSE_FLUSH:
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR:
	case FUSE_FALLOCATE:
	case FUSE_LSEEK:
		return false;
	}
	return true;
}

static bool is_xattr_op(uint32_t op)
{
	return op == FUSE_GETXATTR || op == FUSE_SETXATTR ||
	       op == FUSE_LISTXATTR || op == FUSE_REMOVEXATTR;
}

void fb_dispatch(struct fb_req *req)
{
	uint32_t op = req->in->opcode;
	struct fb_node *node = NULL;

	req->error = 0;
	req->outlen = 0;

	if (!sess.init_done && op != FUSE_INIT) {
		reply_err(req, EIO);
		goto send;
	}
	if (is_xattr_op(op) && cfg.no_xattr) {
		reply_err(req, ENOSYS);
		goto send;
	}
	if (needs_node(op)) {
		node = node_get(req->in->nodeid);
		if (!node) {
			reply_err(req, ESTALE);
			goto send;
		}
	}

	switch (op) {
	case FUSE_INIT:
		op_init(req);
		break;
	case FUSE_DESTROY:
		reply_err(req, 0);
		break;
	case FUSE_LOOKUP:
		op_lookup(req, node);
		break;
	case FUSE_FORGET:
		op_forget(req);
		break;
	case FUSE_BATCH_FORGET:
		op_batch_forget(req);
		break;
	case FUSE_GETATTR:
		op_getattr(req, node);
		break;
	case FUSE_SETATTR:
		op_setattr(req, node);
		break;
	case FUSE_READLINK:
		op_readlink(req, node);
		break;
	case FUSE_SYMLINK:
		op_symlink(req, node);
		break;
	case FUSE_MKNOD:
		op_mknod(req, node);
		break;
	case FUSE_MKDIR:
		op_mkdir(req, node);
		break;
	case FUSE_UNLINK:
		op_unlink(req, node, 0);
		break;
	case FUSE_RMDIR:
		op_unlink(req, node, AT_REMOVEDIR);
		break;
	case FUSE_RENAME:
		op_rename(req, node, false);
		break;
	case FUSE_RENAME2:
		op_rename(req, node, true);
		break;
	case FUSE_LINK:
		op_link(req, node);
		break;
	case FUSE_OPEN:
		op_open(req, node);
		break;
	case FUSE_CREATE:
		op_create(req, node);
		break;
	case FUSE_READ:
		op_read(req);
		break;
	case FUSE_WRITE:
		op_write(req, node);
		break;
	case FUSE_FLUSH:
		op_flush(req);
		break;
	case FUSE_RELEASE:
		op_release(req);
		break;
	case FUSE_FSYNC:
		op_fsync(req, false);
		break;
	case FUSE_OPENDIR:
		op_opendir(req, node);
		break;
	case FUSE_READDIR:
		op_readdir(req);
		break;
	case FUSE_RELEASEDIR:
		op_releasedir(req);
		break;
	case FUSE_FSYNCDIR:
		op_fsync(req, true);
		break;
	case FUSE_STATFS:
		op_statfs(req, node);
		break;
	case FUSE_FALLOCATE:
		op_fallocate(req);
		break;
	case FUSE_LSEEK:
		op_lseek(req);
		break;
	case FUSE_COPY_FILE_RANGE:
		op_copy_file_range(req);
		break;
	case FUSE_GETXATTR:
		op_getxattr(req, node);
		break;
	case FUSE_LISTXATTR:
		op_listxattr(req, node);
		break;
	case FUSE_SETXATTR:
		op_setxattr(req, node);
		break;
	case FUSE_REMOVEXATTR:
		op_removexattr(req, node);
		break;
	case FUSE_INTERRUPT:
		/* we never block indefinitely; the reply will come anyway */
		req->noreply = true;
		break;
	default:
		/* ACCESS and everything else */
		reply_err(req, ENOSYS);
		break;
	}
send:
	if (fb_send_reply(req) == ENOENT && !req->error)
		undo_reply(req);
	node_put(node);
}

/*
 * SIGUSR2: tell the kernel that the attributes of every inode it knows may
 * have changed behind its back (offset -1: attributes only, no page cache),
 * as a server does after a change made outside the mount.
 */
void fb_notify_inval_all(void)
{
	struct {
		struct fuse_out_header h;
		struct fuse_notify_inval_inode_out o;
	} msg;
	struct fb_node *n;
	uint64_t *ids = NULL;
	size_t cnt = 0, cap = 0, i;

	pthread_mutex_lock(&node_lock);
	for (i = 0; i < NODE_HASH_SIZE; i++) {
		for (n = id_hash[i]; n; n = n->id_next) {
			if (cnt == cap) {
				uint64_t *p;

				cap = cap ? 2 * cap : 64;
				p = realloc(ids, cap * sizeof(*ids));
				if (!p)
					break;
				ids = p;
			}
			if (cnt < cap)
				ids[cnt++] = n->nodeid;
		}
	}
	pthread_mutex_unlock(&node_lock);

	/* not under node_lock: the kernel may send FORGETs meanwhile */
	for (i = 0; i < cnt; i++) {
		memset(&msg, 0, sizeof(msg));
		msg.h.len = sizeof(msg);
		msg.h.error = FUSE_NOTIFY_INVAL_INODE;
		msg.o.ino = ids[i];
		msg.o.off = -1;
		if (write(sess.devfd, &msg, sizeof(msg)) == sizeof(msg))
			fb_atomic_inc(&stats.notify_inval_sent);
		else
			fb_atomic_inc(&stats.notify_inval_failed);
	}
	free(ids);
}
