// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - serving: INIT on the mount's own fd, then one thread per cloned
 * device fd; a signal thread (SIGUSR1: statistics, SIGUSR2: invalidate
 * every node, SIGTERM/SIGINT/SIGHUP: detach the mount and leave) and the
 * statistics file.
 */
#include "fbtestd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *mode_name(int mode)
{
	switch (mode) {
	case FB_MODE_DIRECT:
		return "direct";
	case FB_MODE_PASSTHROUGH:
		return "passthrough";
	}
	return "cached";
}

static void write_stats(void)
{
	char tmp[PATH_MAX + 16];
	FILE *f;
	int i;

	if (!cfg.stats_path)
		return;
	pthread_mutex_lock(&stats_lock);
	snprintf(tmp, sizeof(tmp), "%s.tmp", cfg.stats_path);
	f = fopen(tmp, "w");
	if (!f) {
		fb_errmsg("cannot write %s: %s", tmp, strerror(errno));
		pthread_mutex_unlock(&stats_lock);
		return;
	}
#define LD(x) ((unsigned long long)__atomic_load_n(&(x), __ATOMIC_RELAXED))
	fprintf(f, "requests=%llu\n", LD(stats.requests));
	for (i = 0; i <= FB_MAX_OPCODE; i++)
		if (LD(stats.ops[i]))
			fprintf(f, "op_%s=%llu\n",
				i == FB_MAX_OPCODE ? "OTHER" : fb_opname(i),
				LD(stats.ops[i]));
	fprintf(f, "max_inflight_write=%llu\n", LD(stats.max_inflight_write));
	fprintf(f, "max_inflight_read=%llu\n", LD(stats.max_inflight_read));
	fprintf(f, "max_inflight_io=%llu\n", LD(stats.max_inflight_io));
	fprintf(f, "faults_sent=%llu\n", LD(stats.faults_sent));
	fprintf(f, "fault_write_errno=%lld\n",
		(long long)__atomic_load_n(&stats.fault_write_errno,
					   __ATOMIC_RELAXED));
	fprintf(f, "passthrough_opens=%llu\n", LD(stats.passthrough_opens));
	fprintf(f, "writes_cache=%llu\n", LD(stats.writes_cache));
	fprintf(f, "backing_open_errno=%lld\n",
		(long long)__atomic_load_n(&stats.backing_open_errno,
					   __ATOMIC_RELAXED));
	fprintf(f, "fault_backing_open_errno=%lld\n",
		(long long)__atomic_load_n(&stats.fault_backing_open_errno,
					   __ATOMIC_RELAXED));
	/* what INIT granted that a test's expectation depends on */
	fprintf(f, "init_direct_io_allow_mmap=%d\n",
		!!(sess.wflags & FUSE_DIRECT_IO_ALLOW_MMAP));
	fprintf(f, "nodes=%llu\n", LD(stats.nodes));
	fprintf(f, "notify_inval_sent=%llu\n", LD(stats.notify_inval_sent));
	fprintf(f, "notify_inval_failed=%llu\n",
		LD(stats.notify_inval_failed));
	fprintf(f, "mode=%s\n", mode_name(cfg.mode));
	fprintf(f, "kernel_minor=%u\n", sess.kminor);
	fprintf(f, "passthrough_granted=%d\n", sess.passthrough ? 1 : 0);
	fprintf(f, "writeback_granted=%d\n", sess.writeback ? 1 : 0);
#undef LD
	fflush(f);
	fsync(fileno(f));
	if (fclose(f) != 0 || rename(tmp, cfg.stats_path) < 0)
		fb_errmsg("cannot write %s: %s", cfg.stats_path,
			  strerror(errno));
	pthread_mutex_unlock(&stats_lock);
}

/* ---------------------------------------------------------------- */

struct worker {
	pthread_t th;
	int fd;
	char *inbuf;
	char *outbuf;
};

static int alloc_buffers(struct worker *w)
{
	w->inbuf = malloc(FB_IN_BUFSZ + 8);
	w->outbuf = malloc(sizeof(struct fuse_out_header) + FB_OUT_CAP + 4096);
	return w->inbuf && w->outbuf ? 0 : -1;
}

