// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - protocol-level FUSE test daemon for the fuse-backport tests.
 *
 * Mounts a FUSE file system with mount(2) on a FUSE character device and
 * serves a backing directory tree faithfully, speaking the FUSE protocol
 * directly (no libfuse).  It can run in page-cache, direct-I/O or
 * passthrough mode, counts request concurrency and can send a catalogue
 * of malformed replies (--list-faults) to exercise the kernel's checks.
 *
 * Setup/teardown: mount, fork; the parent exits 0 once INIT is answered
 * (1 on any setup error, with nothing left mounted).  The child serves
 * until the file system is unmounted (read(2) returns ENODEV), then
 * writes the statistics file and exits 0.  When no INIT request comes
 * within --init-timeout seconds of a mount(2) that returned 0, the parent
 * says so in one line, writes the waiting child's pid to --pidfile and
 * exits 3 (FB_EXIT_NOINIT), leaving the mount and the child for the
 * caller to inspect and unmount (the child exits once it is unmounted).
 */
#include "fbtestd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

struct fb_config cfg = {
	.dev = "/dev/fuse",
	.fstype = "fuse",
	.source = "fbtestd",
	.mode = FB_MODE_CACHED,
	.threads = 4,
	.attr_timeout = 1,
	.mode_uid = -1,
	.init_timeout = 60,
};
struct fb_session sess = { .devfd = -1, .rootfd = -1 };
struct fb_stats stats;

static FILE *logf;
bool mounted_here;
bool fake_suid_ended;

static const char *const opnames[FB_MAX_OPCODE] = {
	[FUSE_LOOKUP] = "LOOKUP",
	[FUSE_FORGET] = "FORGET",
	[FUSE_GETATTR] = "GETATTR",
	[FUSE_SETATTR] = "SETATTR",
	[FUSE_READLINK] = "READLINK",
	[FUSE_SYMLINK] = "SYMLINK",
	[FUSE_MKNOD] = "MKNOD",
	[FUSE_MKDIR] = "MKDIR",
	[FUSE_UNLINK] = "UNLINK",
	[FUSE_RMDIR] = "RMDIR",
	[FUSE_RENAME] = "RENAME",
	[FUSE_LINK] = "LINK",
	[FUSE_OPEN] = "OPEN",
	[FUSE_READ] = "READ",
	[FUSE_WRITE] = "WRITE",
	[FUSE_STATFS] = "STATFS",
	[FUSE_RELEASE] = "RELEASE",
	[FUSE_FSYNC] = "FSYNC",
	[FUSE_SETXATTR] = "SETXATTR",
	[FUSE_GETXATTR] = "GETXATTR",
	[FUSE_LISTXATTR] = "LISTXATTR",
	[FUSE_REMOVEXATTR] = "REMOVEXATTR",
	[FUSE_FLUSH] = "FLUSH",
	[FUSE_INIT] = "INIT",
	[FUSE_OPENDIR] = "OPENDIR",
	[FUSE_READDIR] = "READDIR",
	[FUSE_RELEASEDIR] = "RELEASEDIR",
	[FUSE_FSYNCDIR] = "FSYNCDIR",
	[FUSE_GETLK] = "GETLK",
	[FUSE_SETLK] = "SETLK",
	[FUSE_SETLKW] = "SETLKW",
	[FUSE_ACCESS] = "ACCESS",
	[FUSE_CREATE] = "CREATE",
	[FUSE_INTERRUPT] = "INTERRUPT",
	[FUSE_BMAP] = "BMAP",
	[FUSE_DESTROY] = "DESTROY",
	[FUSE_IOCTL] = "IOCTL",
	[FUSE_POLL] = "POLL",
	[FUSE_NOTIFY_REPLY] = "NOTIFY_REPLY",
	[FUSE_BATCH_FORGET] = "BATCH_FORGET",
	[FUSE_FALLOCATE] = "FALLOCATE",
	[FUSE_READDIRPLUS] = "READDIRPLUS",
	[FUSE_RENAME2] = "RENAME2",
	[FUSE_LSEEK] = "LSEEK",
	[FUSE_COPY_FILE_RANGE] = "COPY_FILE_RANGE",
	[FUSE_SETUPMAPPING] = "SETUPMAPPING",
	[FUSE_REMOVEMAPPING] = "REMOVEMAPPING",
	[FUSE_SYNCFS] = "SYNCFS",
	[FUSE_TMPFILE] = "TMPFILE",
	[FUSE_STATX] = "STATX",
};

