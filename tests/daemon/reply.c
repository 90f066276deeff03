// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - sending replies: the header of the reply a handler built, the
 * fault hook (fault.c), the write to the device.
 */
#include "fbtestd.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t fb_send_raw(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do {
		n = write(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	return n;
}

/*
 * Send the reply to @req (logged first; nothing for a noreply request).
 * 0, or the errno of a write the kernel refused: ENOENT when the request
 * is gone (interrupted), which makes the caller undo the reply.
 */
int fb_send_reply(struct fb_req *req)
{
	struct fuse_out_header *oh = req->oh;
	ssize_t n;

	fb_log_request(req);
	if (req->noreply)
		return 0;
	if (req->error)
		req->outlen = 0;
	oh->unique = req->in->unique;
	oh->error = req->error;
	oh->len = sizeof(*oh) + req->outlen;

	if (fb_fault_reply(req))
		return 0;

	n = fb_send_raw(req->fd, oh, oh->len);
	if (n < 0) {
		int err = errno;

		if (err != ENOENT)
			fb_errmsg("reply to %s unique=%llu: %s",
				  fb_opname(req->in->opcode),
				  (unsigned long long)req->in->unique,
				  strerror(err));
		return err;
	}
	return 0;
}
