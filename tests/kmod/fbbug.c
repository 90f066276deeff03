// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbbug: a test-only module that commits one of the bugs the debug kernel
 * (dev/debug-kernel.sh) must report, so that a run can be shown red.
 *
 * @what=lockdep takes two mutexes in one order, then in the other (an ABBA
 * lockdep sees without any deadlock), @what=kasan reads one byte past a
 * kmalloc'ed object, @what=sleep calls might_sleep() under a spinlock,
 * @what=leak drops a struct fuse_dev that the loaded FUSE module's
 * fuse_dev_alloc() allocated (a leak whose backtrace names FUSE, for
 * kmemleak), @what=leak-other drops a kmalloc'ed object of its own (a leak
 * that is not FUSE's); the leaks only on a kernel with kmemleak.
 * Loaded only by tests/vm/guest/suites.sh for FB_INJECT=lockdep:... (and kasan,
 * sleep, leak, leak-other), never by a package.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *what = "lockdep";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "lockdep, kasan, sleep, leak or leak-other");

static DEFINE_MUTEX(fbbug_a);
static DEFINE_MUTEX(fbbug_b);
static DEFINE_SPINLOCK(fbbug_lock);

static int __init fbbug_init(void)
{
	if (!strcmp(what, "lockdep")) {
		mutex_lock(&fbbug_a);
		mutex_lock(&fbbug_b);
		mutex_unlock(&fbbug_b);
		mutex_unlock(&fbbug_a);
		mutex_lock(&fbbug_b);
		mutex_lock(&fbbug_a);
		mutex_unlock(&fbbug_a);
		mutex_unlock(&fbbug_b);
	} else if (!strcmp(what, "kasan")) {
		char *p = kmalloc(16, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		OPTIMIZER_HIDE_VAR(p);
		pr_info("fbbug: read past a 16-byte object: %d\n", READ_ONCE(p[16]));
		kfree(p);
	} else if (!strcmp(what, "sleep")) {
		spin_lock(&fbbug_lock);
		might_sleep();
		spin_unlock(&fbbug_lock);
#ifdef CONFIG_DEBUG_KMEMLEAK
	/* only where kmemleak can see them: the debug kernel */
	} else if (!strcmp(what, "leak")) {
		/*
		 * By name at run time: no link-time dependency on a module
		 * that is fuse.ko in one flavor and renamed in the other.
		 */
		void *(*alloc)(void) = (void *(*)(void))__symbol_get("fuse_dev_alloc");
		void *fud;

		if (!alloc) {
			pr_err("fbbug: no fuse_dev_alloc() (is the drop-in FUSE module loaded?)\n");
			return -ENOENT;
		}
		fud = alloc();
		symbol_put_addr((void *)alloc);
		if (!fud)
			return -ENOMEM;
		OPTIMIZER_HIDE_VAR(fud);
		pr_info("fbbug: dropped a struct fuse_dev of fuse_dev_alloc()\n");
	} else if (!strcmp(what, "leak-other")) {
		void *p = kmalloc(64, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		OPTIMIZER_HIDE_VAR(p);
		pr_info("fbbug: dropped a 64-byte object of its own\n");
#endif
	} else {
		return -EINVAL;
	}
	return 0;
}

static void __exit fbbug_exit(void)
{
}

module_init(fbbug_init);
module_exit(fbbug_exit);
MODULE_DESCRIPTION("fuse-backport test: a deliberate lock, memory or context bug");
MODULE_LICENSE("GPL");
