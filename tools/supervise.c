// SPDX-License-Identifier: GPL-2.0-only
/*
 * The supervisor of `fuse-backport run` and mount.fusebp: it starts the
 * daemon, tells the command how the start went, and ends the connection and
 * removes the mount when the daemon is gone, so that no mount is left
 * hanging (accesses that wait for ever, a umount stuck on FUSE_DESTROY)
 * nor answering ENOTCONN.
 *
 *  command P                 supervisor S                  daemon D
 *  ---------                 ------------                  --------
 *  open the device (fd N)
 *  mount -t fusebp,fd=N
 *  fork ------------------>  note the mounts on the
 *                            device node; subreaper;
 *                            fork ------------------------> signals the caller
 *  close its fd N            own session, cwd /,           ignored stay ignored,
 *  wait for one report       SIGPIPE ignored               the rest default;
 *                            keeps fd N (to compare)       exec DAEMON ... /dev/fd/N
 *                            SIGINT/TERM/HUP/QUIT -> D
 *                            until the report, every second and on SIGCHLD:
 *                             - a new mount on the device node (D took
 *                               /dev/fd/N for a path and mounted there):
 *   <-- "not served", what -  unmount it, stop D's processes, end the
 *   print one line, fail      connection, report, exit
 *                            D exits:
 *                             - 0, and another process holds the device
 *                               file (the daemon went to the background):
 *   <-- "background" -------  report; stdio to /dev/null; watch:
 *   return 0                    every second and on SIGCHLD, reap;
 *                               no other holder of the device file
 *                               (kcmp: the same open file as fd N), or
 *                               SIGTERM/SIGINT: end the connection, exit
 *                             - otherwise (failed, killed, done):
 *   <-- status, what ------   end the connection, report, exit
 *   return the status
 *
 * "End the connection": abort it through the control fs (mounted in a
 * private mount namespace when it is not mounted), close fd N, and only
 * then unmount: an aborted connection answers the unmount's FUSE_DESTROY
 * (fusebpblk) at once, so umount never waits for a daemon that is gone.
 * Mounts are found by the superblock's device number, which is ours while
 * the connection lives; a mount with something mounted on top of it is
 * left in place (it answers ENOTCONN).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "fb.h"
#include "mount.h"

#ifndef KCMP_FILE
#define KCMP_FILE 0
#endif

/* Signals the caller ignored (nohup): the daemon keeps them ignored. */
static sigset_t caller_ignored;

static void note_ignored_signals(void)
{
	struct sigaction sa;
	int sig;

	sigemptyset(&caller_ignored);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGCHLD && sigaction(sig, NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN)
			sigaddset(&caller_ignored, sig);
}

static void no_op(int sig)
{
	(void)sig;
}

/*
 * The supervisor's own: SIGCHLD default (children to reap), SIGTERM always
 * received; SIGINT, SIGHUP, SIGQUIT received unless the caller ignored them.
 * All blocked, taken by sigtimedwait().
 */
static void supervisor_signals(sigset_t *watched)
{
	static const int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	struct sigaction sa;
	unsigned int i;

	sigemptyset(watched);
	memset(&sa, 0, sizeof(sa));
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		sigaddset(watched, sigs[i]);
		if (sigs[i] != SIGTERM && sigismember(&caller_ignored, sigs[i]))
			continue;
		sa.sa_handler = sigs[i] == SIGCHLD ? SIG_DFL : no_op;
		sigaction(sigs[i], &sa, NULL);
	}
	sigprocmask(SIG_BLOCK, watched, NULL);
}

static void daemon_signals(void)
{
	struct sigaction dfl, ign;
	sigset_t none;
	int sig;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, sigismember(&caller_ignored, sig) ? &ign : &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In D: become the daemon. */
static void exec_daemon(struct mount_job *j, int report_fd)
{
	struct passwd *pw;
	int flags;

	daemon_signals();
	close(report_fd);
	flags = fcntl(j->fd, F_GETFD);
	if (flags < 0 || fcntl(j->fd, F_SETFD, flags & ~FD_CLOEXEC) < 0) {
		fb_msg("descriptor %d: %s", j->fd, strerror(errno));
		_exit(RUN_FAILED);
	}
	if (j->opts.setuid_user) {
		pw = getpwnam(j->opts.setuid_user);
		if (!pw || initgroups(pw->pw_name, pw->pw_gid) < 0 ||
		    setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
			fb_msg("cannot become user %s: %s", j->opts.setuid_user,
			       pw ? strerror(errno) : "no such user");
			_exit(RUN_FAILED);
		}
	}
	execvp(j->argv[0], j->argv);
	fb_msg("cannot run %s: %s", j->argv[0], strerror(errno));
	_exit(errno == ENOENT ? RUN_NOTFOUND : RUN_NOEXEC);
}

/*
 * The next descriptor of process @pid (its /proc/PID/fd open as @fds) that
 * is open on @target, or -1 when there is none left.
 */
static int next_fd_on(DIR *fds, pid_t pid, const char *target)
{
	char path[320], link[PATH_MAX];
	struct dirent *f;
	ssize_t n;

	while ((f = readdir(fds))) {
		if (f->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, f->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, target))
			return atoi(f->d_name);
	}
	return -1;
}

