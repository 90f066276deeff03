// SPDX-License-Identifier: GPL-2.0-only
/*
 * kiocb_start_write()/kiocb_end_write(): freeze protection of an async
 * write, held from submission to completion. "fs: create
 * kiocb_{start,end}_write() helpers" (Amir Goldstein, Linux 6.6), queued
 * for 6.1.y in November 2024 (Debian 12's 6.1.0-47, 6.1.170, has it).
 * Shim: backports/6.12/include/linux/fs.h.
 */
#include <linux/fs.h>

void fb_probe(struct kiocb *iocb);
void fb_probe(struct kiocb *iocb)
{
	void (*start)(struct kiocb *) = kiocb_start_write;
	void (*end)(struct kiocb *) = kiocb_end_write;

	start(iocb);
	end(iocb);
}
