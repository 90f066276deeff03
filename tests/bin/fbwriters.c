// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbwriters - parallel writers that keep a model of what they wrote, for the
 * security suite's mixed-concurrency tests (tests/suites/security.sh).
 *
 * usage: fbwriters FILE BACKING JOBS BLOCKS
 *   JOBS writers, each with its own open of FILE (O_DIRECT: a passthrough
 *   write that may take the inode lock shared), each writing 4 KiB blocks
 *   of its own range, [j * BLOCKS, (j + 1) * BLOCKS) blocks, round and
 *   round, every block stamped with (job, block, sequence number).  FILE
 *   must already hold JOBS * BLOCKS blocks: no write extends it.  The
 *   writers start when this program has opened every descriptor (it then
 *   prints "started" and flushes) and stop on SIGTERM or SIGINT.  Then each
 *   block of FILE (through the mount) and of BACKING (the backing file,
 *   read directly; "-" for none) must hold the stamp of the last write to
 *   it that returned the whole block.
 *
 * FB_WRITERS_BREAK=1 (the red run of the check itself): the model claims one
 * write more to the first block than was made, so the check must fail.
 *
 * Prints "# writes N, failed F" and one line per file checked; exit status
 * 0 when no write failed and both files hold the model, 1 otherwise, 2 on
 * bad usage or a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLK 4096
#define MAX_JOBS 16

struct job {
	pthread_t t;
	int fd;
	int id;
	long blocks;
	uint64_t *seq;		/* per block: last whole write, 0 none */
	unsigned long writes, failed;
	int first_err;
};

static volatile sig_atomic_t stop;
static long nblocks;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void stamp(unsigned char *buf, int job, long block, uint64_t seq)
{
	uint64_t w[3] = { (uint64_t)job, (uint64_t)block, seq };
	size_t i;

	for (i = 0; i < BLK; i += sizeof(w))
		memcpy(buf + i, w, sizeof(w) < BLK - i ? sizeof(w) : BLK - i);
}

static void *writer(void *arg)
{
	struct job *j = arg;
	unsigned char *buf;
	uint64_t seq = 0;
	long b = 0;

	if (posix_memalign((void **)&buf, BLK, BLK)) {
		j->failed++;
		j->first_err = ENOMEM;
		return NULL;
	}
	while (!stop) {
		long block = (long)j->id * j->blocks + b;
		ssize_t n;

		seq++;
		stamp(buf, j->id, block, seq);
		n = pwrite(j->fd, buf, BLK, (off_t)block * BLK);
		j->writes++;
		if (n == BLK) {
			j->seq[b] = seq;
		} else {
			j->failed++;
			if (!j->first_err)
				j->first_err = n < 0 ? errno : EIO;
			/* a short or failed write leaves the block unknown */
			j->seq[b] = UINT64_MAX;
		}
		b = (b + 1) % j->blocks;
	}
	free(buf);
	return NULL;
}

/* FILE's blocks against the model: the number of blocks that differ */
static long check(const char *path, struct job *jobs, int njobs,
		  long *unknown)
{
	unsigned char got[BLK], want[BLK];
	long bad = 0, first = -1;
	int fd, j;
	long b;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("# %s: open: %s\n", path, strerror(errno));
		return -1;
	}
	*unknown = 0;
	for (j = 0; j < njobs; j++) {
		for (b = 0; b < jobs[j].blocks; b++) {
			long block = (long)j * jobs[j].blocks + b;
			uint64_t s = jobs[j].seq[b];

			if (s == UINT64_MAX) {
				(*unknown)++;
				continue;
			}
			if (pread(fd, got, BLK, (off_t)block * BLK) != BLK) {
				bad++;
				if (first < 0)
					first = block;
				continue;
			}
			if (s == 0)
				memset(want, 0, BLK);
			else
				stamp(want, j, block, s);
			if (memcmp(got, want, BLK)) {
				bad++;
				if (first < 0)
					first = block;
			}
		}
	}
	close(fd);
	if (bad)
		printf("# %s: %ld of %ld blocks differ from the model, the first block %ld\n",
		       path, bad, nblocks, first);
	else
		printf("# %s: %ld blocks, each the last write's (%ld unknown after a failed write)\n",
		       path, nblocks, *unknown);
	return bad;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct job jobs[MAX_JOBS] = { 0 };
	unsigned long writes = 0, failed = 0;
	long per, unknown;
	struct stat st;
	int njobs, j, rc = 0, err = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: fbwriters FILE BACKING JOBS BLOCKS\n");
		return 2;
	}
	njobs = atoi(argv[3]);
	per = atol(argv[4]);
	if (njobs < 1 || njobs > MAX_JOBS || per < 1) {
		fprintf(stderr, "fbwriters: JOBS 1 to %d, BLOCKS at least 1\n",
			MAX_JOBS);
		return 2;
	}
	nblocks = njobs * per;
	if (stat(argv[1], &st) < 0 || st.st_size < nblocks * BLK) {
		fprintf(stderr, "fbwriters: %s must hold %ld bytes\n", argv[1],
			nblocks * BLK);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (j = 0; j < njobs; j++) {
		jobs[j].id = j;
		jobs[j].blocks = per;
		jobs[j].seq = calloc(per, sizeof(uint64_t));
		jobs[j].fd = open(argv[1], O_WRONLY | O_DIRECT);
		if (!jobs[j].seq || jobs[j].fd < 0) {
			fprintf(stderr, "fbwriters: open %s O_DIRECT: %s\n",
				argv[1], strerror(errno));
			return 2;
		}
	}
	printf("started\n");
	fflush(stdout);
	for (j = 0; j < njobs; j++)
		if (pthread_create(&jobs[j].t, NULL, writer, &jobs[j])) {
			fprintf(stderr, "fbwriters: pthread_create failed\n");
			return 2;
		}
	for (j = 0; j < njobs; j++) {
		pthread_join(jobs[j].t, NULL);
		close(jobs[j].fd);
		writes += jobs[j].writes;
		failed += jobs[j].failed;
		if (!err)
			err = jobs[j].first_err;
	}
	if (getenv("FB_WRITERS_BREAK") && !strcmp(getenv("FB_WRITERS_BREAK"), "1")) {
		jobs[0].seq[0]++;
		printf("# FB_WRITERS_BREAK=1: the model claims a write to block 0 that was not made\n");
	}
	printf("# writes %lu, failed %lu%s%s\n", writes, failed,
	       err ? ", the first: " : "", err ? strerror(err) : "");
	if (failed || !writes)
		rc = 1;
	if (check(argv[1], jobs, njobs, &unknown))
		rc = 1;
	if (strcmp(argv[2], "-") && check(argv[2], jobs, njobs, &unknown))
		rc = 1;
	return rc;
}
