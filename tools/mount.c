// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport run / mount.fusebp: mount -t fusebp over an open /dev/fusebp
 * and hand the descriptor to an unmodified libfuse 3 daemon as the
 * mountpoint /dev/fd/N (libfuse 3.3 and later serve such a descriptor
 * without mounting anything themselves).
 *
 * Processes: the command (P) checks everything, opens the device, mounts,
 * and forks a supervisor (S), which becomes a child subreaper and starts the
 * daemon (D). Neither P nor S keeps the device open, so the connection dies
 * with the daemon. When D exits and left no process (it failed, or it ran in
 * the foreground and is done), S removes the mount if it is still there and
 * reports D's status to P. When D exits 0 and left processes (a daemon that
 * put itself in the background: they are now S's children), S reports
 * success, P returns, and S waits for the last of them to remove the mount
 * the daemon leaves behind (MNT_DETACH: a dead FUSE mount only answers
 * ENOTCONN). The mount is identified by its mount id, and left alone when
 * something is mounted on top of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "fb.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef MS_LAZYTIME
#define MS_LAZYTIME (1 << 25)
#endif

/* Exit statuses of `run` for its own failures (those of timeout(1)). */
#define RUN_FAILED	125
#define RUN_NOEXEC	126
#define RUN_NOTFOUND	127
/* mount(8)'s: bad usage or permissions, and mount failure. */
#define MOUNT_USAGE	1
#define MOUNT_FAILED	32

struct mnt_opts {
	unsigned long flags;
	char *kernel;		/* options for the kernel, comma separated */
	char *daemon;		/* options for the daemon (-o) */
	char *fsname;
	char *subtype;
	char *setuid_user;
	bool blkdev;
	bool blksize;
	bool uid_set, gid_set;
	bool verbose;
};

static const struct {
	const char *name;
	unsigned long flag;
	bool set;
} vfs_flags[] = {
	{ "ro", MS_RDONLY, true },		{ "rw", MS_RDONLY, false },
	{ "nosuid", MS_NOSUID, true },		{ "suid", MS_NOSUID, false },
	{ "nodev", MS_NODEV, true },		{ "dev", MS_NODEV, false },
	{ "noexec", MS_NOEXEC, true },		{ "exec", MS_NOEXEC, false },
	{ "sync", MS_SYNCHRONOUS, true },	{ "async", MS_SYNCHRONOUS, false },
	{ "dirsync", MS_DIRSYNC, true },
	{ "noatime", MS_NOATIME, true },	{ "atime", MS_NOATIME, false },
	{ "nodiratime", MS_NODIRATIME, true },	{ "diratime", MS_NODIRATIME, false },
	{ "relatime", MS_RELATIME, true },	{ "norelatime", MS_RELATIME, false },
	{ "strictatime", MS_STRICTATIME, true },
	{ "nostrictatime", MS_STRICTATIME, false },
	{ "lazytime", MS_LAZYTIME, true },	{ "nolazytime", MS_LAZYTIME, false },
	{ "nosymfollow", MS_NOSYMFOLLOW, true },
};

/* Options the kernel's FUSE parses, passed on as they are. */
static const char *const kernel_opts[] = {
	"allow_other", "default_permissions", "max_read=", "blksize=",
	"user_id=", "group_id=", "context=", "fscontext=", "defcontext=",
	"rootcontext=",
};

/* Options for mount(8) and fstab only: dropped. */
static const char *const ignored_opts[] = {
	"defaults", "auto", "noauto", "user", "nouser", "users", "owner",
	"group", "nofail", "_netdev", "auto_unmount", "x-", "comment=",
};

static bool opt_matches(const char *opt, const char *pat)
{
	size_t n = strlen(pat);

	if (pat[n - 1] == '=' || pat[n - 1] == '-')
		return strncmp(opt, pat, n) == 0;
	return strcmp(opt, pat) == 0;
}

static void append(char **list, const char *opt)
{
	char *n = *list ? fb_fmt("%s,%s", *list, opt) : fb_strdup(opt);

	free(*list);
	*list = n;
}

/*
 * One option. FROM_DAEMON: it comes from the daemon's own arguments, which
 * keep it; only what concerns the mount is taken from it. 0, or -1 with a
 * message.
 */
