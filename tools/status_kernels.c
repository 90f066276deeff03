// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, collect: the installed kernels (/lib/modules),
 * how each has FUSE, the base of this release that serves it, our module
 * installed for it and the DKMS builds; why there is none.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"

static const char *const ko_suffixes[] = {
	".ko", ".ko.xz", ".ko.zst", ".ko.gz",
};

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
 * How KVER has FUSE ('y' built in, 'm', 'n', '?' unknown), from the kernel
 * package's own lists first, then its config; *evidence (if not NULL) says
 * where from, allocated.
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

static int series_num(const char *v)
{
	int maj = 0, min = 0;

	if (sscanf(v, "%d.%d", &maj, &min) < 2)
		return -1;
	return maj * 1000 + min;
}

static const struct fb_base bases[] = { FB_BASES };

const struct fb_base *base_for(const char *kver)
{
	int n = series_num(kver);
	size_t i;

	for (i = 0; n >= 0 && i < sizeof(bases) / sizeof(bases[0]); i++)
		if (n >= series_num(bases[i].min) && n <= series_num(bases[i].max))
			return &bases[i];
	return NULL;
}

char *served_series(void)
{
	char *s = fb_strdup(""), *t;
	size_t i;

	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		t = fb_fmt("%s%s%s to %s", s, i ? ", " : "", bases[i].min, bases[i].max);
		free(s);
		s = t;
	}
	return s;
}

/* Where the packages install our module, under /lib/modules/KVER. */
static const char *const ours_dirs[] = {
	"updates/dkms",			/* DKMS on Debian */
	"extra",			/* DKMS on EL */
	"updates/" FB_DKMS_NAME,	/* the prebuilt kmod .deb */
};

/* Is FILE a module of ours? Its modinfo, or false; a failed modinfo is an error. */
static bool ours_at(struct fuse_state *st, struct kernel *k, const char *name,
		    const char *file)
{
	struct modinfo mi;

	if (!fb_exists(file))
		return false;
	if (!modinfo_read(file, &mi)) {
		fb_msg("modinfo (kmod) failed on %s", file);
		st->error = true;
		return false;
	}
	if (!is_ours_version(mi.version))
		return false;
	k->ours = mi;
	k->ours_name = fb_strdup(name);
	return true;
}

/*
 * Our module installed for K: first what modules.dep resolves fusebp and
 * fuse to (what modprobe loads, wherever the package put it), then the
 * directories our packages use, in case depmod has not run yet.
 */
static void kernel_ours(struct fuse_state *st, struct kernel *k)
{
	static const char *const names[] = { FB_PREFIX, "fuse" };
	unsigned int i, d, x;
	char *path;
	bool found = false;

	for (i = 0; i < ARRAY_SIZE(names) && !found; i++) {
		path = modules_dep_file(k->kver, names[i]);
		if (path)
			found = ours_at(st, k, names[i], path);
		free(path);
	}
	for (i = 0; i < ARRAY_SIZE(names) && !found; i++)
		for (d = 0; d < ARRAY_SIZE(ours_dirs) && !found; d++)
			for (x = 0; x < ARRAY_SIZE(ko_suffixes) && !found; x++) {
				path = fb_fmt(FB_MODULES_DIR "/%s/%s/%s%s", k->kver,
					      ours_dirs[d], names[i], ko_suffixes[x]);
				found = ours_at(st, k, names[i], path);
				free(path);
			}
}

static void kernel_dkms(struct kernel *k, const char *arch)
{
	char *dir = fb_strdup(FB_DKMS_TREE "/" FB_DKMS_NAME);
	char *link = fb_fmt("%s/kernel-%s-%s", dir, k->kver, arch);
	char target[4096], *slash, *p;
	struct dirent *de;
	ssize_t n;
	DIR *d;

	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		slash = strchr(target, '/');
		if (slash)
			*slash = '\0';
		k->dkms_installed = fb_strdup(target);
	}
	k->dkms_built = fb_strdup("");
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || fb_has_prefix(de->d_name, "kernel-") ||
		    !strcmp(de->d_name, "source"))
			continue;
		p = fb_fmt("%s/%s/%s/%s/module", dir, de->d_name, k->kver, arch);
		if (fb_is_dir(p))
			k->dkms_built = fb_fmt("%s%s%s", k->dkms_built,
					       *k->dkms_built ? " " : "", de->d_name);
		free(p);
	}
	if (d)
		closedir(d);
	free(link);
	free(dir);
}

