// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - fault injection.
 *
 * A fault replaces (or accompanies) the correct reply to the first
 * --fault-count requests of its opcode with a malformed one.  Classes:
 *
 *  REJECT   the kernel refuses the write before it finds the request, so
 *           the request is still pending: the correct reply follows.
 *  DUP      the correct reply, then the same reply again.
 *  REPLACE  a malformed reply instead of the correct one.
 *  MUTATE   the correct reply with a corrupted field.
 *  NOTIFY   an unsolicited notification, then the correct reply.
 *  OPEN     passthrough/backing faults, done by the OPEN/CREATE handler.
 *  LOSE     a WRITE answered with success whose data is not written (a lost
 *           write), done by the WRITE handler: what the data checks of the
 *           integrity and aio suites must catch.
 */
#include "fbtestd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

enum fb_fclass { FC_REJECT, FC_DUP, FC_REPLACE, FC_MUTATE, FC_NOTIFY,
		 FC_OPEN, FC_LOSE };

enum fb_shape {
	SH_ANY,		/* any request that gets a reply */
	SH_PAYLOAD,	/* successful reply with a payload */
	SH_ENTRY,	/* successful fuse_entry_out reply */
	SH_ATTR,	/* successful reply carrying a fuse_attr */
	SH_WRITE,
	SH_READ,
	SH_DIRENT,
	SH_INIT,
	SH_OPEN,
};

enum fb_fkind {
	F_HDR_SHORT_WRITE, F_LEN_LT_HEADER, F_LEN_GT_WRITTEN, F_LEN_HUGE,
	F_ZERO_WRITE, F_UNKNOWN_UNIQUE, F_DUP_UNIQUE, F_ERROR_POSITIVE,
	F_ERROR_HUGE_NEG, F_ERROR_ERESTARTSYS, F_ERROR_PAYLOAD, F_SHORT,
	F_LONG_REPLY, F_LOOKUP_NODEID0, F_LOOKUP_ROOT_NODEID,
	F_LOOKUP_ROOT_WRONGTYPE, F_ATTR_BAD_MODE, F_ATTR_SIZE_HUGE,
	F_WRITE_TOO_MANY, F_READ_TOO_LONG, F_DIRENT_NAMELEN0,
	F_DIRENT_NAMELEN_HUGE, F_DIRENT_NAMELEN_OVERRUN, F_DIRENT_SLASH,
	F_INIT_MAJOR6, F_INIT_MINOR0, F_INIT_MAXWRITE0, F_NOTIFY_BOGUS,
	F_NOTIFY_INVAL_UNKNOWN, F_ERR_EIO, F_ERR_ENOMEM, F_STALL_EINTR,
	F_OPEN_FAULT, F_WRITE_LOST,
};

struct fb_fault {
	const char *name;
	int kind;
	int cls;
	int shape;
	uint32_t defop;
	int open_kind;
	const char *desc;
	/* runtime */
	bool active;
	uint32_t op;
	int64_t remaining;	/* -1: unlimited */
};

#define FLT(n, k, c, s, o, d) \
	{ .name = n, .kind = k, .cls = c, .shape = s, .defop = o, .desc = d }
#define OFLT(n, ok, d) \
	{ .name = n, .kind = F_OPEN_FAULT, .cls = FC_OPEN, .shape = SH_OPEN, \
	  .defop = FUSE_OPEN, .open_kind = ok, .desc = d }