const char *fb_opname(uint32_t opcode)
{
	if (opcode < FB_MAX_OPCODE && opnames[opcode])
		return opnames[opcode];
	return "OTHER";
}

int fb_opcode_by_name(const char *name)
{
	int i;

	if (!strncasecmp(name, "FUSE_", 5))
		name += 5;
	for (i = 0; i < FB_MAX_OPCODE; i++)
		if (opnames[i] && !strcasecmp(opnames[i], name))
			return i;
	return -1;
}

void fb_errmsg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fbtestd: %s\n", buf);
}

void fb_log_request(const struct fb_req *req)
{
	const struct fuse_setattr_in *si = (const void *)req->arg;

	if (!logf)
		return;
	/* SETATTR: what the kernel asked for, a test's oracle (security) */
	if (req->in->opcode == FUSE_SETATTR && req->arglen >= sizeof(*si))
		fprintf(logf, "SETATTR unique=%llu nodeid=%llu valid=0x%x mode=0%o size=%llu uid=%u -> error=%d\n",
			(unsigned long long)req->in->unique,
			(unsigned long long)req->in->nodeid, si->valid,
			(si->valid & FATTR_MODE) ? si->mode : 0,
			(unsigned long long)((si->valid & FATTR_SIZE) ? si->size : 0),
			req->in->uid, req->error);
	else if (req->noreply)
		fprintf(logf, "%s unique=%llu nodeid=%llu len=%u -> noreply\n",
			fb_opname(req->in->opcode),
			(unsigned long long)req->in->unique,
			(unsigned long long)req->in->nodeid, req->in->len);
	else
		fprintf(logf, "%s unique=%llu nodeid=%llu len=%u -> error=%d outlen=%zu\n",
			fb_opname(req->in->opcode),
			(unsigned long long)req->in->unique,
			(unsigned long long)req->in->nodeid, req->in->len,
			req->error, req->error ? (size_t)0 : req->outlen);
}

/* ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: fbtestd [options] MOUNTPOINT\n"
"  --backing DIR         directory tree to serve (required)\n"
"  --dev PATH            FUSE device (default /dev/fuse)\n"
"  --fstype NAME         file system type for mount(2) (default fuse)\n"
"  --source SRC          mount(2)'s source (default fbtestd; fuseblk: a block\n"
"                        device)\n"
"  --opts EXTRA          extra mount options (e.g. default_permissions)\n"
"  --mode cached|direct|passthrough   open reply mode (default cached)\n"
"  --parallel            FOPEN_PARALLEL_DIRECT_WRITES on every open\n"
"  --killpriv-v2         negotiate FUSE_HANDLE_KILLPRIV_V2\n"
"  --allow-idmap         negotiate FUSE_ALLOW_IDMAP (idmapped mounts; adds\n"
"                        the default_permissions mount option it needs)\n"
"  --no-xattr            answer xattr requests with ENOSYS\n"
"  --mode-for-uid UID:MODE  opens by that uid get MODE instead (one inode\n"
"                        in two modes, one after the other)\n"
"  --attr-timeout SEC    entry and attribute validity (default 1)\n"
"  --caps-in-daemon      keep security.capability as trusted.fbtestd.capability\n"
"                        (a server whose storage keeps xattrs elsewhere: a\n"
"                        write to the backing file does not remove it)\n"
"  --chmod-owner-only    SETATTR of the mode from a uid other than the\n"
"                        owner's or root's gets EPERM\n"
"  --fake-suid FILE      while FILE exists, report regular files with S_ISUID\n"
"                        added (the backing files keep their mode), until\n"
"                        a SETATTR sets the mode or kills suid/sgid\n"
"  --backing-direct      cached/direct modes: keep O_DIRECT of the caller's\n"
"                        open on the backing file (aligned bounce buffers),\n"
"                        as a server that honours it does\n"
"  --writeback-cache     cached mode: negotiate FUSE_WRITEBACK_CACHE (the\n"
"                        kernel writes dirty pages back later; WRITEs from\n"
"                        writeback counted as writes_cache)\n"
"  --threads N           serving threads, one cloned fd each (default 4)\n"
"  --delay-us N          sleep N us in every READ and WRITE\n"
"  --stats FILE          statistics (on SIGUSR1 and at exit)\n"
"                        (SIGUSR2: NOTIFY_INVAL_INODE for every known node)\n"
"  --log FILE            log every request (SETATTR: valid, mode, size, uid)\n"
"  --pidfile FILE        write the serving process's pid (removed at exit)\n"
"  --fault NAME[,NAME]   inject faults (repeatable; see --list-faults)\n"
"  --fault-op OPCODE     request that gets the fault(s) (default per fault;\n"
"                        GETATTR faults only hit regular files: trigger with\n"
"                        fstat of an open file once attr_valid (1 s) expired)\n"
"  --fault-count N       faulted requests per fault (default 1, 0 = all)\n"
"  --fault-uid UID       only requests of that uid get the fault(s)\n"
"  --backing-nested DIR  directory on another FUSE mount (fault bo-nested)\n"
"  --fail-nth N          the N-th fault-injection point (failslab: a slab\n"
"                        allocation) of mount(2) fails, by this thread's\n"
"                        /proc/thread-self/fail-nth; says on stderr\n"
"                        \"fail-nth N: injected\" or \"fail-nth N: not reached\"\n"
"  --init-timeout SECS   how long the parent waits for INIT after mount(2)\n"
"                        returned 0 (default 60, 0 = no limit); then one\n"
"                        line on stderr, the child's pid in --pidfile, the\n"
"                        mount left in place, exit status 3\n"
"  --foreground          do not fork\n"
"  --list-faults         print the fault catalogue and exit\n");
}

static char *abspath(const char *p)
{
	char cwd[PATH_MAX], *r;

	if (p[0] == '/')
		return strdup(p);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	r = malloc(strlen(cwd) + strlen(p) + 2);
	if (r)
		sprintf(r, "%s/%s", cwd, p);
	return r;
}

/* every known node holds an O_PATH fd: allow as many as the system does */
static void raise_nofile(void)
{
	struct rlimit rl;
	unsigned long nr_open = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (nr_open > rl.rlim_max) {
		struct rlimit big = { nr_open, nr_open };

		if (setrlimit(RLIMIT_NOFILE, &big) == 0)
			return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * --fail-nth: fault injection's per-task counter (CONFIG_FAULT_INJECTION),
 * written right before the one system call under test and read right after
 * it: 0 means the n-th fault point was reached and failed; then reset, so
 * that nothing after the call fails.  Only this thread counts.
 */
static int failnth_fd = -1;

static void failnth_open(void)
{
	failnth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (failnth_fd < 0) {
		fb_errmsg("--fail-nth: /proc/thread-self/fail-nth: %s (a kernel without CONFIG_FAULT_INJECTION?)",
			  strerror(errno));
		exit(1);
	}
}

static void failnth_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(failnth_fd, buf, len, 0) != len) {
		fb_errmsg("--fail-nth: cannot write %u to fail-nth: %s", n,
			  strerror(errno));
		exit(1);
	}
}

/* true when the armed fault was injected */
static bool failnth_disarm(void)
{
	char buf[16] = "";
	ssize_t r = pread(failnth_fd, buf, sizeof(buf) - 1, 0);

	if (pwrite(failnth_fd, "0", 1, 0) != 1) {
		/* a kernel that refuses 0: the count left runs out harmlessly */
	}
	return r > 0 && atoi(buf) == 0;
}

/*
 * The parent's wait for the child's word on INIT, bounded by --init-timeout:
 * false when none came in time.  mount(2) returns 0 before INIT is answered,
 * and a kernel that could not send INIT (fuse_send_init() marks the
 * connection failed when its request cannot be allocated) never sends one:
 * the child would wait in read(2) until the unmount, and the parent with it.
 * Then the mount and the child stay for the caller (the pid goes to
 * --pidfile, so that its cleanup finds the child).
 */
