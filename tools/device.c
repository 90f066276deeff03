// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport run / mount.fusebp: which FUSE device serves the mount,
 * ours or (-o fallback) the kernel's own, noted where status finds it;
 * and what tells why the device cannot be opened.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fb.h"
#include "mount.h"

/* The type of the topmost mount on PATH, or NULL. */
char *mounted_on(const char *path)
{
	struct fb_mount *mi;
	char *found = NULL;
	size_t n, i;

	mi = fb_mountinfo_read(&n);
	for (i = 0; mi && i < n; i++)
		if (!strcmp(mi[i].mountpoint, path)) {
			free(found);
			found = fb_strdup(mi[i].fstype);
		}
	fb_mountinfo_free(mi, n);
	return found;
}

char *proc_misc_minor(const char *name)
{
	char *s = fb_read_file("/proc/misc", NULL), *line, *save = NULL;
	char n[64], *res = NULL;
	int minor;

	if (!s)
		return NULL;
	for (line = strtok_r(s, "\n", &save); line && !res;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %63s", &minor, n) == 2 && !strcmp(n, name))
			res = fb_fmt("%d", minor);
	free(s);
	return res;
}

/*
 * Is our type there? Else, with -o fallback, load it or fall back to the
 * kernel's own FUSE (one warning). 0 with j->device etc. set; -1 after a
 * message.
 */
int choose_fuse(struct mount_job *j, const char **type)
{
	char *argv[] = { "/sbin/modprobe", "-q", FB_PREFIX, NULL };
	int st;

	j->device = "/dev/" FB_PREFIX;
	j->ctl_dir = "/sys/fs/" FB_PREFIX "/connections";
	j->ctl_type = FB_PREFIX "ctl";
	*type = j->opts.blkdev ? FB_PREFIX "blk" : FB_PREFIX;
	if (fb_fs_registered(FB_PREFIX))
		return 0;
	if (!j->opts.fallback) {
		fb_msg("the %s module is not loaded (no file system type %s, no %s): run 'modprobe %s' (as root) first, or mount with -o fallback",
		       FB_PREFIX, FB_PREFIX, j->device, FB_PREFIX);
		return -1;
	}
	/* modprobe by its path: a caller's PATH does not choose it */
	if (geteuid() == 0 && fb_exists(argv[0])) {
		free(fb_capture(argv, &st));
		if (fb_fs_registered(FB_PREFIX))
			return 0;
	}
	if (!fb_fs_registered("fuse")) {
		fb_msg("neither %s nor the kernel's own FUSE is available: cannot fall back",
		       FB_PREFIX);
		return -1;
	}
	j->device = "/dev/fuse";
	j->ctl_dir = "/sys/fs/fuse/connections";
	j->ctl_type = "fusectl";
	*type = j->opts.blkdev ? "fuseblk" : "fuse";
	fb_msg("warning: %s cannot be loaded: -o fallback: mounting %s on the kernel's own FUSE (-t %s%s%s)",
	       FB_PREFIX, j->mountpoint, *type, j->opts.subtype ? "." : "",
	       j->opts.subtype ? j->opts.subtype : "");
	syslog(LOG_DAEMON | LOG_WARNING,
	       "fuse-backport: %s cannot be loaded: -o fallback: %s mounted on the kernel's own FUSE",
	       FB_PREFIX, j->mountpoint);
	return 0;
}

/* A fallback mount: noted where status finds it. */
void note_fallback(struct mount_job *j, const char *type)
{
	char *tmp;
	FILE *f;

	mkdir("/run/fuse-backport", 0755);
	mkdir(FB_FALLBACK_DIR, 0755);
	j->fallback_note = fb_fmt(FB_FALLBACK_DIR "/%s", j->sb_dev);
	tmp = fb_fmt("%s.tmp", j->fallback_note);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s %s %s\n", j->mp, type, j->argv[0]) < 0 ||
	    fclose(f) != 0 || rename(tmp, j->fallback_note) < 0) {
		fb_msg("cannot note the fallback mount in %s: %s", FB_FALLBACK_DIR,
		       strerror(errno));
		unlink(tmp);
		free(j->fallback_note);
		j->fallback_note = NULL;
	}
	free(tmp);
}
