// SPDX-License-Identifier: GPL-2.0-only
/*
 * uffd_pwrite - can a second writer get past a first one that is stuck in
 * the middle of a write to the same FUSE file?
 *
 * Writer A does an O_DIRECT pwrite() of one page at offset 0 from a buffer
 * whose page is registered with userfaultfd and not populated.  The kernel
 * pins the source pages only once it is inside the file system's write path
 * (passthrough: in the backing file system's direct io; FOPEN_DIRECT_IO: in
 * fuse_direct_io()), so A blocks in the page fault with whatever inode lock
 * the FUSE write path took.  The program waits for the fault message, so
 * A is known to be blocked, then writer B does a pwrite() of one page to a
 * range that does not overlap A's, from ordinary memory, and the program
 * reports whether B completed within a timeout, i.e. while A was blocked.
 * Finally it resolves the fault with UFFDIO_COPY and joins both writers.
 * Both writers use the same open file: a server may give every open of a
 * passthrough inode its own backing file, and the kernel refuses a second
 * open with a different backing file while the first is open.
 *
 * usage: uffd_pwrite [-t TIMEOUT_MS] [-b FILE:BACKING]... FILE:MODE:EXPECT...
 *   MODE    inside  B writes inside the file (does not extend it)
 *           extend  B writes at the end of file (extends it)
 *           splice  B splices one page from a pipe inside the file, asking
 *                   for SPLICE_LEN bytes (more than the file holds past
 *                   B's offset): the write moves only what the pipe holds
 *           buffered  B writes inside the file without O_DIRECT: the
 *                   open file loses O_DIRECT (fcntl F_SETFL) once A is
 *                   blocked, so B's write is buffered on the FUSE file
 *                   (IOCB_DIRECT clear) while A's, already started, stays
 *                   direct.  A passthrough backing file keeps the O_DIRECT
 *                   it was opened with, so the backing file system does not
 *                   serialize B either
 *           cmd     B runs the shell command FB_UFFD_CMD instead of a
 *                   write (e.g. a truncate as another user), with A
 *                   blocked; use it with EXPECT any.  FB_UFFD_CMD=external:
 *                   B is a process started before; the file FB_UFFD_STALLED
 *                   is made once A is blocked, A is released once B makes
 *                   FB_UFFD_RELEASE_ON (or at the timeout)
 *   EXPECT  parallel  B must complete while A is blocked
 *           serial    B must still wait when the timeout expires
 *           any       only report what happened
 *
 *   -b      after the cases, check FILE's bytes against a model of what
 *           the cases wrote to it (a zero fill to 1 MiB, A's page of 'A' at
 *           0, B's page of 'B' at its offset, each recorded only when its
 *           write returned a whole page): FILE read through the mount and
 *           BACKING, its backing file, read directly, must each equal the
 *           model byte for byte, size included (BACKING on another file
 *           system than FILE, or FILE itself).  FILE must start empty; a
 *           cmd case or a short write leaves the model unknown (not ok).
 *
 * One TAP line per FILE:MODE:EXPECT, then one per -b.  The file must be on a FUSE mount
 * that accepts O_DIRECT; it is grown to at least 1 MiB first.  For a
 * passthrough file, the backing file must be on a file system that lets
 * non-extending direct io writes run in parallel (XFS, ext4); on tmpfs the
 * backing inode lock serializes them anyway.
 *
 * userfaultfd must be allowed to handle faults from kernel mode, so this
 * needs CAP_SYS_PTRACE (root) unless vm.unprivileged_userfaultfd is 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096
#define MIN_SIZE	(1024 * 1024)
#define B_OFFSET	(64 * 1024)
#define FAULT_WAIT_MS	10000
#define WATCHDOG_S	120
#define SPLICE_LEN	(2 * MIN_SIZE)
#define RELEASE_MS	5000	/* a waiting B must complete this soon after A */
#define MODEL_MAX	(2 * MIN_SIZE)	/* the largest file a model holds */
#define MAX_MODELS	16

/*
 * What the cases wrote to one file (-b), written down as they write it,
 * independently of what the file holds.
 */
struct model {
	const char *path;	/* the cases' FILE */
	const char *backing;	/* its backing file, read directly */
	unsigned char *buf;	/* MODEL_MAX bytes */
	off_t size;
	const char *unknown;	/* why the model cannot be trusted, or NULL */
};

static struct model models[MAX_MODELS];
static int nmodels;

