// SPDX-License-Identifier: GPL-2.0-only
/* FILEID_INO64_GEN and FILEID_INO64_GEN_PARENT named (6.7) */
#include <linux/exportfs.h>

int fb_probe(bool parent);
int fb_probe(bool parent)
{
	return parent ? FILEID_INO64_GEN_PARENT : FILEID_INO64_GEN;
}
