// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: take over a built-in FUSE (renamed flavor only).
 *
 * On a CONFIG_FUSE_FS=y kernel this module serves fusebp, fusebpblk and
 * /dev/fusebp beside the built-in FUSE. With the module parameter takeover
 * on, it also serves the names unmodified userspace uses: the built-in's
 * fuseblk and fuse file system types are unregistered and ours registered
 * under those names, and the built-in's misc device 10:229 is deregistered
 * and ours registered at FUSE_MINOR, named "fuse". Mounts made before stay
 * on the built-in and keep working. Exported API only.
 *
 * Every swap is a sequence of steps (fb_to_steps); fb_to_done counts those
 * in place. Enable runs them forward, disable undoes them backwards, and a
 * failed step undoes those before it, so nothing is registered or
 * deregistered twice: 7.3's misc_deregister() has no list_empty() guard, a
 * second call would destroy whatever owns 10:229 by then.
 *
 * Undoing stops at a step that fails. Where that is a restore of the
 * built-in (its misc_register() failing: ENOMEM in device_create(), 7.3's
 * ida; a name taken meanwhile), ours is registered again for that name, so
 * that each name keeps an owner (fb_to_undo()). The write of the parameter
 * then fails with that error, one line in the log says who serves what,
 * and the parameter reads it while the swap is partly done:
 *
 *   0                                         everything the built-in's
 *   1                                         everything ours
 *   fuse=SIDE fuseblk=SIDE /dev/fuse=SIDE     partly done; SIDE is
 *                                             built-in, KBUILD_MODNAME, or
 *                                             none (ours could not be put
 *                                             back either)
 *
 * From there, writing 1 finishes the swap and 0 undoes it. Only module
 * exit undoes past a failure (ours cannot stay), leaving that name with no
 * owner.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": takeover: " fmt

#include <linux/device.h>
#include <linux/error-injection.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "fuse_i.h"

static struct file_system_type fb_to_fs;
static struct file_system_type fb_to_blk;
static struct miscdevice fb_to_misc = {
	.minor	= FUSE_MINOR,
	.name	= "fuse",
	.fops	= &fuse_dev_operations,
};

/* The built-in's, found by fb_to_verify(); all of them live in vmlinux. */
static struct file_system_type *fb_bi_fs;
static struct file_system_type *fb_bi_blk;
static struct miscdevice *fb_bi_misc;

/* Our /dev/fusebp: the way to the misc class, which is not exported. */
static struct miscdevice *fb_own_misc;

/*
 * fb_to_lock: held for every read-modify-write of fb_to_done, fb_to_want
 * and fb_to_ready, and across a whole swap (every register and deregister
 * of this file). A request that finds it held is refused with -EBUSY;
 * only module init and exit wait for it.
 */
static DEFINE_MUTEX(fb_to_lock);
static unsigned int fb_to_done;	/* steps in place, 0: off */
static bool fb_to_want;		/* takeover=1 given before init */
static bool fb_to_ready;	/* between fb_takeover_init() and _exit() */

static int fb_reg_fs(struct file_system_type *t)
{
	return register_filesystem(t);
}

static int fb_unreg_fs(struct file_system_type *t)
{
	return unregister_filesystem(t);
}

static int fb_unreg_misc(struct miscdevice *m)
{
	misc_deregister(m);
	return 0;
}

struct fb_to_step {
	const char *what;
	int (*on)(void);
	int (*off)(void);
};

static int bi_blk_off(void) { return fb_unreg_fs(fb_bi_blk); }
static int bi_blk_on(void) { return fb_reg_fs(fb_bi_blk); }
static int to_blk_on(void) { return fb_reg_fs(&fb_to_blk); }
static int to_blk_off(void) { return fb_unreg_fs(&fb_to_blk); }
static int bi_fs_off(void) { return fb_unreg_fs(fb_bi_fs); }
static int bi_fs_on(void) { return fb_reg_fs(fb_bi_fs); }
static int to_fs_on(void) { return fb_reg_fs(&fb_to_fs); }
static int to_fs_off(void) { return fb_unreg_fs(&fb_to_fs); }
static int bi_misc_off(void) { return fb_unreg_misc(fb_bi_misc); }
static int bi_misc_on(void) { return misc_register(fb_bi_misc); }
static int to_misc_on(void) { return misc_register(&fb_to_misc); }
static int to_misc_off(void) { return fb_unreg_misc(&fb_to_misc); }

