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
 */
#include <dirent.h>
#include <errno.h>
#include <linux/fuse.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "status.h"

#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH (1ULL << 37)
#endif

bool is_ours_version(const char *v)
{
	return v && strstr(v, "+fb");
}

/* "6.12.117+fb1" -> "6.12" */
static char *base_of_version(const char *v)
{
	const char *dot = v ? strchr(v, '.') : NULL;
	size_t n;

	if (!dot)
		return NULL;
	n = strcspn(dot + 1, ".+-");
	return fb_fmt("%.*s", (int)(dot + 1 - v + n), v);
}

/* The lines of /proc/kallsyms that name our two symbols. */
static void read_kallsyms(struct fuse_state *st)
{
	size_t cap = 0, len = 0;
	char *line = NULL;
	ssize_t n;
	FILE *f;

	st->kallsyms = fb_strdup("");
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		len++;
		if (!strstr(line, SYM_PASSTHROUGH) && !strstr(line, SYM_PARALLEL_FIX))
			continue;
		st->kallsyms = fb_fmt("%s%s", st->kallsyms, line);
	}
	free(line);
	fclose(f);
	st->kallsyms_ok = len > 0;
}

/* Is SYM in the kernel (tag "") or in module TAG? */
static bool have_symbol(struct fuse_state *st, const char *sym, const char *tag)
{
	char *copy = fb_strdup(st->kallsyms), *line, *save = NULL;
	char name[256], mod[256];
	bool found = false;
	int n;

	for (line = strtok_r(copy, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		mod[0] = '\0';
		n = sscanf(line, "%*s %*s %255s [%255[^]]]", name, mod);
		if (n < 1 || strcmp(name, sym))
			continue;
		found = strcmp(mod, tag) == 0;
	}
	free(copy);
	return found;
}

static bool modinfo_read(const char *file, struct modinfo *mi)
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
	}
	free(out);
	return true;
}

static const char *const ko_suffixes[] = {
	".ko", ".ko.xz", ".ko.zst", ".ko.gz",
};

/* The file modules.dep of KVER resolves module NAME to, or NULL. */
static char *modules_dep_file(const char *kver, const char *name)
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

/* CONFIG_NAME in a config file: 'y', 'm', 'n' (not set), or 0 unknown. */
static char config_value(const char *path, const char *name)
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

static char *kernel_config_file(const char *kver)
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

/* How KVER has FUSE, from the kernel package's own lists first. */
static void kernel_fuse_config(struct kernel *k)
{
	char *cfg;
	char v;

	if (list_has_module(k->kver, "modules.builtin", "kernel/fs/fuse/fuse.ko")) {
		k->fuse_cfg = 'y';
		k->config_evidence = fb_strdup("modules.builtin lists fuse.ko");
		return;
	}
	if (list_has_module(k->kver, "modules.order", "kernel/fs/fuse/fuse.ko")) {
		k->fuse_cfg = 'm';
		k->config_evidence = fb_strdup("modules.order lists fuse.ko");
		return;
	}
	cfg = kernel_config_file(k->kver);
	v = cfg ? config_value(cfg, "CONFIG_FUSE_FS") : 0;
	if (v) {
		k->fuse_cfg = v;
		k->config_evidence = fb_fmt("CONFIG_FUSE_FS in %s", cfg);
	} else {
		k->fuse_cfg = '?';
		k->config_evidence = fb_strdup("no modules.builtin, modules.order or config file says");
	}
	free(cfg);
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

/* Installed kernels: /lib/modules/KVER with an image's files, not headers only. */
static int survey_kernels(struct fuse_state *st)
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
		kernel_fuse_config(k);
		k->flavor = k->fuse_cfg == 'm' ? "dropin" :
			    k->fuse_cfg == 'y' ? "renamed" : NULL;
		kernel_ours(st, k);
		kernel_dkms(k, st->uts.machine);
		if (k->ours.file)
			continue;
		if (k->fuse_cfg == 'n')
			k->why_none = fb_strdup("FUSE is disabled in this kernel");
		else if (!base_for(k->kver)) {
			char *served = served_series();

			k->why_none = fb_fmt("outside every base this release has (it serves %s)",
					     served);
			free(served);
		}
		else if (!k->headers)
			k->why_none = fb_fmt("no headers (install linux-headers-%s, then: dkms autoinstall -k %s)",
					     k->kver, k->kver);
		else if (*k->dkms_built)
			k->why_none = fb_fmt("DKMS built %s but did not install it (dkms install -m %s -v %s -k %s)",
					     k->dkms_built, FB_DKMS_NAME, k->dkms_built, k->kver);
		else
			k->why_none = fb_fmt("not built (dkms autoinstall -k %s; see /var/lib/dkms/%s/*/build/make.log)",
					     k->kver, FB_DKMS_NAME);
	}
	if (st->nkernels)
		st->newest = &st->kernels[0];
	return 0;
}

