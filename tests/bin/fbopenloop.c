// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbopenloop - what a new FUSE mount does first, in a loop until SIGTERM or
 * SIGINT: open(2) the device DEV (then close it) and fsopen(2) the file
 * system type FSTYPE (the type's lookup of mount -t FSTYPE; then close it),
 * without a fork per call, 1 ms apart. Then one line for each:
 *
 *   open calls=N ok=N enodev=N enoent=N other=N longest_ms=N last=ok|fail
 *   fsopen calls=N ok=N enodev=N enoent=N other=N longest_ms=N last=ok|fail
 *
 * longest_ms: the longest stretch of failed calls in a row, from the start
 * of the first to the end of the last. A takeover's swap shows as such a
 * stretch.
 *
 * usage: fbopenloop DEV FSTYPE
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct tally {
	const char *name;
	unsigned long calls, ok, enodev, enoent, other;
	long long fail_since;	/* ms, -1: the last call succeeded */
	long long fail_end;	/* ms, the end of the last failed call */
	long long longest;	/* ms */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void stretch_end(struct tally *t)
{
	if (t->fail_since >= 0 && t->fail_end - t->fail_since > t->longest)
		t->longest = t->fail_end - t->fail_since;
	t->fail_since = -1;
}

static void count(struct tally *t, long long start, int fd)
{
	int err = errno;

	t->calls++;
	if (fd >= 0) {
		close(fd);
		t->ok++;
		stretch_end(t);
		return;
	}
	t->fail_end = now_ms();
	if (err == ENODEV)
		t->enodev++;
	else if (err == ENOENT)
		t->enoent++;
	else
		t->other++;
	if (t->fail_since < 0)
		t->fail_since = start;
}

static void report(struct tally *t)
{
	bool failing = t->fail_since >= 0;

	stretch_end(t);
	printf("%s calls=%lu ok=%lu enodev=%lu enoent=%lu other=%lu longest_ms=%lld last=%s\n",
	       t->name, t->calls, t->ok, t->enodev, t->enoent, t->other,
	       t->longest, failing ? "fail" : "ok");
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct tally o = { .name = "open", .fail_since = -1 };
	struct tally f = { .name = "fsopen", .fail_since = -1 };
	struct timespec pause = { 0, 1000000 };
	long long t0;

	if (argc != 3) {
		fprintf(stderr, "usage: fbopenloop DEV FSTYPE\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop) {
		t0 = now_ms();
		count(&o, t0, open(argv[1], O_RDWR | O_CLOEXEC));
		t0 = now_ms();
		count(&f, t0, syscall(SYS_fsopen, argv[2], 0));
		nanosleep(&pause, NULL);
	}
	report(&o);
	report(&f);
	return 0;
}
