// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, step 1: collect. Every answer names its evidence:
 * /proc/filesystems and /sys/module for what is registered and loaded, the
 * module's version and srcversion in sysfs and modinfo for whose it is,
 * /proc/kallsyms for the code it holds, the FUSE_INIT request of a
 * throwaway mount (fact_probe.c) for the protocol, a kernel's config and
 * module lists (fact_kernel.c) for how it has FUSE, and modules.dep (what
 * modprobe loads; else updates/dkms, extra or updates/fuse-backport under
 * /lib/modules/KVER) and the DKMS tree for our builds. Nothing is judged
 * here (judge.c): what is collected depends on facts only.
 *
 * This file runs the collection; its parts: collect_kernels.c (the
 * installed kernels and our modules for them), collect_servers.c (what
 * serves the fuse and fusebp types now), collect_mounts.c (the FUSE
 * mounts) and collect_signing.c (module signatures).
 */
#include <errno.h>
#include <string.h>

#include "status.h"

int collect_status(struct fuse_state *st)
{
	st->filesystems = fb_read_file("/proc/filesystems", NULL);
	if (!st->filesystems) {
		fb_msg("cannot read /proc/filesystems: %s", strerror(errno));
		return -1;
	}
	read_kallsyms(st);
	if (survey_kernels(st) < 0 || survey_mounts(st) < 0)
		st->error = true;
	survey_type_server(st, &st->servers[0], "fuse", "fuse");
	survey_type_server(st, &st->servers[1], FB_PREFIX, FB_PREFIX);
	st->takeover.configured = takeover_configured(&st->takeover.evidence);
	st->takeover.active = takeover_active();
	if (st->takeover.active == 2)
		st->takeover.sides = takeover_sides();
	st->when_ahead.value = when_ahead_configured(&st->when_ahead.evidence);
	st->conf_prefix = conf_prefix();
	survey_signing(st);
	return 0;
}