static int parse_opt(struct mnt_opts *mo, const char *opt, bool from_daemon)
{
	unsigned int i;

	if (!*opt)
		return 0;
	for (i = 0; i < ARRAY_SIZE(vfs_flags); i++) {
		if (strcmp(opt, vfs_flags[i].name))
			continue;
		if (vfs_flags[i].set)
			mo->flags |= vfs_flags[i].flag;
		else
			mo->flags &= ~vfs_flags[i].flag;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(kernel_opts); i++) {
		if (!opt_matches(opt, kernel_opts[i]))
			continue;
		if (fb_has_prefix(opt, "user_id="))
			mo->uid_set = true;
		if (fb_has_prefix(opt, "group_id="))
			mo->gid_set = true;
		if (fb_has_prefix(opt, "blksize="))
			mo->blksize = true;
		append(&mo->kernel, opt);
		return 0;
	}
	if (fb_has_prefix(opt, "fsname=")) {
		free(mo->fsname);
		mo->fsname = fb_strdup(opt + 7);
		return 0;
	}
	if (fb_has_prefix(opt, "subtype=")) {
		free(mo->subtype);
		mo->subtype = fb_strdup(opt + 8);
		return 0;
	}
	if (from_daemon)
		return 0;
	if (!strcmp(opt, "blkdev")) {
		mo->blkdev = true;
		return 0;
	}
	if (fb_has_prefix(opt, "setuid=")) {
		free(mo->setuid_user);
		mo->setuid_user = fb_strdup(opt + 7);
		return 0;
	}
	if (fb_has_prefix(opt, "fd=") || fb_has_prefix(opt, "rootmode=")) {
		fb_msg("option '%s' is set by this helper, not by hand", opt);
		return -1;
	}
	if (!strcmp(opt, "drop_privileges")) {
		fb_msg("option drop_privileges is not supported: the daemon gets a mounted descriptor anyway; use setuid=USER to run it unprivileged");
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(ignored_opts); i++)
		if (opt_matches(opt, ignored_opts[i]))
			return 0;
	/* The rest is the daemon's business (libfuse or its own options). */
	append(&mo->daemon, opt);
	return 0;
}

/* A comma separated list; "\," is a comma inside an option. */
static int parse_opts(struct mnt_opts *mo, const char *list, bool from_daemon)
{
	char *buf = fb_alloc(strlen(list) + 1), *o = buf;
	const char *s;
	int ret = 0;

	for (s = list;; s++) {
		if (*s == '\\' && s[1] == ',' && !from_daemon) {
			*o++ = *++s;
			continue;
		}
		if (*s && *s != ',') {
			*o++ = *s;
			continue;
		}
		*o = '\0';
		if (parse_opt(mo, buf, from_daemon) < 0)
			ret = -1;
		o = buf;
		if (!*s)
			break;
	}
	free(buf);
	return ret;
}

static void opts_init(struct mnt_opts *mo)
{
	memset(mo, 0, sizeof(*mo));
	/* As libfuse's mounts: nosuid and nodev unless asked otherwise. */
	mo->flags = MS_NOSUID | MS_NODEV;
}

struct mount_job {
	struct mnt_opts mo;
	char *mountpoint;	/* as given */
	char *mp;		/* resolved */
	char *fstype;		/* fusebp, fusebp.SUBTYPE in messages */
	char *source;
	char **argv;		/* daemon command; argv[mp_index] is replaced */
	int mp_index;
	int fd;
	char *dev;		/* major:minor of the superblock */
	bool run;		/* `run` (exit statuses of timeout) or mount */
};

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
	char *mi = fb_read_file("/proc/self/mountinfo", NULL);
	char *line, *save = NULL, point[PATH_MAX + 1], fstype[256], dev[64];
	char *found = NULL;
	char *sep;

	if (!mi)
		return NULL;
	for (line = strtok_r(mi, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sep = strstr(line, " - ");
		if (!sep ||
		    sscanf(line, "%*d %*d %63s %*s %4096s", dev, point) != 2 ||
		    sscanf(sep + 3, "%255s", fstype) != 1)
			continue;
		/* mount_and_run() refuses paths mountinfo would escape */
		if (strcmp(point, mp))
			continue;
		if (strcmp(fstype, type) &&
		    !(fb_has_prefix(fstype, type) && fstype[strlen(type)] == '.'))
			continue;
		free(found);
		found = fb_strdup(dev);
	}
	free(mi);
	return found;
}

