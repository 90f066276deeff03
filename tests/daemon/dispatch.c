// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - request dispatch: the node a request names, the handler of
 * its opcode, the reply, and the undoing of a reply the kernel did not
 * take.
 */
#include "ops.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

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
