/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fbtestd - what the request handlers share: the node table (node.c),
 * attributes (attr.c), directories (dir.c), backing ids (backing.c), open
 * files (io.c), extended attributes (xattr.c), INIT (init.c) and the
 * dispatch (dispatch.c), which calls the op_*() handlers.
 */
#ifndef FBTESTD_OPS_H
#define FBTESTD_OPS_H

#include "fbtestd.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct fb_node {
	uint64_t nodeid;
	uint64_t nlookup;
	uint64_t refs;
	dev_t dev;
	ino_t ino;
	int fd;				/* O_PATH */
	mode_t type;			/* S_IFMT bits */
	int backing_id;			/* passthrough: one id per inode */
	unsigned int backing_users;	/* open files using backing_id */
	struct fb_node *id_next;
	struct fb_node *ino_next;
};

struct fb_file {
	int fd;
	bool direct;			/* fd has O_DIRECT: aligned buffers */
	int backing_id;			/* > 0 while registered (faults) */
	struct fb_node *node;		/* holds a ref while sharing its id */
};

struct fb_dir {
	pthread_mutex_t lock;
	DIR *dp;
	off_t pos;
	struct dirent *pending;		/* read but not yet returned */
};

/* node.c: node_lock guards the table and the backing ids of its nodes */
extern pthread_mutex_t node_lock;
struct fb_node *node_get(uint64_t nodeid);
void node_put(struct fb_node *n);
int do_lookup(struct fb_req *req, struct fb_node *parent,
	      const char *name, struct fuse_entry_out *e);
void op_forget(struct fb_req *req);
void op_batch_forget(struct fb_req *req);

/* attr.c */
void fill_attr(struct fuse_attr *a, const struct stat *st);
int kill_suidgid(int fd, struct fb_node *node);
void op_getattr(struct fb_req *req, struct fb_node *node);
void op_setattr(struct fb_req *req, struct fb_node *node);
void op_statfs(struct fb_req *req, struct fb_node *node);

/* dir.c */
void set_owner(const struct fb_req *req, struct fb_node *parent,
	       const char *name);
void op_lookup(struct fb_req *req, struct fb_node *node);
void op_mknod(struct fb_req *req, struct fb_node *node);
void op_mkdir(struct fb_req *req, struct fb_node *node);
void op_symlink(struct fb_req *req, struct fb_node *node);
void op_unlink(struct fb_req *req, struct fb_node *node, int flags);
void op_rename(struct fb_req *req, struct fb_node *node, bool v2);
void op_link(struct fb_req *req, struct fb_node *node);
void op_readlink(struct fb_req *req, struct fb_node *node);
void op_opendir(struct fb_req *req, struct fb_node *node);
void op_readdir(struct fb_req *req);
void op_releasedir(struct fb_req *req);

/* backing.c */
void backing_close(int id);
int open_fault(struct fb_req *req, const struct fb_fault *flt,
	       int fd, int *id, bool *close_id);
int node_backing_get(struct fb_node *n, int fd);
void node_backing_put(struct fb_node *n);

/* io.c */
void file_free(struct fb_file *f);
void op_open(struct fb_req *req, struct fb_node *node);
void op_create(struct fb_req *req, struct fb_node *node);
void op_read(struct fb_req *req);
void op_write(struct fb_req *req, struct fb_node *node);
void op_flush(struct fb_req *req);
void op_release(struct fb_req *req);
void op_fsync(struct fb_req *req, bool dir);
void op_fallocate(struct fb_req *req);
void op_copy_file_range(struct fb_req *req);
void op_lseek(struct fb_req *req);

/* xattr.c */
void op_getxattr(struct fb_req *req, struct fb_node *node);
void op_listxattr(struct fb_req *req, struct fb_node *node);
void op_setxattr(struct fb_req *req, struct fb_node *node);
void op_removexattr(struct fb_req *req, struct fb_node *node);

/* init.c */
void op_init(struct fb_req *req);

static inline void procpath(char *buf, size_t sz, int fd)
{
	snprintf(buf, sz, "/proc/self/fd/%d", fd);
}

static inline size_t entry_out_size(void)
{
	return sess.kminor < 9 ? FUSE_COMPAT_ENTRY_OUT_SIZE :
				 sizeof(struct fuse_entry_out);
}

static inline void *reply_alloc(struct fb_req *req, size_t len)
{
	memset(req->out, 0, len);
	req->outlen = len;
	req->error = 0;
	return req->out;
}

static inline void reply_err(struct fb_req *req, int err)
{
	/* err: positive errno */
	req->error = -err;
	req->outlen = 0;
}

#endif /* FBTESTD_OPS_H */
