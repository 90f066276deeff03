// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbfailnth - one file operation with its n-th fault-injection point failed
 * (the failslab suite, tests/suites/failslab.sh).
 *
 * usage: fbfailnth N open PATH     open(PATH, O_RDWR) under injection
 *        fbfailnth N write PATH    open(PATH, O_RDWR) first; then
 *                                  pwrite(64 KiB of 'f' at 0) and fsync
 *                                  under injection
 *
 * N is written to /proc/thread-self/fail-nth right before the call(s) and
 * read back right after (0: the n-th fault point was reached and failed),
 * then reset.  Prints one line:
 *   injected=yes|no result=ok|short:BYTES|ERRNAME step=open|write|fsync
 * and exits 0; 2 on a usage or setup error (with a message).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WSIZE 65536

static int nthfd = -1;

static void die(const char *what)
{
	fprintf(stderr, "fbfailnth: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nthfd, buf, len, 0) != len)
		die("write fail-nth");
}

static int disarm(void)
{
	char buf[16] = "";
	ssize_t r = pread(nthfd, buf, sizeof(buf) - 1, 0);

	if (pwrite(nthfd, "0", 1, 0) != 1) {
		/* the count left runs out harmlessly */
	}
	return r > 0 && atoi(buf) == 0;
}

static const char *errname(int err)
{
	const char *s = strerrorname_np(err);
	static char num[16];

	if (s)
		return s;
	snprintf(num, sizeof(num), "errno%d", err);
	return num;
}

int main(int argc, char **argv)
{
	static char buf[WSIZE];
	const char *step, *res = "ok";
	char shortbuf[32];
	unsigned long n;
	char *end;
	int fd, hit, err = 0;

	if (argc != 4 || (strcmp(argv[2], "open") && strcmp(argv[2], "write"))) {
		fprintf(stderr, "usage: fbfailnth N open|write PATH\n");
		return 2;
	}
	n = strtoul(argv[1], &end, 10);
	if (*end || !*argv[1] || n < 1 || n > 1000000) {
		fprintf(stderr, "fbfailnth: bad N '%s' (1 to 1000000)\n", argv[1]);
		return 2;
	}
	nthfd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nthfd < 0)
		die("/proc/thread-self/fail-nth (a kernel without CONFIG_FAULT_INJECTION?)");
	memset(buf, 'f', sizeof(buf));

	if (!strcmp(argv[2], "open")) {
		step = "open";
		arm(n);
		fd = open(argv[3], O_RDWR);
		err = errno;
		hit = disarm();
		if (fd < 0)
			res = errname(err);
		else
			close(fd);
	} else {
		ssize_t w;

		fd = open(argv[3], O_RDWR);
		if (fd < 0)
			die(argv[3]);
		step = "write";
		arm(n);
		w = pwrite(fd, buf, WSIZE, 0);
		err = errno;
		if (w == WSIZE) {
			step = "fsync";
			if (fsync(fd) < 0)
				err = errno;
			else
				err = 0;
		}
		hit = disarm();
		if (w < 0 || (w == WSIZE && err)) {
			res = errname(err);
		} else if (w < WSIZE) {
			snprintf(shortbuf, sizeof(shortbuf), "short:%zd", w);
			res = shortbuf;
		}
		close(fd);
	}
	printf("injected=%s result=%s step=%s\n", hit ? "yes" : "no", res, step);
	return 0;
}
