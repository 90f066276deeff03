// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbpattern: write a file with a deterministic pattern, and check a file
 * against the same pattern generated again (the model), for the memcg
 * suite. The pattern is a function of the byte offset alone (each 8-byte
 * word is a mix of the seed and the word's offset), so the model does not
 * depend on who wrote which part, in which order or with which I/O size.
 *
 * usage:
 *   fbpattern write FILE SIZE [--writers SPEC] [--bs BYTES] [--seed N]
 *	SPEC: one letter a writer, b (buffered) or d (O_DIRECT), default b.
 *	One writer writes FILE from 0 to SIZE in order, extending it. More
 *	writers: FILE is created at SIZE first (ftruncate), then each writer
 *	(a process of its own, with its own open) writes its equal part of
 *	it, so that no write extends the file. Each writer fsyncs and closes
 *	its file; exit 0 only when every writer wrote every byte and its
 *	fsync and close succeeded.
 *   fbpattern check FILE SIZE [--seed N] [--flip OFFSET]
 *	FILE must be SIZE bytes, each the model's. --flip: the model's byte
 *	at OFFSET is changed (a red run: the check must fail there). Exit 0
 *	equal, 1 different (the first difference on stdout), 2 error.
 *   fbpattern hog MIB
 *	touch MIB of anonymous memory, hold it a second, exit 0 (a red run
 *	of the suite's OOM check, run in the limited cgroup).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WRITERS 16

static uint64_t seed = 0x66622d6d656d6367ULL;	/* "fb-memcg" */

static uint64_t word_at(uint64_t off)
{
	uint64_t z = seed + (off / 8 + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* the model's bytes [off, off + len), off and len multiples of 8 */
static void fill(unsigned char *buf, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = word_at(off + i);

		memcpy(buf + i, &w, 8);
	}
}

static unsigned long long num(const char *what, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "fbpattern: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* one writer: [from, to) of path, O_DIRECT or not; 0 on success */
static int writer(const char *path, int idx, int direct, int trunc,
		  uint64_t from, uint64_t to, size_t bs)
{
	unsigned char *buf;
	double t0 = now();
	uint64_t off;
	int fd;

	if (posix_memalign((void **)&buf, 4096, bs)) {
		fprintf(stderr, "writer %d: no memory for %zu bytes\n", idx, bs);
		return 1;
	}
	fd = open(path, O_WRONLY | O_CREAT | (trunc ? O_TRUNC : 0) |
		  (direct ? O_DIRECT : 0), 0644);
	if (fd < 0) {
		fprintf(stderr, "writer %d: open %s%s: %s\n", idx, path,
			direct ? " O_DIRECT" : "", strerror(errno));
		return 1;
	}
	for (off = from; off < to; ) {
		size_t len = to - off < bs ? to - off : bs;
		ssize_t n;

		fill(buf, off, len);
		n = pwrite(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (direct && (size_t)n != len)) {
			fprintf(stderr, "writer %d: pwrite %zu at %" PRIu64 ": %s\n",
				idx, len, off, n < 0 ? strerror(errno) :
				n == 0 ? "wrote nothing" : "short O_DIRECT write");
			close(fd);
			return 1;
		}
		/* a short buffered write: the rest again from where it ended */
		off += n;
	}
	if (fsync(fd) < 0) {
		fprintf(stderr, "writer %d: fsync: %s\n", idx, strerror(errno));
		close(fd);
		return 1;
	}
	if (close(fd) < 0) {
		fprintf(stderr, "writer %d: close: %s\n", idx, strerror(errno));
		return 1;
	}
	printf("writer %d (%s): %" PRIu64 " bytes at %" PRIu64 ", fsync and close ok, %.1f s\n",
	       idx, direct ? "O_DIRECT" : "buffered", to - from, from,
	       now() - t0);
	fflush(stdout);
	free(buf);
	return 0;
}

static int do_write(const char *path, uint64_t size, const char *spec,
		    size_t bs)
{
	int n = strlen(spec), i, bad = 0, status;
	pid_t pids[MAX_WRITERS];
	uint64_t part;

	if (n < 1 || n > MAX_WRITERS || strspn(spec, "bd") != (size_t)n) {
		fprintf(stderr, "fbpattern: --writers takes 1 to %d letters b or d, not '%s'\n",
			MAX_WRITERS, spec);
		return 2;
	}
	if (size % ((uint64_t)n * 4096) || bs % 4096 || !bs) {
		fprintf(stderr, "fbpattern: SIZE must be a multiple of 4096 times the writers, --bs of 4096\n");
		return 2;
	}
	if (n == 1)
		return writer(path, 0, spec[0] == 'd', 1, 0, size, bs) ? 1 : 0;
	i = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (i < 0 || ftruncate(i, size) < 0 || close(i) < 0) {
		fprintf(stderr, "fbpattern: create %s at %" PRIu64 " bytes: %s\n",
			path, size, strerror(errno));
		return 1;
	}
	part = size / n;
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			fprintf(stderr, "fbpattern: fork: %s\n", strerror(errno));
			bad = 1;
			break;
		}
		if (pids[i] == 0)
			_exit(writer(path, i, spec[i] == 'd', 0, part * i,
				     part * (i + 1), bs));
	}
	while (--i >= 0) {
		if (waitpid(pids[i], &status, 0) < 0) {
			bad = 1;
			continue;
		}
		if (WIFSIGNALED(status))
			fprintf(stderr, "writer %d: killed by signal %d\n", i,
				WTERMSIG(status));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	}
	return bad;
}

static int do_check(const char *path, uint64_t size, long long flip)
{
	const size_t bs = 1 << 20;
	unsigned char *got = malloc(bs), *want = malloc(bs);
	uint64_t off = 0;
	struct stat st;
	int fd;

	if (!got || !want) {
		fprintf(stderr, "fbpattern: no memory\n");
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "fbpattern: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if ((uint64_t)st.st_size != size) {
		printf("%s: size %lld, the model's %" PRIu64 "\n", path,
		       (long long)st.st_size, size);
		return 1;
	}
	while (off < size) {
		size_t len = size - off < bs ? size - off : bs, done = 0, i;

		while (done < len) {
			ssize_t n = pread(fd, got + done, len - done, off + done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				printf("%s: read at %" PRIu64 ": %s\n", path,
				       off + done, n < 0 ? strerror(errno) :
				       "end of file before the size");
				return n < 0 ? 2 : 1;
			}
			done += n;
		}
		fill(want, off, (len + 7) & ~(size_t)7);
		if (flip >= 0 && (uint64_t)flip >= off &&
		    (uint64_t)flip < off + len)
			want[flip - off] ^= 0x01;
		if (memcmp(got, want, len)) {
			size_t first = len, ndiff = 0;

			for (i = 0; i < len; i++) {
				if (got[i] == want[i])
					continue;
				if (first == len)
					first = i;
				ndiff++;
			}
			printf("%s: first difference at byte %" PRIu64 ": 0x%02x, the model's 0x%02x (%zu bytes differ in the MiB at %" PRIu64 ")\n",
			       path, off + first, got[first], want[first], ndiff,
			       off);
			return 1;
		}
		off += len;
	}
	close(fd);
	printf("%s: %" PRIu64 " bytes equal the model\n", path, size);
	return 0;
}

static int do_hog(uint64_t mib)
{
	uint64_t i, len = mib << 20;
	char *p = malloc(len);

	if (!p) {
		fprintf(stderr, "fbpattern hog: malloc %" PRIu64 " MiB failed\n", mib);
		return 1;
	}
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	sleep(1);
	printf("hog: %" PRIu64 " MiB touched\n", mib);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fbpattern write FILE SIZE [--writers b|d...] [--bs BYTES] [--seed N]\n"
		"       fbpattern check FILE SIZE [--seed N] [--flip OFFSET]\n"
		"       fbpattern hog MIB\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *spec = "b";
	long long flip = -1;
	size_t bs = 1 << 20;
	uint64_t size;
	int i;

	if (argc == 3 && !strcmp(argv[1], "hog"))
		return do_hog(num("MIB", argv[2]));
	if (argc < 4)
		usage();
	size = num("SIZE", argv[3]);
	for (i = 4; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--writers"))
			spec = argv[++i];
		else if (!strcmp(argv[i], "--bs"))
			bs = num("--bs", argv[++i]);
		else if (!strcmp(argv[i], "--seed"))
			seed = num("--seed", argv[++i]);
		else if (!strcmp(argv[i], "--flip"))
			flip = num("--flip", argv[++i]);
		else
			usage();
	}
	if (!strcmp(argv[1], "write"))
		return do_write(argv[2], size, spec, bs);
	if (!strcmp(argv[1], "check"))
		return do_check(argv[2], size, flip);
	usage();
	return 2;
}
