// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbdelay: a test-only module that stretches a race window on purpose.
 *
 * A kprobe on @symbol busy-waits @delay_ms in the tasks named @comm, so a
 * test can run another task inside the window (it polls @hits to know the
 * window is open, and @done to know whether it closed meanwhile).  Only
 * the VM tests load it (tests/suites/parallel.sh), never a package.
 *
 * Used on fuse_change_attributes_common(), which fuse_change_attributes_i()
 * calls under fi->lock between the attr_version check of a reply and the
 * i_size_write() that applies it: the window in which a lockless "does not
 * extend" decision of fuse_write_update_attr() could be overtaken by a
 * shrink.
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

static char *symbol = "fuse_change_attributes_common";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "function to delay at entry (module:name allowed)");

static char *comm = "fbdelay";
module_param(comm, charp, 0444);
MODULE_PARM_DESC(comm, "delay only tasks of this name");

static uint delay_ms = 1000;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "busy-wait this long at each hit");

static int hits;
module_param(hits, int, 0444);
MODULE_PARM_DESC(hits, "delays started");

static int done;
module_param(done, int, 0444);
MODULE_PARM_DESC(done, "delays finished");

static int fbdelay_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (strcmp(current->comm, comm))
		return 0;
	WRITE_ONCE(hits, hits + 1);
	mdelay(delay_ms);
	WRITE_ONCE(done, done + 1);
	return 0;
}

static struct kprobe fbdelay_kp = {
	.pre_handler = fbdelay_pre,
};

static int __init fbdelay_init(void)
{
	fbdelay_kp.symbol_name = symbol;
	return register_kprobe(&fbdelay_kp);
}

static void __exit fbdelay_exit(void)
{
	unregister_kprobe(&fbdelay_kp);
}

module_init(fbdelay_init);
module_exit(fbdelay_exit);
MODULE_DESCRIPTION("fuse-backport test: widen a race window with a kprobe");
MODULE_LICENSE("GPL");