static bool wait_init(int fd, pid_t child)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ms = cfg.init_timeout ? (int)cfg.init_timeout * 1000 : -1;
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r != 0)
		return true;	/* a word, the child's exit, or poll failed */
	if (cfg.pid_path) {
		FILE *f = fopen(cfg.pid_path, "w");

		if (!f || fprintf(f, "%d\n", (int)child) < 0 || fclose(f) != 0)
			fb_errmsg("cannot write %s", cfg.pid_path);
	}
	fb_errmsg("no INIT within %u s of mount(2) on %s returning 0: the mount and the waiting server (pid %d) are left in place",
		  cfg.init_timeout, cfg.mountpoint, (int)child);
	return false;
}

static unsigned long parse_num(const char *opt, const char *s,
			       unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !*s || v > max) {
		fb_errmsg("bad value '%s' for %s", s, opt);
		exit(1);
	}
	return v;
}

static int parse_mode(const char *opt, const char *s)
{
	if (!strcmp(s, "cached"))
		return FB_MODE_CACHED;
	if (!strcmp(s, "direct"))
		return FB_MODE_DIRECT;
	if (!strcmp(s, "passthrough"))
		return FB_MODE_PASSTHROUGH;
	fb_errmsg("bad %s mode '%s' (cached, direct or passthrough)", opt, s);
	exit(1);
}

enum {
	O_DEV = 256, O_FSTYPE, O_BACKING, O_MODE, O_PARALLEL, O_KILLPRIV,
	O_NOXATTR, O_THREADS, O_DELAY, O_STATS, O_FAULT, O_FAULTOP,
	O_FAULTCNT, O_NESTED, O_FOREGROUND, O_LOG, O_OPTS, O_LIST, O_HELP,
	O_PIDFILE, O_BDIRECT, O_FAULTUID, O_ATTRTMO, O_CAPSD, O_CHMODOWN, O_MODEUID,
	O_IDMAP, O_FAILNTH, O_WBCACHE, O_FAKESUID, O_INITTMO, O_SOURCE,
};

