/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport status, in three steps that share one struct fuse_state,
 * on the facts (facts.h):
 *
 *   collect.c         read the system: /proc, /sys/module, modinfo,
 *                     /lib/modules, the DKMS tree, mountinfo, the
 *                     throwaway-mount probe (fact_probe.c); facts only,
 *                     no judgement; its parts: collect_kernels.c
 *                     (installed kernels), collect_servers.c (what
 *                     serves each type), collect_mounts.c (FUSE mounts),
 *                     collect_signing.c (module signatures)
 *   judge.c           decide: who serves each type (a decision table),
 *                     the flavors, the problems and notes, the exit status
 *   print.c           print the state: text for a terminal, or JSON
 *   print_prom.c      print it for Prometheus (--prometheus)
 *
 * cmd_status.c has the command (options, help) and calls them in that order.
 */
#ifndef FB_STATUS_H
#define FB_STATUS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "facts.h"

/* Symbols that tell what code serves a file system type. */
#define SYM_PASSTHROUGH		"fuse_passthrough_open"
#define SYM_PARALLEL_FIX	"fuse_inode_clear_nosec"	/* our series adds it (0001) */

enum server_kind {
	K_NONE,
	K_STOCK_BUILTIN,
	K_STOCK_MODULE,
	K_OURS_DROPIN,
	K_OURS_RENAMED,
	K_OTHER,
};

/* How new mounts of one file system type are served. */
struct type_server {
	const char *fstype;
	char *device;		/* /dev/fuse, /dev/fusebp */
	const char *modname;
	bool ours;		/* the module's version is ours */
	enum server_kind kind;	/* judge.c */
	const char *kind_text;	/* judge.c */
	const char *state;	/* built-in, loaded, not loaded, absent */
	bool registered;
	bool loaded;
	char *version;		/* what serves, or would serve */
	char *flavor;
	char *base;
	char *srcversion;
	char *evidence;		/* where version/flavor/base come from */
	struct modinfo file;	/* what modprobe would load */
	int loaded_is_installed;	/* same srcversion: 1, 0, -1 unknown */
	char *protocol;
	char *protocol_evidence;
	int passthrough;		/* yes 1, no 0, unknown -1 */
	char *passthrough_evidence;
	int parallel_fix;		/* the parallel-passthrough fix: 1, 0, -1 */
	char *parallel_fix_evidence;
};

struct kernel {
	char *kver;
	bool running;
	bool newest;
	bool headers;
	char fuse_cfg;		/* y, m, n, ? */
	char *config_evidence;
	const char *flavor;	/* dropin, renamed, NULL (judge.c) */
	struct modinfo ours;	/* ours.file NULL: none */
	char *ours_name;
	char *dkms_installed;
	char *dkms_built;
	char *failed_version;	/* the kernel hook's record of a failed build */
	char *failed_why;
	char *why_none;		/* judge.c */
	char *linux_version;	/* VERSION.PATCHLEVEL.SUBLEVEL (fact_age.c), or NULL */
	char *linux_version_evidence;
	enum fuse_age age;	/* AGE_NONE: outside every base */
	char *age_why;
};

struct fuse_mount_entry {
	char *fstype;
	char *family;
	char *mountpoint;
	char *source;
	bool fallback;		/* made by run -o fallback: not ours */
	const char *served_by;	/* FB_PREFIX, "built-in", NULL: unknown */
};

/* Module signatures on the running kernel (collect_signing.c). */
struct sig_info {
	int enforced;		/* 1, 0, -1 unknown */
	char *why;		/* what enforces them, or why not */
	int secure_boot;	/* 1, 0, -1 unknown */
	/* our module for the running kernel: "signed by NAME", "unsigned", NULL: none */
	char *ours;
};

/* The takeover of a built-in FUSE (fact_conf.c, fact_fusectl.c). */
struct takeover_info {
	int configured;		/* TAKEOVER=: 1 yes, 0 no, -1 not set, -2 invalid */
	char *evidence;
	int active;		/* 1, 0, 2 partly, -1: the module is not loaded */
	char *sides;		/* partly: who serves each name (takeover_sides()) */
};

/* What a kernel ahead of our fs/fuse gets (WHEN_AHEAD=, fact_conf.c). */
struct when_ahead_info {
	int value;		/* 1 serve, 0 stock, -2 invalid (serve is used) */
	char *evidence;
};

struct fuse_state {
	struct utsname uts;
	char *filesystems;
	char *kallsyms;		/* only the lines naming SYM_* */
	bool kallsyms_ok;
	bool probe;
	struct type_server servers[2];
	struct kernel *kernels;
	int nkernels;
	struct kernel *running;	/* may be NULL: not under /lib/modules */
	struct kernel *newest;
	struct takeover_info takeover;
	struct when_ahead_info when_ahead;
	char *conf_prefix;	/* FB_PREFIX= of FB_CONF_FILE, or NULL */
	struct sig_info signing;
	struct fuse_mount_entry *mounts;
	int nmounts;
	char **problems;
	int nproblems;
	char **notes;
	int nnotes;
	char *warning;
	bool error;
	int exit_status;	/* judge.c: 0 healthy, 1 degraded, 2 error */
	const char *health;
};

/*
 * collect.c: everything read; -1 (after a message) when /proc/filesystems
 * cannot be read. Unreadable parts set st->error.
 */
int collect_status(struct fuse_state *st);

/* collect_kernels.c */
int survey_kernels(struct fuse_state *st);

/* collect_servers.c */
void read_kallsyms(struct fuse_state *st);
void survey_type_server(struct fuse_state *st, struct type_server *srv, const char *fstype,
			const char *modname);

/* collect_signing.c */
void survey_signing(struct fuse_state *st);

/* collect_mounts.c */
int survey_mounts(struct fuse_state *st);

/* judge.c: kinds, flavors, why none, problems, notes, the exit status */
void judge(struct fuse_state *st);

/* print.c */
void print_json(const struct fuse_state *st);
void print_text(const struct fuse_state *st);

/* print_prom.c: the Prometheus text format; _unread: health 2 only */
void print_prometheus(const struct fuse_state *st);
void print_prometheus_unread(void);

#endif /* FB_STATUS_H */
