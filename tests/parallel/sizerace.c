// SPDX-License-Identifier: GPL-2.0-only
/*
 * sizerace - is a write's "does not extend" decision overtaken by a shrink?
 *
 * The file is grown to 1 MiB through FUSE, so the kernel caches i_size 1 MiB
 * (the mount's attribute timeout is long), and written once.  Its backing
 * file is then truncated to 0 behind FUSE's back.  Task S (named COMM) asks for fresh
 * attributes: the server replies size 0, and the fbdelay module (kprobe on
 * fuse_change_attributes_common) holds S for a while after the reply passed
 * its attr_version check and before it applies the size.  Meanwhile the
 * main task writes one page at 64 KiB, which the server or the backing file
 * system puts in the now empty file, making it 68 KiB.
 *
 * With fuse_write_update_attr() deciding under fi->lock (upstream), the
 * write either runs before the reply is checked (the reply is then stale
 * and dropped: i_size stays 1 MiB) or after it is applied (the write then
 * extends i_size from 0 to 68 KiB).  So the cached size ends >= 68 KiB.  A
 * lockless decision made on the old 1 MiB and not checked again lets the
 * reply apply 0 after it: the cached size ends at 0, below what was written.
 *
 * usage: sizerace FILE BACKING PARAMDIR COMM
 *   PARAMDIR  /sys/module/fbdelay/parameters (hits, done)
 * Prints what happened; exits 0 when the cached size is >= the end of the
 * write, 1 when it is below (the race lost the extension), 2 on errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096
#define OLD_SIZE	(1024 * 1024)
#define W_OFFSET	(64 * 1024)
#define WAIT_MS		20000

static const char *paramdir, *comm;
static int fd;
static int s_err;

static void die(const char *what)
{
	fprintf(stderr, "sizerace: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long param(const char *name)
{
	char path[512], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", paramdir, name);
	f = fopen(path, "r");
	if (!f)
		die(path);
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtol(buf, NULL, 10);
}

static void *stat_task(void *arg)
{
	struct statx stx;

	(void)arg;
	prctl(PR_SET_NAME, comm);
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_FORCE_SYNC, STATX_SIZE, &stx))
		s_err = errno;
	return NULL;
}

static long long cached_size(void)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_SIZE, &stx))
		die("statx(AT_STATX_DONT_SYNC)");
	return (long long)stx.stx_size;
}

int main(int argc, char **argv)
{
	static char buf[PAGE] __attribute__((aligned(PAGE)));
	struct timespec tick = { 0, 1000000 };
	long long before, after;
	struct stat bst;
	pthread_t s;
	long hits0, done_at_write;
	int i;

	if (argc != 5 || strlen(argv[4]) > 15) {
		fprintf(stderr, "usage: sizerace FILE BACKING PARAMDIR COMM (COMM at most 15 bytes)\n");
		return 2;
	}
	paramdir = argv[3];
	comm = argv[4];
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		die(argv[1]);
	if (ftruncate(fd, OLD_SIZE))
		die("ftruncate through FUSE");
	/*
	 * One write first, so whatever a first write asks the server (the
	 * privilege check's GETXATTR) is done and the racing write only
	 * writes and decides about i_size.
	 */
	memset(buf, 'w', sizeof(buf));
	if (pwrite(fd, buf, PAGE, 0) != PAGE)
		die("first pwrite");
	before = cached_size();
	if (before != OLD_SIZE) {
		fprintf(stderr, "sizerace: cached size %lld after growing to %d: the attribute timeout is too short for this test\n",
			before, OLD_SIZE);
		return 2;
	}
	if (truncate(argv[2], 0))
		die("truncate of the backing file");

	hits0 = param("hits");
	if (pthread_create(&s, NULL, stat_task, NULL))
		die("pthread_create");
	for (i = 0; param("hits") == hits0; i++) {
		if (i >= WAIT_MS) {
			fprintf(stderr, "sizerace: %s never reached the delayed function\n", comm);
			return 2;
		}
		nanosleep(&tick, NULL);
	}
	if (pwrite(fd, buf, PAGE, W_OFFSET) != PAGE)
		die("pwrite");
	done_at_write = param("done") - param("hits");
	pthread_join(s, NULL);
	if (s_err) {
		errno = s_err;
		die("statx(AT_STATX_FORCE_SYNC) in the delayed task");
	}
	after = cached_size();
	if (stat(argv[2], &bst))
		die("stat of the backing file");
	printf("# the write returned %s the reply was applied\n",
	       done_at_write < 0 ? "before" : "after");
	printf("# cached i_size %lld, backing file %lld bytes, write ended at %d\n",
	       after, (long long)bst.st_size, W_OFFSET + PAGE);
	return after >= W_OFFSET + PAGE ? 0 : 1;
}
