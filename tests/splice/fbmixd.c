// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbmixd: a libfuse 3 daemon (high-level API) mirroring a backing directory
 * the way libfuse's passthrough_ll/passthrough_hp examples open files: an
 * open with O_DIRECT gets FOPEN_DIRECT_IO | FOPEN_PARALLEL_DIRECT_WRITES,
 * every other open is a page-cache open. So one inode has direct-I/O opens
 * (parallel writers under a shared inode lock) next to cached opens whose
 * shared mmap produces page-cache writeback: the mix of xfstests' generic/095
 * (fio splice, mmap, direct I/O on one file). WRITE requests of page-cache
 * writeback are answered after --wb-delay-ms, which keeps writeback in flight
 * long enough for direct writers to meet it.
 *
 * Debian 12's libfuse 3.14 has no fuse_file_info.parallel_direct_writes
 * (3.15+), so the flag is added to the OPEN reply on its way to the kernel:
 * writev() is defined here, which the library's call resolves to, and sets
 * FOPEN_PARALLEL_DIRECT_WRITES in an OPEN/CREATE reply carrying a file handle
 * that open()/create() marked. Everything else passes through unchanged.
 *
 * The rest of the file system is tests/libfuse/backing_ops.c.
 *
 * usage: fbmixd [--wb-delay-ms N] BACKING_DIR MOUNTPOINT [libfuse options]
 */
#define _GNU_SOURCE
#include "backing_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAXFD 65536
static unsigned char direct_fh[MAXFD];	/* fh (backing fd) of an O_DIRECT open */
static unsigned int wb_delay_us = 100000;

static void mark_direct(struct fuse_file_info *fi)
{
	if (!(fi->flags & O_DIRECT))
		return;
	fi->direct_io = 1;
	fi->keep_cache = 1;
	if (fi->fh < MAXFD)
		__atomic_store_n(&direct_fh[fi->fh], 1, __ATOMIC_SEQ_CST);
}

/* libfuse sends every reply with writev(fd, {out header, argument}, n). */
ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	if (cnt >= 2 && iov[0].iov_len == sizeof(struct fuse_out_header) &&
	    iov[1].iov_len == sizeof(struct fuse_open_out) &&
	    ((struct fuse_out_header *)iov[0].iov_base)->error == 0) {
		struct fuse_open_out *oo = iov[1].iov_base;

		if ((oo->open_flags & FOPEN_DIRECT_IO) && oo->fh < MAXFD &&
		    __atomic_exchange_n(&direct_fh[oo->fh], 0, __ATOMIC_SEQ_CST))
			oo->open_flags |= FOPEN_PARALLEL_DIRECT_WRITES;
	}
	return syscall(SYS_writev, fd, iov, cnt);
}

static int fb_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int fd;
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	fd = open(p, (fi->flags & ~O_DIRECT) | O_CREAT, mode);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	mark_direct(fi);
	return 0;
}

static int fb_open(const char *path, struct fuse_file_info *fi)
{
	int fd;
	char p[PATH_MAX];

	if (backing_path(p, path))
		return -ENAMETOOLONG;
	fd = open(p, fi->flags & ~O_DIRECT);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	mark_direct(fi);
	return 0;
}

static int fb_write(const char *path, const char *buf, size_t size,
		    off_t off, struct fuse_file_info *fi)
{
	/* page-cache writeback: keep it in flight a while */
	if (fi->writepage && wb_delay_us)
		usleep(wb_delay_us);
	return backing_write(path, buf, size, off, fi);
}

static int fb_release(const char *path, struct fuse_file_info *fi)
{
	if (fi->fh < MAXFD)
		__atomic_store_n(&direct_fh[fi->fh], 0, __ATOMIC_SEQ_CST);
	return backing_release(path, fi);
}

int main(int argc, char **argv)
{
	struct stat st;
	struct fuse_operations ops = backing_ops;
	char *end;
	long ms;

	if (argc >= 3 && !strcmp(argv[1], "--wb-delay-ms")) {
		ms = strtol(argv[2], &end, 10);
		if (*argv[2] == '\0' || *end || ms < 0 || ms > 10000) {
			fprintf(stderr, "fbmixd: --wb-delay-ms takes 0..10000, not '%s'\n", argv[2]);
			return 2;
		}
		wb_delay_us = ms * 1000;
		argv[2] = argv[0];
		argc -= 2;
		argv += 2;
	}
	if (argc < 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: fbmixd [--wb-delay-ms N] BACKING_DIR MOUNTPOINT [libfuse options]\n");
		return 2;
	}
	/* libfuse moves to / when it goes to the background */
	backing = realpath(argv[1], NULL);
	if (!backing || stat(backing, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "fbmixd: %s is not a directory\n", argv[1]);
		return 1;
	}
	ops.create = fb_create;
	ops.open = fb_open;
	ops.write = fb_write;
	ops.release = fb_release;
	argv[1] = argv[0];
	return fuse_main(argc - 1, argv + 1, &ops, NULL);
}
