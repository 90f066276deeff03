/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/group_cpus.h>: group_cpus_evenly() is
 * declared but not exported before 6.5.
 */
#ifndef FB_LINUX_GROUP_CPUS_H
#define FB_LINUX_GROUP_CPUS_H

#include_next <linux/group_cpus.h>

#ifndef HAVE_EXPORT_GROUP_CPUS_EVENLY
#include <linux/cpumask.h>
#include <linux/slab.h>

/*
 * Consecutive possible CPUs in numgrps groups of sizes that differ by one at
 * most; the kernel's also follows NUMA nodes and siblings, which only
 * matters to performance. Freed with kfree() as the kernel's.
 */
static inline struct cpumask *fb_group_cpus_evenly(unsigned int numgrps)
{
	unsigned int ncpus = num_possible_cpus(), i = 0, cpu;
	struct cpumask *masks;

	if (!numgrps)
		return NULL;
	masks = kcalloc(numgrps, sizeof(*masks), GFP_KERNEL);
	if (!masks)
		return NULL;
	for_each_possible_cpu(cpu) {
		cpumask_set_cpu(cpu, &masks[i * numgrps / ncpus]);
		i++;
	}
	return masks;
}
#define group_cpus_evenly fb_group_cpus_evenly
#endif

#endif /* FB_LINUX_GROUP_CPUS_H */
