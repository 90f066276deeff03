// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport run / mount.fusebp: the mount options (-o lists, ours,
 * mount(8)'s and the daemon's own, split as libfuse splits them) and the
 * file system types (-t fusebp[blk][.SUBTYPE]).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "fb.h"
#include "mount.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef MS_LAZYTIME
#define MS_LAZYTIME (1 << 25)
#endif

static const struct {
	const char *name;
	unsigned long flag;
	bool set;
} vfs_flags[] = {
	{ "ro", MS_RDONLY, true },		{ "rw", MS_RDONLY, false },
	{ "nosuid", MS_NOSUID, true },		{ "suid", MS_NOSUID, false },
	{ "nodev", MS_NODEV, true },		{ "dev", MS_NODEV, false },
	{ "noexec", MS_NOEXEC, true },		{ "exec", MS_NOEXEC, false },
	{ "sync", MS_SYNCHRONOUS, true },	{ "async", MS_SYNCHRONOUS, false },
	{ "dirsync", MS_DIRSYNC, true },
	{ "noatime", MS_NOATIME, true },	{ "atime", MS_NOATIME, false },
	{ "nodiratime", MS_NODIRATIME, true },	{ "diratime", MS_NODIRATIME, false },
	{ "relatime", MS_RELATIME, true },	{ "norelatime", MS_RELATIME, false },
	{ "strictatime", MS_STRICTATIME, true },
	{ "nostrictatime", MS_STRICTATIME, false },
	{ "lazytime", MS_LAZYTIME, true },	{ "nolazytime", MS_LAZYTIME, false },
	{ "nosymfollow", MS_NOSYMFOLLOW, true },
};

/* Options the kernel's FUSE parses, passed on as they are. */
static const char *const kernel_opts[] = {
	"allow_other", "default_permissions", "max_read=", "blksize=",
	"user_id=", "group_id=", "context=", "fscontext=", "defcontext=",
	"rootcontext=",
};

/* Options for mount(8) and fstab only: dropped. */
static const char *const ignored_opts[] = {
	"defaults", "auto", "noauto", "user", "nouser", "users", "owner",
	"group", "nofail", "_netdev", "auto_unmount", "x-", "comment=",
};

static bool opt_matches(const char *opt, const char *pat)
{
	size_t n = strlen(pat);

	if (pat[n - 1] == '=' || pat[n - 1] == '-')
		return strncmp(opt, pat, n) == 0;
	return strcmp(opt, pat) == 0;
}

void append(char **list, const char *opt)
{
	char *n = *list ? fb_fmt("%s,%s", *list, opt) : fb_strdup(opt);

	free(*list);
	*list = n;
}

/* For the daemon's -o, which libfuse splits at commas: \, and \\ */
static void append_escaped(char **list, const char *opt)
{
	char *e = fb_alloc(2 * strlen(opt) + 1), *o = e;

	for (; *opt; opt++) {
		if (*opt == ',' || *opt == '\\')
			*o++ = '\\';
		*o++ = *opt;
	}
	*o = '\0';
	append(list, e);
	free(e);
}

/*
 * A subtype: what the kernel shows as fusebp.SUBTYPE. Letters, digits and
 * "_-+." only: no separator of the kernel's option string nor of
 * mountinfo can come from a daemon's name or a TYPE#.
 */
bool valid_subtype(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_-+.", *s)))
			return false;
	return true;
}

/*
 * One option, unescaped. FROM_DAEMON: it comes from the daemon's own
 * arguments, which keep it; only what concerns the mount is taken from it.
 * 0, or -1 with a message.
 */
