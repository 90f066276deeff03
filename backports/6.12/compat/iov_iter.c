// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: iov_iter_extract_pages() (6.3) for kernels without it.
 *
 * Its contract, which FUSE relies on: pages of user memory are pinned
 * (FOLL_PIN, released with unpin_user_page()), pages of any other kind of
 * iterator are handed out without a reference, the owner of the memory
 * keeping them for the duration of the I/O.
 */
#include <linux/mm.h>
#include <linux/uio.h>

/* The first non-empty segment of a user-backed iterator, up to *size */
static unsigned long fb_first_user_seg(const struct iov_iter *i, size_t *size)
{
	size_t skip = i->iov_offset;
	unsigned long k;

	if (iter_is_ubuf(i))
		return (unsigned long)i->ubuf + skip;

	for (k = 0; k < i->nr_segs; k++, skip = 0) {
		size_t len = i->iov[k].iov_len - skip;

		if (!len)
			continue;
		if (*size > len)
			*size = len;
		return (unsigned long)i->iov[k].iov_base + skip;
	}
	*size = 0;
	return 0;
}

static ssize_t fb_extract_user_pages(struct iov_iter *i, struct page **pages,
				     size_t maxsize, unsigned int maxpages,
				     size_t *offset0)
{
	unsigned int gup_flags = 0;
	unsigned long addr;
	size_t offset;
	int npages, res;

	addr = fb_first_user_seg(i, &maxsize);
	if (!maxsize)
		return 0;
	offset = addr & ~PAGE_MASK;
	if (iov_iter_rw(i) == READ)
		gup_flags |= FOLL_WRITE;
	if (i->nofault)
		gup_flags |= FOLL_NOFAULT;

	npages = DIV_ROUND_UP(offset + maxsize, PAGE_SIZE);
	if (npages > maxpages)
		npages = maxpages;
	res = pin_user_pages_fast(addr & PAGE_MASK, npages, gup_flags, pages);
	if (unlikely(res <= 0))
		return res;

	maxsize = min_t(size_t, maxsize, res * PAGE_SIZE - offset);
	iov_iter_advance(i, maxsize);
	*offset0 = offset;
	return maxsize;
}

static ssize_t fb_extract_kvec_pages(struct iov_iter *i, struct page **pages,
				     size_t maxsize, unsigned int maxpages,
				     size_t *offset0)
{
	const struct kvec *kv = i->kvec;
	size_t skip = i->iov_offset, offset, len = 0;
	unsigned long addr = 0, k;
	unsigned int n;

	for (k = 0; k < i->nr_segs; k++, kv++, skip = 0) {
		len = kv->iov_len - skip;
		if (len) {
			addr = (unsigned long)kv->iov_base + skip;
			break;
		}
	}
	if (!len)
		return 0;
	if (len > maxsize)
		len = maxsize;

	offset = addr & ~PAGE_MASK;
	addr &= PAGE_MASK;
	for (n = 0; n < maxpages && n * PAGE_SIZE < offset + len; n++) {
		const void *va = (const void *)(addr + n * PAGE_SIZE);

		pages[n] = virt_addr_valid(va) ? virt_to_page(va) :
						 vmalloc_to_page(va);
	}
	len = min_t(size_t, len, n * PAGE_SIZE - offset);
	iov_iter_advance(i, len);
	*offset0 = offset;
	return len;
}

/*
 * Bvec, pipe and xarray iterators: iov_iter_get_pages2() takes a reference
 * that the extraction contract does not: drop it. The bvec's owner, the pipe
 * or the page cache holds each page until the I/O is done.
 */
static ssize_t fb_extract_other_pages(struct iov_iter *i, struct page **pages,
				      size_t maxsize, unsigned int maxpages,
				      size_t *offset0)
{
	ssize_t res = iov_iter_get_pages2(i, pages, maxsize, maxpages, offset0);
	unsigned int n;

	if (res > 0) {
		for (n = 0; n < DIV_ROUND_UP(res + *offset0, PAGE_SIZE); n++)
			put_page(pages[n]);
	}
	return res;
}

ssize_t fb_iov_iter_extract_pages(struct iov_iter *i, struct page ***pages,
				  size_t maxsize, unsigned int maxpages,
				  iov_iter_extraction_t extraction_flags,
				  size_t *offset0)
{
	maxsize = min_t(size_t, min_t(size_t, maxsize, i->count), MAX_RW_COUNT);
	if (!maxsize || !maxpages)
		return 0;
	/* FUSE always passes its own page array: no allocation here */
	if (WARN_ON_ONCE(!*pages || extraction_flags))
		return -EINVAL;

	if (user_backed_iter(i))
		return fb_extract_user_pages(i, *pages, maxsize, maxpages,
					     offset0);
	if (iov_iter_is_kvec(i))
		return fb_extract_kvec_pages(i, *pages, maxsize, maxpages,
					     offset0);
	return fb_extract_other_pages(i, *pages, maxsize, maxpages, offset0);
}
