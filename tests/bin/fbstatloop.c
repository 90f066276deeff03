// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbstatloop - stat(2) a file in a loop until SIGTERM or SIGINT, pausing
 * INTERVAL_US microseconds between calls (0: none), then print how many
 * calls were made and how many failed.  The benchmark's "stat loop": a
 * reader of attributes beside writers, without a fork per call.
 *
 * usage: fbstatloop FILE INTERVAL_US
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long calls = 0, failed = 0;
	struct timespec pause;
	struct stat st;
	long us;

	if (argc != 3 || (us = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: fbstatloop FILE INTERVAL_US\n");
		return 2;
	}
	pause.tv_sec = us / 1000000;
	pause.tv_nsec = (us % 1000000) * 1000;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop) {
		calls++;
		if (stat(argv[1], &st))
			failed++;
		if (us)
			nanosleep(&pause, NULL);
	}
	printf("%lu stat calls, %lu failed\n", calls, failed);
	return failed ? 1 : 0;
}