/*
 * The processes other than this one and EXCEPT that hold the open device
 * file of fd N: not the same device node opened again, the same file
 * (kcmp), the one the connection belongs to. Where kcmp is missing, any
 * holder of the node counts (the safe side: the mount stays while it may
 * be served). Up to MAX pids go to PIDS; the number found (with MAX 0: 1 at
 * the first). /proc unreadable counts as one holder.
 */
static int device_holders(struct mount_job *j, pid_t except, pid_t *pids,
			  int max)
{
	pid_t self = getpid(), pid;
	struct dirent *p;
	DIR *proc, *fds;
	int found = 0, fd;
	char path[320];
	bool holds;
	long r;

	proc = opendir("/proc");
	if (!proc)
		return 1;
	while ((max == 0 ? !found : found < max) && (p = readdir(proc))) {
		pid = (pid_t)atoi(p->d_name);
		if (pid <= 0 || pid == self || pid == except)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
		fds = opendir(path);
		if (!fds)
			continue;
		holds = false;
		while (!holds && (fd = next_fd_on(fds, pid, j->device)) >= 0) {
			r = syscall(SYS_kcmp, self, pid, KCMP_FILE, j->fd, fd);
			holds = r == 0 || (r < 0 && errno != ESRCH && errno != EBADF);
		}
		closedir(fds);
		if (holds && max)
			pids[found] = pid;
		found += holds;
	}
	closedir(proc);
	return found;
}

static bool other_holder(struct mount_job *j)
{
	return device_holders(j, 0, NULL, 0) > 0;
}

/*
 * A daemon that does not understand /dev/fd/N as its mountpoint (libfuse
 * 2, or a libfuse of its own: bindfs, mergerfs) resolves the path to the
 * device node (/dev/fusebp; /dev/fuse after a fallback) and mounts the
 * kernel's -t fuse there itself; it serves that mount, never ours. Such a
 * mount is one on the device node that was not there before the daemon
 * started (the ids of those that were are noted first), while a process
 * the daemon started holds a /dev/fuse of its own (daemon_has_own_fuse()).
 */
static void note_node_mounts(struct mount_job *j)
{
	struct fb_mount *mi;
	size_t n, i;

	mi = fb_mountinfo_read(&n);
	j->node_mounts = fb_alloc((n + 1) * sizeof(*j->node_mounts));
	j->n_node_mounts = 0;
	for (i = 0; mi && i < n; i++)
		if (!strcmp(mi[i].mountpoint, j->device))
			j->node_mounts[j->n_node_mounts++] = mi[i].id;
	fb_mountinfo_free(mi, n);
}

/* "TYPE on PATH" of the topmost mount the daemon made on the node, or false. */
static bool node_mount_made(struct mount_job *j, char *what, size_t len)
{
	struct fb_mount *mi;
	bool found = false;
	size_t n, i, k;

	mi = fb_mountinfo_read(&n);
	for (i = 0; mi && i < n; i++) {
		if (strcmp(mi[i].mountpoint, j->device))
			continue;
		for (k = 0; k < j->n_node_mounts; k++)
			if (j->node_mounts[k] == mi[i].id)
				break;
		if (k < j->n_node_mounts)
			continue;
		found = true;
		if (what)
			snprintf(what, len, "%s on %s", mi[i].fstype, mi[i].mountpoint);
	}
	fb_mountinfo_free(mi, n);
	return found;
}

/* Does PID descend from this process (the subreaper of all the daemon starts)? */
static bool descends_from_us(pid_t pid)
{
	pid_t self = getpid();
	char path[64], *stat, *end;
	int depth, ppid;

	for (depth = 0; depth < 64 && pid > 1; depth++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		stat = fb_read_file(path, NULL);
		if (!stat)
			return false;
		/* pid (comm) state ppid ...: comm may hold anything but ")" last */
		end = strrchr(stat, ')');
		ppid = 0;
		if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
			ppid = 0;
		free(stat);
		if (ppid == self)
			return true;
		pid = ppid;
	}
	return false;
}

