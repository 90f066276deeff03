// SPDX-License-Identifier: GPL-2.0-only
/* FGP_WRITEBEGIN (6.6; __filemap_get_folio() returns an error pointer since 6.3) */
#include <linux/pagemap.h>

struct folio *fb_probe(struct address_space *mapping);
struct folio *fb_probe(struct address_space *mapping)
{
	return __filemap_get_folio(mapping, 0, FGP_WRITEBEGIN, GFP_KERNEL);
}
