// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbtestd - the node table.
 *
 * Every node the kernel knows about is backed by an O_PATH file descriptor
 * of the backing object, keyed by (st_dev, st_ino) so that hard links and
 * repeated lookups map to one nodeid.  Node ids are never reused (the
 * generation is always 0).  Operations that need a real open of a node go
 * through /proc/self/fd/N, so /proc must be mounted.
 */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define NODE_HASH_BITS	16
#define NODE_HASH_SIZE	(1u << NODE_HASH_BITS)

pthread_mutex_t node_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fb_node *id_hash[NODE_HASH_SIZE];
static struct fb_node *ino_hash[NODE_HASH_SIZE];
static uint64_t next_nodeid = FUSE_ROOT_ID + 1;

static unsigned int hash64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return (unsigned int)(v & (NODE_HASH_SIZE - 1));
}

static unsigned int hash_ino(dev_t dev, ino_t ino)
{
	return hash64((uint64_t)ino * 31 + (uint64_t)dev);
}

static void node_insert(struct fb_node *n)
{
	unsigned int h = hash64(n->nodeid);
	unsigned int hi = hash_ino(n->dev, n->ino);

	n->id_next = id_hash[h];
	id_hash[h] = n;
	n->ino_next = ino_hash[hi];
	ino_hash[hi] = n;
}

static struct fb_node *node_find_id(uint64_t nodeid)
{
	struct fb_node *n;

	for (n = id_hash[hash64(nodeid)]; n; n = n->id_next)
		if (n->nodeid == nodeid)
			return n;
	return NULL;
}

static struct fb_node *node_find_ino(dev_t dev, ino_t ino)
{
	struct fb_node *n;

	for (n = ino_hash[hash_ino(dev, ino)]; n; n = n->ino_next)
		if (n->dev == dev && n->ino == ino)
			return n;
	return NULL;
}

/* called with node_lock held; may free @n */
static void node_maybe_free(struct fb_node *n)
{
	struct fb_node **pp;

	if (n->nlookup || n->refs || n->nodeid == FUSE_ROOT_ID)
		return;
	for (pp = &id_hash[hash64(n->nodeid)]; *pp; pp = &(*pp)->id_next) {
		if (*pp == n) {
			*pp = n->id_next;
			break;
		}
	}
	for (pp = &ino_hash[hash_ino(n->dev, n->ino)]; *pp;
	     pp = &(*pp)->ino_next) {
		if (*pp == n) {
			*pp = n->ino_next;
			break;
		}
	}
	close(n->fd);
	free(n);
	fb_atomic_dec(&stats.nodes);
}

int fb_nodes_init(int rootfd)
{
	struct fb_node *root;
	struct stat st;

	if (fstat(rootfd, &st) < 0)
		return -errno;
	root = calloc(1, sizeof(*root));
	if (!root)
		return -ENOMEM;
	root->nodeid = FUSE_ROOT_ID;
	root->nlookup = 1;
	root->dev = st.st_dev;
	root->ino = st.st_ino;
	root->fd = rootfd;
	root->type = st.st_mode & S_IFMT;
	node_insert(root);
	return 0;
}

struct fb_node *node_get(uint64_t nodeid)
{
	struct fb_node *n;

	pthread_mutex_lock(&node_lock);
	n = node_find_id(nodeid);
	if (n)
		n->refs++;
	pthread_mutex_unlock(&node_lock);
	return n;
}

void node_put(struct fb_node *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&node_lock);
	n->refs--;
	node_maybe_free(n);
	pthread_mutex_unlock(&node_lock);
}

static void node_forget(uint64_t nodeid, uint64_t nlookup)
{
	struct fb_node *n;

	pthread_mutex_lock(&node_lock);
	n = node_find_id(nodeid);
	if (n && n->nodeid != FUSE_ROOT_ID) {
		n->nlookup = nlookup > n->nlookup ? 0 : n->nlookup - nlookup;
		node_maybe_free(n);
	}
	pthread_mutex_unlock(&node_lock);
}

void fb_node_unref_lookup(uint64_t nodeid)
{
	node_forget(nodeid, 1);
}

bool fb_node_is_reg(uint64_t nodeid)
{
	struct fb_node *n;
	bool reg;

	pthread_mutex_lock(&node_lock);
	n = node_find_id(nodeid);
	reg = n && n->type == S_IFREG;
	pthread_mutex_unlock(&node_lock);
	return reg;
}