static void probe_type_server(struct fuse_state *st, struct type_server *srv)
{
	struct fb_init_info info;
	char why[256];
	struct stat sb;

	if (!srv->registered) {
		srv->protocol_evidence = fb_strdup("not loaded: probed once it is");
		return;
	}
	if (!st->probe) {
		srv->protocol_evidence = fb_strdup("not probed (--no-probe)");
		return;
	}
	if (stat(srv->device, &sb) < 0 || !S_ISCHR(sb.st_mode)) {
		srv->protocol_evidence = fb_fmt("%s is missing", srv->device);
		return;
	}
	if (fb_probe_init(srv->device, srv->fstype, &info, why, sizeof(why)) < 0) {
		srv->protocol_evidence = fb_fmt("probe failed: %s", why);
		return;
	}
	srv->protocol = fb_fmt("%u.%u", info.major, info.minor);
	srv->protocol_evidence = fb_strdup("FUSE_INIT request of a throwaway mount in a private mount namespace");
	srv->passthrough = !!(info.flags & FUSE_PASSTHROUGH);
	srv->passthrough_evidence = fb_fmt("FUSE_INIT %s FUSE_PASSTHROUGH",
				     srv->passthrough ? "offers" : "does not offer");
}

static void survey_type_server(struct fuse_state *st, struct type_server *srv, const char *fstype,
			const char *modname)
{
	char *p, *lv, *ls, *tag;
	bool builtin, ours;

	srv->fstype = fstype;
	srv->modname = modname;
	srv->device = fb_fmt("/dev/%s", fstype);
	srv->loaded_is_installed = -1;
	srv->passthrough = -1;
	srv->parallel_fix = -1;
	srv->registered = fb_fs_in_list(st->filesystems, fstype);
	p = fb_fmt("/sys/module/%s/initstate", modname);
	srv->loaded = fb_exists(p);
	free(p);
	builtin = srv->registered && !srv->loaded;
	p = fb_fmt("/sys/module/%s/version", modname);
	lv = srv->loaded ? fb_read_line(p) : NULL;
	free(p);
	p = fb_fmt("/sys/module/%s/srcversion", modname);
	ls = srv->loaded ? fb_read_line(p) : NULL;
	free(p);
	p = modules_dep_file(st->uts.release, modname);
	if (p && !modinfo_read(p, &srv->file)) {
		fb_msg("modinfo (kmod) failed on %s", p);
		st->error = true;
	}
	free(p);

	if (srv->loaded) {
		srv->state = "loaded";
		ours = is_ours_version(lv);
		srv->version = lv;
		srv->srcversion = ls;
		if (ls && srv->file.srcversion)
			srv->loaded_is_installed = !strcmp(ls, srv->file.srcversion);
		if (srv->loaded_is_installed == 1) {
			srv->flavor = srv->file.flavor;
			srv->base = srv->file.base;
			srv->evidence = fb_fmt("/sys/module/%s; srcversion %s is the one of %s",
					    modname, ls, srv->file.file);
		} else if (ours) {
			srv->flavor = fb_strdup(strcmp(modname, "fuse") ? "renamed" : "dropin");
			srv->base = base_of_version(lv);
			srv->evidence = fb_fmt("/sys/module/%s (flavor by its name, base by its version: %s)",
					    modname, srv->file.file ?
					    "it is not the installed module" :
					    "no module of ours is installed");
		} else {
			srv->evidence = fb_fmt("/sys/module/%s", modname);
		}
	} else if (builtin) {
		srv->state = "built-in";
		ours = false;
		srv->evidence = fb_strdup("registered in /proc/filesystems with no module loaded");
	} else if (srv->file.file) {
		srv->state = "not loaded";
		ours = is_ours_version(srv->file.version);
		srv->version = srv->file.version;
		srv->flavor = srv->file.flavor;
		srv->base = srv->file.base;
		srv->evidence = fb_fmt("modinfo %s (what modprobe %s loads)",
				    srv->file.file, modname);
	} else {
		srv->state = "absent";
		ours = false;
	}
	srv->kind = who_serves(!strcmp(modname, "fuse"), ours, builtin,
			      srv->loaded || srv->file.file);

	probe_type_server(st, srv);

	if (srv->registered && st->kallsyms_ok) {
		tag = builtin ? "" : (char *)modname;
		if (srv->passthrough < 0) {
			srv->passthrough = have_symbol(st, SYM_PASSTHROUGH, tag);
			srv->passthrough_evidence = fb_fmt("%s %s %s%s%s", SYM_PASSTHROUGH,
						     srv->passthrough ? "in" : "not in",
						     *tag ? "[" : "vmlinux", tag,
						     *tag ? "] (/proc/kallsyms)" :
						     " (/proc/kallsyms)");
		}
		srv->parallel_fix = have_symbol(st, SYM_PARALLEL_FIX, tag);
		srv->parallel_fix_evidence = fb_fmt("%s (added by the series) %s %s%s%s", SYM_PARALLEL_FIX,
				     srv->parallel_fix ? "in" : "not in",
				     *tag ? "[" : "vmlinux", tag,
				     *tag ? "] (/proc/kallsyms)" : " (/proc/kallsyms)");
	} else if (srv->registered) {
		if (!srv->passthrough_evidence)
			srv->passthrough_evidence = fb_strdup("unknown: /proc/kallsyms unreadable");
		srv->parallel_fix_evidence = fb_strdup("unknown: /proc/kallsyms unreadable");
	} else if (srv->kind == K_OURS_DROPIN || srv->kind == K_OURS_RENAMED) {
		srv->passthrough_evidence = fb_strdup("unknown until loaded");
		srv->parallel_fix_evidence = fb_fmt("unknown until loaded (the installed module is ours, version %s)",
				     srv->version);
	} else if (srv->kind == K_STOCK_MODULE) {
		char *cfg = kernel_config_file(st->uts.release);
		char v = cfg ? config_value(cfg, "CONFIG_FUSE_PASSTHROUGH") : 0;

		if (v) {
			srv->passthrough = v == 'y';
			srv->passthrough_evidence = fb_fmt("CONFIG_FUSE_PASSTHROUGH in %s", cfg);
		} else {
			srv->passthrough_evidence = fb_strdup("unknown until loaded");
		}
		srv->parallel_fix = 0;
		srv->parallel_fix_evidence = fb_strdup("stock module (the symbols are checked once loaded)");
		free(cfg);
	}
	if (!srv->passthrough_evidence)
		srv->passthrough_evidence = fb_strdup("nothing serves this type");
	if (!srv->parallel_fix_evidence)
		srv->parallel_fix_evidence = fb_strdup("nothing serves this type");
	if (!srv->protocol)
		srv->protocol = NULL;
}

