// SPDX-License-Identifier: GPL-2.0-only
/* write_cache_pages() calls back with a folio (6.3) */
#include <linux/writeback.h>

static int fb_writepage(struct folio *folio, struct writeback_control *wbc,
			void *data)
{
	return 0;
}

int fb_probe(struct address_space *mapping, struct writeback_control *wbc);
int fb_probe(struct address_space *mapping, struct writeback_control *wbc)
{
	return write_cache_pages(mapping, wbc, fb_writepage, NULL);
}
