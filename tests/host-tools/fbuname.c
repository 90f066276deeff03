// SPDX-License-Identifier: GPL-2.0-only
/*
 * fbuname.so: an LD_PRELOAD shim whose uname(2) says the release of
 * FBUNAME_RELEASE (where it is set), so that `fuse-backport status` and
 * `takeover boot` can be shown a running kernel this host does not run
 * (tests/host-tools/run.sh). Everything else is the real uname's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

int uname(struct utsname *u)
{
	const char *r = getenv("FBUNAME_RELEASE");

	if (syscall(SYS_uname, u))
		return -1;
	if (r)
		snprintf(u->release, sizeof(u->release), "%s", r);
	return 0;
}