static int kernel_cmp(const void *a, const void *b)
{
	const struct kernel *x = a, *y = b;

	/* newest first */
	return strverscmp(y->kver, x->kver);
}

/*
 * The kernel hook left KVER to the stock module: this release's build
 * failed there ("VERSION<tab>WHY", scripts/kernel-hook.sh), and dkms.conf
 * excludes the kernel for that version. Another version's record is stale:
 * that version tries the kernel again.
 */
static char *build_failed(const char *kver)
{
	char *path = fb_fmt(FB_BUILD_FAILED_DIR "/%s", kver);
	char *line = fb_read_line(path);
	char *tab = line ? strchr(line, '\t') : NULL;
	char *why = NULL;

	if (tab) {
		*tab = '\0';
		if (!strcmp(line, FB_TOOL_VERSION))
			why = fb_fmt("its build of %s failed: %s; the stock FUSE stays in use (to try again: rm %s; dkms autoinstall -k %s)",
				     line, tab + 1, path, kver);
	}
	free(line);
	free(path);
	return why;
}

/* Why KVER has no module of ours installed, and what to do. */
static char *why_none(const struct kernel *k)
{
	char *served, *why;

	if (k->fuse_cfg == 'n')
		return fb_strdup("FUSE is disabled in this kernel");
	if (!base_for(k->kver)) {
		served = served_series();
		why = fb_fmt("outside every base this release has (it serves %s)", served);
		free(served);
		return why;
	}
	if (!k->headers)
		return fb_fmt("no headers (install linux-headers-%s, then: dkms autoinstall -k %s)",
			      k->kver, k->kver);
	why = build_failed(k->kver);
	if (why)
		return why;
	if (*k->dkms_built)
		return fb_fmt("DKMS built %s but did not install it (dkms install -m %s -v %s -k %s)",
			      k->dkms_built, FB_DKMS_NAME, k->dkms_built, k->kver);
	return fb_fmt("not built (dkms autoinstall -k %s; see /var/lib/dkms/%s/*/build/make.log)",
		      k->kver, FB_DKMS_NAME);
}

/* Installed kernels: /lib/modules/KVER with an image's files, not headers only. */
int survey_kernels(struct fuse_state *st)
{
	struct dirent *de;
	struct kernel *k;
	char *p, *q;
	int i, cap = 0;
	bool image;
	DIR *d;

	d = opendir(FB_MODULES_DIR);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		fb_msg("cannot read " FB_MODULES_DIR ": %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		p = fb_fmt(FB_MODULES_DIR "/%s/modules.order", de->d_name);
		q = fb_fmt(FB_MODULES_DIR "/%s/kernel", de->d_name);
		image = fb_exists(p) || fb_is_dir(q);
		free(p);
		free(q);
		if (!image)
			continue;
		if (st->nkernels == cap) {
			cap = cap ? cap * 2 : 8;
			k = realloc(st->kernels, cap * sizeof(*k));
			if (!k) {
				fb_msg("out of memory");
				exit(2);
			}
			st->kernels = k;
		}
		k = &st->kernels[st->nkernels++];
		memset(k, 0, sizeof(*k));
		k->kver = fb_strdup(de->d_name);
	}
	closedir(d);
	if (st->nkernels)
		qsort(st->kernels, st->nkernels, sizeof(*st->kernels), kernel_cmp);
	for (i = 0; i < st->nkernels; i++) {
		k = &st->kernels[i];
		k->running = !strcmp(k->kver, st->uts.release);
		k->newest = i == 0;
		if (k->running)
			st->running = k;
		p = fb_fmt(FB_MODULES_DIR "/%s/build/.config", k->kver);
		k->headers = fb_exists(p);
		free(p);
		k->fuse_cfg = kernel_fuse_config(k->kver, &k->config_evidence);
		k->flavor = k->fuse_cfg == 'm' ? "dropin" :
			    k->fuse_cfg == 'y' ? "renamed" : NULL;
		kernel_ours(st, k);
		kernel_dkms(k, st->uts.machine);
		if (k->ours.file)
			continue;
		k->why_none = why_none(k);
	}
	if (st->nkernels)
		st->newest = &st->kernels[0];
	return 0;
}