static const struct fb_to_step fb_to_steps[] = {
	{ "the built-in fuseblk",	bi_blk_off,	bi_blk_on },
	{ "our fuseblk",		to_blk_on,	to_blk_off },
	{ "the built-in fuse",		bi_fs_off,	bi_fs_on },
	{ "our fuse",			to_fs_on,	to_fs_off },
	{ "the built-in /dev/fuse",	bi_misc_off,	bi_misc_on },
	{ "our /dev/fuse",		to_misc_on,	to_misc_off },
};

/*
 * The fault point of the step engine, called before each step is done
 * (UNDO false) or undone (UNDO true): an error from it fails that step
 * before anything is registered or deregistered, as a failed register
 * would. Always 0 here; the tests make it fail with a kretprobe
 * (tests/kmod/fbfail.c), a kernel with CONFIG_FUNCTION_ERROR_INJECTION
 * through fail_function. __noipa: never inlined, cloned or assumed to
 * return 0, its arguments kept where the calling convention puts them.
 */
static noinline __noipa int fb_to_fault(unsigned int step, bool undo)
{
	return 0;
}
ALLOW_ERROR_INJECTION(fb_to_fault, ERRNO);

/*
 * Who serves the name of steps 2P and 2P + 1 (P: 0 fuseblk, 1 fuse, 2
 * /dev/fuse) with DONE steps in place: ours once both are, nobody between.
 */
static const char *fb_to_side(unsigned int pair, unsigned int done)
{
	if (done > 2 * pair + 1)
		return KBUILD_MODNAME;
	return done == 2 * pair + 1 ? "none" : "built-in";
}

#define FB_TO_SIDES_LEN 96

/* "fuse=SIDE fuseblk=SIDE /dev/fuse=SIDE" with DONE steps in place */
static void fb_to_sides(char *buf, unsigned int done)
{
	scnprintf(buf, FB_TO_SIDES_LEN, "fuse=%s fuseblk=%s /dev/fuse=%s",
		  fb_to_side(1, done), fb_to_side(0, done), fb_to_side(2, done));
}

/* What undoing step I does: even steps took a name from the built-in. */
static const char *fb_to_undoing(unsigned int i)
{
	return i & 1 ? "removing" : "restoring";
}

/*
 * Undo the steps in place, last first. A step that fails stops it, with
 * fb_to_done at the steps still in place; a failed restore of the
 * built-in would leave its name with no owner, so ours is put back for it
 * first (the step after), and one side serves every name. KEEP false
 * (module exit, ours cannot stay): each failure logged, the rest undone.
 * Returns 0, or the first failure's error and its step in *FAILED.
 * Caller holds fb_to_lock.
 */
static int fb_to_undo(bool keep, unsigned int *failed)
{
	int ret = 0;

	while (fb_to_done) {
		unsigned int i = fb_to_done - 1;
		int err = fb_to_fault(i, true) ?: fb_to_steps[i].off();

		if (err && !ret) {
			ret = err;
			*failed = i;
		}
		if (!err || !keep) {
			if (err)
				pr_err("unloading: %s %s failed (%d), it has no owner now\n",
				       fb_to_undoing(i), fb_to_steps[i].what, err);
			fb_to_done = i;
			continue;
		}
		if (!(i & 1) && i + 1 < ARRAY_SIZE(fb_to_steps) &&
		    !(fb_to_fault(i + 1, false) ?: fb_to_steps[i + 1].on()))
			fb_to_done = i + 2;
		break;
	}
	return ret;
}