/*
 * Does a process the daemon started hold a /dev/fuse file other than our
 * fd N: the one serving a mount it made itself? This ties a new mount on
 * the device node to our daemon, not to the daemon of another `run`.
 */
static bool daemon_has_own_fuse(struct mount_job *j)
{
	pid_t self = getpid(), pid;
	bool found = false;
	struct dirent *p;
	DIR *proc, *fds;
	char path[320];
	int fd;

	proc = opendir("/proc");
	if (!proc)
		return false;
	while (!found && (p = readdir(proc))) {
		pid = (pid_t)atoi(p->d_name);
		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
		fds = opendir(path);
		if (!fds)
			continue;
		while (!found && (fd = next_fd_on(fds, pid, "/dev/fuse")) >= 0) {
			/* after a fallback our own fd N is a /dev/fuse file too */
			if (!strcmp(j->device, "/dev/fuse") &&
			    syscall(SYS_kcmp, self, pid, KCMP_FILE, j->fd, fd) == 0)
				continue;
			found = descends_from_us(pid);
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

/* Reap what has exited; is the daemon D (still) alive? */
static bool reap(pid_t d, bool daemon_alive, int *status)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		if (pid == d) {
			*status = st;
			daemon_alive = false;
		}
	return daemon_alive;
}

/*
 * The daemon serves a mount of its own instead of ours: unmount that one
 * first (a libfuse daemon then ends by itself, as after any umount, with
 * nothing lost), give the daemon's processes (the holders of fd N, and D)
 * 2 s to end, then SIGTERM, 2 s, SIGKILL.
 */
static void end_stray_daemon(struct mount_job *j, pid_t d, bool daemon_alive,
			     int *status)
{
	pid_t holders[64];
	int i, k, n = 0, sig;

	for (i = 0; i < 8 && node_mount_made(j, NULL, 0); i++)
		if (umount2(j->device, UMOUNT_NOFOLLOW) < 0)
			umount2(j->device, MNT_DETACH | UMOUNT_NOFOLLOW);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 20; i++) {
			daemon_alive = reap(d, daemon_alive, status);
			if (!daemon_alive && !device_holders(j, getppid(), NULL, 0))
				goto reaped;
			sleep_ms(100);
		}
		if (k == 2)
			break;
		sig = k == 0 ? SIGTERM : SIGKILL;
		if (daemon_alive)
			kill(d, sig);
		n = device_holders(j, getppid(), holders, ARRAY_SIZE(holders));
		n = n < (int)ARRAY_SIZE(holders) ? n : (int)ARRAY_SIZE(holders);
		for (i = 0; i < n; i++)
			kill(holders[i], sig);
	}
reaped:
	/* those killed are our children (we are their subreaper): no zombies */
	for (k = 0; k < n; k++)
		for (i = 0; i < 20 && waitpid(holders[k], NULL, WNOHANG) == 0; i++)
			sleep_ms(50);
}

static bool write_abort(const char *file)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, "1", 1) == 1;
	close(fd);
	return ok;
}

/*
 * Abort the connection through the control fs: the mounted one, else one
 * mounted in a private mount namespace (nothing visible outside).
 */
static bool abort_connection(struct mount_job *j)
{
	unsigned int major, minor;
	char *file;
	bool ok;
	pid_t c;
	int st;

	if (!j->sb_dev || sscanf(j->sb_dev, "%u:%u", &major, &minor) != 2)
		return false;
	/* the kernel names the directory after its dev_t: major << 20 | minor */
	file = fb_fmt("%s/%u/abort", j->ctl_dir, major << 20 | minor);
	ok = write_abort(file);
	if (!ok) {
		c = fork();
		if (c == 0) {
			if (unshare(CLONE_NEWNS) < 0 ||
			    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
			    mount("none", j->ctl_dir, j->ctl_type, 0, NULL) < 0)
				_exit(1);
			_exit(write_abort(file) ? 0 : 1);
		}
		ok = c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) &&
		     WEXITSTATUS(st) == 0;
	}
	free(file);
	return ok;
}