static struct fb_fault faults[] = {
	FLT("hdr-short-write", F_HDR_SHORT_WRITE, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "write only 8 bytes (< out header): write EINVAL; correct reply follows, caller unaffected"),
	FLT("len-lt-header", F_LEN_LT_HEADER, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "out.len=8 (< header) on a full write: write EINVAL; correct reply follows"),
	FLT("len-gt-written", F_LEN_GT_WRITTEN, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "out.len 64 bytes larger than written: write EINVAL; correct reply follows"),
	FLT("len-huge", F_LEN_HUGE, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "out.len = 1 GiB: write EINVAL; correct reply follows"),
	FLT("zero-write", F_ZERO_WRITE, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "write(2) of 0 bytes: write EINVAL; correct reply follows"),
	FLT("unknown-unique", F_UNKNOWN_UNIQUE, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "reply to a unique never issued: write ENOENT; correct reply follows"),
	FLT("dup-unique", F_DUP_UNIQUE, FC_DUP, SH_ANY, FUSE_GETATTR,
	    "correct reply sent twice: second write ENOENT; caller unaffected"),
	FLT("error-positive", F_ERROR_POSITIVE, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "out.error=+5: write EINVAL; correct reply follows"),
	FLT("error-huge-neg", F_ERROR_HUGE_NEG, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "out.error=-100000: write EINVAL; correct reply follows"),
	FLT("error-erestartsys", F_ERROR_ERESTARTSYS, FC_REJECT, SH_ANY, FUSE_GETATTR,
	    "out.error=-512 (ERESTARTSYS, kernel-internal): write EINVAL; correct reply follows"),
	FLT("error-payload", F_ERROR_PAYLOAD, FC_REPLACE, SH_ANY, FUSE_GETATTR,
	    "out.error=-EPERM with 16 payload bytes: write EINVAL; caller gets EIO"),
	FLT("short-getattr", F_SHORT, FC_REPLACE, SH_PAYLOAD, FUSE_GETATTR,
	    "GETATTR reply with half a fuse_attr_out: write EINVAL; caller gets EIO"),
	FLT("short-lookup", F_SHORT, FC_REPLACE, SH_PAYLOAD, FUSE_LOOKUP,
	    "LOOKUP reply with half a fuse_entry_out: write EINVAL; caller gets EIO"),
	FLT("short-open", F_SHORT, FC_REPLACE, SH_PAYLOAD, FUSE_OPEN,
	    "OPEN reply with 8 of 16 bytes: write EINVAL; open() gets EIO"),
	FLT("short-write", F_SHORT, FC_REPLACE, SH_PAYLOAD, FUSE_WRITE,
	    "WRITE reply with 4 of 8 bytes: write EINVAL; write() gets EIO"),
	FLT("short-statfs", F_SHORT, FC_REPLACE, SH_PAYLOAD, FUSE_STATFS,
	    "STATFS reply with half a fuse_statfs_out: write EINVAL; statfs() gets EIO"),
	FLT("short-init", F_SHORT, FC_REPLACE, SH_PAYLOAD, FUSE_INIT,
	    "INIT reply with only 4 bytes (major): accepted (variable size), minor reads as 0: fs calls get EIO"),
	FLT("long-reply", F_LONG_REPLY, FC_REPLACE, SH_ANY, FUSE_GETATTR,
	    "correct reply plus 64 trailing bytes: write EINVAL; caller gets EIO"),
	FLT("lookup-nodeid0", F_LOOKUP_NODEID0, FC_MUTATE, SH_ENTRY, FUSE_LOOKUP,
	    "LOOKUP entry with nodeid 0 (= cached negative entry): accepted; caller gets ENOENT"),
	FLT("lookup-root-nodeid", F_LOOKUP_ROOT_NODEID, FC_MUTATE, SH_ENTRY, FUSE_LOOKUP,
	    "LOOKUP of a child answered with nodeid 1 (root attrs): accepted; caller gets EIO"),
	FLT("lookup-root-wrongtype", F_LOOKUP_ROOT_WRONGTYPE, FC_MUTATE, SH_ENTRY, FUSE_LOOKUP,
	    "LOOKUP answered with nodeid 1 and S_IFREG mode: caller gets EIO and the root inode is marked bad (mount unusable, umount works)"),
	FLT("attr-bad-mode", F_ATTR_BAD_MODE, FC_MUTATE, SH_ATTR, FUSE_LOOKUP,
	    "attr.mode with garbage S_IFMT (0170000): accepted; caller gets EIO (GETATTR: inode marked bad)"),
	FLT("attr-size-huge", F_ATTR_SIZE_HUGE, FC_MUTATE, SH_ATTR, FUSE_LOOKUP,
	    "attr.size = 2^63 (negative loff_t): accepted; caller gets EIO (GETATTR: inode marked bad)"),
	FLT("write-too-many", F_WRITE_TOO_MANY, FC_MUTATE, SH_WRITE, FUSE_WRITE,
	    "WRITE reply claims 4096 bytes more than requested: accepted; write() gets EIO"),
	FLT("read-too-long", F_READ_TOO_LONG, FC_MUTATE, SH_READ, FUSE_READ,
	    "READ reply 4096 bytes longer than requested: write EINVAL, that READ fails EIO (direct: read() EIO; cached: kernel re-reads the page, caller unaffected)"),
	FLT("dirent-namelen0", F_DIRENT_NAMELEN0, FC_MUTATE, SH_DIRENT, FUSE_READDIR,
	    "READDIR entry with namelen 0: accepted; getdents gets EIO"),
	FLT("dirent-namelen-huge", F_DIRENT_NAMELEN_HUGE, FC_MUTATE, SH_DIRENT, FUSE_READDIR,
	    "READDIR entry with namelen 65536 (> FUSE_NAME_MAX and buffer): accepted; getdents gets EIO"),
	FLT("dirent-namelen-overrun", F_DIRENT_NAMELEN_OVERRUN, FC_MUTATE, SH_DIRENT, FUSE_READDIR,
	    "READDIR entry with namelen 1000 running past the reply: accepted; parsing stops silently (listing truncated, no error)"),
	FLT("dirent-slash", F_DIRENT_SLASH, FC_MUTATE, SH_DIRENT, FUSE_READDIR,
	    "READDIR entry whose name contains '/': accepted; getdents gets EIO"),
	FLT("init-major6", F_INIT_MAJOR6, FC_MUTATE, SH_INIT, FUSE_INIT,
	    "INIT reply with major 6: accepted; connection marked failed, every fs call gets ECONNREFUSED"),
	FLT("init-minor0", F_INIT_MINOR0, FC_MUTATE, SH_INIT, FUSE_INIT,
	    "INIT reply with minor 0: accepted; kernel uses ancient struct sizes, replies mismatch (callers get EIO)"),
	FLT("init-maxwrite0", F_INIT_MAXWRITE0, FC_MUTATE, SH_INIT, FUSE_INIT,
	    "INIT reply with max_write 0: accepted, kernel clamps max_write to 4096 (no error; WRITEs <= 4 KiB)"),
	FLT("notify-bogus-code", F_NOTIFY_BOGUS, FC_NOTIFY, SH_ANY, FUSE_GETATTR,
	    "unique 0 with unknown notify code 1000: write EINVAL; correct reply follows"),
	FLT("notify-inval-unknown", F_NOTIFY_INVAL_UNKNOWN, FC_NOTIFY, SH_ANY, FUSE_GETATTR,
	    "NOTIFY_INVAL_INODE for a nodeid the kernel never saw: write ENOENT; correct reply follows"),
	FLT("err-eio", F_ERR_EIO, FC_REPLACE, SH_ANY, FUSE_GETXATTR,
	    "a well-formed EIO error instead of the answer (a transient server error): the caller gets EIO"),
	FLT("err-enomem", F_ERR_ENOMEM, FC_REPLACE, SH_ANY, FUSE_GETXATTR,
	    "a well-formed ENOMEM error instead of the answer: the caller gets ENOMEM"),
	FLT("stall-eintr", F_STALL_EINTR, FC_REPLACE, SH_ANY, FUSE_GETXATTR,
	    "no answer for 2 s, then EINTR, as a server that honours FUSE_INTERRUPT answers a killed caller"),
	FLT("write-lost", F_WRITE_LOST, FC_LOSE, SH_WRITE, FUSE_WRITE,
	    "WRITE answered with success (all bytes) but nothing written: the caller sees no error, the data is lost"),
	OFLT("pt-backing-id0", FB_OF_PT_ID0,
	     "OPEN reply FOPEN_PASSTHROUGH with backing_id 0: accepted; open() gets EIO"),
	OFLT("pt-backing-unknown", FB_OF_PT_UNKNOWN,
	     "OPEN reply FOPEN_PASSTHROUGH with a never-opened backing_id: accepted; open() gets EIO"),
	OFLT("pt-backing-closed", FB_OF_PT_CLOSED,
	     "OPEN reply FOPEN_PASSTHROUGH with an already closed backing_id: accepted; open() gets EIO"),
	OFLT("bo-dir", FB_OF_BO_DIR,
	     "BACKING_OPEN of a directory fd: ioctl EISDIR; open() gets EISDIR"),
	OFLT("bo-fifo", FB_OF_BO_FIFO,
	     "BACKING_OPEN of a FIFO fd: ioctl EINVAL; open() gets EINVAL"),
	OFLT("bo-flags", FB_OF_BO_FLAGS,
	     "BACKING_OPEN with fuse_backing_map.flags=1: ioctl EINVAL; open() gets EINVAL"),
	OFLT("bo-padding", FB_OF_BO_PADDING,
	     "BACKING_OPEN with fuse_backing_map.padding=1: ioctl EINVAL; open() gets EINVAL"),
	OFLT("bo-nocap", FB_OF_BO_NOCAP,
	     "BACKING_OPEN from a forked child without CAP_SYS_ADMIN: ioctl EPERM; open() gets EPERM"),
	OFLT("bo-nested", FB_OF_BO_NESTED,
	     "BACKING_OPEN of a file on another FUSE mount (--backing-nested, that mount in passthrough mode): ioctl ELOOP; open() gets ELOOP"),
	OFLT("bo-badfd", FB_OF_BO_BADFD,
	     "BACKING_OPEN with fd -1: ioctl EBADF; open() gets EBADF"),
};