/* Do the steps not in place. Caller holds fb_to_lock. */
static int fb_to_swap(void)
{
	char sides[FB_TO_SIDES_LEN];
	unsigned int failed = 0;
	int err, uerr;

	while (fb_to_done < ARRAY_SIZE(fb_to_steps)) {
		const struct fb_to_step *s = &fb_to_steps[fb_to_done];

		err = fb_to_fault(fb_to_done, false) ?: s->on();
		if (!err) {
			fb_to_done++;
			continue;
		}
		uerr = fb_to_undo(true, &failed);
		if (!uerr) {
			pr_warn("refused: %s failed (%d), rolled back\n",
				s->what, err);
			return err;
		}
		fb_to_sides(sides, fb_to_done);
		pr_err("refused: %s failed (%d); rolling back, %s %s failed (%d); now %s\n",
		       s->what, err, fb_to_undoing(failed),
		       fb_to_steps[failed].what, uerr, sides);
		return err;
	}
	return 0;
}

/* get_fs_type()'s reference: put_filesystem() is not exported. */
static void fb_put_fs(struct file_system_type *t)
{
	module_put(t->owner);
}

static int fb_find_type(const char *name, struct file_system_type **tp)
{
	struct file_system_type *t = get_fs_type(name);

	if (!t) {
		pr_warn("refused: no %s file system registered, FUSE is not built in\n",
			name);
		return -ENODEV;
	}
	if (t->owner) {
		pr_warn("refused: %s is provided by module %s, not built in\n",
			name, module_name(t->owner));
		fb_put_fs(t);
		return t->owner == THIS_MODULE ? -EEXIST : -ENODEV;
	}
	fb_put_fs(t);
	*tp = t;
	return 0;
}

static int fb_find_misc(void)
{
	dev_t devt = MKDEV(MISC_MAJOR, FUSE_MINOR);
	struct miscdevice *m;
	struct device *dev;

	dev = class_find_device(fb_own_misc->this_device->class, NULL, &devt,
				device_match_devt);
	if (!dev) {
		pr_warn("refused: no misc device 10:%d, taken or gone\n",
			FUSE_MINOR);
		return -EEXIST;
	}
	m = dev_get_drvdata(dev);
	if (!m || m->this_device != dev || m->minor != FUSE_MINOR ||
	    !m->name || strcmp(m->name, "fuse") || !m->fops || m->fops->owner) {
		pr_warn("refused: misc device 10:%d looks different from the built-in FUSE's\n",
			FUSE_MINOR);
		put_device(dev);
		return -ENODEV;
	}
	put_device(dev);
	fb_bi_misc = m;
	return 0;
}

static int fb_to_verify(void)
{
	return fb_find_type("fuse", &fb_bi_fs) ?:
		fb_find_type("fuseblk", &fb_bi_blk) ?:
		fb_find_misc();
}

/*
 * Caller holds fb_to_lock. The built-in's mounts are not counted here: a
 * walk of its superblocks takes each one's s_umount, which an unmount
 * holds while it waits for its daemon's answer to DESTROY (fuseblk), as
 * long as that daemon does not answer; under fb_to_lock and the parameter's
 * lock that would hang this write, and a module exit waiting for
 * fb_to_lock would leave fuse and 10:229 registered to a module going
 * away. The tool's status lists the mounts left on the built-in.
 */
static int fb_to_enable(void)
{
	int err;

	if (fb_to_done) {
		pr_warn("refused: already active\n");
		return -EALREADY;
	}
	err = fb_to_verify() ?: fb_to_swap();
	if (err)
		return err;
	pr_info("fuse, fuseblk and /dev/fuse (10:%d) are served by %s; mounts made before stay on the built-in FUSE\n",
		FUSE_MINOR, KBUILD_MODNAME);
	return 0;
}

/*
 * Caller holds fb_to_lock. A failed step stops it (fb_to_undo()), but at
 * module exit, where everything is undone that can be.
 */
