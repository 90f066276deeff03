// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbsplice: splice writes to FOPEN_DIRECT_IO opens racing page-cache
 * writeback, direct reads and truncate on one FUSE file (tests/suites/splice.sh).
 *
 * usage: fbsplice FILE BACKING_FILE ROUNDS WRITERS
 *
 * FILE (on a tests/splice/fbmixd mount) and BACKING_FILE (the same file in
 * the daemon's backing directory) exist and are 1 MiB. Every round:
 *  1. a shared mmap of a page-cache open writes the round's pattern over the
 *     whole file and sync_file_range() starts its writeback (the daemon
 *     answers those WRITEs late, so they stay in flight);
 *  2. WRITERS processes open FILE with O_DIRECT (fbmixd: FOPEN_DIRECT_IO |
 *     FOPEN_PARALLEL_DIRECT_WRITES) and splice their own pattern from a pipe
 *     into their own slice of the file (non-extending writes, which a kernel
 *     with parallel direct writes runs under a shared inode lock), next to a
 *     direct reader and a same-size ftruncate;
 *  3. the writeback must have been ordered before the direct writes: the
 *     backing file holds every writer's pattern.
 * Exit 0 when every round checked out; 1 with one line on the first failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define FSIZE (1 << 20)
#define CHUNK 65536

static const char *file, *bfile;

static void die(const char *what)
{
	fprintf(stderr, "fbsplice: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int pat(int round, int w)
{
	return (round * 31 + w * 7 + 1) & 0xff;
}

static void splice_writer(int round, int w, int writers)
{
	static char buf[CHUNK];
	int fd, p[2];
	loff_t off = (loff_t)w * (FSIZE / writers);
	loff_t end = off + FSIZE / writers;
	ssize_t n, left;

	fd = open(file, O_WRONLY | O_DIRECT);
	if (fd < 0)
		die("open O_DIRECT");
	if (pipe(p) < 0)
		die("pipe");
	memset(buf, pat(round, w), sizeof(buf));
	while (off < end) {
		left = end - off < CHUNK ? end - off : CHUNK;
		if (write(p[1], buf, left) != left)
			die("write to pipe");
		while (left > 0) {
			n = splice(p[0], NULL, fd, &off, left, SPLICE_F_MOVE);
			if (n <= 0) {
				if (n == 0)
					errno = EIO;
				die("splice to the file");
			}
			left -= n;
		}
	}
	_exit(0);
}

static void direct_reader(void)
{
	void *buf;
	int fd;

	if (posix_memalign(&buf, 4096, CHUNK))
		die("posix_memalign");
	fd = open(file, O_RDONLY | O_DIRECT);
	if (fd < 0)
		die("open O_DIRECT for reading");
	for (off_t off = 0; off < FSIZE; off += CHUNK)
		if (pread(fd, buf, CHUNK, off) < 0)
			die("direct read");
	_exit(0);
}

static void truncator(void)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0 || ftruncate(fd, FSIZE) < 0)
		die("ftruncate to the same size");
	_exit(0);
}

static int check(int round, int writers)
{
	static unsigned char buf[FSIZE];
	int fd = open(bfile, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die("open the backing file");
	n = pread(fd, buf, FSIZE, 0);
	close(fd);
	if (n != FSIZE) {
		fprintf(stderr, "fbsplice: round %d: backing file has %zd bytes, not %d\n",
			round, n, FSIZE);
		return 1;
	}
	for (int i = 0; i < FSIZE; i++) {
		int w = i / (FSIZE / writers);

		if (buf[i] != pat(round, w)) {
			fprintf(stderr, "fbsplice: round %d: byte %d of the backing file is 0x%02x, writer %d spliced 0x%02x (mmap wrote 0x%02x)\n",
				round, i, buf[i], w, pat(round, w),
				(round * 13 + 0x80) & 0xff);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rounds, writers, fd, st, bad = 0;
	unsigned char *map;
	pid_t pid;

	if (argc != 5 || (rounds = atoi(argv[3])) < 1 ||
	    (writers = atoi(argv[4])) < 1 || writers > 64 ||
	    FSIZE % writers) {
		fprintf(stderr, "usage: fbsplice FILE BACKING_FILE ROUNDS WRITERS (WRITERS divides 1 MiB, <= 64)\n");
		return 2;
	}
	file = argv[1];
	bfile = argv[2];
	fd = open(file, O_RDWR);
	if (fd < 0)
		die("open (page cache)");
	map = mmap(NULL, FSIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap MAP_SHARED");
	for (int r = 0; r < rounds; r++) {
		memset(map, (r * 13 + 0x80) & 0xff, FSIZE);
		if (sync_file_range(fd, 0, FSIZE, SYNC_FILE_RANGE_WRITE) < 0)
			die("sync_file_range");
		for (int w = 0; w < writers + 2; w++) {
			pid = fork();
			if (pid < 0)
				die("fork");
			if (pid == 0) {
				if (w < writers)
					splice_writer(r, w, writers);
				else if (w == writers)
					direct_reader();
				else
					truncator();
			}
		}
		while ((pid = wait(&st)) > 0)
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				bad = 1;
		if (bad) {
			fprintf(stderr, "fbsplice: round %d: a writer, reader or truncate failed (status 0x%x)\n",
				r, st);
			return 1;
		}
		if (check(r, writers))
			return 1;
	}
	printf("fbsplice: %d rounds of %d splice writers: every spliced byte in the backing file\n",
	       rounds, writers);
	return 0;
}
