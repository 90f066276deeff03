/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/pagemap.h>: replace_page_cache_folio()
 * (6.2), FGP_WRITEBEGIN (6.6) and __filemap_get_folio() returning an error
 * pointer rather than NULL (6.3), folio_end_read() (6.8), page_get_link_raw()
 * (6.14 and stable, declared in <linux/fs.h>).
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

#ifndef HAVE_PAGE_GET_LINK_RAW
/*
 * page_get_link() without its cut at i_size: upstream b4c173dfbb6c "fuse:
 * don't truncate cached, mutated symlink" (Miklos Szeredi, Linux 6.14; in
 * 6.12.y and 6.1.y through stable, March 2025) split it out for
 * fuse_get_link(), whose server may change a symlink's target while the
 * cached i_size is still the old one. A 6.12 kernel without that backport
 * lacks it (RHEL 10.0): the same, from exported helpers. The page holds
 * what fuse_readlink_folio() read, NUL-terminated at the length the server
 * gave; page_get_link() would cut it at i_size, the very truncation the fix
 * removes.
 */
static inline const char *fb_page_get_link_raw(struct dentry *dentry,
					       struct inode *inode,
					       struct delayed_call *callback)
{
	struct address_space *mapping = inode->i_mapping;
	struct page *page;

	if (!dentry) {
		/* RCU walk: only a page already read, no I/O */
		page = find_get_page(mapping, 0);
		if (!page)
			return ERR_PTR(-ECHILD);
		if (!PageUptodate(page)) {
			put_page(page);
			return ERR_PTR(-ECHILD);
		}
	} else {
		page = read_mapping_page(mapping, 0, NULL);
		if (IS_ERR(page))
			return ERR_CAST(page);
	}
	set_delayed_call(callback, page_put_link, page);
	return page_address(page);
}
#define page_get_link_raw	fb_page_get_link_raw
#endif

#endif /* FB_LINUX_PAGEMAP_H */
