/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport status, in three steps that share one struct fuse_state:
 *
 *   status_collect.c  read the system: /proc, /sys/module, modinfo,
 *                     /lib/modules, the DKMS tree, mountinfo, the
 *                     throwaway-mount probe (probe.c); no judgement;
 *                     its parts: status_kernels.c (installed kernels),
 *                     status_servers.c (who serves each type),
 *                     status_mounts.c (FUSE mounts),
 *                     status_signing.c (module signatures)
 *   status_judge.c    decide: who serves each type (a decision table),
 *                     the problems and notes, the exit status
 *   status_print.c    print it: text for a terminal, or JSON
 *
 * status.c has the command (options, help) and calls them in that order.
 */
#ifndef FB_STATUS_H
#define FB_STATUS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "fb.h"

/* The bases of this release (tools/Makefile: backports/<base>/pin). */
#ifndef FB_BASES
#error "FB_BASES is not defined: build with tools/Makefile (it reads backports/*/pin)"
#endif

/* A base: the kernel series it serves, from and to, and its module version. */
struct fb_base {
	const char *min, *max, *version;
};

/* The base serving kernel release KVER by its series, or NULL. */
const struct fb_base *base_for(const char *kver);
/* "6.1 to 6.12, 7.2 to 7.2, 7.3 to 7.3": what the bases serve. */
char *served_series(void);

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

struct modinfo {
	char *file;
	char *version;
	char *flavor;
	char *base;
	char *srcversion;
	char *signer;
};

/* How new mounts of one file system type are served. */
struct type_server {
	const char *fstype;
	char *device;		/* /dev/fuse, /dev/fusebp */
	const char *modname;
	enum server_kind kind;
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
	const char *flavor;	/* dropin, renamed, NULL */
	struct modinfo ours;	/* ours.file NULL: none */
	char *ours_name;
	char *dkms_installed;
	char *dkms_built;
	char *why_none;
};

struct fuse_mount_entry {
	char *fstype;
	char *family;
	char *mountpoint;
	char *source;
	bool fallback;		/* made by run -o fallback: not ours */
	const char *served_by;	/* FB_PREFIX, "built-in", NULL: unknown */
};

/* Module signatures on the running kernel (status_signing.c). */
struct sig_info {
	int enforced;		/* 1, 0, -1 unknown */
	char *why;		/* what enforces them, or why not */
	int secure_boot;	/* 1, 0, -1 unknown */
};

/* The takeover of a built-in FUSE (takeover.c). */
struct takeover_info {
	int configured;		/* TAKEOVER=: 1 yes, 0 no, -1 not set, -2 invalid */
	char *evidence;
	int active;		/* 1, 0, -1: the module is not loaded */
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
};

/*
 * status_collect.c: everything read; -1 (after a message) when
 * /proc/filesystems cannot be read. Unreadable parts set st->error.
 */
int collect_status(struct fuse_state *st);
/* Is V the version of a module of ours ("...+fbN")? */
bool is_ours_version(const char *v);
/* What the parts of the collection share (status_collect.c). */
bool modinfo_read(const char *file, struct modinfo *mi);
char *modules_dep_file(const char *kver, const char *name);
char config_value(const char *path, const char *name);
char *kernel_config_file(const char *kver);

/* status_kernels.c */
int survey_kernels(struct fuse_state *st);
char kernel_fuse_config(const char *kver, char **evidence);

/* status_servers.c */
void read_kallsyms(struct fuse_state *st);
void survey_type_server(struct fuse_state *st, struct type_server *srv, const char *fstype,
			const char *modname);

/* status_signing.c */
void survey_signing(struct fuse_state *st);
char *ours_signed_by(const struct fuse_state *st);

/* status_mounts.c */
int survey_mounts(struct fuse_state *st);

/* status_judge.c */
extern const char *const server_kind_text[];
enum server_kind who_serves(bool fuse_type, bool ours, bool builtin, bool module);
void judge(struct fuse_state *st);
int exit_code(const struct fuse_state *st);
const char *health(const struct fuse_state *st);

/* status_print.c */
void print_json(const struct fuse_state *st);
void print_text(const struct fuse_state *st);

#endif /* FB_STATUS_H */
