// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - backing ids: FUSE_DEV_IOC_BACKING_OPEN/CLOSE for passthrough
 * opens (one id per inode) and the open-time faults (pt-*, bo-*).
 */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static int backing_ioctl(struct fuse_backing_map *map)
{
	int r = ioctl(sess.devfd, FUSE_DEV_IOC_BACKING_OPEN, map);

	r = r < 0 ? -errno : r;
	__atomic_store_n(&stats.backing_open_errno, r < 0 ? -r : 0,
			 __ATOMIC_RELAXED);
	return r;
}

void backing_close(int id)
{
	uint32_t bid = id;

	if (id > 0 && ioctl(sess.devfd, FUSE_DEV_IOC_BACKING_CLOSE, &bid) < 0)
		fb_errmsg("BACKING_CLOSE %d: %s", id, strerror(errno));
}

/* BACKING_OPEN from a forked child that dropped CAP_SYS_ADMIN */
static int backing_open_nocap(int fd)
{
	int pfd[2], res[2] = { -EIO, 0 };
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		struct __user_cap_header_struct h = {
			.version = _LINUX_CAPABILITY_VERSION_3,
			.pid = 0,
		};
		struct __user_cap_data_struct d[2];
		struct fuse_backing_map map = { .fd = fd };
		int r;

		if (syscall(SYS_capget, &h, d) < 0) {
			res[0] = -errno;
		} else {
			d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &=
				~CAP_TO_MASK(CAP_SYS_ADMIN);
			d[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted &=
				~CAP_TO_MASK(CAP_SYS_ADMIN);
			if (syscall(SYS_capset, &h, d) < 0) {
				res[0] = -errno;
				res[1] = 1;	/* capset failed */
			} else {
				r = ioctl(sess.devfd,
					  FUSE_DEV_IOC_BACKING_OPEN, &map);
				res[0] = r < 0 ? -errno : r;
			}
		}
		if (write(pfd[1], res, sizeof(res)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], res, sizeof(res)) != sizeof(res))
		res[0] = -EIO;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	if (res[1])
		fb_errmsg("bo-nocap: capset failed: %s", strerror(-res[0]));
	__atomic_store_n(&stats.backing_open_errno,
			 res[0] < 0 ? -res[0] : 0, __ATOMIC_RELAXED);
	return res[0];
}

static int open_fifo_fd(void)
{
	char dir[] = "/tmp/fbtestd-fifo.XXXXXX";
	char path[64];
	int fd;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (mkfifo(path, 0600) < 0) {
		rmdir(dir);
		return -1;
	}
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	unlink(path);
	rmdir(dir);
	return fd;
}

/*
 * Open-time faults (passthrough/backing).  Returns 0 with *id filled for a
 * passthrough reply, or a negative errno to answer the open with.
 * *close_id tells whether the id must be closed at RELEASE.
 */
int open_fault(struct fb_req *req, const struct fb_fault *flt,
		      int fd, int *id, bool *close_id)
{
	struct fuse_backing_map map = { .fd = fd };
	int kind = fb_fault_open_kind(flt);
	int xfd = -1, r;
	char path[PATH_MAX];

	*close_id = false;
	switch (kind) {
	case FB_OF_PT_ID0:
		*id = 0;
		return 0;
	case FB_OF_PT_UNKNOWN:
		*id = 0x7ffffff0;
		return 0;
	case FB_OF_PT_CLOSED:
		r = backing_ioctl(&map);
		if (r < 0) {
			fb_fault_note(req, flt, "BACKING_OPEN", r, -r);
			return r;
		}
		backing_close(r);
		*id = r;
		return 0;
	case FB_OF_BO_DIR:
		xfd = openat(sess.rootfd, ".", O_RDONLY | O_DIRECTORY |
			     O_CLOEXEC);
		break;
	case FB_OF_BO_FIFO:
		xfd = open_fifo_fd();
		break;
	case FB_OF_BO_NESTED:
		snprintf(path, sizeof(path), "%s/fbtestd-nested",
			 cfg.backing_nested);
		xfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		break;
	case FB_OF_BO_FLAGS:
		map.flags = 1;
		break;
	case FB_OF_BO_PADDING:
		map.padding = 1;
		break;
	case FB_OF_BO_BADFD:
		map.fd = -1;
		break;
	case FB_OF_BO_NOCAP:
		break;
	default:
		return -EIO;
	}
	if ((kind == FB_OF_BO_DIR || kind == FB_OF_BO_FIFO ||
	     kind == FB_OF_BO_NESTED)) {
		if (xfd < 0) {
			r = -errno;
			fb_errmsg("fault %s: cannot open its backing object: %s",
				  fb_fault_name(flt), strerror(errno));
			return r;
		}
		map.fd = xfd;
	}
	if (kind == FB_OF_BO_NOCAP)
		r = backing_open_nocap(fd);
	else
		r = backing_ioctl(&map);
	if (xfd >= 0)
		close(xfd);
	fb_fault_note(req, flt, "BACKING_OPEN ioctl", r, r < 0 ? -r : 0);
	__atomic_store_n(&stats.fault_backing_open_errno, r < 0 ? -r : 0,
			 __ATOMIC_RELAXED);
	if (r < 0)
		return r;
	*id = r;
	*close_id = true;
	return 0;
}

/*
 * Fill @oo for a freshly opened backing fd; consumes fd on error.
 *
 * Passthrough: the backing fd (opened with the caller's open flags) is
 * registered with FUSE_DEV_IOC_BACKING_OPEN and the id is closed with
 * FUSE_DEV_IOC_BACKING_CLOSE at RELEASE, not right after the open reply:
 * the kernel resolves the id in the opener's context after our write(2)
 * returned, so an early close would race with it.  All opens of one inode
 * share one backing id, as real servers do: the kernel refuses (EIO) an open
 * whose backing file differs from the one the inode already passes through
 * to.
 */
int node_backing_get(struct fb_node *n, int fd)
{
	int r;

	pthread_mutex_lock(&node_lock);
	if (n->backing_users) {
		n->backing_users++;
		r = n->backing_id;
	} else {
		struct fuse_backing_map map = { .fd = fd };

		r = backing_ioctl(&map);
		if (r > 0) {
			n->backing_id = r;
			n->backing_users = 1;
		}
	}
	pthread_mutex_unlock(&node_lock);
	return r;
}

void node_backing_put(struct fb_node *n)
{
	int id = 0;

	pthread_mutex_lock(&node_lock);
	if (!--n->backing_users) {
		id = n->backing_id;
		n->backing_id = 0;
	}
	pthread_mutex_unlock(&node_lock);
	if (id > 0)
		backing_close(id);
	node_put(n);
}
