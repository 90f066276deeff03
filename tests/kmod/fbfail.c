// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbfail: a test-only module that fails steps of the takeover on purpose.
 *
 * A kretprobe on @symbol, the takeover's fault point fb_to_fault(step,
 * undo) (backports/takeover/takeover.c, called before each step is done or
 * undone), makes it return -ENOMEM for the steps in @do_mask (bit N: step
 * N done, forward) and in @undo_mask (bit N: step N undone), every time
 * until the module is removed; @hits counts the failures made. Debian's
 * kernels have no fail_function (CONFIG_FUNCTION_ERROR_INJECTION), only
 * kprobes. Only the VM tests load it (tests/suites/takeover/restore.sh),
 * never a package.
 */
#include <linux/errno.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>

static char *symbol = "fusebp:fb_to_fault";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the fault point (module:name)");

static uint do_mask;
module_param(do_mask, uint, 0444);
MODULE_PARM_DESC(do_mask, "fail these steps when done (bit N: step N)");

static uint undo_mask;
module_param(undo_mask, uint, 0444);
MODULE_PARM_DESC(undo_mask, "fail these steps when undone (bit N: step N)");

static int hits;
module_param(hits, int, 0444);
MODULE_PARM_DESC(hits, "failures made");

struct fbfail_call {
	bool fail;
};

static int fbfail_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fbfail_call *c = (struct fbfail_call *)ri->data;
	unsigned long step = regs_get_kernel_argument(regs, 0);
	bool undo = regs_get_kernel_argument(regs, 1) & 1;
	uint mask = undo ? undo_mask : do_mask;

	c->fail = step < 32 && (mask & (1U << step));
	return 0;
}

static int fbfail_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct fbfail_call *c = (struct fbfail_call *)ri->data;

	if (c->fail) {
		regs_set_return_value(regs, (unsigned long)-ENOMEM);
		WRITE_ONCE(hits, hits + 1);
	}
	return 0;
}

static struct kretprobe fbfail_rp = {
	.entry_handler	= fbfail_entry,
	.handler	= fbfail_ret,
	.data_size	= sizeof(struct fbfail_call),
	.maxactive	= 4,
};

static int __init fbfail_init(void)
{
	fbfail_rp.kp.symbol_name = symbol;
	return register_kretprobe(&fbfail_rp);
}

static void __exit fbfail_exit(void)
{
	unregister_kretprobe(&fbfail_rp);
}

module_init(fbfail_init);
module_exit(fbfail_exit);
MODULE_DESCRIPTION("fuse-backport test: fail takeover steps with a kretprobe");
MODULE_LICENSE("GPL");
