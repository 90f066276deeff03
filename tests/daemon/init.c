// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - INIT: the protocol version and the flags the session gets.
 */
#include "ops.h"

#include <errno.h>
#include <stddef.h>

void op_init(struct fb_req *req)
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
	if (cfg.allow_idmap) {
		if (!(kflags & FUSE_ALLOW_IDMAP))
			fb_errmsg("warning: kernel does not offer FUSE_ALLOW_IDMAP");
		want |= FUSE_ALLOW_IDMAP;
	}
	if (cfg.writeback_cache) {
		if (!(kflags & FUSE_WRITEBACK_CACHE))
			fb_errmsg("warning: kernel does not offer FUSE_WRITEBACK_CACHE");
		want |= FUSE_WRITEBACK_CACHE;
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
	sess.writeback = !!(granted & FUSE_WRITEBACK_CACHE);
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
