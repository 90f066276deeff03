// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport run / mount.fusebp: mount -t fusebp over an open /dev/fusebp
 * and hand the descriptor to an unmodified libfuse 3 daemon as the
 * mountpoint /dev/fd/N (libfuse 3.3 and later serve such a descriptor
 * without mounting anything themselves).
 *
 * This file is the command: it parses the options (ours, mount(8)'s and
 * the daemon's own), checks, opens the device and mounts, then forks the
 * supervisor (supervise.c, which has the diagram) and waits for its one
 * report. A libfuse daemon given /dev/fd/N mounts nothing, so the options
 * it would have added itself (passthrough_hp: default_permissions,fsname=)
 * never reach the kernel: we mount with default_permissions unless told
 * no_default_permissions, and with fsname = the daemon's source argument.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
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
#include "mount.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef MS_LAZYTIME
#define MS_LAZYTIME (1 << 25)
#endif

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

/* For the daemon's -o, which libfuse splits at commas: \, and \\ */
static void append_escaped(char **list, const char *opt)
{
	char *e = fb_alloc(2 * strlen(opt) + 1), *o = e;

	for (; *opt; opt++) {
		if (*opt == ',' || *opt == '\\')
			*o++ = '\\';
		*o++ = *opt;
	}
	*o = '\0';
	append(list, e);
	free(e);
}

/*
 * A subtype: what the kernel shows as fusebp.SUBTYPE. Letters, digits and
 * "_-+." only: no separator of the kernel's option string nor of
 * mountinfo can come from a daemon's name or a TYPE#.
 */
static bool valid_subtype(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_-+.", *s)))
			return false;
	return true;
}

/*
 * One option, unescaped. FROM_DAEMON: it comes from the daemon's own
 * arguments, which keep it; only what concerns the mount is taken from it.
 * 0, or -1 with a message.
 */
static int parse_opt(struct mount_options *opts, const char *opt, bool from_daemon)
{
	unsigned int i;

	if (!*opt)
		return 0;
	for (i = 0; i < ARRAY_SIZE(vfs_flags); i++) {
		if (strcmp(opt, vfs_flags[i].name))
			continue;
		if (vfs_flags[i].set)
			opts->flags |= vfs_flags[i].flag;
		else
			opts->flags &= ~vfs_flags[i].flag;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(kernel_opts); i++) {
		if (!opt_matches(opt, kernel_opts[i]))
			continue;
		/* the kernel splits its option string at commas */
		if (strchr(opt, ',')) {
			fb_msg("option '%s': a comma inside a value for the kernel is refused", opt);
			return -1;
		}
		if (fb_has_prefix(opt, "user_id="))
			opts->uid_set = true;
		if (fb_has_prefix(opt, "group_id="))
			opts->gid_set = true;
		if (fb_has_prefix(opt, "blksize="))
			opts->blksize = true;
		if (!strcmp(opt, "default_permissions"))
			opts->default_permissions = true;
		append(&opts->kernel, opt);
		return 0;
	}
	if (fb_has_prefix(opt, "fsname=")) {
		free(opts->fsname);
		opts->fsname = fb_strdup(opt + 7);
		return 0;
	}
	if (fb_has_prefix(opt, "subtype=")) {
		if (!valid_subtype(opt + 8)) {
			fb_msg("option '%s': a subtype is letters, digits and _-+. only", opt);
			return -1;
		}
		free(opts->subtype);
		opts->subtype = fb_strdup(opt + 8);
		return 0;
	}
	if (from_daemon)
		return 0;
	if (!strcmp(opt, "no_default_permissions")) {
		opts->no_default_permissions = true;
		return 0;
	}
	if (!strcmp(opt, "fallback")) {
		opts->fallback = true;
		return 0;
	}
	if (!strcmp(opt, "blkdev")) {
		opts->blkdev = true;
		return 0;
	}
	if (fb_has_prefix(opt, "setuid=")) {
		free(opts->setuid_user);
		opts->setuid_user = fb_strdup(opt + 7);
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
	append_escaped(&opts->daemon, opt);
	return 0;
}

/*
 * A comma separated list, split as libfuse splits it: a backslash makes
 * the next character literal ("\\," is a comma inside an option).
 */
static int parse_opts(struct mount_options *opts, const char *list, bool from_daemon)
{
	char *buf = fb_alloc(strlen(list) + 1), *o = buf;
	const char *s;
	int ret = 0;

	for (s = list;; s++) {
		if (*s == '\\' && s[1]) {
			*o++ = *++s;
			continue;
		}
		if (*s && *s != ',') {
			*o++ = *s;
			continue;
		}
		*o = '\0';
		if (parse_opt(opts, buf, from_daemon) < 0)
			ret = -1;
		o = buf;
		if (!*s)
			break;
	}
	free(buf);
	return ret;
}

static void opts_init(struct mount_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	/* As libfuse's mounts: nosuid and nodev unless asked otherwise. */
	opts->flags = MS_NOSUID | MS_NODEV;
}

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

/* The type of the topmost mount on PATH, or NULL. */
static char *mounted_on(const char *path)
{
	struct fb_mount *mi;
	char *found = NULL;
	size_t n, i;

	mi = fb_mountinfo_read(&n);
	for (i = 0; mi && i < n; i++)
		if (!strcmp(mi[i].mountpoint, path)) {
			free(found);
			found = fb_strdup(mi[i].fstype);
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

/*
 * Is our type there? Else, with -o fallback, load it or fall back to the
 * kernel's own FUSE (one warning). 0 with j->device etc. set; -1 after a
 * message.
 */
static int choose_fuse(struct mount_job *j, const char **type)
{
	char *argv[] = { "/sbin/modprobe", "-q", FB_PREFIX, NULL };
	int st;

	j->device = "/dev/" FB_PREFIX;
	j->ctl_dir = "/sys/fs/" FB_PREFIX "/connections";
	j->ctl_type = FB_PREFIX "ctl";
	*type = j->opts.blkdev ? FB_PREFIX "blk" : FB_PREFIX;
	if (fb_fs_registered(FB_PREFIX))
		return 0;
	if (!j->opts.fallback) {
		fb_msg("the %s module is not loaded (no file system type %s, no %s): run 'modprobe %s' (as root) first, or mount with -o fallback",
		       FB_PREFIX, FB_PREFIX, j->device, FB_PREFIX);
		return -1;
	}
	/* modprobe by its path: a caller's PATH does not choose it */
	if (geteuid() == 0 && fb_exists(argv[0])) {
		free(fb_capture(argv, &st));
		if (fb_fs_registered(FB_PREFIX))
			return 0;
	}
	if (!fb_fs_registered("fuse")) {
		fb_msg("neither %s nor the kernel's own FUSE is available: cannot fall back",
		       FB_PREFIX);
		return -1;
	}
	j->device = "/dev/fuse";
	j->ctl_dir = "/sys/fs/fuse/connections";
	j->ctl_type = "fusectl";
	*type = j->opts.blkdev ? "fuseblk" : "fuse";
	fb_msg("warning: %s cannot be loaded: -o fallback: mounting %s on the kernel's own FUSE (-t %s%s%s)",
	       FB_PREFIX, j->mountpoint, *type, j->opts.subtype ? "." : "",
	       j->opts.subtype ? j->opts.subtype : "");
	syslog(LOG_DAEMON | LOG_WARNING,
	       "fuse-backport: %s cannot be loaded: -o fallback: %s mounted on the kernel's own FUSE",
	       FB_PREFIX, j->mountpoint);
	return 0;
}

/* A fallback mount: noted where status finds it. */
static void note_fallback(struct mount_job *j, const char *type)
{
	char *tmp;
	FILE *f;

	mkdir("/run/fuse-backport", 0755);
	mkdir(FB_FALLBACK_DIR, 0755);
	j->fallback_note = fb_fmt(FB_FALLBACK_DIR "/%s", j->sb_dev);
	tmp = fb_fmt("%s.tmp", j->fallback_note);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s %s %s\n", j->mp, type, j->argv[0]) < 0 ||
	    fclose(f) != 0 || rename(tmp, j->fallback_note) < 0) {
		fb_msg("cannot note the fallback mount in %s: %s", FB_FALLBACK_DIR,
		       strerror(errno));
		unlink(tmp);
		free(j->fallback_note);
		j->fallback_note = NULL;
	}
	free(tmp);
}

/* Checks, open, mount; then supervise. Returns the exit status. */
static int mount_and_run(struct mount_job *j)
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

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: fuse-backport run [-v] [-o OPTS] [-t " FB_PREFIX "[.SUBTYPE]] [-m MOUNTPOINT] -- DAEMON [ARG...]\n"
		"\n"
		"Open /dev/" FB_PREFIX ", mount -t " FB_PREFIX " on MOUNTPOINT with fd=N, rootmode,\n"
		"user_id and group_id (the caller's), then run the unmodified libfuse 3\n"
		"daemon with MOUNTPOINT replaced by /dev/fd/N. MOUNTPOINT is -m's, else\n"
		"the daemon's last argument that is not an option (nor the value of -o)\n"
		"if it exists, else the last one that does not follow an option libfuse\n"
		"does not know (which may take it as its value: sshfs's -p 2222).\n"
		"\n"
		"Mount options, from -o here or from the daemon's own -o: ro, rw, nosuid,\n"
		"suid, nodev, dev, noexec, exec, sync, async, dirsync, (no)atime,\n"
		"(no)diratime, (no)relatime, (no)strictatime, (no)lazytime, nosymfollow,\n"
		"allow_other, default_permissions, max_read=N, user_id=N, group_id=N,\n"
		"fsname=NAME (default: the daemon's source, the argument before the\n"
		"mountpoint, else its name), subtype=NAME (default: the daemon's name;\n"
		"letters, digits, _-+.), *context=; here only: blkdev with blksize=N (a\n"
		FB_PREFIX "blk mount; fsname= names the block device), setuid=USER (run the\n"
		"daemon as USER; user_id/group_id default to USER's), no_default_permissions,\n"
		"fallback (the kernel's own FUSE when " FB_PREFIX " cannot be loaded: one warning,\n"
		"status reports it degraded). Other options given here go to the daemon as\n"
		"-o. A comma inside a value for the kernel is refused.\n"
		"Defaults: nosuid,nodev,default_permissions: a daemon given /dev/fd/N\n"
		"mounts nothing, so what it would add itself is lost; the kernel checks\n"
		"permissions unless -o no_default_permissions says the daemon does.\n"
		"\n"
		"When the daemon fails, exits or dies, and no other process holds the\n"
		"device, the connection is aborted and the mount removed (MNT_DETACH if\n"
		"busy), always, as auto_unmount would. A daemon that puts itself in the\n"
		"background (libfuse without -f) makes run return 0 once it has; a\n"
		"supervisor stays (own session, in /; SIGTERM to it unmounts). With -f,\n"
		"run returns when the daemon exits.\n"
		"\n"
		"Exit status: the daemon's; 125 when run itself fails (module not loaded,\n"
		"bad mountpoint, permission), 126/127 when DAEMON cannot be run/found.\n");
}

/* libfuse's own options that take no value (fuse_parse_cmdline). */
static bool libfuse_flag(const char *a)
{
	static const char *const flags[] = {
		"-h", "--help", "-V", "--version", "-d", "-f", "-s",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++)
		if (!strcmp(a, flags[i]))
			return true;
	return fb_has_prefix(a, "--") || fb_has_prefix(a, "-o");
}

/*
 * The mountpoint among the daemon's arguments, parsed as libfuse's
 * fuse_parse_cmdline does where that can be known: "-o" takes the next
 * argument, -d -f -s -h -V none; any other option may take the next one as
 * its value (sshfs's "-p 2222"). The mountpoint is the last argument that
 * is not an option if it exists; else the last that is neither an option
 * nor right after an unknown one; "run -m MOUNTPOINT" names it. The
 * daemon's -o lists are parsed for what concerns the mount. *source gets
 * the argument before the mountpoint that is not an option (the daemon's
 * source, the fsname it would give), if any. The index; -1 when none is
 * found, -2 after a message.
 */
static int find_mountpoint(char **argv, int argc, const char *named,
			   struct mount_options *opts, int *source)
{
	int i, last = -1, plain = -1, mp = -1, bad = 0;
	bool after_unknown = false;
	struct stat sb;

	*source = -1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			bad |= parse_opts(opts, argv[++i], true);
			after_unknown = false;
			continue;
		}
		if (fb_has_prefix(argv[i], "-o")) {
			bad |= parse_opts(opts, argv[i] + 2, true);
			after_unknown = false;
			continue;
		}
		if (argv[i][0] == '-') {
			after_unknown = !libfuse_flag(argv[i]);
			continue;
		}
		if (named && !strcmp(argv[i], named) && mp < 0)
			mp = i;
		last = i;
		if (!after_unknown)
			plain = i;
		after_unknown = false;
	}
	if (bad)
		return -2;
	if (!named) {
		if (last > 0 && stat(argv[last], &sb) == 0 &&
		    (S_ISDIR(sb.st_mode) || S_ISREG(sb.st_mode)))
			mp = last;
		else
			mp = plain > 0 ? plain : last;
	}
	for (i = 1; i < mp; i++) {
		if (!strcmp(argv[i], "-o")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-')
			*source = i;
	}
	return mp;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* -t fusebp, fusebp.SUB, fusebpblk, fusebpblk.SUB: sets subtype/blkdev. */
static int parse_type(struct mount_job *j, const char *type, char **sub)
{
	size_t n = strlen(FB_PREFIX);
	const char *t = type;

	*sub = NULL;
	if (strncmp(t, FB_PREFIX, n))
		goto bad;
	t += n;
	if (fb_has_prefix(t, "blk")) {
		j->opts.blkdev = true;
		t += 3;
	}
	if (*t == '.' && valid_subtype(t + 1))
		*sub = fb_strdup(t + 1);
	else if (*t)
		goto bad;
	return 0;
bad:
	fb_msg("type '%s' is not %s[blk][.SUBTYPE] (a subtype is letters, digits and _-+. only)",
	       type, FB_PREFIX);
	return -1;
}

int fb_cmd_run(int argc, char **argv)
{
	const char *named = NULL;
	struct mount_job j;
	char *sub = NULL;
	int i, source;

	memset(&j, 0, sizeof(j));
	opts_init(&j.opts);
	j.run = true;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			run_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-v")) {
			j.opts.verbose = true;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			if (parse_opts(&j.opts, argv[++i], false) < 0)
				return RUN_FAILED;
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			if (parse_type(&j, argv[++i], &sub) < 0)
				return RUN_FAILED;
		} else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
			named = argv[++i];
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
	j.mp_index = find_mountpoint(j.argv, argc - i, named, &j.opts, &source);
	if (j.mp_index == -2)
		return RUN_FAILED;
	if (j.mp_index < 0) {
		if (named)
			fb_msg("run: %s is not among the arguments of %s", named, j.argv[0]);
		else
			fb_msg("run: no mountpoint among the arguments of %s", j.argv[0]);
		return RUN_FAILED;
	}
	j.mountpoint = j.argv[j.mp_index];
	if (!j.opts.subtype)
		j.opts.subtype = sub ? sub : fb_strdup(base_name(j.argv[0]));
	if (!valid_subtype(j.opts.subtype)) {
		fb_msg("run: '%s' cannot be a subtype (letters, digits and _-+. only): give -t %s.NAME",
		       j.opts.subtype, FB_PREFIX);
		return RUN_FAILED;
	}
	/* fsname: what the daemon would have given, its source argument */
	if (j.opts.fsname)
		j.source = j.opts.fsname;
	else if (source > 0)
		j.source = j.argv[source];
	else
		j.source = fb_strdup(base_name(j.argv[0]));
	if (j.opts.daemon) {
		fb_msg("run: -o %s: not a mount option; give the daemon its own options",
		       j.opts.daemon);
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
	opts_init(&j.opts);
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
			if (s[1] == 'o' && parse_opts(&j.opts, argv[++i], false) < 0)
				return MOUNT_USAGE;
			if (s[1] == 't')
				type = argv[++i];
		} else if (fb_has_prefix(s, "-o")) {
			if (parse_opts(&j.opts, s + 2, false) < 0)
				return MOUNT_USAGE;
		} else if (s[0] == '-' && s[1] && strspn(s + 1, "fnsv") == strlen(s + 1)) {
			fake |= strchr(s, 'f') != NULL;
			j.opts.verbose |= strchr(s, 'v') != NULL;
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
	if (j.opts.daemon) {
		j.argv[na++] = "-o";
		j.argv[na++] = j.opts.daemon;
	}
	j.mountpoint = pos[1];
	if (!j.opts.subtype)
		j.opts.subtype = fb_strdup(base_name(sub));
	if (!valid_subtype(j.opts.subtype)) {
		fb_msg("'%s' cannot be a subtype (letters, digits and _-+. only)",
		       j.opts.subtype);
		return MOUNT_USAGE;
	}
	if (j.opts.fsname)
		j.source = j.opts.fsname;
	else if (!*j.source)
		j.source = sub;
	if (fake) {
		if (j.opts.verbose)
			fb_msg("would mount %s on %s and run %s", j.source, pos[1], sub);
		return 0;
	}
	return mount_and_run(&j);
}
