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
	char *s = fb_read_file(path, NULL), *line, *save = NULL;
	char *unset = fb_fmt("# %s is not set", name);
	size_t n = strlen(name);
	char v = 0;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, name, n) && line[n] == '=' &&
		    (line[n + 1] == 'y' || line[n + 1] == 'm') && line[n + 2] == '\0') {
			v = line[n + 1];
			break;
		}
		if (!v && (!strcmp(line, unset) ||
			   (!strncmp(line, name, n) && !strcmp(line + n, "=n"))))
			v = 'n';
	}
	free(s);
	free(unset);
	return v;
}

/*
 * The config files of KVER, in the order the flavor rule reads them
 * (scripts/fuse-config.sh): the headers' .config, the image's, the copy
 * Debian's 7.x kernels (linux-base-KVER) ship beside the modules.
 */
static char *config_file(const char *kver, unsigned int i)
{
	switch (i) {
	case 0:
		return fb_fmt(FB_MODULES_DIR "/%s/build/.config", kver);
	case 1:
		return fb_fmt("/boot/config-%s", kver);
	case 2:
		return fb_fmt(FB_MODULES_DIR "/%s/config", kver);
	}
	return NULL;
}

char *kernel_config_file(const char *kver)
{
	unsigned int i;
	char *p;

	for (i = 0; (p = config_file(kver, i)); i++) {
		if (fb_exists(p))
			return p;
		free(p);
	}
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
 * The flavor rule, the one of scripts/fuse-config.sh (dkms.conf decides by
 * it; the tools package has no copy of it): the first config file of KVER
 * that exists decides, a line CONFIG_FUSE_FS=y or =m, else n (not set);
 * with none, modules.builtin listing fuse.ko is y, modules.order listing
 * it is m. The evidence strings are the script's.
 */
char kernel_fuse_config(const char *kver, char **evidence)
{
	char *cfg = kernel_config_file(kver), *ev;
	char v;

	if (cfg) {
		v = config_value(cfg, "CONFIG_FUSE_FS");
		if (v != 'y' && v != 'm')
			v = 'n';
		ev = v == 'n' ? fb_fmt("CONFIG_FUSE_FS not set in %s", cfg) :
			fb_fmt("CONFIG_FUSE_FS=%c in %s", v, cfg);
		free(cfg);
	} else if (list_has_module(kver, "modules.builtin", "kernel/fs/fuse/fuse.ko")) {
		v = 'y';
		ev = fb_strdup("modules.builtin lists fuse.ko");
	} else if (list_has_module(kver, "modules.order", "kernel/fs/fuse/fuse.ko")) {
		v = 'm';
		ev = fb_strdup("modules.order lists fuse.ko");
	} else {
		v = '?';
		ev = fb_strdup("no config file, modules.builtin or modules.order says");
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
