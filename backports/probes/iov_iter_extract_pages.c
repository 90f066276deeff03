// SPDX-License-Identifier: GPL-2.0-only
/* iov_iter_extract_pages(): pin or extract without refs (6.3) */
#include <linux/uio.h>

ssize_t fb_probe(struct iov_iter *i, struct page **pages, size_t *off);
ssize_t fb_probe(struct iov_iter *i, struct page **pages, size_t *off)
{
	ssize_t ret = iov_iter_extract_pages(i, &pages, 4096, 1, 0, off);

	return iov_iter_extract_will_pin(i) ? ret : 0;
}
