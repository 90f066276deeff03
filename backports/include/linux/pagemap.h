/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/pagemap.h>: replace_page_cache_folio()
 * (6.2), FGP_WRITEBEGIN (6.6) and __filemap_get_folio() returning an error
 * pointer rather than NULL (6.3), folio_end_read() (6.8).
 */
#ifndef FB_LINUX_PAGEMAP_H
#define FB_LINUX_PAGEMAP_H

#include_next <linux/pagemap.h>

#ifndef HAVE_REPLACE_PAGE_CACHE_FOLIO
/* The page variant works on the folios of the two pages. */
static inline void replace_page_cache_folio(struct folio *old,
					    struct folio *new)
{
	replace_page_cache_page(&old->page, &new->page);
}
#endif

#ifndef HAVE_FGP_WRITEBEGIN
#define FGP_WRITEBEGIN	(FGP_LOCK | FGP_WRITE | FGP_CREAT | FGP_STABLE)

/* Harmless where it already returns an error pointer: that is not NULL. */
static inline struct folio *fb___filemap_get_folio(struct address_space *mapping,
						   pgoff_t index, int fgp_flags,
						   gfp_t gfp)
{
	struct folio *folio = __filemap_get_folio(mapping, index, fgp_flags, gfp);

	if (!folio)
		return ERR_PTR((fgp_flags & FGP_CREAT) ? -ENOMEM : -ENOENT);
	return folio;
}
#define __filemap_get_folio fb___filemap_get_folio
#endif

#ifndef HAVE_FOLIO_END_READ
/* Mark uptodate on success and unlock, which 6.8 does in one atomic op. */
static inline void folio_end_read(struct folio *folio, bool success)
{
	if (success)
		folio_mark_uptodate(folio);
	folio_unlock(folio);
}
#endif

#endif /* FB_LINUX_PAGEMAP_H */
