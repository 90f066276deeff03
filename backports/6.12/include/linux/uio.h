/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/uio.h>: iter_iov() (6.4) and
 * iov_iter_extract_pages() (6.3, here backports/compat/iov_iter.c).
 */
#ifndef FB_LINUX_UIO_H
#define FB_LINUX_UIO_H

#include_next <linux/uio.h>

#ifndef HAVE_ITER_IOV
#define iter_iov(iter)	((iter)->iov)
#endif

#ifndef HAVE_IOV_ITER_EXTRACT_PAGES
#define iov_iter_extraction_t unsigned int

ssize_t fb_iov_iter_extract_pages(struct iov_iter *i, struct page ***pages,
				  size_t maxsize, unsigned int maxpages,
				  iov_iter_extraction_t extraction_flags,
				  size_t *offset0);
#define iov_iter_extract_pages fb_iov_iter_extract_pages

/* User memory is pinned (FOLL_PIN); other kinds are taken without a ref. */
static inline bool iov_iter_extract_will_pin(const struct iov_iter *iter)
{
	return user_backed_iter(iter);
}
#endif

#endif /* FB_LINUX_UIO_H */