const char *end_connection(struct mount_job *j)
{
	struct fb_mount *mi;
	const char *what = NULL;
	bool covered, aborted;
	size_t n, i, k;

	if (j->fd < 0)
		return NULL;
	aborted = abort_connection(j);
	close(j->fd);
	j->fd = -1;
	if (j->fallback_note)
		unlink(j->fallback_note);
	mi = fb_mountinfo_read(&n);
	/* Last listed first: mounts on top come later. */
	for (i = n; mi && i-- > 0;) {
		if (strcmp(mi[i].sb_dev, j->sb_dev))
			continue;
		covered = false;
		for (k = 0; k < n; k++)
			if (mi[k].parent == mi[i].id &&
			    !strcmp(mi[k].mountpoint, mi[i].mountpoint))
				covered = true;
		if (covered)
			what = "left in place: something is mounted on top of it";
		else if (umount2(mi[i].mountpoint, UMOUNT_NOFOLLOW) == 0 ||
			 umount2(mi[i].mountpoint, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
			what = what ? what : "removed";
		else
			what = strerror(errno);
	}
	fb_mountinfo_free(mi, n);
	if (!what)
		what = aborted ? "connection aborted" : NULL;
	return what;
}

static void send_report(int fd, struct supervisor_report *r)
{
	if (fd >= 0 && write(fd, r, sizeof(*r)) != sizeof(*r))
		syslog(LOG_DAEMON | LOG_WARNING, "fuse-backport: lost a report");
}

static void stdio_to_null(void)
{
	int nul = open("/dev/null", O_RDWR);

	if (nul < 0)
		return;
	dup2(nul, 0);
	dup2(nul, 1);
	dup2(nul, 2);
	if (nul > 2)
		close(nul);
}

void supervise(struct mount_job *j, int report_fd)
{
	const struct timespec second = { 1, 0 };
	struct supervisor_report r;
	bool daemon_alive = true;
	int status = RUN_FAILED << 8, sig, st;
	const char *what;
	sigset_t watched;
	pid_t d, pid;

	note_ignored_signals();
	note_node_mounts(j);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	supervisor_signals(&watched);
	memset(&r, 0, sizeof(r));
	d = fork();
	if (d < 0) {
		r.status = RUN_FAILED << 8;
		what = end_connection(j);
		snprintf(r.what, sizeof(r.what), "fork: %s; mount %s",
			 strerror(errno), what ? what : "gone");
		send_report(report_fd, &r);
		_exit(1);
	}
	if (d == 0)
		exec_daemon(j, report_fd);
	/* Detach: no terminal, no cwd to keep busy, no death by SIGPIPE. */
	setsid();
	if (chdir("/") < 0)
		syslog(LOG_DAEMON | LOG_WARNING, "fuse-backport: chdir /: %m");
	signal(SIGPIPE, SIG_IGN);

	for (;;) {
		sig = sigtimedwait(&watched, NULL, &second);
		if (sig > 0 && sig != SIGCHLD) {
			if (daemon_alive) {
				kill(d, sig);
			} else if (sig == SIGTERM || sig == SIGINT) {
				what = end_connection(j);
				syslog(LOG_DAEMON | LOG_NOTICE,
				       "fuse-backport: signal %d: the mount of %s (%s) %s",
				       sig, j->mp, j->argv[0], what ? what : "was gone");
				_exit(0);
			}
			continue;
		}
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			if (pid == d) {
				status = st;
				daemon_alive = false;
				if (report_fd >= 0)
					break;
			}
		/* until the report: did the daemon mount by itself? */
		if (report_fd >= 0 &&
		    node_mount_made(j, r.what, sizeof(r.what)) &&
		    daemon_has_own_fuse(j)) {
			end_stray_daemon(j, d, daemon_alive, &status);
			end_connection(j);
			r.not_served = 1;
			r.status = RUN_FAILED << 8;
			send_report(report_fd, &r);
			syslog(LOG_DAEMON | LOG_WARNING,
			       "fuse-backport: %s mounted %s itself instead of serving %s (libfuse < 3.3?): both mounts removed",
			       j->argv[0], r.what, j->argv[j->mp_index]);
			_exit(0);
		}
		if (daemon_alive)
			continue;
		if (report_fd >= 0) {
			r.status = status;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
			    other_holder(j)) {
				/* the daemon serves from the background */
				r.background = 1;
				send_report(report_fd, &r);
				close(report_fd);
				report_fd = -1;
				stdio_to_null();
				continue;
			}
			what = end_connection(j);
			snprintf(r.what, sizeof(r.what), "%s", what ? what : "");
			send_report(report_fd, &r);
			_exit(0);
		}
		if (!other_holder(j)) {
			what = end_connection(j);
			if (what)
				syslog(LOG_DAEMON | LOG_NOTICE,
				       "fuse-backport: the daemon of %s (%s) is gone: its mount %s",
				       j->mp, j->argv[0], what);
			_exit(0);
		}
	}
}
