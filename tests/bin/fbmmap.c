// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbmmap: shared mmap write and read of a file, for the smoke suite.
 *
 *   fbmmap write FILE SIZE SEED   fill the first SIZE bytes through a shared
 *                                 mapping (the file is extended), msync
 *   fbmmap check FILE SIZE SEED   read them through a mapping and compare
 *
 * The pattern is a function of the offset and SEED, so that another file
 * (the backing file) can be checked with the same arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned char pattern(size_t off, unsigned long seed)
{
	unsigned long x = (off / 8 + 1) * 2654435761UL ^ seed;

	return (unsigned char)(x >> ((off % 8) * 8 % 32));
}

int main(int argc, char **argv)
{
	unsigned char *p;
	unsigned long seed;
	size_t size, i;
	int write_mode, fd;

	if (argc != 5 || (strcmp(argv[1], "write") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: fbmmap write|check FILE SIZE SEED\n");
		return 2;
	}
	write_mode = !strcmp(argv[1], "write");
	size = strtoul(argv[3], NULL, 0);
	seed = strtoul(argv[4], NULL, 0);
	if (!size) {
		fprintf(stderr, "fbmmap: SIZE must be > 0\n");
		return 2;
	}
	fd = open(argv[2], write_mode ? O_RDWR | O_CREAT : O_RDONLY, 0644);
	if (fd < 0 || (write_mode && ftruncate(fd, size))) {
		fprintf(stderr, "fbmmap: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	p = mmap(NULL, size, write_mode ? PROT_READ | PROT_WRITE : PROT_READ,
		 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "fbmmap: mmap %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	for (i = 0; i < size; i++) {
		if (write_mode) {
			p[i] = pattern(i, seed);
		} else if (p[i] != pattern(i, seed)) {
			fprintf(stderr, "fbmmap: %s: byte %zu is %#x, want %#x\n",
				argv[2], i, p[i], pattern(i, seed));
			return 1;
		}
	}
	if (write_mode && msync(p, size, MS_SYNC)) {
		fprintf(stderr, "fbmmap: msync %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	munmap(p, size);
	close(fd);
	return 0;
}