/* Is the connection (our copy of the device) still alive? */
static bool connection_alive(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) >= 0 && !(p.revents & (POLLERR | POLLNVAL));
}

/*
 * After the daemon: while the connection lives, its superblock does, and
 * every mount of that device number is ours: remove them (the top ones
 * only: a mount on top of ours is left alone), then close our copy of the
 * device, which aborts the connection (anything left answers ENOTCONN).
 * Returns what happened, or NULL when there was nothing to do.
 */
static const char *cleanup_mount(struct mount_job *j)
{
	char *mi, *line, *save = NULL, point[PATH_MAX + 1], dev[64];
	int ids[64], n = 0, i, id, parent;
	const char *what = NULL;
	char *points[64];
	bool covered;

	if (j->fd < 0)
		return NULL;
	if (!connection_alive(j->fd)) {
		close(j->fd);
		j->fd = -1;
		return NULL;
	}
	mi = fb_read_file("/proc/self/mountinfo", NULL);
	for (line = mi ? strtok_r(mi, "\n", &save) : NULL; line && n < 64;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d %*d %63s %*s %4096s", &id, dev, point) != 3 ||
		    strcmp(dev, j->dev))
			continue;
		ids[n] = id;
		points[n++] = fb_strdup(point);
	}
	free(mi);
	/* Last listed first: mounts on top come later. */
	for (i = n - 1; i >= 0; i--) {
		covered = false;
		mi = fb_read_file("/proc/self/mountinfo", NULL);
		save = NULL;
		for (line = mi ? strtok_r(mi, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			if (sscanf(line, "%*d %d %*s %*s %4096s", &parent, point) == 2 &&
			    parent == ids[i] && !strcmp(point, points[i]))
				covered = true;
		free(mi);
		if (covered)
			what = "left in place: something is mounted on top of it";
		else if (umount2(points[i], UMOUNT_NOFOLLOW) == 0 ||
			 umount2(points[i], MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
			what = what ? what : "removed";
		else
			what = strerror(errno);
		free(points[i]);
	}
	close(j->fd);
	j->fd = -1;
	return what ? what : "connection aborted";
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

static void reset_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In D: become the daemon. */
static void exec_daemon(struct mount_job *j, int report)
{
	struct passwd *pw;
	int flags;

	reset_signals();
	close(report);
	flags = fcntl(j->fd, F_GETFD);
	if (flags < 0 || fcntl(j->fd, F_SETFD, flags & ~FD_CLOEXEC) < 0) {
		fb_msg("descriptor %d: %s", j->fd, strerror(errno));
		_exit(RUN_FAILED);
	}
	if (j->mo.setuid_user) {
		pw = getpwnam(j->mo.setuid_user);
		if (!pw || initgroups(pw->pw_name, pw->pw_gid) < 0 ||
		    setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
			fb_msg("cannot become user %s: %s", j->mo.setuid_user,
			       pw ? strerror(errno) : "no such user");
			_exit(RUN_FAILED);
		}
	}
	execvp(j->argv[0], j->argv);
	fb_msg("cannot run %s: %s", j->argv[0], strerror(errno));
	_exit(errno == ENOENT ? RUN_NOTFOUND : RUN_NOEXEC);
}

struct report {
	int status;		/* D's wait status */
	int background;		/* D left processes: the daemon runs on */
	char what[120];		/* what happened to the mount */
};

static void send_report(int fd, struct report *r)
{
	if (fd >= 0 && write(fd, r, sizeof(*r)) != sizeof(*r))
		syslog(LOG_DAEMON | LOG_WARNING, "fuse-backport: lost a report");
}

/* S: start D, report, reap until the last process is gone, clean up. */
static void supervise(struct mount_job *j, int report)
{
	struct report r;
	const char *what;
	int status = RUN_FAILED << 8, nul;
	pid_t d, pid;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	d = fork();
	if (d < 0) {
		memset(&r, 0, sizeof(r));
		r.status = RUN_FAILED << 8;
		what = cleanup_mount(j);
		snprintf(r.what, sizeof(r.what), "fork: %s; mount %s",
			 strerror(errno), what ? what : "gone");
		send_report(report, &r);
		_exit(1);
	}
	if (d == 0)
		exec_daemon(j, report);
	fwd_pid = d;
	set_forwarding();
	while ((pid = waitpid(-1, &status, 0)) != d)
		if (pid < 0 && errno != EINTR)
			break;
	fwd_pid = 0;
	memset(&r, 0, sizeof(r));
	r.status = status;
	/* Did D leave processes behind (a daemon in the background)? */
	pid = waitpid(-1, NULL, WNOHANG);
	r.background = pid == 0 || pid > 0;
	if (r.background && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		send_report(report, &r);
		close(report);
		report = -1;
		nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
			if (nul > 2)
				close(nul);
		}
		while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
			;
		what = cleanup_mount(j);
		if (what)
			syslog(LOG_DAEMON | LOG_NOTICE,
			       "fuse-backport: the daemon of %s (%s) is gone: its mount %s",
			       j->mp, j->argv[0], what);
		_exit(0);
	}
	what = cleanup_mount(j);
	snprintf(r.what, sizeof(r.what), "%s", what ? what : "");
	send_report(report, &r);
	/* A daemon that failed but left processes: they are reaped here. */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	_exit(0);
}

static char *proc_misc_minor(const char *name)
{
	char *s = fb_read_file("/proc/misc", NULL), *line, *save = NULL;
	char n[64], *res = NULL;
	int minor;

	if (!s)
		return NULL;
	for (line = strtok_r(s, "\n", &save); line && !res;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %63s", &minor, n) == 2 && !strcmp(n, name))
			res = fb_fmt("%d", minor);
	free(s);
	return res;
}

static bool fs_registered(const char *name)
{
	char *s = fb_read_file("/proc/filesystems", NULL), *line, *save = NULL;
	bool found = false;
	char *f;

	if (!s)
		return false;
	for (line = strtok_r(s, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		f = strrchr(line, '\t');
		found = !strcmp(f ? f + 1 : line, name);
	}
	free(s);
	return found;
}

/* Checks, open, mount; then supervise. Returns the exit status. */
static int mount_and_run(struct mount_job *j)
{
	const char *type = j->mo.blkdev ? FB_PREFIX "blk" : FB_PREFIX;
	const char *dev = "/dev/" FB_PREFIX;
	char *data, *fdpath, *minor;
	struct passwd *pw;
	struct report r;
	struct stat sb;
	int pipefd[2], st, status;
	uid_t uid = getuid();
	gid_t gid = getgid();
	ssize_t n;
	pid_t s;

	if (j->mo.blksize && !j->mo.blkdev) {
		fb_msg("blksize= needs blkdev (a " FB_PREFIX "blk mount over a block device)");
		return j->run ? RUN_FAILED : MOUNT_USAGE;
	}
	if (j->mo.setuid_user) {
		pw = getpwnam(j->mo.setuid_user);
		if (!pw) {
			fb_msg("setuid=%s: no such user", j->mo.setuid_user);
			return j->run ? RUN_FAILED : MOUNT_USAGE;
		}
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	if (!fs_registered(FB_PREFIX)) {
		fb_msg("the %s module is not loaded (no file system type %s, no %s): run 'modprobe %s' (as root) first",
		       FB_PREFIX, FB_PREFIX, dev, FB_PREFIX);
		return fail_status(j);
	}
	if (stat(j->mountpoint, &sb) < 0) {
		if (errno == ENOTCONN)
			fb_msg("mountpoint %s is a FUSE mount whose daemon is gone: 'umount -l %s' first",
			       j->mountpoint, j->mountpoint);
		else
			fb_msg("mountpoint %s: %s", j->mountpoint, strerror(errno));
		return fail_status(j);
	}
	if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
		fb_msg("mountpoint %s is neither a directory nor a regular file%s",
		       j->mountpoint, j->run ?
		       " (run takes the daemon's last non-option argument as the mountpoint)" : "");
		return fail_status(j);
	}
	j->mp = realpath(j->mountpoint, NULL);
	if (!j->mp) {
		fb_msg("mountpoint %s: %s", j->mountpoint, strerror(errno));
		return fail_status(j);
	}
	if (strpbrk(j->mp, " \t\n\\")) {
		fb_msg("mountpoint %s: white space or backslashes in its path are not supported",
		       j->mp);
		return fail_status(j);
	}
	j->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (j->fd < 0) {
		if (errno == ENOENT) {
			minor = proc_misc_minor(FB_PREFIX);
			fb_msg("%s is missing although %s is loaded (no devtmpfs or udev?): mknod %s c 10 %s",
			       dev, FB_PREFIX, dev, minor ? minor : "MINOR");
		} else if (errno == EACCES || errno == EPERM) {
			fb_msg("cannot open %s: %s: mounting -t %s needs root (there is no fusermount for it)",
			       dev, strerror(errno), FB_PREFIX);
		} else {
			fb_msg("cannot open %s: %s", dev, strerror(errno));
		}
		return j->run ? RUN_FAILED : (errno == ENOENT ? MOUNT_FAILED : MOUNT_USAGE);
	}
	data = fb_fmt("fd=%d,rootmode=%o", j->fd, sb.st_mode & S_IFMT);
	if (!j->mo.uid_set)
		append(&data, fb_fmt("user_id=%u", (unsigned int)uid));
	if (!j->mo.gid_set)
		append(&data, fb_fmt("group_id=%u", (unsigned int)gid));
	if (j->mo.subtype && *j->mo.subtype)
		append(&data, fb_fmt("subtype=%s", j->mo.subtype));
	if (j->mo.kernel)
		append(&data, j->mo.kernel);
	if (j->mo.verbose)
		fb_msg("mount -t %s -o %s %s %s", type, data, j->source, j->mp);
	if (mount(j->source, j->mp, type, j->mo.flags, data) < 0) {
		st = errno;
		if (st == EPERM)
			fb_msg("mount -t %s on %s: %s: needs root (CAP_SYS_ADMIN)",
			       type, j->mp, strerror(st));
		else
			fb_msg("mount -t %s on %s (-o %s): %s", type, j->mp,
			       data, strerror(st));
		close(j->fd);
		return st == EPERM && !j->run ? MOUNT_USAGE : fail_status(j);
	}
	j->dev = find_mount_dev(j->mp, type);
	if (!j->dev) {
		fb_msg("mounted %s but cannot find it in /proc/self/mountinfo", j->mp);
		umount2(j->mp, MNT_DETACH | UMOUNT_NOFOLLOW);
		close(j->fd);
		return fail_status(j);
	}
	fdpath = fb_fmt("/dev/fd/%d", j->fd);
	j->argv[j->mp_index] = fdpath;
	if (j->mo.verbose)
		fb_msg("mounted %s (device %s); starting %s with mountpoint %s",
		       j->mp, j->dev, j->argv[0], fdpath);

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fb_msg("pipe: %s", strerror(errno));
		cleanup_mount(j);
		return fail_status(j);
	}
	fflush(NULL);
	s = fork();
	if (s < 0) {
		fb_msg("fork: %s", strerror(errno));
		cleanup_mount(j);
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
	if (r.background) {
		/* S lives on; do not wait for it */
		if (j->mo.verbose)
			fb_msg("%s serves %s in the background", j->argv[0], j->mp);
		return 0;
	}
	waitpid(s, NULL, 0);
	status = r.status;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (*r.what && j->mo.verbose)
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

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: fuse-backport run [-v] [-o OPTS] [-t " FB_PREFIX "[.SUBTYPE]] -- DAEMON [ARG...] MOUNTPOINT\n"
		"\n"
		"Open /dev/" FB_PREFIX ", mount -t " FB_PREFIX " on MOUNTPOINT with fd=N, rootmode,\n"
		"user_id and group_id (the caller's), then run the unmodified libfuse 3\n"
		"daemon with MOUNTPOINT replaced by /dev/fd/N. MOUNTPOINT is the daemon's\n"
		"last argument that is not an option (nor the value of -o).\n"
		"\n"
		"Mount options, from -o here or from the daemon's own -o: ro, rw, nosuid,\n"
		"suid, nodev, dev, noexec, exec, sync, async, dirsync, (no)atime,\n"
		"(no)diratime, (no)relatime, (no)strictatime, (no)lazytime, nosymfollow,\n"
		"allow_other, default_permissions, max_read=N, user_id=N, group_id=N,\n"
		"fsname=NAME (default: the daemon's name), subtype=NAME (default: the\n"
		"daemon's name), *context=; here only: blkdev with blksize=N (a " FB_PREFIX "blk\n"
		"mount; fsname= names the block device), setuid=USER (run the daemon as\n"
		"USER; user_id/group_id default to USER's). Other options given here go to\n"
		"the daemon as -o. Defaults: nosuid,nodev.\n"
		"\n"
		"When the daemon fails or exits, the mount is removed (MNT_DETACH if\n"
		"busy). A daemon that puts itself in the background (libfuse without -f)\n"
		"makes run return 0 once it has; a process stays to remove the mount when\n"
		"the daemon goes. With -f, run returns when the daemon exits.\n"
		"\n"
		"Exit status: the daemon's; 125 when run itself fails (module not loaded,\n"
		"bad mountpoint, permission), 126/127 when DAEMON cannot be run/found.\n");
}

/* The daemon's last non-option argument (not a -o value), or -1. */
static int find_mountpoint(char **argv, int argc, struct mnt_opts *mo)
{
	int i, mp = -1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			parse_opts(mo, argv[++i], true);
			continue;
		}
		if (fb_has_prefix(argv[i], "-o")) {
			parse_opts(mo, argv[i] + 2, true);
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		mp = i;
	}
	return mp;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* -t fusebp, fusebp.SUB, fusebpblk, fusebpblk.SUB: sets subtype/blkdev. */
static int parse_type(struct mount_job *j, const char *t, char **sub)
{
	size_t n = strlen(FB_PREFIX);

	*sub = NULL;
	if (strncmp(t, FB_PREFIX, n))
		goto bad;
	t += n;
	if (fb_has_prefix(t, "blk")) {
		j->mo.blkdev = true;
		t += 3;
	}
	if (*t == '.' && t[1])
		*sub = fb_strdup(t + 1);
	else if (*t)
		goto bad;
	return 0;
bad:
	fb_msg("type '%s' is not %s[blk][.SUBTYPE]", t, FB_PREFIX);
	return -1;
}

int fb_cmd_run(int argc, char **argv)
{
	struct mount_job j;
	char *sub = NULL;
	int i;

	memset(&j, 0, sizeof(j));
	opts_init(&j.mo);
	j.run = true;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			run_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-v")) {
			j.mo.verbose = true;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			if (parse_opts(&j.mo, argv[++i], false) < 0)
				return RUN_FAILED;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			if (parse_type(&j, argv[++i], &sub) < 0)
				return RUN_FAILED;
		} else if (argv[i][0] == '-') {
			fb_msg("run: unknown option '%s'", argv[i]);
			run_usage(stderr);
			return RUN_FAILED;
		} else {
			break;
		}
	}
	if (i >= argc) {
		run_usage(stderr);
		return RUN_FAILED;
	}
	j.argv = &argv[i];
	j.mp_index = find_mountpoint(j.argv, argc - i, &j.mo);
	if (j.mp_index < 0) {
		fb_msg("run: no mountpoint among the arguments of %s", j.argv[0]);
		return RUN_FAILED;
	}
	j.mountpoint = j.argv[j.mp_index];
	if (!j.mo.subtype)
		j.mo.subtype = sub ? sub : fb_strdup(base_name(j.argv[0]));
	j.source = j.mo.fsname ? j.mo.fsname : fb_strdup(base_name(j.argv[0]));
	if (j.mo.daemon) {
		fb_msg("run: -o %s: not a mount option; give the daemon its own options",
		       j.mo.daemon);
		return RUN_FAILED;
	}
	return mount_and_run(&j);
}

static void mount_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s TYPE#[SOURCE] MOUNTPOINT [-o OPTS]\n"
		"       %s SOURCE MOUNTPOINT -t " FB_PREFIX ".TYPE [-o OPTS]\n"
		"       mount.%s.TYPE SOURCE MOUNTPOINT [-o OPTS]\n"
		"\n"
		"The mount helper of -t %s, called by mount(8) (fstab: 'user@host: /mnt\n"
		FB_PREFIX ".sshfs defaults 0 0', or 'sshfs#user@host: /mnt " FB_PREFIX " ...').\n"
		"Mounts as 'fuse-backport run' does, then runs: TYPE [SOURCE] /dev/fd/N\n"
		"[-o OPTS the kernel does not take]. mount(8)'s own options (defaults,\n"
		"noauto, nofail, _netdev, user, users, x-*, comment=) are dropped.\n"
		"The daemon must put itself in the background (no -f). fsname defaults to\n"
		"SOURCE (else TYPE), subtype to TYPE's name. Options: see\n"
		"'fuse-backport run --help'. -f: check only, -v: verbose, -n, -s: ignored.\n"
		"\n"
		"Exit status: 0, 1 (bad usage or permission), 32 (mount failed, or the\n"
		"daemon failed: then nothing stays mounted).\n",
		prog, prog, FB_PREFIX, FB_PREFIX);
}

