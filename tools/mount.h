/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport run / mount.fusebp: what the parts of the command share:
 * the options (mountopts.c), the device (device.c), the mount (mount.c),
 * its two front ends (cmd_run.c: `run`, cmd_mount.c: mount.fusebp) and the
 * supervisor (supervise.c).
 */
#ifndef FB_MOUNT_H
#define FB_MOUNT_H

#include <stdbool.h>
#include <sys/types.h>

/* Exit statuses of `run` for its own failures (those of timeout(1)). */
#define RUN_FAILED	125
#define RUN_NOEXEC	126
#define RUN_NOTFOUND	127
/* mount(8)'s: bad usage or permissions, and mount failure. */
#define MOUNT_USAGE	1
#define MOUNT_FAILED	32

/* What -o and the daemon's own -o ask of the mount. */
struct mount_options {
	unsigned long flags;	/* MS_* */
	char *kernel;		/* options for the kernel, comma separated */
	char *daemon;		/* options for the daemon's -o, re-escaped */
	char *fsname;
	char *subtype;
	char *setuid_user;
	bool blkdev;
	bool blksize;
	bool uid_set, gid_set;
	bool default_permissions;	/* given explicitly */
	bool no_default_permissions;	/* our opt-out */
	bool fallback;		/* the kernel's FUSE when ours cannot load */
	bool verbose;
};

struct mount_job {
	struct mount_options opts;
	char *mountpoint;	/* as given */
	char *mp;		/* resolved */
	char *source;		/* fsname */
	char **argv;		/* daemon command; argv[mp_index] is replaced */
	int mp_index;
	int fd;			/* the device, open */
	const char *device;	/* /dev/fusebp, or /dev/fuse (fallback) */
	const char *ctl_dir;	/* its control fs: /sys/fs/NAME/connections */
	const char *ctl_type;	/* and the type of that fs */
	char *sb_dev;		/* "major:minor" of the superblock */
	char *fallback_note;	/* FB_FALLBACK_DIR/<sb_dev>, or NULL */
	bool run;		/* `run` (exit statuses of timeout) or mount */
	int *node_mounts;	/* ids of the mounts on the device node before */
	size_t n_node_mounts;	/* the daemon started (see supervise.c) */
};

/* What the supervisor tells the command, once. */
struct supervisor_report {
	int status;		/* the daemon's wait status */
	int background;		/* the daemon runs on in the background */
	int not_served;		/* the daemon mounted by itself, not on fd N */
	char what[160];		/* what happened (not_served: its own mount) */
};

/* mountopts.c */
void opts_init(struct mount_options *opts);
/* Parse the -o list LIST; 0, or -1 after a message. */
int parse_opts(struct mount_options *opts, const char *list, bool from_daemon);
/* Append OPT to the comma separated *LIST. */
void append(char **list, const char *opt);
bool valid_subtype(const char *s);
int parse_type(struct mount_job *j, const char *type, char **sub);
const char *base_name(const char *p);

/* device.c */
int choose_fuse(struct mount_job *j, const char **type);
void note_fallback(struct mount_job *j, const char *type);
char *mounted_on(const char *path);
/* The minor of misc device NAME in /proc/misc, or NULL. */
char *proc_misc_minor(const char *name);

/* mount.c: checks, open, mount; then supervise. Returns the exit status. */
int mount_and_run(struct mount_job *j);

/*
 * In the supervisor (a child of the command): start the daemon, send one
 * report on REPORT_FD, watch the connection, end it. Never returns.
 */
void supervise(struct mount_job *j, int report_fd) __attribute__((noreturn));

/*
 * End the connection of J (abort it, close our copy of the device), then
 * remove its mounts. What happened, or NULL when there was nothing to do.
 */
const char *end_connection(struct mount_job *j);

#endif /* FB_MOUNT_H */
