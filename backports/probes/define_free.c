// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scope-based cleanup as virtio_fs.c uses it: DEFINE_FREE(), __free(),
 * no_free_ptr() of <linux/cleanup.h>. "locking: Introduce __cleanup() based
 * infrastructure" (Peter Zijlstra, upstream 54da6a092431, Linux 6.5),
 * backported to 6.1.79. Shim: backports/6.12/include/linux/cleanup.h.
 */
#include <linux/cleanup.h>

static void fb_put(int *p)
{
	if (p)
		(*p)--;
}

DEFINE_FREE(fb_put, int *, fb_put(_T))

int *fb_probe(int *p);
int *fb_probe(int *p)
{
	int *q __free(fb_put) = p;

	return no_free_ptr(q);
}