static struct model *model_of(const char *path)
{
	int i;

	for (i = 0; i < nmodels; i++)
		if (!strcmp(models[i].path, path))
			return &models[i];
	return NULL;
}

/* LEN bytes of C written at OFF to PATH (nothing if PATH has no model) */
static void model_write(const char *path, off_t off, size_t len, int c)
{
	struct model *m = model_of(path);

	if (!m || m->unknown)
		return;
	if (off < 0 || off + (off_t)len > MODEL_MAX) {
		m->unknown = "a write beyond the model's 2 MiB";
		return;
	}
	memset(m->buf + off, c, len);
	if (off + (off_t)len > m->size)
		m->size = off + len;
}

static void model_unknown(const char *path, const char *why)
{
	struct model *m = model_of(path);

	if (m && !m->unknown)
		m->unknown = why;
}

/* A writer's result in the model: a whole page, nothing, or unknown. */
static void model_writer(const char *path, off_t off, ssize_t ret, int c)
{
	if (ret == PAGE)
		model_write(path, off, PAGE, c);
	else if (ret > 0)
		model_unknown(path, "a short write");
}

/* Whether A and B (both existing) are on the same file system */
static bool same_fs(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return true;	/* cannot tell: not proven direct */
	return sa.st_dev == sb.st_dev;
}

/*
 * Compare PATH, read from the start, with M: prints the evidence, returns
 * true if every byte and the size are the model's.
 */
static bool model_compare(const struct model *m, const char *path)
{
	static unsigned char buf[64 * 1024];
	off_t off = 0, first = -1, pages_bad = 0, last_bad_page = -1;
	int got_c = 0, want_c = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("# bytes: %s: open: %s\n", path, strerror(errno));
		return false;
	}
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		ssize_t i;

		for (i = 0; i < n; i++) {
			off_t o = off + i;
			int want = o < m->size ? m->buf[o] : -1;

			if (buf[i] == want)
				continue;
			if (first < 0) {
				first = o;
				got_c = buf[i];
				want_c = want;
			}
			if (o / PAGE != last_bad_page) {
				last_bad_page = o / PAGE;
				pages_bad++;
			}
		}
		off += n;
		if (off > MODEL_MAX + (off_t)sizeof(buf))
			break;
	}
	if (n < 0) {
		printf("# bytes: %s: read at %lld: %s\n", path, (long long)off,
		       strerror(errno));
		close(fd);
		return false;
	}
	close(fd);
	if (first < 0 && off == m->size) {
		printf("# bytes: %s: %lld bytes, each the model's\n", path,
		       (long long)off);
		return true;
	}
	if (first >= 0 && want_c >= 0)
		printf("# bytes: %s: first difference at offset %lld: 0x%02x, the model 0x%02x; %lld page(s) differ\n",
		       path, (long long)first, got_c, want_c,
		       (long long)pages_bad);
	else if (first >= 0)
		printf("# bytes: %s: first difference at offset %lld, past the model's end: 0x%02x; %lld page(s) differ\n",
		       path, (long long)first, got_c, (long long)pages_bad);
	if (off != m->size)
		printf("# bytes: %s: %lld bytes, the model %lld\n", path,
		       (long long)off, (long long)m->size);
	return false;
}

struct writer {
	int fd;
	const void *buf;
	off_t off;
	ssize_t ret;
	int err;
	int done_pipe;		/* write end, -1 if none */
	bool splice;		/* splice(2) from a pipe instead of pwrite */
	bool buffered;		/* drop O_DIRECT from fd before the pwrite */
	const char *cmd;	/* run this shell command instead, if set */
	pid_t tid;
};

/* One page through a pipe, asking splice(2) for SPLICE_LEN bytes */
static ssize_t splice_page(int fd, const void *buf, off_t off)
{
	loff_t pos = off;
	int p[2];
	ssize_t r = -1;

	if (pipe(p) < 0)
		return -1;
	if (write(p[1], buf, PAGE) == PAGE)
		r = splice(p[0], NULL, fd, &pos, SPLICE_LEN, 0);
	close(p[0]);
	close(p[1]);
	return r;
}

/*
 * Drop O_DIRECT from FD: the writes that start after this are buffered on
 * the FUSE file (a write already in flight keeps its own flags).
 */
static int buffered_fd(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return -1;
	return (fcntl(fd, F_GETFL) & O_DIRECT) ? -1 : 0;
}