#define NFAULTS (sizeof(faults) / sizeof(faults[0]))

static int64_t fault_count = 1;
static int fault_op = -1;
static int64_t fault_uid = -1;	/* only requests of this uid (-1: any) */

void fb_fault_set_uid(uint32_t uid)
{
	fault_uid = uid;
}

int fb_fault_add(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	size_t i;
	int ret = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NFAULTS; i++)
			if (!strcmp(faults[i].name, tok))
				break;
		if (i == NFAULTS) {
			fb_errmsg("unknown fault '%s' (see --list-faults)", tok);
			ret = -1;
			break;
		}
		faults[i].active = true;
	}
	free(copy);
	return ret;
}

int fb_fault_set_op(const char *opname)
{
	fault_op = fb_opcode_by_name(opname);
	if (fault_op < 0) {
		fb_errmsg("unknown opcode '%s' for --fault-op", opname);
		return -1;
	}
	return 0;
}

void fb_fault_set_count(unsigned int count)
{
	fault_count = count ? (int64_t)count : -1;
}

static bool is_entry_op(uint32_t op)
{
	return op == FUSE_LOOKUP || op == FUSE_MKNOD || op == FUSE_MKDIR ||
	       op == FUSE_SYMLINK || op == FUSE_LINK || op == FUSE_CREATE;
}

