// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbstall: a FUSE daemon (the raw /dev/fuse protocol, no libfuse) for the
 * probe test of tests/host-tools. It mounts on DIR a directory holding the
 * character devices "fuse" (10:229) and "null" (1:3), names and attributes
 * never cached (every path walk asks again). It answers the first LOOKUP of
 * "fuse" and reads every later one without answering: whoever looks
 * /dev/fuse up again (status's throwaway-mount probe, once DIR is /dev)
 * waits in the kernel, and once SIGKILLed cannot die (the request is
 * already with the daemon) until this daemon exits.
 *
 * usage: fbstall DIR   (stays in the foreground; kill it to end)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#define BUFSIZE (1 << 20)

static int fd;

static void reply(const struct fuse_in_header *ih, int error, const void *arg,
		  size_t len)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + (error ? 0 : len),
		.error = error,
		.unique = ih->unique,
	};
	struct iovec iov[2] = {
		{ &oh, sizeof(oh) },
		{ (void *)arg, error ? 0 : len },
	};

	if (writev(fd, iov, 2) < 0 && errno != ENOENT)
		perror("fbstall: reply");
}

/* node 1: the root directory, 2: fuse (10:229), 3: null (1:3) */
static void fill_attr(unsigned long long node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->nlink = 1;
	a->blksize = 4096;
	if (node == 1) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFCHR | 0666;
		a->rdev = node == 2 ? makedev(10, 229) : makedev(1, 3);
	}
}

int main(int argc, char **argv)
{
	struct fuse_in_header *ih;
	struct fuse_init_out init;
	struct fuse_entry_out entry;
	struct fuse_attr_out attr;
	unsigned long long node;
	int fuse_lookups = 0;
	char opts[128], *buf;
	const char *name;
	ssize_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: fbstall DIR\n");
		return 2;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("fbstall: /dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("fbstall", argv[1], "fuse.fbstall", 0, opts) < 0) {
		perror("fbstall: mount");
		return 1;
	}
	buf = malloc(BUFSIZE);
	if (!buf)
		return 1;
	for (;;) {
		n = read(fd, buf, BUFSIZE);
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*ih))
			return 0;	/* unmounted or aborted */
		ih = (struct fuse_in_header *)buf;
		switch (ih->opcode) {
		case FUSE_INIT:
			memset(&init, 0, sizeof(init));
			init.major = FUSE_KERNEL_VERSION;
			init.minor = FUSE_KERNEL_MINOR_VERSION;
			init.max_write = 4096;
			reply(ih, 0, &init, sizeof(init));
			break;
		case FUSE_LOOKUP:
			name = (const char *)(ih + 1);
			node = !strcmp(name, "fuse") ? 2 : !strcmp(name, "null") ? 3 : 0;
			if (ih->nodeid != 1 || !node) {
				reply(ih, -ENOENT, NULL, 0);
				break;
			}
			/* the second look-up of "fuse" on: read, never answered */
			if (node == 2 && fuse_lookups++)
				break;
			memset(&entry, 0, sizeof(entry));
			entry.nodeid = node;
			fill_attr(node, &entry.attr);
			reply(ih, 0, &entry, sizeof(entry));
			break;
		case FUSE_GETATTR:
			memset(&attr, 0, sizeof(attr));
			fill_attr(ih->nodeid, &attr.attr);
			reply(ih, 0, &attr, sizeof(attr));
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		default:
			reply(ih, -ENOSYS, NULL, 0);
		}
	}
}