/*
 * FB_UFFD_CMD=external: B never had A's file open (on 6.12 a close of it, an
 * exec's close-on-exec too, is a FLUSH that waits for the inode lock behind A)
 */
static int a_released;		/* A's fault resolved: external_b() is done */

static ssize_t external_b(void)
{
	const char *stalled = getenv("FB_UFFD_STALLED");
	int fd;

	if (!stalled || !getenv("FB_UFFD_RELEASE_ON"))
		return -1;
	fd = open(stalled, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	while (!__atomic_load_n(&a_released, __ATOMIC_SEQ_CST))
		usleep(10 * 1000);
	return PAGE;
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	char c = 1;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	if (w->cmd && !strcmp(w->cmd, "external"))
		w->ret = external_b();
	else if (w->cmd)
		w->ret = system(w->cmd) == 0 ? PAGE : -1;
	else if (w->splice)
		w->ret = splice_page(w->fd, w->buf, w->off);
	else if (w->buffered && buffered_fd(w->fd) < 0)
		w->ret = -1;
	else
		w->ret = pwrite(w->fd, w->buf, PAGE, w->off);
	w->err = w->ret < 0 ? errno : 0;
	if (w->done_pipe >= 0 && write(w->done_pipe, &c, 1) != 1)
		w->err = errno;
	return NULL;
}

static int uffd_open(void)
{
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

#ifdef USERFAULTFD_IOC_NEW
	if (fd < 0 && (errno == EPERM || errno == ENOSYS)) {
		int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);

		if (dev >= 0) {
			fd = ioctl(dev, USERFAULTFD_IOC_NEW,
				   O_CLOEXEC | O_NONBLOCK);
			close(dev);
		}
	}
#endif
	return fd;
}

/* Grow the file to MIN_SIZE with ordinary writes, so B's range exists. */
static int prepare(const char *path)
{
	static char zero[64 * 1024];
	struct stat st;
	off_t off;
	int fd;

	fd = open(path, O_RDWR);
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	for (off = st.st_size; off < MIN_SIZE; off += sizeof(zero)) {
		if (pwrite(fd, zero, sizeof(zero), off) != sizeof(zero)) {
			model_unknown(path, "the zero fill failed");
			goto fail;
		}
		model_write(path, off, sizeof(zero), 0);
	}
	if (fsync(fd) < 0)
		goto fail;
	close(fd);
	return 0;
fail:
	fprintf(stderr, "# %s: prepare: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Where a waiting thread sleeps: its state, wchan and kernel stack (root
 * only), printed as TAP diagnostics.  /proc hides the scheduler's functions
 * (down_write, rwsem_down_write_slowpath, schedule are __sched), so a
 * thread waiting for the inode lock shows as sleeping uninterruptibly (D)
 * with the FUSE function that called inode_lock() on top of its stack:
 * fuse_passthrough_write_iter or fuse_passthrough_splice_write (upstream,
 * and ours, where the compiler may fold our fuse_passthrough_lock into
 * fuse_passthrough_write_iter), or fuse_passthrough_lock (0001); up to fb4
 * fuse_passthrough_write_lock or fuse_passthrough_write_begin: their only
 * sleeping call is the inode lock, the privilege check's requests to the
 * daemon sleep in dev.c's frames above them.  Returns true if that is what
 * they show.
 */
static bool show_wait(const char *who, pid_t tid)
{
	static const char * const lockers[] = {
		"fuse_passthrough_write_iter", "fuse_passthrough_splice_write",
		"fuse_passthrough_lock", "fuse_passthrough_write_lock",
		"fuse_passthrough_write_begin",
		"rwsem_down_write_slowpath", "rwsem_down_read_slowpath",
		"down_write", "down_read",
	};
	char path[64], line[256], wchan[128] = "?", stack[1024] = "";
	char top[256] = "", state = '?';
	bool lock = false;
	size_t len = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(line, sizeof(line), f) && strrchr(line, ')'))
			state = strrchr(line, ')')[2];
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", (int)tid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			snprintf(wchan, sizeof(wchan), "?");
		fclose(f);
	}
	wchan[strcspn(wchan, "\n")] = '\0';
	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", (int)tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *fn = strchr(line, ']');

		fn = fn ? fn + 2 : line;
		fn[strcspn(fn, "+\n")] = '\0';
		if (!top[0])
			snprintf(top, sizeof(top), "%s", fn);
		if (len < sizeof(stack) - 1)
			len += snprintf(stack + len, sizeof(stack) - len,
					"%s%s", len ? " < " : "", fn);
	}
	if (f)
		fclose(f);
	if (!top[0])
		snprintf(top, sizeof(top), "%s", wchan);
	for (i = 0; i < sizeof(lockers) / sizeof(lockers[0]); i++)
		if (!strcmp(top, lockers[i]))
			lock = state == 'D';
	printf("# evidence: %s (tid %d) waiting: state %c, wchan %s; stack: %s\n",
	       who, (int)tid, state, wchan, len ? stack : "(unreadable)");
	printf("# evidence: %s %s the inode lock (state D, sleeping directly in %s)\n",
	       who, lock ? "waits for" : "does NOT wait for", top);
	return lock;
}

