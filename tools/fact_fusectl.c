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

/*
 * The parameter: 1 active, 0 not, 2 partly (it names each name's side),
 * -1 no parameter (module not loaded).
 */
int takeover_active(void)
{
	char *v = fb_read_line(FB_TAKEOVER_PARAM);
	int ret = !v ? -1 : !strcmp(v, "1") ? 1 : !strcmp(v, "0") ? 0 : 2;

	free(v);
	return ret;
}

/*
 * Who serves fuse, fuseblk and /dev/fuse, in the words the parameter reads
 * while a swap is partly done: "fuse=SIDE fuseblk=SIDE /dev/fuse=SIDE",
 * SIDE built-in, FB_PREFIX or none.
 */
char *takeover_sides(void)
{
	char *v = fb_read_line(FB_TAKEOVER_PARAM);
	const char *side;

	if (!v || (strcmp(v, "0") && strcmp(v, "1")))
		return v;
	side = strcmp(v, "1") ? "built-in" : FB_PREFIX;
	free(v);
	return fb_fmt("fuse=%s fuseblk=%s /dev/fuse=%s", side, side, side);
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
