// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport run [-o OPTS] [-t TYPE] [-m MOUNTPOINT] -- DAEMON [ARG...]:
 * the front end that finds the mountpoint among an unmodified daemon's
 * arguments, then mounts and runs it (mount.c).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fb.h"
#include "mount.h"

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: fuse-backport run [-v] [-o OPTS] [-t " FB_PREFIX "[.SUBTYPE]] [-m MOUNTPOINT] -- DAEMON [ARG...]\n"
		"\n"
		"Open /dev/" FB_PREFIX ", mount -t " FB_PREFIX " on MOUNTPOINT with fd=N, rootmode,\n"
		"user_id and group_id (the caller's), then run the unmodified libfuse 3\n"
		"daemon with MOUNTPOINT replaced by /dev/fd/N. MOUNTPOINT is -m's, else\n"
		"the daemon's last argument that is not an option (nor the value of -o)\n"
		"if it exists, else the last one that does not follow an option libfuse\n"
		"does not know (which may take it as its value: sshfs's -p 2222).\n"
		"\n"
		"Mount options, from -o here or from the daemon's own -o: ro, rw, nosuid,\n"
		"suid, nodev, dev, noexec, exec, sync, async, dirsync, (no)atime,\n"
		"(no)diratime, (no)relatime, (no)strictatime, (no)lazytime, nosymfollow,\n"
		"allow_other, default_permissions, max_read=N, user_id=N, group_id=N,\n"
		"fsname=NAME (default: the daemon's source, the argument before the\n"
		"mountpoint, else its name), subtype=NAME (default: the daemon's name;\n"
		"letters, digits, _-+.), *context=; here only: blkdev with blksize=N (a\n"
		FB_PREFIX "blk mount; fsname= names the block device), setuid=USER (run the\n"
		"daemon as USER; user_id/group_id default to USER's), no_default_permissions,\n"
		"fallback (the kernel's own FUSE when " FB_PREFIX " cannot be loaded: one warning,\n"
		"status reports it degraded). Other options given here go to the daemon as\n"
		"-o. A comma inside a value for the kernel is refused.\n"
		"Defaults: nosuid,nodev,default_permissions: a daemon given /dev/fd/N\n"
		"mounts nothing, so what it would add itself is lost; the kernel checks\n"
		"permissions unless -o no_default_permissions says the daemon does.\n"
		"\n"
		"When the daemon fails, exits or dies, and no other process holds the\n"
		"device, the connection is aborted and the mount removed (MNT_DETACH if\n"
		"busy), always, as auto_unmount would. A daemon that puts itself in the\n"
		"background (libfuse without -f) makes run return 0 once it has; a\n"
		"supervisor stays (own session, in /; SIGTERM to it unmounts). With -f,\n"
		"run returns when the daemon exits.\n"
		"\n"
		"Exit status: the daemon's; 125 when run itself fails (module not loaded,\n"
		"bad mountpoint, permission), 126/127 when DAEMON cannot be run/found.\n");
}

/* libfuse's own options that take no value (fuse_parse_cmdline). */
static bool libfuse_flag(const char *a)
{
	static const char *const flags[] = {
		"-h", "--help", "-V", "--version", "-d", "-f", "-s",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++)
		if (!strcmp(a, flags[i]))
			return true;
	return fb_has_prefix(a, "--") || fb_has_prefix(a, "-o");
}

/*
 * The mountpoint among the daemon's arguments, parsed as libfuse's
 * fuse_parse_cmdline does where that can be known: "-o" takes the next
 * argument, -d -f -s -h -V none; any other option may take the next one as
 * its value (sshfs's "-p 2222"). The mountpoint is the last argument that
 * is not an option if it exists; else the last that is neither an option
 * nor right after an unknown one; "run -m MOUNTPOINT" names it. The
 * daemon's -o lists are parsed for what concerns the mount. *source gets
 * the argument before the mountpoint that is not an option (the daemon's
 * source, the fsname it would give), if any. The index; -1 when none is
 * found, -2 after a message.
 */
static int find_mountpoint(char **argv, int argc, const char *named,
			   struct mount_options *opts, int *source)
{
	int i, last = -1, plain = -1, mp = -1, bad = 0;
	bool after_unknown = false;
	struct stat sb;

	*source = -1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			bad |= parse_opts(opts, argv[++i], true);
			after_unknown = false;
			continue;
		}
		if (fb_has_prefix(argv[i], "-o")) {
			bad |= parse_opts(opts, argv[i] + 2, true);
			after_unknown = false;
			continue;
		}
		if (argv[i][0] == '-') {
			after_unknown = !libfuse_flag(argv[i]);
			continue;
		}
		if (named && !strcmp(argv[i], named) && mp < 0)
			mp = i;
		last = i;
		if (!after_unknown)
			plain = i;
		after_unknown = false;
	}
	if (bad)
		return -2;
	if (!named) {
		if (last > 0 && stat(argv[last], &sb) == 0 &&
		    (S_ISDIR(sb.st_mode) || S_ISREG(sb.st_mode)))
			mp = last;
		else
			mp = plain > 0 ? plain : last;
	}
	for (i = 1; i < mp; i++) {
		if (!strcmp(argv[i], "-o")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-')
			*source = i;
	}
	return mp;
}

int fb_cmd_run(int argc, char **argv)
{
	const char *named = NULL;
	struct mount_job j;
	char *sub = NULL;
	int i, source;

	memset(&j, 0, sizeof(j));
	opts_init(&j.opts);
	j.run = true;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			run_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-v")) {
			j.opts.verbose = true;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			if (parse_opts(&j.opts, argv[++i], false) < 0)
				return RUN_FAILED;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			if (parse_type(&j, argv[++i], &sub) < 0)
				return RUN_FAILED;
		} else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
			named = argv[++i];
		} else if (argv[i][0] == '-') {
			fb_msg("run: unknown option '%s'", argv[i]);
			run_usage(stderr);
			return RUN_FAILED;
		} else {
			break;
		}
	}
	if (i >= argc) {
		run_usage(stderr);
		return RUN_FAILED;
	}
	j.argv = &argv[i];
	j.mp_index = find_mountpoint(j.argv, argc - i, named, &j.opts, &source);
	if (j.mp_index == -2)
		return RUN_FAILED;
	if (j.mp_index < 0) {
		if (named)
			fb_msg("run: %s is not among the arguments of %s", named, j.argv[0]);
		else
			fb_msg("run: no mountpoint among the arguments of %s", j.argv[0]);
		return RUN_FAILED;
	}
	j.mountpoint = j.argv[j.mp_index];
	if (!j.opts.subtype)
		j.opts.subtype = sub ? sub : fb_strdup(base_name(j.argv[0]));
	if (!valid_subtype(j.opts.subtype)) {
		fb_msg("run: '%s' cannot be a subtype (letters, digits and _-+. only): give -t %s.NAME",
		       j.opts.subtype, FB_PREFIX);
		return RUN_FAILED;
	}
	/* fsname: what the daemon would have given, its source argument */
	if (j.opts.fsname)
		j.source = j.opts.fsname;
	else if (source > 0)
		j.source = j.argv[source];
	else
		j.source = fb_strdup(base_name(j.argv[0]));
	if (j.opts.daemon) {
		fb_msg("run: -o %s: not a mount option; give the daemon its own options",
		       j.opts.daemon);
		return RUN_FAILED;
	}
	return mount_and_run(&j);
}
