// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbblocks - check a file's bytes against a model, range by range, for the
 * data suites (tests/suites/integrity.sh).
 *
 * usage: fbblocks FILE SIZE RANGE...
 *   SIZE   the size FILE must have
 *   RANGE  START:END:KIND, bytes [START, END) of FILE, KIND one of
 *            file=PATH  equal to PATH's bytes at the same offsets (a model
 *                       written without the FUSE mount)
 *            zero       all zero
 *            zero|0xNN  every 4 KiB block all zero or all the byte NN
 *
 * Prints one line per range and, for a mismatch, the first bad offset.
 * Exit status 0 when everything matches, 1 on a mismatch, 2 on bad usage or
 * an I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLK 4096

static int read_at(int fd, unsigned char *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char buf[BLK], mbuf[BLK];
	struct stat st;
	int fd, bad = 0, i;

	if (argc < 3) {
		fprintf(stderr, "usage: fbblocks FILE SIZE START:END:KIND...\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "fbblocks: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (st.st_size != atoll(argv[2])) {
		printf("size %lld, want %s\n", (long long)st.st_size, argv[2]);
		bad = 1;
	}
	for (i = 3; i < argc; i++) {
		long long start, end, off;
		char kind[512] = "";
		int mfd = -1, pat = -1;

		if (sscanf(argv[i], "%lld:%lld:%511s", &start, &end, kind) != 3 ||
		    start < 0 || end < start) {
			fprintf(stderr, "fbblocks: bad range '%s'\n", argv[i]);
			return 2;
		}
		if (!strncmp(kind, "file=", 5)) {
			mfd = open(kind + 5, O_RDONLY);
			if (mfd < 0) {
				fprintf(stderr, "fbblocks: %s: %s\n", kind + 5,
					strerror(errno));
				return 2;
			}
		} else if (!strncmp(kind, "zero|0x", 7)) {
			pat = (int)strtol(kind + 7, NULL, 16);
		} else if (strcmp(kind, "zero")) {
			fprintf(stderr, "fbblocks: bad kind '%s'\n", kind);
			return 2;
		}
		for (off = start; off < end; off += BLK) {
			size_t len = end - off < BLK ? end - off : BLK;
			const char *why = NULL;
			size_t j;

			if (read_at(fd, buf, len, off) < 0) {
				printf("%s: cannot read at %lld\n", argv[i], off);
				bad = 1;
				break;
			}
			if (mfd >= 0) {
				if (read_at(mfd, mbuf, len, off) < 0) {
					fprintf(stderr, "fbblocks: model short at %lld\n", off);
					return 2;
				}
				if (memcmp(buf, mbuf, len))
					why = "differs from the model";
			} else {
				for (j = 0; j < len && !buf[j]; j++)
					;
				if (j < len && pat >= 0) {
					for (j = 0; j < len && buf[j] == pat; j++)
						;
					if (j < len)
						why = "is neither all zero nor all the pattern";
				} else if (j < len) {
					why = "is not zero";
				}
			}
			if (why) {
				printf("%s: block at %lld %s\n", argv[i], off, why);
				bad = 1;
				break;
			}
		}
		if (mfd >= 0)
			close(mfd);
		if (off >= end)
			printf("%s: ok\n", argv[i]);
	}
	close(fd);
	return bad;
}
