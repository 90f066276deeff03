// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: the protocol a FUSE implementation offers, from the
 * FUSE_INIT request it sends on a new mount.
 *
 * A child process enters a new mount namespace (and, when not root, a new
 * user namespace mapping only the caller), makes every mount private,
 * mounts a small tmpfs on /tmp there and mounts the FUSE type on a directory
 * of that tmpfs. The kernel queues FUSE_INIT before mount(2) returns; the
 * child reads it, closes the device (which aborts the connection: no request
 * is ever answered) and detaches the mount. The namespace, the tmpfs and the
 * FUSE superblock go away with the child. Nothing is mounted outside it,
 * and no module is loaded: callers probe only registered file system types.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fb.h"

#define PROBE_DIR	"/tmp"
#define PROBE_MNT	PROBE_DIR "/fuse-backport-probe"
/* The kernel refuses reads into buffers smaller than this. */
#define PROBE_BUF	(FUSE_MIN_READ_BUFFER + 4096)

struct probe_result {
	int ok;
	struct fb_init_info info;
	char why[200];
};

static void probe_fail(struct probe_result *r, const char *what, int err)
{
	r->ok = 0;
	snprintf(r->why, sizeof(r->why), "%s: %s", what, strerror(err));
}

static int write_str(const char *path, const char *s)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Enter a user namespace in which the caller is root, then a mount one. */
static int enter_userns(struct probe_result *r)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
		probe_fail(r, "needs root, or unprivileged user namespaces", errno);
		return -1;
	}
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)uid);
	if (write_str("/proc/self/setgroups", "deny") < 0 ||
	    write_str("/proc/self/uid_map", map) < 0) {
		probe_fail(r, "user namespace id map", errno);
		return -1;
	}
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)gid);
	if (write_str("/proc/self/gid_map", map) < 0) {
		probe_fail(r, "user namespace id map", errno);
		return -1;
	}
	return 0;
}

static void probe_child(const char *dev, const char *fstype,
			struct probe_result *r)
{
	struct fuse_in_header *ih;
	struct fuse_init_in *in;
	struct pollfd pfd;
	char opts[128];
	char *buf;
	ssize_t n;
	int fd;

	if (geteuid() == 0) {
		if (unshare(CLONE_NEWNS) < 0) {
			probe_fail(r, "unshare(CLONE_NEWNS)", errno);
			return;
		}
	} else if (enter_userns(r) < 0) {
		return;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		probe_fail(r, "making the private namespace's mounts private", errno);
		return;
	}
	/* Opened inside the namespace: the mount checks the opener's. */
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		probe_fail(r, dev, errno);
		return;
	}
	if (mount("fuse-backport-probe", PROBE_DIR, "tmpfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,mode=0700") < 0) {
		probe_fail(r, "tmpfs on " PROBE_DIR " in the private namespace", errno);
		return;
	}
	if (mkdir(PROBE_MNT, 0700) < 0) {
		probe_fail(r, "mkdir in the private tmpfs", errno);
		return;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0",
		 fd);
	if (mount("fuse-backport-probe", PROBE_MNT, fstype,
		  MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, opts) < 0) {
		probe_fail(r, "throwaway mount", errno);
		return;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 3000) != 1) {
		probe_fail(r, "no FUSE_INIT request within 3 s", ETIMEDOUT);
		goto out;
	}
	buf = fb_alloc(PROBE_BUF);
	n = read(fd, buf, PROBE_BUF);
	ih = (struct fuse_in_header *)buf;
	in = (struct fuse_init_in *)(ih + 1);
	if (n < 0) {
		probe_fail(r, "reading the FUSE_INIT request", errno);
	} else if ((size_t)n < sizeof(*ih) + 8 || ih->opcode != FUSE_INIT) {
		probe_fail(r, "the first request is not FUSE_INIT", EPROTO);
	} else {
		r->ok = 1;
		r->info.major = in->major;
		r->info.minor = in->minor;
		r->info.flags = in->flags;
		/* flags2 exists from 7.36 on, in requests long enough */
		if (in->major == 7 && in->minor >= 36 &&
		    (size_t)n >= sizeof(*ih) + offsetof(struct fuse_init_in, flags2) +
				 sizeof(in->flags2))
			r->info.flags |= (unsigned long long)in->flags2 << 32;
	}
	free(buf);
out:
	/* Closing the device aborts the connection; then the mount goes. */
	close(fd);
	umount2(PROBE_MNT, MNT_DETACH);
	umount2(PROBE_DIR, MNT_DETACH);
}

int fb_probe_init(const char *dev, const char *fstype,
		  struct fb_init_info *info, char *why, size_t whylen)
{
	struct probe_result r;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int pfd[2], status, i;
	ssize_t n;
	pid_t pid;

	memset(&r, 0, sizeof(r));
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		probe_child(dev, fstype, &r);
		n = write(pfd[1], &r, sizeof(r));
		_exit(n == sizeof(r) ? 0 : 1);
	}
	close(pfd[1]);
	/* Bounded: the child never waits for more than its poll. */
	for (i = 0; i < 500; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		nanosleep(&ts, NULL);
	}
	if (i == 500) {
		kill(pid, SIGKILL);
		/*
		 * Bounded again: a child stuck in the kernel (uninterruptible)
		 * does not die; status must not hang with it.
		 */
		for (i = 0; i < 100; i++) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
			nanosleep(&ts, NULL);
		}
		if (i == 100) {
			close(pfd[0]);
			snprintf(why, whylen, "probe stuck: process %d does not die (SIGKILL sent 2 s ago); left behind",
				 (int)pid);
			return -1;
		}
	}
	n = read(pfd[0], &r, sizeof(r));
	close(pfd[0]);
	if (n != sizeof(r)) {
		snprintf(why, whylen, "the probe process died");
		return -1;
	}
	if (!r.ok) {
		snprintf(why, whylen, "%s", r.why);
		return -1;
	}
	*info = r.info;
	return 0;
}