static int fb_to_disable(void)
{
	char sides[FB_TO_SIDES_LEN];
	unsigned int failed = 0;
	int err;

	if (!fb_to_done)
		return 0;
	err = fb_to_undo(fb_to_ready, &failed);
	if (!err) {
		pr_info("ended: fuse, fuseblk and /dev/fuse are the built-in FUSE's again\n");
		return 0;
	}
	if (fb_to_ready) {
		fb_to_sides(sides, fb_to_done);
		pr_err("end failed: %s %s failed (%d); now %s\n",
		       fb_to_undoing(failed), fb_to_steps[failed].what, err,
		       sides);
	}
	return err;
}

/* A swap left partly done, finished. Caller holds fb_to_lock. */
static int fb_to_finish(void)
{
	int err = fb_to_swap();

	if (!err)
		pr_info("finished: fuse, fuseblk and /dev/fuse (10:%d) are served by %s\n",
			FUSE_MINOR, KBUILD_MODNAME);
	return err;
}

static int fb_to_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err) {
		pr_warn("refused: not 0 or 1\n");
		return err;
	}
	if (!mutex_trylock(&fb_to_lock)) {
		pr_warn("refused: busy, a swap is in progress\n");
		return -EBUSY;
	}
	if (!fb_to_ready)
		fb_to_want = on;
	else if (on && fb_to_done && fb_to_done < ARRAY_SIZE(fb_to_steps))
		err = fb_to_finish();
	else if (on)
		err = fb_to_enable();
	else
		err = fb_to_disable();
	mutex_unlock(&fb_to_lock);
	return err;
}

static int fb_to_get(char *buf, const struct kernel_param *kp)
{
	unsigned int done = READ_ONCE(fb_to_done);
	char sides[FB_TO_SIDES_LEN];

	if (!done || done == ARRAY_SIZE(fb_to_steps))
		return sysfs_emit(buf, "%d\n", done ? 1 : 0);
	fb_to_sides(sides, done);
	return sysfs_emit(buf, "%s\n", sides);
}

static const struct kernel_param_ops fb_to_ops = {
	.set	= fb_to_set,
	.get	= fb_to_get,
};
module_param_cb(takeover, &fb_to_ops, NULL, 0644);
MODULE_PARM_DESC(takeover,
		 "Serve fuse, fuseblk and /dev/fuse in place of the built-in FUSE (default 0; reads 0, 1, or who serves each while partly done)");

/* Ours, under the built-in's names: a copy of each of our own types. */
static void fb_to_copy(struct file_system_type *to,
		       const struct file_system_type *from, const char *name)
{
	to->owner = THIS_MODULE;
	to->name = name;
	to->fs_flags = from->fs_flags;
	to->init_fs_context = from->init_fs_context;
	to->parameters = from->parameters;
	to->kill_sb = from->kill_sb;
}

bool fb_takeover_is_blk(const struct file_system_type *t)
{
	return t == &fb_to_blk;
}

bool fb_not_our_dev(const struct file *file)
{
	const struct inode *inode = file_inode(file);

	if (file->f_op == &fuse_dev_operations)
		return false;
	if (S_ISCHR(inode->i_mode) &&
	    inode->i_rdev == MKDEV(MISC_MAJOR, FUSE_MINOR))
		pr_warn_ratelimited("mount refused: the descriptor is the built-in FUSE's /dev/fuse (opened before the takeover?); open /dev/fuse again\n");
	return true;
}

void fb_takeover_init(const struct file_system_type *fs,
		      const struct file_system_type *blk,
		      struct miscdevice *misc)
{
	fb_to_copy(&fb_to_fs, fs, "fuse");
	fb_to_copy(&fb_to_blk, blk, "fuseblk");
	fb_own_misc = misc;
	mutex_lock(&fb_to_lock);
	fb_to_ready = true;
	if (fb_to_want)
		fb_to_enable();
	mutex_unlock(&fb_to_lock);
}

void fb_takeover_exit(void)
{
	mutex_lock(&fb_to_lock);
	fb_to_ready = false;
	fb_to_disable();
	mutex_unlock(&fb_to_lock);
}