/* poll(2) on B's pipe, cut short when FB_UFFD_RELEASE_ON exists */
static int wait_b(struct pollfd *pfd, int timeout_ms, int *waited_ms)
{
	const char *release = getenv("FB_UFFD_RELEASE_ON");
	struct timespec t0;
	int n = 0, left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((left = timeout_ms - (int)ms_since(&t0)) > 0) {
		n = poll(pfd, 1, release && left > 100 ? 100 : left);
		if (n != 0 || (release && access(release, F_OK) == 0))
			break;
	}
	*waited_ms = (int)ms_since(&t0);
	return n;
}

/*
 * Run one case.  Returns 1 if B completed while A was blocked, 0 if it was
 * still waiting at the timeout for the inode lock and completed within
 * RELEASE_MS after A was released, 2 if it waited otherwise (somewhere
 * else, or not released by A's end), -1 on error (with a diagnostic).
 * The evidence (where B waited, when it completed) is printed as TAP
 * diagnostics.
 */
static int run_case(const char *path, bool extend, bool splice,
		    bool buffered, const char *cmd, int timeout_ms)
{
	struct uffdio_api api = { .api = UFFD_API, .features = 0 };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { .mode = 0 };
	struct writer a = { .done_pipe = -1 }, b = { .done_pipe = -1 };
	pthread_t ta, tb;
	bool a_started = false, b_started = false;
	int fd = -1, uffd = -1, pipefd[2] = { -1, -1 };
	void *area = MAP_FAILED, *bbuf = NULL, *src = NULL;
	struct uffd_msg msg;
	struct pollfd pfd;
	struct stat st;
	struct timespec released;
	bool b_waited = false, b_locked = false;
	int result = -1, n, waited_ms = 0;

	if (prepare(path) < 0)
		return -1;

	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "# %s: open O_DIRECT: %s\n", path,
			strerror(errno));
		goto out;
	}
	if (posix_memalign(&bbuf, PAGE, PAGE) || posix_memalign(&src, PAGE, PAGE)) {
		fprintf(stderr, "# posix_memalign failed\n");
		goto out;
	}
	memset(bbuf, 'B', PAGE);
	memset(src, 'A', PAGE);

	/*
	 * Warm-up write: a first write may have to
	 * check the file for privileges to remove, which is done with the
	 * inode lock held exclusively.  Nothing between it and A's write
	 * refreshes the attributes.
	 */
	if (pwrite(fd, src, PAGE, 0) != PAGE) {
		fprintf(stderr, "# %s: warm-up pwrite: %s\n", path,
			strerror(errno));
		model_unknown(path, "a warm-up write failed");
		goto out;
	}
	model_write(path, 0, PAGE, 'A');
	if (fstat(fd, &st) < 0) {
		fprintf(stderr, "# %s: fstat: %s\n", path, strerror(errno));
		goto out;
	}
	b.off = extend ? (st.st_size + PAGE - 1) / PAGE * PAGE : B_OFFSET;
	if (!extend && b.off + PAGE > st.st_size) {
		fprintf(stderr, "# %s: file too small\n", path);
		goto out;
	}
	/* The fstat() may have refreshed attributes: warm up again. */
	if (pwrite(fd, src, PAGE, 0) != PAGE) {
		fprintf(stderr, "# %s: warm-up pwrite: %s\n", path,
			strerror(errno));
		model_unknown(path, "a warm-up write failed");
		goto out;
	}
	model_write(path, 0, PAGE, 'A');

	uffd = uffd_open();
	if (uffd < 0) {
		fprintf(stderr, "# userfaultfd: %s (need root or vm.unprivileged_userfaultfd=1)\n",
			strerror(errno));
		goto out;
	}
	if (ioctl(uffd, UFFDIO_API, &api) < 0) {
		fprintf(stderr, "# UFFDIO_API: %s\n", strerror(errno));
		goto out;
	}
	area = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		fprintf(stderr, "# mmap: %s\n", strerror(errno));
		goto out;
	}
	reg.range.start = (uintptr_t)area;
	reg.range.len = PAGE;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0) {
		fprintf(stderr, "# UFFDIO_REGISTER: %s\n", strerror(errno));
		goto out;
	}

	a.fd = fd;
	a.buf = area;
	a.off = 0;
	if (pthread_create(&ta, NULL, writer_fn, &a)) {
		fprintf(stderr, "# pthread_create A failed\n");
		goto out;
	}
	a_started = true;

	/* A is blocked once its fault is reported. */
	pfd.fd = uffd;
	pfd.events = POLLIN;
	n = poll(&pfd, 1, FAULT_WAIT_MS);
	if (n != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		fprintf(stderr, "# %s: writer A did not fault on its buffer (poll %d)\n",
			path, n);
		goto resolve;
	}

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "# pipe2: %s\n", strerror(errno));
		goto resolve;
	}
	b.fd = fd;
	/*
	 * FB_UFFD_BREAK_B=1: B writes through a read-only descriptor and gets
	 * EBADF, for the red run that shows an error is not taken for the
	 * expected stock behaviour.
	 */
	if (getenv("FB_UFFD_BREAK_B") && !strcmp(getenv("FB_UFFD_BREAK_B"), "1")) {
		b.fd = open(path, O_RDONLY);
		if (b.fd < 0)
			b.fd = -1;
		printf("# FB_UFFD_BREAK_B=1: writer B uses a read-only descriptor\n");
	}
	b.buf = bbuf;
	b.splice = splice;
	b.buffered = buffered;
	b.cmd = cmd;
	b.done_pipe = pipefd[1];
	if (pthread_create(&tb, NULL, writer_fn, &b)) {
		fprintf(stderr, "# pthread_create B failed\n");
		goto resolve;
	}
	b_started = true;

	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	n = wait_b(&pfd, timeout_ms, &waited_ms);
	if (n < 0) {
		fprintf(stderr, "# poll: %s\n", strerror(errno));
		goto resolve;
	}
	result = n == 1;
	printf("# evidence: %s: B %s while A was blocked (%d ms)\n", path,
	       result ? "completed" :
	       waited_ms < timeout_ms ? "was still waiting when it asked for A's release" :
	       "was still waiting after the timeout",
	       result ? timeout_ms : waited_ms);
	if (!result) {
		b_waited = true;
		b_locked = show_wait("B", __atomic_load_n(&b.tid, __ATOMIC_SEQ_CST));
	}

