// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, collect: the FUSE mounts (mountinfo), those made
 * by `run -o fallback` on the kernel's own FUSE marked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

static const char *fuse_family(const char *t)
{
	static const char *const fams[] = { "fuse", FB_PREFIX };
	char *blk;
	unsigned int i;
	size_t n;

	if (!strcmp(t, "virtiofs"))
		return "fuse";
	for (i = 0; i < 2; i++) {
		n = strlen(fams[i]);
		if (strncmp(t, fams[i], n))
			continue;
		if (t[n] == '\0' || t[n] == '.')
			return fams[i];
		blk = fb_fmt("%sblk", fams[i]);
		if (fb_has_prefix(t, blk) && (t[n + 3] == '\0' || t[n + 3] == '.')) {
			free(blk);
			return fams[i];
		}
		free(blk);
	}
	return NULL;
}

/* FUSE mounts from mountinfo; those made by `run -o fallback` marked. */
int survey_mounts(struct fuse_state *st)
{
	struct fb_mount *mi;
	const char *family;
	struct fuse_mount_entry *m;
	size_t n, i;
	char *note;

	mi = fb_mountinfo_read(&n);
	if (!mi) {
		fb_msg("cannot read /proc/self/mountinfo: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		family = fuse_family(mi[i].fstype);
		if (!family)
			continue;
		m = realloc(st->mounts, (st->nmounts + 1) * sizeof(*m));
		if (!m) {
			fb_msg("out of memory");
			exit(2);
		}
		st->mounts = m;
		m = &st->mounts[st->nmounts++];
		m->fstype = fb_strdup(mi[i].fstype);
		m->family = fb_strdup(family);
		m->mountpoint = fb_strdup(mi[i].mountpoint);
		m->source = fb_strdup(mi[i].source);
		/* the supervisor of a fallback mount notes it by device number */
		note = fb_fmt(FB_FALLBACK_DIR "/%s", mi[i].sb_dev);
		m->fallback = !strcmp(family, "fuse") && fb_exists(note);
		free(note);
		m->served_by = !strcmp(family, "fuse") ? takeover_served_by(mi[i].sb_dev) : FB_PREFIX;
	}
	fb_mountinfo_free(mi, n);
	return 0;
}