static const struct option longopts[] = {
	{ "dev", required_argument, NULL, O_DEV },
	{ "fstype", required_argument, NULL, O_FSTYPE },
	{ "source", required_argument, NULL, O_SOURCE },
	{ "backing", required_argument, NULL, O_BACKING },
	{ "mode", required_argument, NULL, O_MODE },
	{ "parallel", no_argument, NULL, O_PARALLEL },
	{ "killpriv-v2", no_argument, NULL, O_KILLPRIV },
	{ "allow-idmap", no_argument, NULL, O_IDMAP },
	{ "no-xattr", no_argument, NULL, O_NOXATTR },
	{ "backing-direct", no_argument, NULL, O_BDIRECT },
	{ "writeback-cache", no_argument, NULL, O_WBCACHE },
	{ "attr-timeout", required_argument, NULL, O_ATTRTMO },
	{ "caps-in-daemon", no_argument, NULL, O_CAPSD },
	{ "chmod-owner-only", no_argument, NULL, O_CHMODOWN },
	{ "fake-suid", required_argument, NULL, O_FAKESUID },
	{ "mode-for-uid", required_argument, NULL, O_MODEUID },
	{ "threads", required_argument, NULL, O_THREADS },
	{ "delay-us", required_argument, NULL, O_DELAY },
	{ "stats", required_argument, NULL, O_STATS },
	{ "fault", required_argument, NULL, O_FAULT },
	{ "fault-op", required_argument, NULL, O_FAULTOP },
	{ "fault-count", required_argument, NULL, O_FAULTCNT },
	{ "fault-uid", required_argument, NULL, O_FAULTUID },
	{ "backing-nested", required_argument, NULL, O_NESTED },
	{ "fail-nth", required_argument, NULL, O_FAILNTH },
	{ "init-timeout", required_argument, NULL, O_INITTMO },
	{ "foreground", no_argument, NULL, O_FOREGROUND },
	{ "log", required_argument, NULL, O_LOG },
	{ "pidfile", required_argument, NULL, O_PIDFILE },
	{ "opts", required_argument, NULL, O_OPTS },
	{ "list-faults", no_argument, NULL, O_LIST },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static void parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_DEV:
			cfg.dev = optarg;
			break;
		case O_FSTYPE:
			cfg.fstype = optarg;
			break;
		case O_SOURCE:
			cfg.source = optarg;
			break;
		case O_BACKING:
			cfg.backing = optarg;
			break;
		case O_MODE:
			cfg.mode = parse_mode("--mode", optarg);
			break;
		case O_MODEUID: {
			char *colon = strchr(optarg, ':');

			if (!colon) {
				fb_errmsg("--mode-for-uid takes UID:MODE, not '%s'",
					  optarg);
				exit(1);
			}
			*colon = '\0';
			cfg.mode_uid = parse_num("--mode-for-uid", optarg,
						 UINT32_MAX - 1);
			cfg.mode_for_uid = parse_mode("--mode-for-uid",
						      colon + 1);
			break;
		}
		case O_ATTRTMO:
			cfg.attr_timeout = parse_num("--attr-timeout", optarg,
						     86400);
			break;
		case O_CAPSD:
			cfg.caps_in_daemon = true;
			break;
		case O_CHMODOWN:
			cfg.chmod_owner_only = true;
			break;
		case O_FAKESUID:
			cfg.fake_suid = optarg;
			break;
		case O_PARALLEL:
			cfg.parallel = true;
			break;
		case O_KILLPRIV:
			cfg.killpriv_v2 = true;
			break;
		case O_IDMAP:
			cfg.allow_idmap = true;
			break;
		case O_BDIRECT:
			cfg.backing_direct = true;
			break;
		case O_WBCACHE:
			cfg.writeback_cache = true;
			break;
		case O_NOXATTR:
			cfg.no_xattr = true;
			break;
		case O_THREADS:
			cfg.threads = parse_num("--threads", optarg, 256);
			if (cfg.threads < 1)
				cfg.threads = 1;
			break;
		case O_DELAY:
			cfg.delay_us = parse_num("--delay-us", optarg,
						 10000000);
			break;
		case O_STATS:
			cfg.stats_path = optarg;
			break;
		case O_FAULT:
			if (fb_fault_add(optarg) < 0)
				exit(1);
			break;
		case O_FAULTOP:
			if (fb_fault_set_op(optarg) < 0)
				exit(1);
			break;
		case O_FAULTUID:
			fb_fault_set_uid(parse_num("--fault-uid", optarg,
						   UINT32_MAX - 1));
			break;
		case O_FAULTCNT:
			fb_fault_set_count(parse_num("--fault-count", optarg,
						     UINT32_MAX));
			break;
		case O_NESTED:
			cfg.backing_nested = optarg;
			break;
		case O_FAILNTH:
			cfg.fail_nth = parse_num("--fail-nth", optarg, INT_MAX);
			break;
		case O_INITTMO:
			cfg.init_timeout = parse_num("--init-timeout", optarg,
						     86400);
			break;
		case O_FOREGROUND:
			cfg.foreground = true;
			break;
		case O_LOG:
			cfg.log_path = optarg;
			break;
		case O_PIDFILE:
			cfg.pid_path = optarg;
			break;
		case O_OPTS:
			cfg.opts = optarg;
			break;
		case O_LIST:
			fb_fault_list();
			exit(0);
		case O_HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(1);
		}
	}
	if (optind != argc - 1) {
		fb_errmsg("exactly one MOUNTPOINT expected (see --help)");
		exit(1);
	}
	cfg.mountpoint = argv[optind];
	if (!cfg.backing) {
		fb_errmsg("--backing DIR is required");
		exit(1);
	}
	/* the kernel turns passthrough off on a writeback-cache session */
	if (cfg.writeback_cache && (cfg.mode != FB_MODE_CACHED ||
				    cfg.mode_uid >= 0)) {
		fb_errmsg("--writeback-cache needs --mode cached (and no --mode-for-uid)");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char data[1024], *mnt;
	int pfd[2] = { -1, -1 };
	pid_t pid;
	struct stat st;

	parse_args(argc, argv);
	umask(0);
	signal(SIGPIPE, SIG_IGN);

	if (access("/proc/self/fd", F_OK) < 0) {
		fb_errmsg("/proc is not mounted (needed for /proc/self/fd)");
		return 1;
	}
	mnt = realpath(cfg.mountpoint, NULL);
	if (!mnt || stat(mnt, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fb_errmsg("mountpoint %s: %s", cfg.mountpoint,
			  mnt ? "not a directory" : strerror(errno));
		return 1;
	}
	cfg.mountpoint = mnt;
	sess.rootfd = open(cfg.backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sess.rootfd < 0) {
		fb_errmsg("backing directory %s: %s", cfg.backing,
			  strerror(errno));
		return 1;
	}
	if (cfg.backing_nested) {
		if (stat(cfg.backing_nested, &st) < 0 || !S_ISDIR(st.st_mode)) {
			fb_errmsg("--backing-nested %s: not a directory",
				  cfg.backing_nested);
			return 1;
		}
		cfg.backing_nested = abspath(cfg.backing_nested);
	}
	if (cfg.stats_path)
		cfg.stats_path = abspath(cfg.stats_path);
	if (cfg.pid_path)
		cfg.pid_path = abspath(cfg.pid_path);
	if (cfg.fake_suid)
		cfg.fake_suid = abspath(cfg.fake_suid);
	if (cfg.log_path) {
		logf = fopen(cfg.log_path, "a");
		if (!logf) {
			fb_errmsg("log %s: %s", cfg.log_path, strerror(errno));
			return 1;
		}
		setvbuf(logf, NULL, _IOLBF, 0);
	}
	if (fb_fault_validate() < 0)
		return 1;
	if (fb_nodes_init(sess.rootfd) < 0) {
		fb_errmsg("cannot set up the root node");
		return 1;
	}
	raise_nofile();

	sess.devfd = open(cfg.dev, O_RDWR | O_CLOEXEC);
	if (sess.devfd < 0) {
		fb_errmsg("cannot open %s: %s", cfg.dev, strerror(errno));
		return 1;
	}
	/*
	 * The kernel grants FUSE_ALLOW_IDMAP only with default_permissions:
	 * requests other than those that create get no caller's ids then.
	 */
	snprintf(data, sizeof(data),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other%s%s%s",
		 sess.devfd, cfg.allow_idmap ? ",default_permissions" : "",
		 cfg.opts && *cfg.opts ? "," : "", cfg.opts ? cfg.opts : "");
	if (cfg.fail_nth)
		failnth_open();
	{
		int rc, err;

		if (cfg.fail_nth)
			failnth_arm(cfg.fail_nth);
		rc = mount(cfg.source, cfg.mountpoint, cfg.fstype, 0, data);
		err = errno;
		if (cfg.fail_nth) {
			bool hit = failnth_disarm();

			fprintf(stderr, "fbtestd: fail-nth %u: %s\n",
				cfg.fail_nth, hit ? "injected" : "not reached");
			close(failnth_fd);
		}
		if (rc < 0) {
			fb_errmsg("mount -t %s on %s (%s): %s", cfg.fstype,
				  cfg.mountpoint, data, strerror(err));
			return 1;
		}
	}
	mounted_here = true;

	if (cfg.foreground)
		return serve(-1);

	pid = pipe2(pfd, O_CLOEXEC) < 0 ? -1 : fork();
	if (pid < 0) {
		fb_errmsg("cannot fork: %s", strerror(errno));
		umount2(cfg.mountpoint, MNT_DETACH);
		return 1;
	}
	if (pid > 0) {
		char c = 0;

		close(pfd[1]);
		if (!wait_init(pfd[0], pid))
			_exit(FB_EXIT_NOINIT);
		if (read(pfd[0], &c, 1) == 1 && c == 'K')
			_exit(0);
		/* the child reported the error; make sure nothing stays */
		umount2(cfg.mountpoint, MNT_DETACH);
		waitpid(pid, NULL, 0);
		if (c != 'F')
			fb_errmsg("daemon died during INIT");
		_exit(1);
	}
	close(pfd[0]);
	setsid();
	if (chdir("/") < 0) {
		/* not fatal */
	}
	{
		int nul = open("/dev/null", O_RDWR);

		if (nul >= 0) {
			dup2(nul, STDIN_FILENO);
			dup2(nul, STDOUT_FILENO);
			if (nul > STDERR_FILENO)
				close(nul);
		}
	}
	return serve(pfd[1]);
}