static bool has_reply(uint32_t op)
{
	return op != FUSE_FORGET && op != FUSE_BATCH_FORGET &&
	       op != FUSE_INTERRUPT;
}

static bool shape_ok(int shape, uint32_t op)
{
	switch (shape) {
	case SH_ANY:
	case SH_PAYLOAD:
		return has_reply(op);
	case SH_ENTRY:
		return is_entry_op(op);
	case SH_ATTR:
		return is_entry_op(op) || op == FUSE_GETATTR ||
		       op == FUSE_SETATTR;
	case SH_WRITE:
		return op == FUSE_WRITE;
	case SH_READ:
		return op == FUSE_READ;
	case SH_DIRENT:
		return op == FUSE_READDIR;
	case SH_INIT:
		return op == FUSE_INIT;
	case SH_OPEN:
		return op == FUSE_OPEN || op == FUSE_CREATE;
	}
	return false;
}

int fb_fault_validate(void)
{
	size_t i;

	for (i = 0; i < NFAULTS; i++) {
		struct fb_fault *f = &faults[i];

		if (!f->active)
			continue;
		f->op = fault_op >= 0 ? (uint32_t)fault_op : f->defop;
		f->remaining = fault_count;
		if (!shape_ok(f->shape, f->op)) {
			fb_errmsg("fault %s cannot be applied to %s",
				  f->name, fb_opname(f->op));
			return -1;
		}
		if (f->open_kind == FB_OF_BO_NESTED && !cfg.backing_nested) {
			fb_errmsg("fault bo-nested needs --backing-nested DIR");
			return -1;
		}
	}
	return 0;
}

void fb_fault_list(void)
{
	size_t i;

	for (i = 0; i < NFAULTS; i++)
		printf("%-24s %-9s %s\n", faults[i].name,
		       fb_opname(faults[i].defop), faults[i].desc);
}

bool fb_fault_need_passthrough(void)
{
	size_t i;

	for (i = 0; i < NFAULTS; i++)
		if (faults[i].active && faults[i].cls == FC_OPEN)
			return true;
	return false;
}

