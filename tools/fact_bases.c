// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: the bases of this release (FB_BASES, compiled in
 * from backports/<base>/pin by tools/Makefile) and the kernel series each
 * serves.
 */
#include <stdio.h>
#include <stdlib.h>

#include "facts.h"

static int series_num(const char *v)
{
	int maj = 0, min = 0;

	if (sscanf(v, "%d.%d", &maj, &min) < 2)
		return -1;
	return maj * 1000 + min;
}

static const struct fb_base bases[] = { FB_BASES };

const struct fb_base *base_for(const char *kver)
{
	int n = series_num(kver);
	size_t i;

	for (i = 0; n >= 0 && i < ARRAY_SIZE(bases); i++)
		if (n >= series_num(bases[i].min) && n <= series_num(bases[i].max))
			return &bases[i];
	return NULL;
}

char *served_series(void)
{
	char *s = fb_strdup(""), *t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		t = fb_fmt("%s%s%s to %s", s, i ? ", " : "", bases[i].min, bases[i].max);
		free(s);
		s = t;
	}
	return s;
}