static int parse_opt(struct mount_options *opts, const char *opt, bool from_daemon)
{
	unsigned int i;

	if (!*opt)
		return 0;
	for (i = 0; i < ARRAY_SIZE(vfs_flags); i++) {
		if (strcmp(opt, vfs_flags[i].name))
			continue;
		if (vfs_flags[i].set)
			opts->flags |= vfs_flags[i].flag;
		else
			opts->flags &= ~vfs_flags[i].flag;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(kernel_opts); i++) {
		if (!opt_matches(opt, kernel_opts[i]))
			continue;
		/* the kernel splits its option string at commas */
		if (strchr(opt, ',')) {
			fb_msg("option '%s': a comma inside a value for the kernel is refused", opt);
			return -1;
		}
		if (fb_has_prefix(opt, "user_id="))
			opts->uid_set = true;
		if (fb_has_prefix(opt, "group_id="))
			opts->gid_set = true;
		if (fb_has_prefix(opt, "blksize="))
			opts->blksize = true;
		if (!strcmp(opt, "default_permissions"))
			opts->default_permissions = true;
		append(&opts->kernel, opt);
		return 0;
	}
	if (fb_has_prefix(opt, "fsname=")) {
		free(opts->fsname);
		opts->fsname = fb_strdup(opt + 7);
		return 0;
	}
	if (fb_has_prefix(opt, "subtype=")) {
		if (!valid_subtype(opt + 8)) {
			fb_msg("option '%s': a subtype is letters, digits and _-+. only", opt);
			return -1;
		}
		free(opts->subtype);
		opts->subtype = fb_strdup(opt + 8);
		return 0;
	}
	if (from_daemon)
		return 0;
	if (!strcmp(opt, "no_default_permissions")) {
		opts->no_default_permissions = true;
		return 0;
	}
	if (!strcmp(opt, "fallback")) {
		opts->fallback = true;
		return 0;
	}
	if (!strcmp(opt, "blkdev")) {
		opts->blkdev = true;
		return 0;
	}
	if (fb_has_prefix(opt, "setuid=")) {
		free(opts->setuid_user);
		opts->setuid_user = fb_strdup(opt + 7);
		return 0;
	}
	if (fb_has_prefix(opt, "fd=") || fb_has_prefix(opt, "rootmode=")) {
		fb_msg("option '%s' is set by this helper, not by hand", opt);
		return -1;
	}
	if (!strcmp(opt, "drop_privileges")) {
		fb_msg("option drop_privileges is not supported: the daemon gets a mounted descriptor anyway; use setuid=USER to run it unprivileged");
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(ignored_opts); i++)
		if (opt_matches(opt, ignored_opts[i]))
			return 0;
	/* The rest is the daemon's business (libfuse or its own options). */
	append_escaped(&opts->daemon, opt);
	return 0;
}

/*
 * A comma separated list, split as libfuse splits it: a backslash makes
 * the next character literal ("\\," is a comma inside an option).
 */
int parse_opts(struct mount_options *opts, const char *list, bool from_daemon)
{
	char *buf = fb_alloc(strlen(list) + 1), *o = buf;
	const char *s;
	int ret = 0;

	for (s = list;; s++) {
		if (*s == '\\' && s[1]) {
			*o++ = *++s;
			continue;
		}
		if (*s && *s != ',') {
			*o++ = *s;
			continue;
		}
		*o = '\0';
		if (parse_opt(opts, buf, from_daemon) < 0)
			ret = -1;
		o = buf;
		if (!*s)
			break;
	}
	free(buf);
	return ret;
}

void opts_init(struct mount_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	/* As libfuse's mounts: nosuid and nodev unless asked otherwise. */
	opts->flags = MS_NOSUID | MS_NODEV;
}

const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* -t fusebp, fusebp.SUB, fusebpblk, fusebpblk.SUB: sets subtype/blkdev. */
int parse_type(struct mount_job *j, const char *type, char **sub)
{
	size_t n = strlen(FB_PREFIX);
	const char *t = type;

	*sub = NULL;
	if (strncmp(t, FB_PREFIX, n))
		goto bad;
	t += n;
	if (fb_has_prefix(t, "blk")) {
		j->opts.blkdev = true;
		t += 3;
	}
	if (*t == '.' && valid_subtype(t + 1))
		*sub = fb_strdup(t + 1);
	else if (*t)
		goto bad;
	return 0;
bad:
	fb_msg("type '%s' is not %s[blk][.SUBTYPE] (a subtype is letters, digits and _-+. only)",
	       type, FB_PREFIX);
	return -1;
}