resolve:
	if (a_started) {
		copy.dst = (uintptr_t)area;
		copy.src = (uintptr_t)src;
		copy.len = PAGE;
		if (ioctl(uffd, UFFDIO_COPY, &copy) < 0 && errno != EEXIST) {
			fprintf(stderr, "# UFFDIO_COPY: %s\n", strerror(errno));
			result = -1;
		}
		__atomic_store_n(&a_released, 1, __ATOMIC_SEQ_CST);
		clock_gettime(CLOCK_MONOTONIC, &released);
		if (b_waited && result == 0) {
			pfd.fd = pipefd[0];
			pfd.events = POLLIN;
			n = poll(&pfd, 1, RELEASE_MS);
			if (n == 1) {
				printf("# evidence: B completed %ld ms after A was released\n",
				       ms_since(&released));
			} else {
				printf("# evidence: B still waiting %d ms after A was released\n",
				       RELEASE_MS);
				result = 2;
			}
			if (!b_locked)
				result = 2;
		}
		pthread_join(ta, NULL);
		model_writer(path, a.off, a.ret, 'A');
		if (a.ret != PAGE) {
			printf("# evidence: writer A: pwrite returned %zd (%s)\n",
			       a.ret, strerror(a.err));
			result = -1;
		}
	}
	if (b_started) {
		pthread_join(tb, NULL);
		if (cmd)
			model_unknown(path, "a command case ran on it");
		else
			model_writer(path, b.off, b.ret, 'B');
		if (b.ret != PAGE) {
			printf("# evidence: writer B: pwrite returned %zd (%s)\n",
			       b.ret, strerror(b.err));
			result = -1;
		}
	}
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (area != MAP_FAILED)
		munmap(area, PAGE);
	if (uffd >= 0)
		close(uffd);
	if (b.fd >= 0 && b_started && b.fd != fd)
		close(b.fd);
	if (fd >= 0)
		close(fd);
	free(bbuf);
	free(src);
	return result;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: uffd_pwrite [-t TIMEOUT_MS] [-b FILE:BACKING]... FILE:MODE:EXPECT...\n"
		"  MODE: inside | extend | splice | buffered | cmd (FB_UFFD_CMD)\n"
		"  EXPECT: parallel | serial | any\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int timeout_ms = 2000, failed = 0, opt, i;
	char *colon;

	while ((opt = getopt(argc, argv, "t:b:h")) != -1) {
		switch (opt) {
		case 't':
			timeout_ms = atoi(optarg);
			if (timeout_ms <= 0)
				usage();
			break;
		case 'b':
			colon = strchr(optarg, ':');
			if (!colon || colon == optarg || !colon[1] ||
			    nmodels == MAX_MODELS)
				usage();
			*colon = '\0';
			models[nmodels].path = optarg;
			models[nmodels].backing = colon + 1;
			models[nmodels].buf = calloc(1, MODEL_MAX);
			if (!models[nmodels].buf) {
				perror("uffd_pwrite: calloc");
				return 2;
			}
			nmodels++;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();

	/* A hung writer must not hang the test suite. */
	alarm(WATCHDOG_S);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%d\n", argc - optind + nmodels);

	for (i = optind; i < argc; i++) {
		char *spec = strdup(argv[i]);
		char *expect = spec ? strrchr(spec, ':') : NULL;
		char *mode;
		bool extend, splice = false, buffered = false, ok;
		const char *cmd = NULL;
		int r;

		if (!expect)
			usage();
		*expect++ = '\0';
		mode = strrchr(spec, ':');
		if (!mode)
			usage();
		*mode++ = '\0';
		if (!strcmp(mode, "inside"))
			extend = false;
		else if (!strcmp(mode, "extend"))
			extend = true;
		else if (!strcmp(mode, "splice"))
			extend = false, splice = true;
		else if (!strcmp(mode, "buffered"))
			extend = false, buffered = true;
		else if (!strcmp(mode, "cmd") && getenv("FB_UFFD_CMD"))
			extend = false, cmd = getenv("FB_UFFD_CMD");
		else
			usage();
		if (strcmp(expect, "parallel") && strcmp(expect, "serial") &&
		    strcmp(expect, "any"))
			usage();

		r = run_case(spec, extend, splice, buffered, cmd, timeout_ms);
		if (r < 0)
			ok = false;
		else if (!strcmp(expect, "any"))
			ok = true;
		else if (!strcmp(expect, "parallel"))
			ok = r == 1;
		else
			ok = r == 0;
		failed += !ok;
		printf("%sok %d - %s %s write: B %s while A blocked (expected %s)\n",
		       ok ? "" : "not ", i - optind + 1, spec,
		       cmd ? "command" : splice ? "non-extending splice" :
		       buffered ? "non-extending buffered" :
		       extend ? "extending" : "non-extending",
		       r < 0 ? "error" : r == 1 ? "completed" :
		       r == 0 ? "waited on the inode lock" : "waited (not on the inode lock, or not released)",
		       expect);
		free(spec);
	}
	for (i = 0; i < nmodels; i++) {
		struct model *m = &models[i];
		bool ok = false;

		if (m->unknown) {
			printf("# bytes: %s: no model: %s\n", m->path, m->unknown);
		} else if (strcmp(m->path, m->backing) && same_fs(m->path, m->backing)) {
			/* e.g. a mount over its own backing directory */
			printf("# bytes: %s and %s are on one file system: the backing file is not read directly\n",
			       m->path, m->backing);
		} else {
			ok = model_compare(m, m->path);
			/* both, so each shows its evidence */
			ok = model_compare(m, m->backing) && ok;
		}
		failed += !ok;
		printf("%sok %d - %s bytes: through it and in %s read directly, exactly what the writers wrote (%lld bytes)\n",
		       ok ? "" : "not ", argc - optind + i + 1, m->path,
		       m->backing, (long long)m->size);
	}
	return failed ? 1 : 0;
}
