// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, step 1: collect. Every answer names its evidence:
 * /proc/filesystems and /sys/module for what is registered and loaded, the
 * module's version and srcversion in sysfs and modinfo for whose it is,
 * /proc/kallsyms for the code it holds, the FUSE_INIT request of a
 * throwaway mount (probe.c) for the protocol, modules.builtin/modules.order/
 * config files for how a kernel has FUSE, and modules.dep (what modprobe
 * loads; else updates/dkms, extra or updates/fuse-backport under
 * /lib/modules/KVER) and the DKMS tree for our builds. Nothing is judged
 * here, except who serves a type (status_judge.c's table), which what is
 * collected next depends on.
 *
 * This file runs the collection and has what its parts share (modinfo,
 * modules.dep, config files); the parts: status_kernels.c (the installed
 * kernels and our modules for them), status_servers.c (who serves the
 * fuse and fusebp types now) and status_mounts.c (the FUSE mounts).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "status.h"
#include "takeover.h"

bool is_ours_version(const char *v)
{
	return v && strstr(v, "+fb");
}

bool modinfo_read(const char *file, struct modinfo *mi)
{
	char *argv[] = { "modinfo", (char *)file, NULL };
	char *out, *line, *save = NULL, *v;
	int status;

	memset(mi, 0, sizeof(*mi));
	mi->file = fb_strdup(file);
	out = fb_capture(argv, &status);
	if (!out)
		return false;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(out);
		return false;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		v = strchr(line, ':');
		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		if (!strcmp(line, "version"))
			mi->version = fb_strdup(v);
		else if (!strcmp(line, "flavor"))
			mi->flavor = fb_strdup(v);
		else if (!strcmp(line, "fb_base"))
			mi->base = fb_strdup(v);
		else if (!strcmp(line, "srcversion"))
			mi->srcversion = fb_strdup(v);
		else if (!strcmp(line, "signer"))
			mi->signer = fb_strdup(v);
	}
	free(out);
	return true;
}

/* The file modules.dep of KVER resolves module NAME to, or NULL. */
char *modules_dep_file(const char *kver, const char *name)
{
	char *path = fb_fmt(FB_MODULES_DIR "/%s/modules.dep", kver);
	char *dep = fb_read_file(path, NULL), *line, *save = NULL;
	char *res = NULL, *base, *colon;
	size_t n = strlen(name);

	free(path);
	if (!dep)
		return NULL;
	for (line = strtok_r(dep, "\n", &save); line && !res;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (!strncmp(base, name, n) && fb_has_prefix(base + n, ".ko"))
			res = line[0] == '/' ? fb_strdup(line) :
			      fb_fmt(FB_MODULES_DIR "/%s/%s", kver, line);
	}
	free(dep);
	return res;
}

/* CONFIG_NAME in a config file: 'y', 'm', 'n' (not set), or 0 unknown. */
char config_value(const char *path, const char *name)
{
	char *s = fb_read_file(path, NULL), *p;
	char *set = fb_fmt("\n%s=", name), *unset = fb_fmt("\n# %s is not set", name);
	char v = 0;

	if (s) {
		p = strstr(s, set);
		if (p)
			v = p[strlen(set)];
		else if (strstr(s, unset))
			v = 'n';
		if (v != 'y' && v != 'm' && v != 'n')
			v = 0;
	}
	free(s);
	free(set);
	free(unset);
	return v;
}

char *kernel_config_file(const char *kver)
{
	char *p = fb_fmt("/boot/config-%s", kver);

	if (fb_exists(p))
		return p;
	free(p);
	/* Debian's 7.x kernels: linux-base-KVER ships it beside the modules. */
	p = fb_fmt(FB_MODULES_DIR "/%s/config", kver);
	if (fb_exists(p))
		return p;
	free(p);
	p = fb_fmt(FB_MODULES_DIR "/%s/build/.config", kver);
	if (fb_exists(p))
		return p;
	free(p);
	return NULL;
}

/*
 * With the takeover active, new -t fuse mounts are ours: -t fuse is served
 * as -t FB_PREFIX is, on /dev/fuse.
 */
static void takeover_serves_fuse(struct fuse_state *st)
{
	struct type_server *fuse = &st->servers[0];

	*fuse = st->servers[1];
	fuse->fstype = "fuse";
	fuse->device = fb_strdup("/dev/fuse");
	fuse->state = "loaded, takeover active";
}

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
	st->conf_prefix = conf_prefix();
	survey_signing(st);
	if (st->takeover.active == 1)
		takeover_serves_fuse(st);
	return 0;
}
