// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbbacking: a plain libfuse 3 file system (high-level API) that mirrors a
 * backing directory (backing_ops.c). It knows nothing of fuse-backport: the
 * tests mount it with `fuse-backport run` and mount.fusebp to show that an
 * unmodified libfuse daemon serves a -t fusebp mount through /dev/fd/N.
 *
 * usage: fbbacking BACKING_DIR MOUNTPOINT [libfuse options]
 */
#include "backing_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct stat st;

	if (argc < 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: fbbacking BACKING_DIR MOUNTPOINT [libfuse options]\n");
		return 2;
	}
	/* libfuse moves to / when it goes to the background */
	backing = realpath(argv[1], NULL);
	if (!backing || stat(backing, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "fbbacking: %s is not a directory\n", argv[1]);
		return 1;
	}
	argv[1] = argv[0];
	return fuse_main(argc - 1, argv + 1, &backing_ops, NULL);
}
