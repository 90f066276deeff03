// SPDX-License-Identifier: GPL-2.0-only
/* address_space write_begin/write_end take a folio (6.12) */
#include <linux/fs.h>

static int fb_write_begin(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, struct folio **foliop,
			  void **fsdata)
{
	return 0;
}

const struct address_space_operations fb_probe = {
	.write_begin = fb_write_begin,
};
