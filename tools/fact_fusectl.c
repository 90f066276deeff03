// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: the renamed module's takeover of a built-in FUSE
 * (its parameter, FB_TAKEOVER_PARAM) and which FUSE serves a mount (the
 * control file systems, /sys/fs/fuse and /sys/fs/FB_PREFIX).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

/* The parameter: 1 active, 0 not, -1 no parameter (module not loaded). */
int takeover_active(void)
{
	char *v = fb_read_line(FB_TAKEOVER_PARAM);
	int ret = v ? !strcmp(v, "1") : -1;

	free(v);
	return ret;
}

/*
 * Who serves the FUSE mount of superblock SB_DEV ("major:minor"): the
 * control fs that lists its connection (major << 20 | minor). FB_PREFIX,
 * "built-in", or NULL when neither control fs tells.
 */
const char *takeover_served_by(const char *sb_dev)
{
	unsigned int maj, min;
	const char *who = NULL;
	char *p;

	if (!sb_dev || sscanf(sb_dev, "%u:%u", &maj, &min) != 2)
		return NULL;
	p = fb_fmt("/sys/fs/%s/connections/%u", FB_PREFIX, (maj << 20) | min);
	if (fb_is_dir(p))
		who = FB_PREFIX;
	free(p);
	if (who)
		return who;
	p = fb_fmt("/sys/fs/fuse/connections/%u", (maj << 20) | min);
	if (fb_is_dir(p))
		who = "built-in";
	free(p);
	return who;
}
