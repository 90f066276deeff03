// SPDX-License-Identifier: GPL-2.0-only
/* replace_page_cache_folio() (6.2) */
#include <linux/pagemap.h>

void fb_probe(struct folio *old, struct folio *new);
void fb_probe(struct folio *old, struct folio *new)
{
	replace_page_cache_folio(old, new);
}
