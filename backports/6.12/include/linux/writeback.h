/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/writeback.h>: write_cache_pages() calls
 * back with a folio (6.3), not a page.
 */
#ifndef FB_LINUX_WRITEBACK_H
#define FB_LINUX_WRITEBACK_H

#include_next <linux/writeback.h>

#ifndef HAVE_WRITE_CACHE_PAGES_FOLIO
#include <linux/mm.h>

typedef int (*fb_writepage_folio_t)(struct folio *folio,
				    struct writeback_control *wbc, void *data);

struct fb_write_cache_pages {
	fb_writepage_folio_t writepage;
	void *data;
};

static inline int fb_write_cache_page(struct page *page,
				      struct writeback_control *wbc, void *p)
{
	struct fb_write_cache_pages *w = p;

	return w->writepage(page_folio(page), wbc, w->data);
}

static inline int fb_write_cache_pages(struct address_space *mapping,
				       struct writeback_control *wbc,
				       fb_writepage_folio_t writepage,
				       void *data)
{
	struct fb_write_cache_pages w = { .writepage = writepage, .data = data };

	return write_cache_pages(mapping, wbc, fb_write_cache_page, &w);
}
#define write_cache_pages fb_write_cache_pages
#endif

#endif /* FB_LINUX_WRITEBACK_H */
