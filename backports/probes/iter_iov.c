// SPDX-License-Identifier: GPL-2.0-only
/* iov_iter iovecs read through iter_iov() (6.4) */
#include <linux/uio.h>

const struct iovec *fb_probe(const struct iov_iter *iter);
const struct iovec *fb_probe(const struct iov_iter *iter)
{
	return iter_iov(iter);
}
