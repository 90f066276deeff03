// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbxwait - set an extended attribute and time how long it stays, for the
 * security suite's out-of-band capability test (tests/suites/security/mixed.sh).
 *
 * usage: fbxwait FILE NAME HEXVALUE LIMIT_MS
 *   Sets NAME (value HEXVALUE, "0x..." as setfattr takes it) on FILE, then
 *   asks for it every 10 ms, in this one process (no fork per poll: on a
 *   slow kernel a shell's polls cost hundreds of milliseconds each), until
 *   it is gone or LIMIT_MS have passed since the set.  Times are
 *   CLOCK_MONOTONIC milliseconds from just before setxattr(2).
 *
 * Prints one line: "gone at G ms, last seen at L ms, P polls" (exit 0),
 * or "still there at T ms, P polls" (exit 1); exit 2 on bad usage or an
 * error (one line on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/xattr.h>

static long now_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int main(int argc, char **argv)
{
	unsigned char val[256];
	const char *h;
	size_t len = 0;
	char *end;
	long limit, last = -1, t;
	int polls = 0;
	struct timespec t0, pause = { 0, 10 * 1000 * 1000 };

	if (argc != 5) {
		fprintf(stderr, "usage: fbxwait FILE NAME HEXVALUE LIMIT_MS\n");
		return 2;
	}
	h = argv[3];
	if (strncmp(h, "0x", 2) || !h[2] || strlen(h + 2) % 2 ||
	    strlen(h + 2) / 2 > sizeof(val)) {
		fprintf(stderr, "fbxwait: bad value '%s' (0x and an even number of hex digits)\n", h);
		return 2;
	}
	for (h += 2; *h; h += 2) {
		int a = hexval(h[0]), b = hexval(h[1]);

		if (a < 0 || b < 0) {
			fprintf(stderr, "fbxwait: bad value '%s'\n", argv[3]);
			return 2;
		}
		val[len++] = a << 4 | b;
	}
	errno = 0;
	limit = strtol(argv[4], &end, 10);
	if (errno || *end || !*argv[4] || limit <= 0) {
		fprintf(stderr, "fbxwait: bad LIMIT_MS '%s'\n", argv[4]);
		return 2;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (setxattr(argv[1], argv[2], val, len, 0) < 0) {
		fprintf(stderr, "fbxwait: setxattr %s %s: %s\n", argv[1], argv[2],
			strerror(errno));
		return 2;
	}
	for (;;) {
		t = now_ms(&t0);
		polls++;
		if (getxattr(argv[1], argv[2], NULL, 0) >= 0) {
			last = t;
		} else if (errno == ENODATA) {
			printf("gone at %ld ms, last seen at %ld ms, %d polls\n",
			       now_ms(&t0), last, polls);
			return 0;
		} else {
			fprintf(stderr, "fbxwait: getxattr %s %s: %s\n", argv[1],
				argv[2], strerror(errno));
			return 2;
		}
		if (t > limit) {
			printf("still there at %ld ms, %d polls\n", t, polls);
			return 1;
		}
		nanosleep(&pause, NULL);
	}
}
