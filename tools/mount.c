// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport run / mount.fusebp: mount -t fusebp over an open /dev/fusebp
 * and hand the descriptor to an unmodified libfuse 3 daemon as the
 * mountpoint /dev/fd/N (libfuse 3.3 and later serve such a descriptor
 * without mounting anything themselves).
 *
 * This file is the mount itself, for both front ends (cmd_run.c: `run`,
 * cmd_mount.c: mount.fusebp) once they have parsed the options
 * (mountopts.c): it checks, opens the device (device.c chooses it) and
 * mounts, then forks the supervisor (supervise.c, which has the diagram)
 * and waits for its one report. A libfuse daemon given /dev/fd/N mounts
 * nothing, so the options it would have added itself (passthrough_hp:
 * default_permissions,fsname=) never reach the kernel: we mount with
 * default_permissions unless told no_default_permissions, and with fsname
 * = the daemon's source argument.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fb.h"
#include "mount.h"

static int fail_status(struct mount_job *j)
{
	return j->run ? RUN_FAILED : MOUNT_FAILED;
}

/*
 * The device number of the mount of TYPE on MP that was mounted last (the
 * top one), or NULL. Called right after mount(2): the superblock is alive,
 * so its number is ours alone for as long as the connection lives.
 */
static char *find_mount_dev(const char *mp, const char *type)
{
	struct fb_mount *mi;
	char *found = NULL;
	size_t n, i;

	mi = fb_mountinfo_read(&n);
	for (i = 0; mi && i < n; i++) {
		if (strcmp(mi[i].mountpoint, mp))
			continue;
		if (strcmp(mi[i].fstype, type) &&
		    !(fb_has_prefix(mi[i].fstype, type) && mi[i].fstype[strlen(type)] == '.'))
			continue;
		free(found);
		found = fb_strdup(mi[i].sb_dev);
	}
	fb_mountinfo_free(mi, n);
	return found;
}

static volatile sig_atomic_t fwd_pid;

static void forward_signal(int sig)
{
	if (fwd_pid > 0)
		kill(fwd_pid, sig);
}

static void set_forwarding(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
}

