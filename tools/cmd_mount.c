// SPDX-License-Identifier: GPL-2.0-only
/*
 * mount.fusebp SOURCE MOUNTPOINT [-o OPTS] [-t TYPE] [-fnsv]: the front end
 * mount(8) calls for -t fusebp (fstab); it mounts and runs the daemon as
 * `run` does (mount.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fb.h"
#include "mount.h"

static void mount_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s TYPE#[SOURCE] MOUNTPOINT [-o OPTS]\n"
		"       %s SOURCE MOUNTPOINT -t " FB_PREFIX ".TYPE [-o OPTS]\n"
		"       mount.%s.TYPE SOURCE MOUNTPOINT [-o OPTS]\n"
		"\n"
		"The mount helper of -t %s, called by mount(8) (fstab: 'user@host: /mnt\n"
		FB_PREFIX ".sshfs defaults 0 0', or 'sshfs#user@host: /mnt " FB_PREFIX " ...').\n"
		"Mounts as 'fuse-backport run' does, then runs: TYPE [SOURCE] /dev/fd/N\n"
		"[-o OPTS the kernel does not take]. mount(8)'s own options (defaults,\n"
		"noauto, nofail, _netdev, user, users, x-*, comment=) are dropped.\n"
		"The daemon must put itself in the background (no -f). fsname defaults to\n"
		"SOURCE (else TYPE), subtype to TYPE's name. Options: see\n"
		"'fuse-backport run --help'. -f: check only, -v: verbose, -n, -s: ignored.\n"
		"\n"
		"Exit status: 0, 1 (bad usage or permission), 32 (mount failed, or the\n"
		"daemon failed: then nothing stays mounted).\n",
		prog, prog, FB_PREFIX, FB_PREFIX);
}

int fb_cmd_mount(int argc, char **argv, const char *progname)
{
	char *type = NULL, *sub = NULL, *hash, *pos[2] = { NULL, NULL };
	const char *pname = base_name(progname);
	bool fake = false;
	struct mount_job j;
	int i, npos = 0, na = 0;
	char *s;

	memset(&j, 0, sizeof(j));
	opts_init(&j.opts);
	/* mount(8) runs helpers without PATH: look where a shell would */
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 0);
	for (i = 1; i < argc; i++) {
		s = argv[i];
		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			mount_usage(stdout, pname);
			return 0;
		} else if (!strcmp(s, "-o") || !strcmp(s, "-t") || !strcmp(s, "-N")) {
			if (i + 1 >= argc) {
				fb_msg("%s needs a value", s);
				return MOUNT_USAGE;
			}
			if (s[1] == 'N') {
				fb_msg("-N (another mount namespace) is not supported");
				return MOUNT_USAGE;
			}
			if (s[1] == 'o' && parse_opts(&j.opts, argv[++i], false) < 0)
				return MOUNT_USAGE;
			if (s[1] == 't')
				type = argv[++i];
		} else if (fb_has_prefix(s, "-o")) {
			if (parse_opts(&j.opts, s + 2, false) < 0)
				return MOUNT_USAGE;
		} else if (s[0] == '-' && s[1] && strspn(s + 1, "fnsv") == strlen(s + 1)) {
			fake |= strchr(s, 'f') != NULL;
			j.opts.verbose |= strchr(s, 'v') != NULL;
		} else if (s[0] == '-') {
			fb_msg("unknown option '%s'", s);
			return MOUNT_USAGE;
		} else if (npos < 2) {
			pos[npos++] = s;
		} else {
			fb_msg("unexpected argument '%s'", s);
			return MOUNT_USAGE;
		}
	}
	if (npos < 2) {
		mount_usage(stderr, pname);
		return MOUNT_USAGE;
	}
	/* The daemon: mount.fusebp.TYPE, -t fusebp.TYPE, or TYPE#SOURCE. */
	s = fb_fmt("mount.%s.", FB_PREFIX);
	if (fb_has_prefix(pname, s) && pname[strlen(s)])
		sub = fb_strdup(pname + strlen(s));
	free(s);
	if (type) {
		s = NULL;
		if (parse_type(&j, type, &s) < 0)
			return MOUNT_USAGE;
		if (!sub)
			sub = s;
	}
	j.source = pos[0];
	if (!sub) {
		hash = strchr(pos[0], '#');
		if (!hash || hash == pos[0]) {
			fb_msg("which daemon? Give TYPE#SOURCE, -t %s.TYPE or call mount.%s.TYPE",
			       FB_PREFIX, FB_PREFIX);
			return MOUNT_USAGE;
		}
		sub = fb_fmt("%.*s", (int)(hash - pos[0]), pos[0]);
		j.source = hash + 1;
	}
	j.argv = fb_alloc(6 * sizeof(char *));
	j.argv[na++] = sub;
	if (*j.source)
		j.argv[na++] = j.source;
	j.mp_index = na;
	j.argv[na++] = pos[1];
	if (j.opts.daemon) {
		j.argv[na++] = "-o";
		j.argv[na++] = j.opts.daemon;
	}
	j.mountpoint = pos[1];
	if (!j.opts.subtype)
		j.opts.subtype = fb_strdup(base_name(sub));
	if (!valid_subtype(j.opts.subtype)) {
		fb_msg("'%s' cannot be a subtype (letters, digits and _-+. only)",
		       j.opts.subtype);
		return MOUNT_USAGE;
	}
	if (j.opts.fsname)
		j.source = j.opts.fsname;
	else if (!*j.source)
		j.source = sub;
	if (fake) {
		if (j.opts.verbose)
			fb_msg("would mount %s on %s and run %s", j.source, pos[1], sub);
		return 0;
	}
	return mount_and_run(&j);
}
