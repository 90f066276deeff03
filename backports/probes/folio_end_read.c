// SPDX-License-Identifier: GPL-2.0-only
/* folio_end_read() (6.8) */
#include <linux/pagemap.h>

void fb_probe(struct folio *folio);
void fb_probe(struct folio *folio)
{
	folio_end_read(folio, true);
}
