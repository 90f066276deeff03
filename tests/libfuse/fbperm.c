// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbperm: fbbacking (backing_ops.c) as a daemon like libfuse's passthrough_hp: it adds
 * "-o default_permissions,fsname=BACKING" to its own arguments before it
 * mounts, and checks no permission itself (the kernel must). It also takes
 * an option with a separate value, as sshfs's "-p PORT" (ignored), and
 * "-o note=TEXT", whose value it writes to BACKING/.fbperm-note (the tests
 * see what reached it).
 *
 * usage: fbperm BACKING_DIR MOUNTPOINT [-p PORT] [-o note=TEXT] [libfuse options]
 */
#define _GNU_SOURCE
#include "backing_ops.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct fbperm_opts {
	char *note;
};

static const struct fuse_opt fbperm_optspec[] = {
	{ "note=%s", offsetof(struct fbperm_opts, note), 0 },
	FUSE_OPT_END
};

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fbperm_opts opts = { NULL };
	struct stat st;
	char *fsname, note[PATH_MAX];
	FILE *f;
	int i;

	if (argc < 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: fbperm BACKING_DIR MOUNTPOINT [-p PORT] [libfuse options]\n");
		return 2;
	}
	backing = realpath(argv[1], NULL);
	if (!backing || stat(backing, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "fbperm: %s is not a directory\n", argv[1]);
		return 1;
	}
	fuse_opt_add_arg(&args, argv[0]);
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			i++;
			continue;
		}
		fuse_opt_add_arg(&args, argv[i]);
	}
	if (fuse_opt_parse(&args, &opts, fbperm_optspec, NULL) < 0)
		return 1;
	if (opts.note) {
		snprintf(note, sizeof(note), "%s/.fbperm-note", backing);
		f = fopen(note, "w");
		if (!f || fprintf(f, "%s\n", opts.note) < 0 || fclose(f))
			return 1;
	}
	/* What passthrough_hp does: the kernel checks permissions. */
	if (asprintf(&fsname, "-odefault_permissions,fsname=%s", backing) < 0)
		return 1;
	fuse_opt_add_arg(&args, fsname);
	return fuse_main(args.argc, args.argv, &backing_ops, NULL);
}
