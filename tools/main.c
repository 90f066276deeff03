// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: command dispatch. Called as mount.fusebp (or
 * mount.fusebp.TYPE), it is the mount helper.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fb.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fuse-backport status [--json] [--no-probe]\n"
		"       fuse-backport run [-v] [-o OPTS] [-t " FB_PREFIX "[.SUBTYPE]] -- DAEMON [ARG...] MOUNTPOINT\n"
		"       fuse-backport mount TYPE#[SOURCE] MOUNTPOINT [-o OPTS]   (= mount." FB_PREFIX ")\n"
		"       fuse-backport takeover [on|off|boot]\n"
		"       fuse-backport --version\n"
		"\n"
		"'fuse-backport COMMAND --help' tells more.\n");
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	char *pfx = "mount." FB_PREFIX;
	int fd;

	/*
	 * Descriptors 0-2 open (on /dev/null), as fusermount3 makes sure:
	 * else the device we open lands there and the daemon's daemonize
	 * dup2()s /dev/null over it.
	 */
	do {
		fd = open("/dev/null", O_RDWR);
		if (fd > 2)
			close(fd);
	} while (fd >= 0 && fd <= 2);
	base = base ? base + 1 : argv[0];
	if (!strncmp(base, pfx, strlen(pfx)) &&
	    (base[strlen(pfx)] == '\0' || base[strlen(pfx)] == '.')) {
		fb_prog = base;
		return fb_cmd_mount(argc, argv, argv[0]);
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "status"))
		return fb_cmd_status(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return fb_cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "takeover"))
		return fb_cmd_takeover(argc - 1, argv + 1);
	if (!strcmp(argv[1], "mount")) {
		fb_prog = "mount." FB_PREFIX;
		return fb_cmd_mount(argc - 1, argv + 1, fb_prog);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("fuse-backport %s (modules %s, renamed flavor prefix %s)\n",
		       FB_TOOL_VERSION, FB_MODULE_VERSIONS, FB_PREFIX);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	fb_msg("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