int fb_cmd_mount(int argc, char **argv, const char *progname)
{
	char *type = NULL, *sub = NULL, *hash, *pos[2] = { NULL, NULL };
	const char *pname = base_name(progname);
	bool fake = false;
	struct mount_job j;
	int i, npos = 0, na = 0;
	char *s;

	memset(&j, 0, sizeof(j));
	opts_init(&j.mo);
	/* mount(8) runs helpers without PATH: look where a shell would */
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 0);
	for (i = 1; i < argc; i++) {
		s = argv[i];
		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			mount_usage(stdout, pname);
			return 0;
		} else if (!strcmp(s, "-o") || !strcmp(s, "-t") || !strcmp(s, "-N")) {
			if (i + 1 >= argc) {
				fb_msg("%s needs a value", s);
				return MOUNT_USAGE;
			}
			if (s[1] == 'N') {
				fb_msg("-N (another mount namespace) is not supported");
				return MOUNT_USAGE;
			}
			if (s[1] == 'o' && parse_opts(&j.mo, argv[++i], false) < 0)
				return MOUNT_USAGE;
			if (s[1] == 't')
				type = argv[++i];
		} else if (fb_has_prefix(s, "-o")) {
			if (parse_opts(&j.mo, s + 2, false) < 0)
				return MOUNT_USAGE;
		} else if (s[0] == '-' && s[1] && strspn(s + 1, "fnsv") == strlen(s + 1)) {
			fake |= strchr(s, 'f') != NULL;
			j.mo.verbose |= strchr(s, 'v') != NULL;
		} else if (s[0] == '-') {
			fb_msg("unknown option '%s'", s);
			return MOUNT_USAGE;
		} else if (npos < 2) {
			pos[npos++] = s;
		} else {
			fb_msg("unexpected argument '%s'", s);
			return MOUNT_USAGE;
		}
	}
	if (npos < 2) {
		mount_usage(stderr, pname);
		return MOUNT_USAGE;
	}
	/* The daemon: mount.fusebp.TYPE, -t fusebp.TYPE, or TYPE#SOURCE. */
	s = fb_fmt("mount.%s.", FB_PREFIX);
	if (fb_has_prefix(pname, s) && pname[strlen(s)])
		sub = fb_strdup(pname + strlen(s));
	free(s);
	if (type) {
		s = NULL;
		if (parse_type(&j, type, &s) < 0)
			return MOUNT_USAGE;
		if (!sub)
			sub = s;
	}
	j.source = pos[0];
	if (!sub) {
		hash = strchr(pos[0], '#');
		if (!hash || hash == pos[0]) {
			fb_msg("which daemon? Give TYPE#SOURCE, -t %s.TYPE or call mount.%s.TYPE",
			       FB_PREFIX, FB_PREFIX);
			return MOUNT_USAGE;
		}
		sub = fb_fmt("%.*s", (int)(hash - pos[0]), pos[0]);
		j.source = hash + 1;
	}
	j.argv = fb_alloc(6 * sizeof(char *));
	j.argv[na++] = sub;
	if (*j.source)
		j.argv[na++] = j.source;
	j.mp_index = na;
	j.argv[na++] = pos[1];
	if (j.mo.daemon) {
		j.argv[na++] = "-o";
		j.argv[na++] = j.mo.daemon;
	}
	j.mountpoint = pos[1];
	if (!j.mo.subtype)
		j.mo.subtype = fb_strdup(base_name(sub));
	if (j.mo.fsname)
		j.source = j.mo.fsname;
	else if (!*j.source)
		j.source = sub;
	if (fake) {
		if (j.mo.verbose)
			fb_msg("would mount %s on %s and run %s", j.source, pos[1], sub);
		return 0;
	}
	return mount_and_run(&j);
}
