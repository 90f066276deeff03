// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: an installed kernel's files under /lib/modules/KVER
 * and /boot: how it has FUSE (its module lists, its config), what
 * modules.dep resolves a module name to.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "facts.h"

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

/* Does FILE (relative to /lib/modules/KVER) list a .../NAME.ko line? */
static bool list_has_module(const char *kver, const char *file,
			    const char *relpath)
{
	char *path = fb_fmt(FB_MODULES_DIR "/%s/%s", kver, file);
	char *s = fb_read_file(path, NULL), *line, *save = NULL;
	bool found = false;

	free(path);
	if (!s)
		return false;
	for (line = strtok_r(s, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (colon)
			*colon = '\0';
		found = !strcmp(line, relpath);
	}
	free(s);
	return found;
}

/*
 * From the kernel package's own lists first, then its config.
 */
char kernel_fuse_config(const char *kver, char **evidence)
{
	char *cfg, *ev;
	char v;

	if (list_has_module(kver, "modules.builtin", "kernel/fs/fuse/fuse.ko")) {
		v = 'y';
		ev = fb_strdup("modules.builtin lists fuse.ko");
	} else if (list_has_module(kver, "modules.order", "kernel/fs/fuse/fuse.ko")) {
		v = 'm';
		ev = fb_strdup("modules.order lists fuse.ko");
	} else {
		cfg = kernel_config_file(kver);
		v = cfg ? config_value(cfg, "CONFIG_FUSE_FS") : 0;
		ev = v ? fb_fmt("CONFIG_FUSE_FS in %s", cfg) :
			 fb_strdup("no modules.builtin, modules.order or config file says");
		free(cfg);
		if (!v)
			v = '?';
	}
	if (evidence)
		*evidence = ev;
	else
		free(ev);
	return v;
}

/*
 * As kernel_fuse_config() sees the running kernel, else from what is
 * registered: a loaded fuse module is 'm', a registered fuse without one 'y'.
 */
char running_fuse_config(void)
{
	struct utsname u;
	char v = uname(&u) ? '?' : kernel_fuse_config(u.release, NULL);

	if (v != '?')
		return v;
	if (fb_exists("/sys/module/fuse/refcnt"))
		return 'm';
	return fb_fs_registered("fuse") ? 'y' : '?';
}
