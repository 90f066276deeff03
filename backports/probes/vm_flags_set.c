// SPDX-License-Identifier: GPL-2.0-only
/* vm_flags are changed through vm_flags_set() (6.3) */
#include <linux/mm.h>

void fb_probe(struct vm_area_struct *vma);
void fb_probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_MIXEDMAP);
}