/* Checks, open, mount; then supervise. Returns the exit status. */
int mount_and_run(struct mount_job *j)
{
	struct supervisor_report r;
	char *data, *fdpath, *minor, *covering;
	const char *type;
	struct passwd *pw;
	struct stat sb;
	int pipefd[2], err, status;
	uid_t uid = getuid();
	gid_t gid = getgid();
	ssize_t n;
	pid_t s;

	if (j->opts.blksize && !j->opts.blkdev) {
		fb_msg("blksize= needs blkdev (a " FB_PREFIX "blk mount over a block device)");
		return j->run ? RUN_FAILED : MOUNT_USAGE;
	}
	if (j->opts.setuid_user) {
		pw = getpwnam(j->opts.setuid_user);
		if (!pw) {
			fb_msg("setuid=%s: no such user", j->opts.setuid_user);
			return j->run ? RUN_FAILED : MOUNT_USAGE;
		}
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	if (stat(j->mountpoint, &sb) < 0) {
		err = errno;
		if (err == ENOTCONN)
			fb_msg("mountpoint %s is a FUSE mount whose daemon is gone: 'umount -l %s' first",
			       j->mountpoint, j->mountpoint);
		else
			fb_msg("mountpoint %s: %s", j->mountpoint, strerror(err));
		return fail_status(j);
	}
	if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
		fb_msg("mountpoint %s is neither a directory nor a regular file%s",
		       j->mountpoint, j->run ?
		       " (name it with run -m MOUNTPOINT)" : "");
		return fail_status(j);
	}
	j->mp = realpath(j->mountpoint, NULL);
	if (!j->mp) {
		err = errno;
		fb_msg("mountpoint %s: %s", j->mountpoint, strerror(err));
		return fail_status(j);
	}
	if (strpbrk(j->mp, " \t\n\\")) {
		fb_msg("mountpoint %s: white space or backslashes in its path are not supported",
		       j->mp);
		return fail_status(j);
	}
	if (choose_fuse(j, &type) < 0)
		return fail_status(j);
	j->fd = open(j->device, O_RDWR | O_CLOEXEC);
	if (j->fd < 0) {
		/* saved before any message: printing may change errno */
		err = errno;
		/* a mount on the node itself makes it nodev: EACCES */
		covering = err == EACCES || err == EPERM ? mounted_on(j->device) : NULL;
		if (err == ENOENT) {
			minor = proc_misc_minor(j->device + 5);
			fb_msg("%s is missing although its module is loaded (no devtmpfs or udev?): mknod %s c 10 %s",
			       j->device, j->device, minor ? minor : "MINOR");
		} else if (covering) {
			fb_msg("cannot open %s: %s: %s is mounted on the device node itself (left by a daemon that does not understand /dev/fd/N): umount %s first",
			       j->device, strerror(err), covering, j->device);
		} else if (err == EACCES || err == EPERM) {
			fb_msg("cannot open %s: %s: mounting -t %s needs root (there is no fusermount for it)",
			       j->device, strerror(err), type);
		} else {
			fb_msg("cannot open %s: %s", j->device, strerror(err));
		}
		return j->run ? RUN_FAILED : (err == ENOENT ? MOUNT_FAILED : MOUNT_USAGE);
	}
	data = fb_fmt("fd=%d,rootmode=%o", j->fd, sb.st_mode & S_IFMT);
	if (!j->opts.uid_set)
		append(&data, fb_fmt("user_id=%u", (unsigned int)uid));
	if (!j->opts.gid_set)
		append(&data, fb_fmt("group_id=%u", (unsigned int)gid));
	if (j->opts.subtype && *j->opts.subtype)
		append(&data, fb_fmt("subtype=%s", j->opts.subtype));
	/*
	 * The safe side: the kernel checks permissions unless told not to
	 * (what passthrough_hp, gocryptfs and others add themselves would
	 * otherwise be lost on /dev/fd/N).
	 */
	if (!j->opts.default_permissions && !j->opts.no_default_permissions)
		append(&data, "default_permissions");
	if (j->opts.kernel)
		append(&data, j->opts.kernel);
	if (j->opts.verbose)
		fb_msg("mount -t %s -o %s %s %s", type, data, j->source, j->mp);
	if (mount(j->source, j->mp, type, j->opts.flags, data) < 0) {
		err = errno;
		if (err == EPERM)
			fb_msg("mount -t %s on %s: %s: needs root (CAP_SYS_ADMIN)",
			       type, j->mp, strerror(err));
		else
			fb_msg("mount -t %s on %s (-o %s): %s", type, j->mp,
			       data, strerror(err));
		close(j->fd);
		return err == EPERM && !j->run ? MOUNT_USAGE : fail_status(j);
	}
	j->sb_dev = find_mount_dev(j->mp, type);
	if (!j->sb_dev) {
		fb_msg("mounted %s but cannot find it in /proc/self/mountinfo", j->mp);
		umount2(j->mp, MNT_DETACH | UMOUNT_NOFOLLOW);
		close(j->fd);
		return fail_status(j);
	}
	if (strcmp(j->device, "/dev/" FB_PREFIX))
		note_fallback(j, type);
	fdpath = fb_fmt("/dev/fd/%d", j->fd);
	j->argv[j->mp_index] = fdpath;
	if (j->opts.verbose)
		fb_msg("mounted %s (device %s); starting %s with mountpoint %s",
		       j->mp, j->sb_dev, j->argv[0], fdpath);

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fb_msg("pipe: %s", strerror(errno));
		end_connection(j);
		return fail_status(j);
	}
	fflush(NULL);
	s = fork();
	if (s < 0) {
		fb_msg("fork: %s", strerror(errno));
		end_connection(j);
		return fail_status(j);
	}
	if (s == 0) {
		close(pipefd[0]);
		supervise(j, pipefd[1]);
	}
	close(pipefd[1]);
	/* S keeps the device open: the connection is its to end */
	close(j->fd);
	j->fd = -1;
	fwd_pid = s;
	set_forwarding();
	memset(&r, 0, sizeof(r));
	do {
		n = read(pipefd[0], &r, sizeof(r));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n != sizeof(r)) {
		waitpid(s, NULL, 0);
		fb_msg("the supervisor of %s died: if %s is left mounted and answers ENOTCONN, umount -l it",
		       j->mp, j->mp);
		return fail_status(j);
	}
	if (r.not_served) {
		waitpid(s, NULL, 0);
		fb_msg("%s does not serve the %s it was given: it mounted %s itself (a daemon on libfuse 2 or on a libfuse of its own; /dev/fd/N needs libfuse >= 3.3); both mounts removed, the daemon stopped: use a build on libfuse >= 3.3, or mount it on the kernel's FUSE without fuse-backport",
		       j->argv[0], j->argv[j->mp_index], r.what);
		return fail_status(j);
	}
	if (r.background) {
		/* S lives on; do not wait for it */
		if (j->opts.verbose)
			fb_msg("%s serves %s in the background", j->argv[0], j->mp);
		return 0;
	}
	waitpid(s, NULL, 0);
	status = r.status;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (*r.what && j->opts.verbose)
			fb_msg("%s exited; its mount on %s was %s", j->argv[0],
			       j->mp, r.what);
		return 0;
	}
	if (WIFEXITED(status))
		fb_msg("%s exited with status %d%s%s", j->argv[0],
		       WEXITSTATUS(status), *r.what ? "; its mount: " : "", r.what);
	else
		fb_msg("%s was killed by signal %d%s%s", j->argv[0],
		       WTERMSIG(status), *r.what ? "; its mount: " : "", r.what);
	if (!j->run)
		return MOUNT_FAILED;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
