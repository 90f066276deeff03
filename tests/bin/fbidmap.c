// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbidmap - user namespaces with a given id mapping, for the security suite
 * (tests/suites/security.sh): run a command in one, or make an idmapped bind
 * mount with one.  util-linux 2.38 (Debian 12) has neither X-mount.idmap
 * nor maps of other ids than one's own without newuidmap.  Run as root.
 *
 * usage: fbidmap run MAP -- CMD [ARG...]
 *          CMD in a new user namespace with MAP for its uids and gids, as
 *          its uid 0 and gid 0 with no supplementary groups (all
 *          capabilities in that namespace, none outside); exits with CMD's
 *          status
 *        fbidmap mount MAP SRC DST
 *          a copy of the mount at SRC (open_tree(OPEN_TREE_CLONE)),
 *          idmapped with MAP (mount_setattr(MOUNT_ATTR_IDMAP)), attached
 *          at DST (move_mount)
 *   MAP    "INNER OUTER COUNT[,INNER OUTER COUNT...]", the lines of
 *          /proc/PID/uid_map, the same for gid_map.  For run: the
 *          namespace's id INNER+k is OUTER+k outside.  For a mount: the
 *          file system's id INNER+k shows as OUTER+k through DST; an id
 *          outside every range shows as the overflow id, and such a file
 *          cannot be written through DST.
 *
 * Exit status: 0 done; for mount, 3 when the kernel refused the idmapped
 * mount (mount_setattr failed; the errno's name is printed on stdout:
 * "refused: EINVAL"), 1 on any other error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/mount.h>

#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP	0x00100000
struct mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE		1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH	0x00000004
#endif
#ifndef SYS_open_tree
#define SYS_open_tree		428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount		429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr	442
#endif

static void die(const char *what)
{
	fprintf(stderr, "fbidmap: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

/*
 * A child in a new user namespace, mapped with MAP: it waits on a pipe;
 * returns its pid, *go the write end that lets it go on (close it).
 */
static pid_t userns_child(const char *map, int *go)
{
	char lines[512], *p;
	int ready[2], wait_go[2];
	pid_t pid;
	char c;

	if (strlen(map) >= sizeof(lines) - 1)
		die("MAP too long");
	memcpy(lines, map, strlen(map));
	strcpy(lines + strlen(map), "\n");
	for (p = lines; *p; p++)
		if (*p == ',')
			*p = '\n';
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(wait_go, O_CLOEXEC) < 0)
		die("pipe2");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(ready[0]);
		close(wait_go[1]);
		c = unshare(CLONE_NEWUSER) < 0 ? 'E' : 'K';
		if (write(ready[1], &c, 1) != 1 || c != 'K')
			_exit(1);
		close(ready[1]);
		/* the maps are written when this returns */
		if (read(wait_go[0], &c, 1) < 0)
			_exit(1);
		return 0;
	}
	close(ready[1]);
	close(wait_go[0]);
	if (read(ready[0], &c, 1) != 1 || c != 'K') {
		errno = EPERM;
		die("unshare(CLONE_NEWUSER) in the child");
	}
	close(ready[0]);
	write_file(pid, "uid_map", lines);
	write_file(pid, "gid_map", lines);
	*go = wait_go[1];
	return pid;
}

static int do_run(const char *map, char **cmd)
{
	int go, status;
	pid_t pid = userns_child(map, &go);

	if (pid == 0) {
		if (setgroups(0, NULL) < 0)
			die("setgroups");
		if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
			die("setresuid to the namespace's 0");
		execvp(cmd[0], cmd);
		die(cmd[0]);
	}
	close(go);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static int do_mount(const char *map, const char *src, const char *dst)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	char path[64];
	int go, nsfd, tree, err = 0;
	pid_t pid = userns_child(map, &go);

	if (pid == 0)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		die(path);
	close(go);
	waitpid(pid, NULL, 0);

	tree = syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | O_CLOEXEC);
	if (tree < 0)
		die("open_tree");
	attr.userns_fd = nsfd;
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr)) < 0) {
		err = errno;
		printf("refused: %s (%s)\n", strerrorname_np(err) ?: "?",
		       strerror(err));
		return 3;
	}
	if (syscall(SYS_move_mount, tree, "", AT_FDCWD, dst,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		die("move_mount");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "run") && !strcmp(argv[3], "--"))
		return do_run(argv[2], argv + 4);
	if (argc == 5 && !strcmp(argv[1], "mount"))
		return do_mount(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: fbidmap run MAP -- CMD [ARG...]\n"
		"       fbidmap mount MAP SRC DST\n");
	return 2;
}