const char *fb_fault_name(const struct fb_fault *f)
{
	return f->name;
}

int fb_fault_open_kind(const struct fb_fault *f)
{
	return f->open_kind;
}

static bool consume(struct fb_fault *f)
{
	int64_t r = __atomic_load_n(&f->remaining, __ATOMIC_RELAXED);

	for (;;) {
		if (r == 0)
			return false;
		if (r < 0)
			return true;
		if (__atomic_compare_exchange_n(&f->remaining, &r, r - 1,
						false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	}
}

static struct fb_fault *fault_take(const struct fb_req *req, bool open_time)
{
	uint32_t op = req->in->opcode;
	size_t i;

	for (i = 0; i < NFAULTS; i++) {
		struct fb_fault *f = &faults[i];

		if (!f->active || f->op != op ||
		    (f->cls == FC_OPEN || f->cls == FC_LOSE) != open_time)
			continue;
		if (fault_uid >= 0 && req->in->uid != (uint32_t)fault_uid)
			continue;
		if (f->shape != SH_ANY && f->shape != SH_OPEN && req->error)
			continue;
		if (f->shape == SH_PAYLOAD && req->outlen < 2)
			continue;
		if (f->shape == SH_DIRENT && req->outlen < FUSE_NAME_OFFSET)
			continue;
		/*
		 * GETATTR faults hit regular files only: anything on the
		 * system may stat a fresh mount's root first, and a corrupt
		 * root inode would take the whole mount down.
		 */
		if (op == FUSE_GETATTR && !fb_node_is_reg(req->in->nodeid))
			continue;
		if (f->shape == SH_ATTR && req->in->nodeid == FUSE_ROOT_ID &&
		    !is_entry_op(op))
			continue;
		if (!consume(f))
			continue;
		return f;
	}
	return NULL;
}

struct fb_fault *fb_fault_take_open(const struct fb_req *req)
{
	return fault_take(req, true);
}

/* the WRITE handler: drop this WRITE's data (and reply success)? */
bool fb_fault_write_lost(const struct fb_req *req)
{
	struct fb_fault *f = fault_take(req, true);

	if (!f)
		return false;
	fb_atomic_inc(&stats.faults_sent);
	fb_fault_note(req, f, "data not written, success replied", 0, 0);
	return true;
}

void fb_fault_note(const struct fb_req *req, const struct fb_fault *f,
		   const char *what, ssize_t res, int err)
{
	fprintf(stderr,
		"fbtestd: fault %s on %s unique=%llu nodeid=%llu: %s -> %zd (%s)\n",
		f->name, fb_opname(req->in->opcode),
		(unsigned long long)req->in->unique,
		(unsigned long long)req->in->nodeid, what, res,
		err ? strerror(err) : "ok");
}

/* send a malformed message; record and log the kernel's answer */
static void send_bad(const struct fb_req *req, const struct fb_fault *f,
		     const void *buf, size_t len, const char *what)
{
	const struct fuse_out_header *oh = buf;
	char desc[160];
	ssize_t n = fb_send_raw(req->fd, buf, len);
	int err = n < 0 ? errno : 0;

	fb_atomic_inc(&stats.faults_sent);
	__atomic_store_n(&stats.fault_write_errno, err, __ATOMIC_RELAXED);
	if (len >= sizeof(*oh))
		snprintf(desc, sizeof(desc),
			 "%s: write %zu bytes (len=%u error=%d unique=%llu)",
			 what, len, oh->len, oh->error,
			 (unsigned long long)oh->unique);
	else
		snprintf(desc, sizeof(desc), "%s: write %zu bytes", what, len);
	fb_fault_note(req, f, desc, n, err);
}

static void send_good(const struct fb_req *req, const struct fb_fault *f,
		      size_t len)
{
	ssize_t n = fb_send_raw(req->fd, req->oh, len);

	fb_fault_note(req, f, "then the correct reply", n, n < 0 ? errno : 0);
}

static struct fuse_attr *reply_attr(struct fb_req *req)
{
	uint32_t op = req->in->opcode;

	if (is_entry_op(op))
		return &((struct fuse_entry_out *)req->out)->attr;
	return &((struct fuse_attr_out *)req->out)->attr;
}

static void apply(struct fb_fault *f, struct fb_req *req)
{
	struct fuse_out_header *oh = req->oh, saved = *req->oh;
	size_t len = oh->len;
	char nbuf[sizeof(struct fuse_out_header) + 64];
	struct fuse_out_header *nh = (void *)nbuf;
	struct fuse_dirent *de = (void *)req->out;
	struct fuse_entry_out *eo = (void *)req->out;
	struct fuse_init_out *io = (void *)req->out;
	struct stat st;

	switch (f->kind) {
	case F_HDR_SHORT_WRITE:
		send_bad(req, f, oh, 8, "8-byte write");
		break;
	case F_LEN_LT_HEADER:
		oh->len = 8;
		send_bad(req, f, oh, len, "len < header");
		break;
	case F_LEN_GT_WRITTEN:
		oh->len = len + 64;
		send_bad(req, f, oh, len, "len > written");
		break;
	case F_LEN_HUGE:
		oh->len = 1u << 30;
		send_bad(req, f, oh, len, "len 1 GiB");
		break;
	case F_ZERO_WRITE:
		send_bad(req, f, oh, 0, "zero-length write");
		break;
	case F_UNKNOWN_UNIQUE:
		oh->unique += 1ULL << 40;
		send_bad(req, f, oh, len, "unknown unique");
		break;
	case F_ERROR_POSITIVE:
		oh->error = 5;
		oh->len = sizeof(*oh);
		send_bad(req, f, oh, sizeof(*oh), "positive error");
		break;
	case F_ERROR_HUGE_NEG:
		oh->error = -100000;
		oh->len = sizeof(*oh);
		send_bad(req, f, oh, sizeof(*oh), "error -100000");
		break;
	case F_ERROR_ERESTARTSYS:
		oh->error = -512;
		oh->len = sizeof(*oh);
		send_bad(req, f, oh, sizeof(*oh), "error -512");
		break;
	case F_DUP_UNIQUE:
		send_good(req, f, len);
		send_bad(req, f, oh, len, "duplicate reply");
		return;
	case F_STALL_EINTR:
		sleep(2);
		/* fall through */
	case F_ERR_EIO:
	case F_ERR_ENOMEM:
		oh->error = f->kind == F_ERR_EIO ? -EIO :
			    f->kind == F_ERR_ENOMEM ? -ENOMEM : -EINTR;
		oh->len = sizeof(*oh);
		send_bad(req, f, oh, oh->len, "error reply");
		return;
	case F_ERROR_PAYLOAD:
		oh->error = -EPERM;
		oh->len = sizeof(*oh) + 16;
		memset(req->out, 0, 16);
		send_bad(req, f, oh, oh->len, "error with payload");
		return;
	case F_SHORT:
		oh->len = sizeof(*oh) + (req->in->opcode == FUSE_INIT ? 4 :
					 req->outlen / 2);
		send_bad(req, f, oh, oh->len, "short reply");
		return;
	case F_LONG_REPLY:
		memset(req->out + req->outlen, 0xa5, 64);
		oh->len = len + 64;
		send_bad(req, f, oh, oh->len, "reply + 64 bytes");
		return;
	case F_LOOKUP_NODEID0:
		eo->nodeid = 0;
		send_bad(req, f, oh, len, "entry nodeid 0");
		return;
	case F_LOOKUP_ROOT_NODEID:
		eo->nodeid = FUSE_ROOT_ID;
		eo->generation = 0;
		if (fstat(sess.rootfd, &st) == 0) {
			eo->attr.mode = st.st_mode;
			eo->attr.ino = st.st_ino;
			eo->attr.nlink = st.st_nlink;
			eo->attr.size = st.st_size;
		}
		send_bad(req, f, oh, len, "child entry with nodeid 1");
		return;
	case F_LOOKUP_ROOT_WRONGTYPE:
		eo->nodeid = FUSE_ROOT_ID;
		eo->generation = 0;
		eo->attr.mode = S_IFREG | 0644;
		send_bad(req, f, oh, len, "entry nodeid 1 with S_IFREG");
		return;
	case F_ATTR_BAD_MODE:
		reply_attr(req)->mode = (reply_attr(req)->mode & 07777) |
					S_IFMT;
		send_bad(req, f, oh, len, "attr mode 0170xxx");
		return;
	case F_ATTR_SIZE_HUGE:
		reply_attr(req)->size = 1ULL << 63;
		send_bad(req, f, oh, len, "attr size 2^63");
		return;
	case F_WRITE_TOO_MANY: {
		const struct fuse_write_in *wi = (const void *)req->arg;

		((struct fuse_write_out *)req->out)->size = wi->size + 4096;
		send_bad(req, f, oh, len, "write size + 4096");
		return;
	}
	case F_READ_TOO_LONG: {
		const struct fuse_read_in *ri = (const void *)req->arg;
		size_t want = (size_t)ri->size + 4096;

		if (want > FB_OUT_CAP)
			want = FB_OUT_CAP;
		if (want > req->outlen)
			memset(req->out + req->outlen, 0x5a,
			       want - req->outlen);
		oh->len = sizeof(*oh) + want;
		send_bad(req, f, oh, oh->len, "read reply size + 4096");
		return;
	}
	case F_DIRENT_NAMELEN0:
		de->namelen = 0;
		send_bad(req, f, oh, len, "dirent namelen 0");
		return;
	case F_DIRENT_NAMELEN_HUGE:
		de->namelen = 65536;
		send_bad(req, f, oh, len, "dirent namelen 65536");
		return;
	case F_DIRENT_NAMELEN_OVERRUN:
		de->namelen = 1000;
		send_bad(req, f, oh, len, "dirent namelen 1000 past buffer");
		return;
	case F_DIRENT_SLASH:
		de->name[0] = '/';
		send_bad(req, f, oh, len, "dirent name with '/'");
		return;
	case F_INIT_MAJOR6:
		io->major = 6;
		send_bad(req, f, oh, len, "INIT major 6");
		return;
	case F_INIT_MINOR0:
		io->minor = 0;
		send_bad(req, f, oh, len, "INIT minor 0");
		return;
	case F_INIT_MAXWRITE0:
		io->max_write = 0;
		send_bad(req, f, oh, len, "INIT max_write 0");
		return;
	case F_NOTIFY_BOGUS:
		memset(nbuf, 0, sizeof(nbuf));
		nh->len = sizeof(*nh) + 8;
		nh->error = 1000;
		nh->unique = 0;
		send_bad(req, f, nbuf, nh->len, "notify code 1000");
		break;
	case F_NOTIFY_INVAL_UNKNOWN: {
		struct fuse_notify_inval_inode_out *ii = (void *)(nh + 1);

		memset(nbuf, 0, sizeof(nbuf));
		nh->len = sizeof(*nh) + sizeof(*ii);
		nh->error = FUSE_NOTIFY_INVAL_INODE;
		nh->unique = 0;
		ii->ino = 0xfb7e57000000ffffULL;
		ii->off = 0;
		ii->len = 0;
		send_bad(req, f, nbuf, nh->len, "INVAL_INODE unknown nodeid");
		break;
	}
	default:
		fb_errmsg("fault %s: not applicable here", f->name);
		break;
	}
	/* REJECT and NOTIFY: the request is still pending */
	*oh = saved;
	send_good(req, f, len);
}

/*
 * fb_send_reply's hook, once the reply header is filled in: a fault sends
 * this reply (or what it makes of it).  False when none applies: the reply
 * goes as it is.
 */
bool fb_fault_reply(struct fb_req *req)
{
	struct fuse_out_header *oh = req->oh;
	struct fb_fault *f;
	ssize_t n;

	if (req->ofault) {
		/* open-time fault: this reply carries the bogus open result */
		n = fb_send_raw(req->fd, oh, oh->len);
		fb_atomic_inc(&stats.faults_sent);
		__atomic_store_n(&stats.fault_write_errno, n < 0 ? errno : 0,
				 __ATOMIC_RELAXED);
		fb_fault_note(req, req->ofault, req->error ?
			      "open answered with the ioctl error" :
			      "FOPEN_PASSTHROUGH open reply", n,
			      n < 0 ? errno : 0);
		return true;
	}

	f = fault_take(req, false);
	if (f) {
		bool consumed = f->cls == FC_REPLACE || f->cls == FC_MUTATE;

		apply(f, req);
		/* the kernel never learnt about the node we looked up */
		if (consumed && req->entry_nodeid && !req->error)
			fb_node_unref_lookup(req->entry_nodeid);
		return true;
	}
	return false;
}
