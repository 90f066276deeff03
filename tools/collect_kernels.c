// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, collect: the installed kernels (/lib/modules),
 * how each has FUSE, its Linux version and its FUSE's age against ours
 * (fact_age.c), our module installed for it, the DKMS builds and the
 * kernel hook's record of a failed build.
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

/* Where the packages install our module, under /lib/modules/KVER. */
static const char *const ours_dirs[] = {
	"updates/dkms",			/* DKMS on Debian */
	"extra",			/* DKMS on EL */
	"updates/" FB_DKMS_NAME,	/* the prebuilt kmod .deb */
	"updates/" FB_DKMS_NAME "-kept",	/* kept by an upgrade, no headers */
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
 * The kernel hook's record of a failed build of K ("VERSION<tab>WHY",
 * scripts/kernel-hook.sh), if there is one.
 */
static void build_failed(struct kernel *k)
{
	char *path = fb_fmt(FB_BUILD_FAILED_DIR "/%s", k->kver);
	char *line = fb_read_line(path);
	char *tab = line ? strchr(line, '\t') : NULL;

	if (tab) {
		*tab = '\0';
		k->failed_version = fb_strdup(line);
		k->failed_why = fb_strdup(tab + 1);
	}
	free(line);
	free(path);
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
		k->age = fuse_age(k->kver, &k->linux_version, &k->linux_version_evidence,
				  &k->age_why);
		kernel_ours(st, k);
		kernel_dkms(k, st->uts.machine);
		build_failed(k);
	}
	if (st->nkernels)
		st->newest = &st->kernels[0];
	return 0;
}
