// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - extended attributes: GETXATTR, LISTXATTR, SETXATTR,
 * REMOVEXATTR (--no-xattr answers them with ENOSYS in dispatch.c).
 */
#include "ops.h"

#include <errno.h>
#include <string.h>
#include <sys/xattr.h>

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

void op_getxattr(struct fb_req *req, struct fb_node *node)
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

void op_listxattr(struct fb_req *req, struct fb_node *node)
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

void op_setxattr(struct fb_req *req, struct fb_node *node)
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

void op_removexattr(struct fb_req *req, struct fb_node *node)
{
	char p[64];

	procpath(p, sizeof(p), node->fd);
	if (removexattr(p, xattr_name(req->arg)) < 0)
		reply_err(req, errno);
	else
		reply_err(req, 0);
}