static void warn_emfile(void)
{
	static bool warned;

	if (!__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
		fb_errmsg("out of file descriptors with %llu known nodes (one O_PATH fd each): raise RLIMIT_NOFILE",
			  (unsigned long long)__atomic_load_n(&stats.nodes,
							      __ATOMIC_RELAXED));
}

/* Look @name up under @parent; bumps the nlookup of the result. */
int do_lookup(struct fb_req *req, struct fb_node *parent,
		     const char *name, struct fuse_entry_out *e)
{
	struct fb_node *n, *fresh = NULL;
	struct stat st;
	int fd, err;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -EMFILE)
			warn_emfile();
		return err;
	}
	if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
		err = -errno;
		close(fd);
		return err;
	}

	pthread_mutex_lock(&node_lock);
	n = node_find_ino(st.st_dev, st.st_ino);
	if (n) {
		n->nlookup++;
	} else {
		fresh = calloc(1, sizeof(*fresh));
		if (!fresh) {
			pthread_mutex_unlock(&node_lock);
			close(fd);
			return -ENOMEM;
		}
		fresh->nodeid = next_nodeid++;
		fresh->nlookup = 1;
		fresh->dev = st.st_dev;
		fresh->ino = st.st_ino;
		fresh->fd = fd;
		fresh->type = st.st_mode & S_IFMT;
		node_insert(fresh);
		fb_atomic_inc(&stats.nodes);
		n = fresh;
	}
	memset(e, 0, sizeof(*e));
	e->nodeid = n->nodeid;
	pthread_mutex_unlock(&node_lock);
	if (!fresh)
		close(fd);

	e->generation = 0;
	e->entry_valid = cfg.attr_timeout;
	e->attr_valid = cfg.attr_timeout;
	fill_attr(&e->attr, &st);
	req->entry_nodeid = e->nodeid;
	return 0;
}

void op_forget(struct fb_req *req)
{
	const struct fuse_forget_in *fi = (const void *)req->arg;

	node_forget(req->in->nodeid, fi->nlookup);
	req->noreply = true;
}

void op_batch_forget(struct fb_req *req)
{
	const struct fuse_batch_forget_in *bi = (const void *)req->arg;
	const struct fuse_forget_one *one = (const void *)(bi + 1);
	size_t max = (req->arglen - sizeof(*bi)) / sizeof(*one);
	uint32_t i;

	for (i = 0; i < bi->count && i < max; i++)
		node_forget(one[i].nodeid, one[i].nlookup);
	req->noreply = true;
}

/*
 * SIGUSR2: tell the kernel that the attributes of every inode it knows may
 * have changed behind its back (offset -1: attributes only, no page cache),
 * as a server does after a change made outside the mount.
 */
void fb_notify_inval_all(void)
{
	struct {
		struct fuse_out_header h;
		struct fuse_notify_inval_inode_out o;
	} msg;
	struct fb_node *n;
	uint64_t *ids = NULL;
	size_t cnt = 0, cap = 0, i;

	pthread_mutex_lock(&node_lock);
	for (i = 0; i < NODE_HASH_SIZE; i++) {
		for (n = id_hash[i]; n; n = n->id_next) {
			if (cnt == cap) {
				uint64_t *p;

				cap = cap ? 2 * cap : 64;
				p = realloc(ids, cap * sizeof(*ids));
				if (!p)
					break;
				ids = p;
			}
			if (cnt < cap)
				ids[cnt++] = n->nodeid;
		}
	}
	pthread_mutex_unlock(&node_lock);

	/* not under node_lock: the kernel may send FORGETs meanwhile */
	for (i = 0; i < cnt; i++) {
		memset(&msg, 0, sizeof(msg));
		msg.h.len = sizeof(msg);
		msg.h.error = FUSE_NOTIFY_INVAL_INODE;
		msg.o.ino = ids[i];
		msg.o.off = -1;
		if (write(sess.devfd, &msg, sizeof(msg)) == sizeof(msg))
			fb_atomic_inc(&stats.notify_inval_sent);
		else
			fb_atomic_inc(&stats.notify_inval_failed);
	}
	free(ids);
}