static void handle_one(struct worker *w, size_t n)
{
	const struct fuse_in_header *in = (const void *)w->inbuf;
	struct fb_req req;
	size_t ext;

	if (n < sizeof(*in))
		return;
	memset(w->inbuf + n, 0, 8);	/* NUL guard for names */
	memset(&req, 0, sizeof(req));
	req.fd = w->fd;
	req.in = in;
	req.arg = w->inbuf + sizeof(*in);
	req.arglen = n - sizeof(*in);
	ext = (size_t)in->total_extlen * 8;
	if (ext <= req.arglen)
		req.arglen -= ext;
	req.oh = (void *)w->outbuf;
	req.out = w->outbuf + sizeof(struct fuse_out_header);

	fb_atomic_inc(&stats.requests);
	fb_atomic_inc(&stats.ops[in->opcode < FB_MAX_OPCODE ? in->opcode :
				 FB_MAX_OPCODE]);
	fb_dispatch(&req);
}

/* returns 0 on ENODEV (unmounted), -1 on other errors */
static int read_one(struct worker *w, size_t *n)
{
	ssize_t r;

	for (;;) {
		r = read(w->fd, w->inbuf, FB_IN_BUFSZ);
		if (r >= 0) {
			*n = r;
			return 1;
		}
		if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
			continue;
		if (errno == ENODEV)
			return 0;
		fb_errmsg("read from %s: %s", cfg.dev, strerror(errno));
		return -1;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	size_t n;

	while (read_one(w, &n) > 0)
		handle_one(w, n);
	return NULL;
}

static void *signal_main(void *arg)
{
	sigset_t *set = arg;
	int sig;

	for (;;) {
		if (sigwait(set, &sig))
			continue;
		if (sig == SIGUSR2) {
			/* attributes changed behind the kernel's back */
			fb_notify_inval_all();
			write_stats();
			continue;
		}
		write_stats();
		if (sig == SIGUSR1)
			continue;
		/* SIGTERM/SIGINT/SIGHUP: detach the mount and leave */
		fb_errmsg("signal %d: unmounting %s and exiting", sig,
			  cfg.mountpoint);
		umount2(cfg.mountpoint, MNT_DETACH);
		if (cfg.pid_path)
			unlink(cfg.pid_path);
		_exit(0);
	}
	return NULL;
}

static void write_pidfile(void)
{
	FILE *f;

	if (!cfg.pid_path)
		return;
	f = fopen(cfg.pid_path, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
		fb_errmsg("cannot write %s", cfg.pid_path);
}

static int clone_fd(void)
{
	uint32_t src = sess.devfd;
	int fd = open(cfg.dev, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, FUSE_DEV_IOC_CLONE, &src) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void notify_parent(int pfd, char c)
{
	if (pfd >= 0) {
		/* a parent gone (its INIT wait ran out) is no reason to die */
		signal(SIGPIPE, SIG_IGN);
		if (write(pfd, &c, 1) < 0) {
			/* parent gone: nothing to do */
		}
		close(pfd);
	}
}

static void fail_unmount(int pfd)
{
	notify_parent(pfd, 'F');
	if (pfd < 0 && mounted_here)
		umount2(cfg.mountpoint, MNT_DETACH);
	exit(1);
}

int serve(int pfd)
{
	static sigset_t set;
	struct worker *ws;
	pthread_t sigth;
	int i, err;
	bool warned = false;
	size_t n;

	ws = calloc(cfg.threads, sizeof(*ws));
	if (!ws || alloc_buffers(&ws[0]) < 0) {
		fb_errmsg("out of memory");
		fail_unmount(pfd);
	}

	/* signals are taken by signal_main; keep them pending until then */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	/* INIT, single-threaded, on the mount's own fd */
	ws[0].fd = sess.devfd;
	while (!sess.init_done) {
		int r = read_one(&ws[0], &n);

		if (r <= 0) {
			fb_errmsg("device closed before INIT");
			fail_unmount(pfd);
		}
		handle_one(&ws[0], n);
		if (sess.init_failed)
			fail_unmount(pfd);
	}
	write_pidfile();
	notify_parent(pfd, 'K');

	err = pthread_create(&sigth, NULL, signal_main, &set);
	if (err)
		fb_errmsg("signal thread: %s", strerror(err));

	for (i = 0; i < cfg.threads; i++) {
		struct worker *w = &ws[i];

		if (i && alloc_buffers(w) < 0) {
			fb_errmsg("out of memory for thread %d", i);
			break;
		}
		w->fd = clone_fd();
		if (w->fd < 0) {
			if (!warned)
				fb_errmsg("FUSE_DEV_IOC_CLONE failed (%s); threads share one fd",
					  strerror(errno));
			warned = true;
			w->fd = sess.devfd;
		}
		err = pthread_create(&w->th, NULL, worker_main, w);
		if (err) {
			fb_errmsg("thread %d: %s", i, strerror(err));
			break;
		}
	}
	while (i-- > 0)
		pthread_join(ws[i].th, NULL);
	write_stats();
	if (cfg.pid_path)
		unlink(cfg.pid_path);
	return 0;
}
