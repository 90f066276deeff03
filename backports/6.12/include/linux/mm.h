/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/mm.h>: vm_flags_set() (6.3), folio_copy()
 * (declared, not exported before 6.5).
 */
#ifndef FB_LINUX_MM_H
#define FB_LINUX_MM_H

#include_next <linux/mm.h>

#ifndef HAVE_VM_FLAGS_SET
/* Before 6.3 the flags were set in place, under the mmap lock as now. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

#ifndef HAVE_EXPORT_FOLIO_COPY
#include <linux/highmem.h>

/* Page by page, as the kernel's does */
static inline void fb_folio_copy(struct folio *dst, struct folio *src)
{
	long i, nr = folio_nr_pages(src);

	for (i = 0; i < nr; i++) {
		copy_highpage(folio_page(dst, i), folio_page(src, i));
		if (i + 1 < nr)
			cond_resched();
	}
}
#define folio_copy fb_folio_copy
#endif

#endif /* FB_LINUX_MM_H */