static const char *fuse_family(const char *t)
{
	static const char *const fams[] = { "fuse", FB_PREFIX };
	char *blk;
	unsigned int i;
	size_t n;

	if (!strcmp(t, "virtiofs"))
		return "fuse";
	for (i = 0; i < 2; i++) {
		n = strlen(fams[i]);
		if (strncmp(t, fams[i], n))
			continue;
		if (t[n] == '\0' || t[n] == '.')
			return fams[i];
		blk = fb_fmt("%sblk", fams[i]);
		if (fb_has_prefix(t, blk) && (t[n + 3] == '\0' || t[n + 3] == '.')) {
			free(blk);
			return fams[i];
		}
		free(blk);
	}
	return NULL;
}

/* FUSE mounts from mountinfo; those made by `run -o fallback` marked. */
static int survey_mounts(struct fuse_state *st)
{
	struct fb_mount *mi;
	const char *family;
	struct fuse_mount_entry *m;
	size_t n, i;
	char *note;

	mi = fb_mountinfo_read(&n);
	if (!mi) {
		fb_msg("cannot read /proc/self/mountinfo: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		family = fuse_family(mi[i].fstype);
		if (!family)
			continue;
		m = realloc(st->mounts, (st->nmounts + 1) * sizeof(*m));
		if (!m) {
			fb_msg("out of memory");
			exit(2);
		}
		st->mounts = m;
		m = &st->mounts[st->nmounts++];
		m->fstype = fb_strdup(mi[i].fstype);
		m->family = fb_strdup(family);
		m->mountpoint = fb_strdup(mi[i].mountpoint);
		m->source = fb_strdup(mi[i].source);
		/* the supervisor of a fallback mount notes it by device number */
		note = fb_fmt(FB_FALLBACK_DIR "/%s", mi[i].sb_dev);
		m->fallback = !strcmp(family, "fuse") && fb_exists(note);
		free(note);
	}
	fb_mountinfo_free(mi, n);
	return 0;
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
	return 0;
}
