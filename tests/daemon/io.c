// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - open files: OPEN and CREATE (cached, direct or passthrough
 * replies), READ, WRITE, FLUSH, RELEASE, FSYNC(DIR), FALLOCATE,
 * COPY_FILE_RANGE and LSEEK.
 */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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

void file_free(struct fb_file *f)
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
	/*
	 * writeback cache: the kernel reads pages of a write-only open to fill
	 * partial ones, writes back through any open, and appends itself
	 */
	if (sess.writeback) {
		if ((flags & O_ACCMODE) == O_WRONLY)
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		flags &= ~O_APPEND;
	}
	return flags | O_CLOEXEC;
}

void op_open(struct fb_req *req, struct fb_node *node)
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

void op_create(struct fb_req *req, struct fb_node *node)
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

void op_read(struct fb_req *req)
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

void op_write(struct fb_req *req, struct fb_node *node)
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
	if (wi->write_flags & FUSE_WRITE_CACHE)
		fb_atomic_inc(&stats.writes_cache);
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

void op_flush(struct fb_req *req)
{
	const struct fuse_flush_in *fi = (const void *)req->arg;
	struct fb_file *f = (void *)(uintptr_t)fi->fh;
	int fd = dup(f->fd);

	if (fd < 0 || close(fd) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}

void op_release(struct fb_req *req)
{
	const struct fuse_release_in *ri = (const void *)req->arg;

	file_free((void *)(uintptr_t)ri->fh);
	reply_err(req, 0);
}

void op_fsync(struct fb_req *req, bool dir)
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

void op_fallocate(struct fb_req *req)
{
	const struct fuse_fallocate_in *fi = (const void *)req->arg;
	struct fb_file *f = (void *)(uintptr_t)fi->fh;

	if (fallocate(f->fd, fi->mode, fi->offset, fi->length) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}

void op_copy_file_range(struct fb_req *req)
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

void op_lseek(struct fb_req *req)
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
