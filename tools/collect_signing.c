// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, part of the collection: does the running kernel
 * enforce module signatures, and who signed our module for it. A module of
 * ours the kernel does not trust cannot load where it does: modprobe's
 * fallback (scripts/modprobe-stock.sh) then loads the kernel's own, and
 * the judge says why ours is not the one in use.
 *
 * Evidence: /sys/module/module/parameters/sig_enforce (module.sig_enforce,
 * which can only be turned on; absent without module signing),
 * /sys/kernel/security/lockdown (any mode but none refuses unsigned
 * modules) and the EFI variable SecureBoot
 * (Debian's kernels lock down under Secure Boot); the signer from modinfo
 * (collect_kernels.c, which runs first).
 */
#include <stdlib.h>
#include <string.h>

#include "status.h"

#define EFI_SECURE_BOOT \
	"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

/* The lockdown mode in brackets ("none [integrity] confidentiality"). */
static char *lockdown_mode(void)
{
	char *s = fb_read_line("/sys/kernel/security/lockdown");
	char *a = s ? strchr(s, '[') : NULL;
	char *b = a ? strchr(a, ']') : NULL;
	char *mode = NULL;

	if (b) {
		*b = '\0';
		mode = fb_strdup(a + 1);
	}
	free(s);
	return mode;
}

/* Secure Boot: 1 on, 0 off, -1 unknown (no EFI variables here). */
static int secure_boot(void)
{
	size_t n = 0;
	char *v = fb_read_file(EFI_SECURE_BOOT, &n);
	int on = -1;

	/* four bytes of attributes, then the value */
	if (v && n >= 5)
		on = v[4] == 1;
	free(v);
	return on;
}

static void add_why(char **why, const char *what)
{
	char *s = fb_fmt("%s%s%s", *why ? *why : "", *why ? ", " : "", what);

	free(*why);
	*why = s;
}

/* "signed by NAME" or "unsigned", of our module for the running kernel. */
static char *ours_signed_by(const struct fuse_state *st)
{
	const struct kernel *r = st->running;

	if (!r || !r->ours.file)
		return NULL;
	if (!r->ours.signer || !*r->ours.signer)
		return fb_strdup("unsigned");
	return fb_fmt("signed by %s", r->ours.signer);
}

void survey_signing(struct fuse_state *st)
{
	struct sig_info *sig = &st->signing;
	char *enf = fb_read_line("/sys/module/module/parameters/sig_enforce");
	char *lock = lockdown_mode();

	sig->secure_boot = secure_boot();
	/* no sig_enforce: the kernel has no module signing (CONFIG_MODULE_SIG) */
	sig->enforced = 0;
	if (enf && !strcmp(enf, "Y")) {
		sig->enforced = 1;
		add_why(&sig->why, "module.sig_enforce=1");
	}
	if (lock && strcmp(lock, "none")) {
		char *w = fb_fmt("lockdown %s", lock);

		sig->enforced = 1;
		add_why(&sig->why, w);
		free(w);
	}
	if (sig->secure_boot == 1)
		add_why(&sig->why, "Secure Boot on");
	if (!sig->why)
		sig->why = fb_fmt("%s, %s", enf ? "module.sig_enforce=0" : "no module signing in this kernel",
				  lock ? "lockdown none" : "no lockdown in sysfs");
	free(enf);
	free(lock);
	sig->ours = ours_signed_by(st);
}
