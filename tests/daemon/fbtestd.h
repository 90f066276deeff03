/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fbtestd - protocol-level FUSE test daemon (no libfuse).
 *
 * Shared declarations of main.c (options, setup, messages), serve.c
 * (threads, signals, statistics), the request handlers (ops.h: node.c,
 * attr.c, dir.c, backing.c, io.c, xattr.c, init.c, dispatch.c), reply.c
 * (sending replies) and fault.c (malformed replies).
 */
#ifndef FBTESTD_H
#define FBTESTD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/fuse.h>

#define FB_MAX_WRITE		(1024 * 1024)
#define FB_MAX_PAGES		256
/* request buffer: header + fuse_write_in + max_write, with room to spare */
#define FB_IN_BUFSZ		(FB_MAX_WRITE + 64 * 1024)
/* reply payload capacity (READ data up to 1 MiB plus fault slack) */
#define FB_OUT_CAP		(FB_MAX_WRITE + 64 * 1024)

#define FB_MAX_OPCODE		64

enum fb_mode {
	FB_MODE_CACHED,
	FB_MODE_DIRECT,
	FB_MODE_PASSTHROUGH,
};

struct fb_fault;

struct fb_config {
	const char *dev;
	const char *fstype;
	const char *source;	/* mount(2)'s source: a block device for fuseblk */
	const char *backing;
	const char *backing_nested;
	const char *mountpoint;
	const char *opts;
	const char *stats_path;
	const char *log_path;
	const char *pid_path;
	int mode;
	bool parallel;
	bool killpriv_v2;
	bool allow_idmap;		/* FUSE_ALLOW_IDMAP (needs default_permissions) */
	bool no_xattr;
	bool backing_direct;		/* keep O_DIRECT on backing files */
	bool writeback_cache;		/* negotiate FUSE_WRITEBACK_CACHE */
	bool caps_in_daemon;		/* security.capability kept aside */
	bool chmod_owner_only;		/* SETATTR mode: owner or root only */
	const char *fake_suid;		/* while this file exists: S_ISUID shown */
	unsigned int attr_timeout;	/* entry and attr validity, seconds */
	long mode_uid;			/* opens by this uid (-1: none) ... */
	int mode_for_uid;		/* ... get this mode instead */
	bool foreground;
	int threads;
	unsigned int delay_us;
	unsigned int fail_nth;		/* fail the n-th fault point of mount(2) */
	unsigned int init_timeout;	/* parent's wait for INIT, s (0: none) */
};

/* the parent's exit status when mount(2) succeeded but no INIT came */
#define FB_EXIT_NOINIT 3

/* negotiated session state, written once while handling INIT */
struct fb_session {
	int devfd;
	int rootfd;			/* O_PATH fd of the backing root */
	uint32_t kminor;		/* kernel's protocol minor */
	uint64_t kflags;		/* kernel's INIT flags (flags2 << 32) */
	uint64_t wflags;		/* flags we replied with */
	bool passthrough;		/* FUSE_PASSTHROUGH granted */
	bool killpriv_v2;
	bool writeback;			/* FUSE_WRITEBACK_CACHE granted */
	bool init_done;
	bool init_failed;
};

struct fb_stats {
	uint64_t requests;
	uint64_t nodes;			/* known nodes besides the root */
	uint64_t notify_inval_sent;	/* NOTIFY_INVAL_INODE (SIGUSR2) */
	uint64_t notify_inval_failed;
	uint64_t ops[FB_MAX_OPCODE + 1];	/* last slot: other opcodes */
	uint64_t inflight_read, inflight_write, inflight_io;
	uint64_t max_inflight_read, max_inflight_write, max_inflight_io;
	uint64_t faults_sent;
	int64_t fault_write_errno;
	uint64_t passthrough_opens;
	uint64_t writes_cache;		/* WRITEs with FUSE_WRITE_CACHE */
	int64_t backing_open_errno;
	int64_t fault_backing_open_errno;	/* of the last bo-* fault */
};

/* One request being served, and the reply being built for it. */
struct fb_req {
	int fd;				/* device fd to answer on */
	const struct fuse_in_header *in;
	const char *arg;		/* request payload */
	size_t arglen;
	struct fuse_out_header *oh;	/* reply header (outbuf start) */
	char *out;			/* reply payload (after oh) */
	size_t outlen;
	int error;			/* 0 or negative errno */
	bool noreply;
	uint64_t entry_nodeid;		/* node whose nlookup this reply bumped */
	const struct fb_fault *ofault;	/* open-time fault applied */
};

extern struct fb_config cfg;
extern struct fb_session sess;
extern struct fb_stats stats;

/* main.c */
extern bool mounted_here;	/* the mount is ours to remove on failure */
extern bool fake_suid_ended;	/* a SETATTR of the mode ended --fake-suid */
void fb_log_request(const struct fb_req *req);
void fb_errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *fb_opname(uint32_t opcode);
int fb_opcode_by_name(const char *name);
void fb_stat_max(uint64_t *cur, uint64_t *max);

/* serve.c: pfd, the pipe to the parent (-1: foreground) */
int serve(int pfd);

/* node.c, dispatch.c */
int fb_nodes_init(int rootfd);
void fb_dispatch(struct fb_req *req);
void fb_node_unref_lookup(uint64_t nodeid);
void fb_notify_inval_all(void);
bool fb_node_is_reg(uint64_t nodeid);

/* reply.c */
int fb_send_reply(struct fb_req *req);
ssize_t fb_send_raw(int fd, const void *buf, size_t len);

/* fault.c */
int fb_fault_add(const char *name);
int fb_fault_set_op(const char *opname);
void fb_fault_set_count(unsigned int count);
void fb_fault_set_uid(uint32_t uid);
int fb_fault_validate(void);
void fb_fault_list(void);
bool fb_fault_need_passthrough(void);
/* the faults of a reply: true when one sent it */
bool fb_fault_reply(struct fb_req *req);
/* open-time (passthrough/backing) faults */
struct fb_fault *fb_fault_take_open(const struct fb_req *req);
bool fb_fault_write_lost(const struct fb_req *req);
const char *fb_fault_name(const struct fb_fault *f);
int fb_fault_open_kind(const struct fb_fault *f);
void fb_fault_note(const struct fb_req *req, const struct fb_fault *f,
		   const char *what, ssize_t res, int err);

enum fb_open_fault {
	FB_OF_NONE,
	FB_OF_PT_ID0,
	FB_OF_PT_UNKNOWN,
	FB_OF_PT_CLOSED,
	FB_OF_BO_DIR,
	FB_OF_BO_FIFO,
	FB_OF_BO_FLAGS,
	FB_OF_BO_PADDING,
	FB_OF_BO_NOCAP,
	FB_OF_BO_NESTED,
	FB_OF_BO_BADFD,
};

static inline uint64_t fb_atomic_inc(uint64_t *p)
{
	return __atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
}

static inline uint64_t fb_atomic_dec(uint64_t *p)
{
	return __atomic_sub_fetch(p, 1, __ATOMIC_RELAXED);
}

#endif /* FBTESTD_H */
