// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status: which FUSE serves new mounts, what it offers, which
 * FUSE mounts exist, and which installed kernels have a module of ours.
 *
 * Every answer names its evidence: /proc/filesystems and /sys/module for
 * what is registered and loaded, the module's version and srcversion in
 * sysfs and modinfo for whose it is, /proc/kallsyms for the code it holds,
 * the FUSE_INIT request of a throwaway mount (probe.c) for the protocol,
 * modules.builtin/modules.order/config files for how a kernel has FUSE, and
 * modules.dep (what modprobe loads; else updates/dkms, extra or
 * updates/fuse-backport under /lib/modules/KVER) and the DKMS tree for our
 * builds.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <linux/fuse.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fb.h"

#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH (1ULL << 37)
#endif
#ifndef FB_KERNEL_MIN
#define FB_KERNEL_MIN "6.1"
#endif
#ifndef FB_KERNEL_MAX
#define FB_KERNEL_MAX "6.12"
#endif

/* Symbols that tell what code serves a file system type. */
#define SYM_PASSTHROUGH	"fuse_passthrough_open"
#define SYM_FIX		"fuse_write_need_excl_lock"

enum kind {
	K_NONE,
	K_STOCK_BUILTIN,
	K_STOCK_MODULE,
	K_OURS_DROPIN,
	K_OURS_RENAMED,
	K_OTHER,
};

static const char *const kind_json[] = {
	"none", "stock-builtin", "stock-module", "ours-dropin", "ours-renamed",
	"other",
};

static const char *const kind_text[] = {
	"none (no such file system type, no module to load)",
	"stock FUSE, built into the kernel",
	"stock FUSE module",
	"ours, drop-in flavor",
	"ours, renamed flavor",
	"a module that is not ours",
};

struct modinfo {
	char *file;
	char *version;
	char *flavor;
	char *base;
	char *srcversion;
};

/* How new mounts of one file system type are served. */
struct type_server {
	const char *fstype;
	char *dev;
	const char *modname;
	enum kind kind;
	const char *state;	/* built-in, loaded, not loaded, absent */
	bool registered;
	bool loaded;
	char *version;		/* what serves, or would serve */
	char *flavor;
	char *base;
	char *srcversion;
	char *source;		/* where version/flavor/base come from */
	struct modinfo file;	/* what modprobe would load */
	int srcmatch;		/* loaded == file: 1, 0, -1 unknown */
	char *protocol;
	char *protocol_how;
	int passthrough;
	char *passthrough_how;
	int parallel_fix;
	char *parallel_fix_how;
};

struct kernel {
	char *kver;
	bool running;
	bool newest;
	bool headers;
	char fuse_cfg;		/* y, m, n, ? */
	char *cfg_how;
	const char *flavor;	/* dropin, renamed, NULL */
	struct modinfo ours;	/* ours.file NULL: none */
	char *ours_name;
	char *dkms_installed;
	char *dkms_built;
	char *why_none;
};

struct mnt {
	char *fstype;
	char *family;
	char *mountpoint;
	char *source;
	bool fallback;		/* made by run -o fallback: not ours */
};

struct state {
	struct utsname uts;
	char *filesystems;
	char *kallsyms;		/* only the lines naming SYM_* */
	bool kallsyms_ok;
	bool probe;
	struct type_server servers[2];
	struct kernel *kernels;
	int nkernels;
	struct kernel *running;	/* may be NULL: not under /lib/modules */
	struct kernel *newest;
	struct mnt *mounts;
	int nmounts;
	char **problems;
	int nproblems;
	char **notes;
	int nnotes;
	char *warning;
	bool error;
};

static void add_str(char ***list, int *n, char *s)
{
	char **l = realloc(*list, (*n + 1) * sizeof(**list));

	if (!l) {
		fb_msg("out of memory");
		exit(2);
	}
	l[(*n)++] = s;
	*list = l;
}

static void problem(struct state *st, char *s)
{
	add_str(&st->problems, &st->nproblems, s);
}

static void note(struct state *st, char *s)
{
	add_str(&st->notes, &st->nnotes, s);
}

static bool is_ours_version(const char *v)
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
static void read_kallsyms(struct state *st)
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
		if (!strstr(line, SYM_PASSTHROUGH) && !strstr(line, SYM_FIX))
			continue;
		st->kallsyms = fb_fmt("%s%s", st->kallsyms, line);
	}
	free(line);
	fclose(f);
	st->kallsyms_ok = len > 0;
}

/* Is SYM in the kernel (tag "") or in module TAG? */
static bool have_symbol(struct state *st, const char *sym, const char *tag)
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
		k->cfg_how = fb_strdup("modules.builtin lists fuse.ko");
		return;
	}
	if (list_has_module(k->kver, "modules.order", "kernel/fs/fuse/fuse.ko")) {
		k->fuse_cfg = 'm';
		k->cfg_how = fb_strdup("modules.order lists fuse.ko");
		return;
	}
	cfg = kernel_config_file(k->kver);
	v = cfg ? config_value(cfg, "CONFIG_FUSE_FS") : 0;
	if (v) {
		k->fuse_cfg = v;
		k->cfg_how = fb_fmt("CONFIG_FUSE_FS in %s", cfg);
	} else {
		k->fuse_cfg = '?';
		k->cfg_how = fb_strdup("no modules.builtin, modules.order or config file says");
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

/* Where the packages install our module, under /lib/modules/KVER. */
static const char *const ours_dirs[] = {
	"updates/dkms",			/* DKMS on Debian */
	"extra",			/* DKMS on EL */
	"updates/" FB_DKMS_NAME,	/* the prebuilt kmod .deb */
};

/* Is FILE a module of ours? Its modinfo, or false; a failed modinfo is an error. */
static bool ours_at(struct state *st, struct kernel *k, const char *name,
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
static void kernel_ours(struct state *st, struct kernel *k)
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
static int survey_kernels(struct state *st)
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
		else if (series_num(k->kver) < series_num(FB_KERNEL_MIN) ||
			 series_num(k->kver) > series_num(FB_KERNEL_MAX))
			k->why_none = fb_fmt("outside the series this release serves (%s to %s)",
					     FB_KERNEL_MIN, FB_KERNEL_MAX);
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

static void probe_type_server(struct state *st, struct type_server *srv)
{
	struct fb_init_info info;
	char why[256];
	struct stat sb;

	if (!srv->registered) {
		srv->protocol_how = fb_strdup("not loaded: probed once it is");
		return;
	}
	if (!st->probe) {
		srv->protocol_how = fb_strdup("not probed (--no-probe)");
		return;
	}
	if (stat(srv->dev, &sb) < 0 || !S_ISCHR(sb.st_mode)) {
		srv->protocol_how = fb_fmt("%s is missing", srv->dev);
		return;
	}
	if (fb_probe_init(srv->dev, srv->fstype, &info, why, sizeof(why)) < 0) {
		srv->protocol_how = fb_fmt("probe failed: %s", why);
		return;
	}
	srv->protocol = fb_fmt("%u.%u", info.major, info.minor);
	srv->protocol_how = fb_strdup("FUSE_INIT request of a throwaway mount in a private mount namespace");
	srv->passthrough = !!(info.flags & FUSE_PASSTHROUGH);
	srv->passthrough_how = fb_fmt("FUSE_INIT %s FUSE_PASSTHROUGH",
				     srv->passthrough ? "offers" : "does not offer");
}

/*
 * Who serves a file system type: the first row that matches (ANY: either).
 * "module": a module is loaded or modprobe would load one.
 */
#define ANY -1
static const struct {
	int fuse_type;		/* -t fuse (1) or -t fusebp (0) */
	int ours;		/* the module's version is ours */
	int builtin;		/* registered with no module loaded */
	int module;
	enum kind kind;
} who_serves_table[] = {
	/* fuse_type ours builtin module  kind */
	{ 1,   1,   ANY, ANY, K_OURS_DROPIN },
	{ 0,   1,   ANY, ANY, K_OURS_RENAMED },
	{ 1,   0,   1,   ANY, K_STOCK_BUILTIN },
	{ 1,   0,   0,   1,   K_STOCK_MODULE },
	{ 0,   0,   ANY, 1,   K_OTHER },
	{ ANY, ANY, ANY, ANY, K_NONE },
};

static bool cell(int want, bool have)
{
	return want == ANY || want == have;
}

static enum kind who_serves(bool fuse_type, bool ours, bool builtin, bool module)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(who_serves_table); i++)
		if (cell(who_serves_table[i].fuse_type, fuse_type) &&
		    cell(who_serves_table[i].ours, ours) &&
		    cell(who_serves_table[i].builtin, builtin) &&
		    cell(who_serves_table[i].module, module))
			return who_serves_table[i].kind;
	return K_NONE;
}

static void survey_type_server(struct state *st, struct type_server *srv, const char *fstype,
			const char *modname)
{
	char *p, *lv, *ls, *tag;
	bool builtin, ours;

	srv->fstype = fstype;
	srv->modname = modname;
	srv->dev = fb_fmt("/dev/%s", fstype);
	srv->srcmatch = -1;
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
			srv->srcmatch = !strcmp(ls, srv->file.srcversion);
		if (srv->srcmatch == 1) {
			srv->flavor = srv->file.flavor;
			srv->base = srv->file.base;
			srv->source = fb_fmt("/sys/module/%s; srcversion %s is the one of %s",
					    modname, ls, srv->file.file);
		} else if (ours) {
			srv->flavor = fb_strdup(strcmp(modname, "fuse") ? "renamed" : "dropin");
			srv->base = base_of_version(lv);
			srv->source = fb_fmt("/sys/module/%s (flavor by its name, base by its version: %s)",
					    modname, srv->file.file ?
					    "it is not the installed module" :
					    "no module of ours is installed");
		} else {
			srv->source = fb_fmt("/sys/module/%s", modname);
		}
	} else if (builtin) {
		srv->state = "built-in";
		ours = false;
		srv->source = fb_strdup("registered in /proc/filesystems with no module loaded");
	} else if (srv->file.file) {
		srv->state = "not loaded";
		ours = is_ours_version(srv->file.version);
		srv->version = srv->file.version;
		srv->flavor = srv->file.flavor;
		srv->base = srv->file.base;
		srv->source = fb_fmt("modinfo %s (what modprobe %s loads)",
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
			srv->passthrough_how = fb_fmt("%s %s %s%s%s", SYM_PASSTHROUGH,
						     srv->passthrough ? "in" : "not in",
						     *tag ? "[" : "vmlinux", tag,
						     *tag ? "] (/proc/kallsyms)" :
						     " (/proc/kallsyms)");
		}
		srv->parallel_fix = have_symbol(st, SYM_FIX, tag);
		srv->parallel_fix_how = fb_fmt("%s (added by the series) %s %s%s%s", SYM_FIX,
				     srv->parallel_fix ? "in" : "not in",
				     *tag ? "[" : "vmlinux", tag,
				     *tag ? "] (/proc/kallsyms)" : " (/proc/kallsyms)");
	} else if (srv->registered) {
		if (!srv->passthrough_how)
			srv->passthrough_how = fb_strdup("unknown: /proc/kallsyms unreadable");
		srv->parallel_fix_how = fb_strdup("unknown: /proc/kallsyms unreadable");
	} else if (srv->kind == K_OURS_DROPIN || srv->kind == K_OURS_RENAMED) {
		srv->passthrough_how = fb_strdup("unknown until loaded");
		srv->parallel_fix_how = fb_fmt("unknown until loaded (the installed module is ours, version %s)",
				     srv->version);
	} else if (srv->kind == K_STOCK_MODULE) {
		char *cfg = kernel_config_file(st->uts.release);
		char v = cfg ? config_value(cfg, "CONFIG_FUSE_PASSTHROUGH") : 0;

		if (v) {
			srv->passthrough = v == 'y';
			srv->passthrough_how = fb_fmt("CONFIG_FUSE_PASSTHROUGH in %s", cfg);
		} else {
			srv->passthrough_how = fb_strdup("unknown until loaded");
		}
		srv->parallel_fix = 0;
		srv->parallel_fix_how = fb_strdup("stock module (the symbols are checked once loaded)");
		free(cfg);
	}
	if (!srv->passthrough_how)
		srv->passthrough_how = fb_strdup("nothing serves this type");
	if (!srv->parallel_fix_how)
		srv->parallel_fix_how = fb_strdup("nothing serves this type");
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
static int survey_mounts(struct state *st)
{
	struct fb_mount *mi;
	const char *family;
	struct mnt *m;
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
		note = fb_fmt(FB_FALLBACK_DIR "/%s", mi[i].dev);
		m->fallback = !strcmp(family, "fuse") && fb_exists(note);
		free(note);
	}
	fb_mountinfo_free(mi, n);
	return 0;
}

/* Healthy, precisely: see the --help text and README. */
static void judge(struct state *st)
{
	struct kernel *r = st->running;
	struct type_server *srv;
	int i;

	if (!r) {
		problem(st, fb_fmt("the running kernel %s is not installed under " FB_MODULES_DIR
				   ": no module of ours can serve it", st->uts.release));
	} else if (!r->flavor) {
		problem(st, fb_fmt("the running kernel %s: %s (%s)", r->kver,
				   r->fuse_cfg == 'n' ? "FUSE is disabled" :
				   "cannot tell how it has FUSE", r->cfg_how));
	} else if (!r->ours.file) {
		problem(st, fb_fmt("no module of ours is installed for the running kernel %s: %s",
				   r->kver, r->why_none));
	} else {
		srv = !strcmp(r->flavor, "dropin") ? &st->servers[0] : &st->servers[1];
		if (srv->kind != K_OURS_DROPIN && srv->kind != K_OURS_RENAMED)
			problem(st, fb_fmt("-t %s is served by %s, not by our installed %s (%s)%s",
					   srv->fstype, kind_text[srv->kind], r->ours.file,
					   r->ours.version,
					   srv->loaded ? ": it takes over after rmmod (no mount of that type left) and modprobe, or a reboot" : ""));
		else if (!srv->loaded && !strcmp(r->flavor, "renamed"))
			problem(st, fb_fmt("%s is not loaded, so %s does not exist: modprobe %s (and list it in /etc/modules-load.d/ to load it at boot)",
					   srv->modname, srv->dev, srv->modname));
		else if (srv->srcmatch == 0)
			problem(st, fb_fmt("the loaded %s (%s, srcversion %s) is not the installed %s (%s, srcversion %s): reload it to serve the installed one",
					   srv->modname, srv->version, srv->srcversion,
					   srv->file.file, srv->file.version,
					   srv->file.srcversion));
		else if (srv->loaded && srv->srcmatch < 0 && srv->file.file &&
			 strcmp(srv->version ? srv->version : "", srv->file.version ? srv->file.version : ""))
			problem(st, fb_fmt("the loaded %s (%s) is not the installed version %s: reload it",
					   srv->modname, srv->version, srv->file.version));
	}
	for (i = 0; i < st->nmounts; i++)
		if (st->mounts[i].fallback)
			problem(st, fb_fmt("fallback: %s is served by the kernel's own FUSE (-t %s, mounted with -o fallback because %s could not be loaded)",
					   st->mounts[i].mountpoint, st->mounts[i].fstype,
					   FB_PREFIX));
	if (st->newest && !st->newest->ours.file) {
		st->warning = fb_fmt("the newest installed kernel %s has no module of ours (%s). Booting it (the default boot entry) serves FUSE from the stock code only%s.",
				     st->newest->kver, st->newest->why_none,
				     st->newest->fuse_cfg == 'y' ? " and leaves -t " FB_PREFIX " unavailable" : "");
		problem(st, fb_fmt("the newest installed kernel %s has no module of ours",
				   st->newest->kver));
	}
	for (i = 0; i < st->nkernels; i++) {
		struct kernel *k = &st->kernels[i];

		if (k->newest || k->running)
			continue;
		if (!k->ours.file)
			note(st, fb_fmt("kernel %s has no module of ours: %s", k->kver, k->why_none));
		else if (k->ours.version && strcmp(k->ours.version, FB_TOOL_VERSION))
			note(st, fb_fmt("kernel %s has our %s, this tool is %s", k->kver,
					k->ours.version, FB_TOOL_VERSION));
	}
	if (r && r->ours.version && strcmp(r->ours.version, FB_TOOL_VERSION))
		note(st, fb_fmt("the running kernel has our %s, this tool is %s",
				r->ours.version, FB_TOOL_VERSION));
}

static const char *yes_no_unknown(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

static void json_tri(FILE *f, int v)
{
	fputs(v < 0 ? "null" : v ? "true" : "false", f);
}

static void json_kv(FILE *f, const char *k, const char *v, bool comma)
{
	fb_json_str(f, k);
	fputs(": ", f);
	fb_json_str(f, v);
	if (comma)
		fputs(", ", f);
}

static int exit_code(struct state *st)
{
	return st->error ? 2 : st->nproblems ? 1 : 0;
}

static const char *health(struct state *st)
{
	static const char *const h[] = { "healthy", "degraded", "error" };

	return h[exit_code(st)];
}

static void print_json(struct state *st)
{
	FILE *f = stdout;
	int i;

	fputs("{\n  ", f);
	json_kv(f, "tool_version", FB_TOOL_VERSION, true);
	json_kv(f, "kernel", st->uts.release, true);
	json_kv(f, "newest_installed_kernel", st->newest ? st->newest->kver : NULL, false);
	fputs(",\n  \"implementations\": [", f);
	for (i = 0; i < 2; i++) {
		struct type_server *srv = &st->servers[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		json_kv(f, "fstype", srv->fstype, true);
		json_kv(f, "device", srv->dev, true);
		json_kv(f, "module", srv->modname, true);
		json_kv(f, "kind", kind_json[srv->kind], true);
		json_kv(f, "state", srv->state, true);
		json_kv(f, "version", srv->version, true);
		json_kv(f, "flavor", srv->flavor, true);
		json_kv(f, "base", srv->base, true);
		json_kv(f, "srcversion", srv->srcversion, true);
		json_kv(f, "evidence", srv->source, true);
		json_kv(f, "installed_file", srv->file.file, true);
		json_kv(f, "installed_version", srv->file.version, true);
		fputs("\"loaded_is_installed\": ", f);
		json_tri(f, srv->srcmatch);
		fputs(", ", f);
		json_kv(f, "protocol", srv->protocol, true);
		json_kv(f, "protocol_evidence", srv->protocol_how, true);
		fputs("\"passthrough\": ", f);
		json_tri(f, srv->passthrough);
		fputs(", ", f);
		json_kv(f, "passthrough_evidence", srv->passthrough_how, true);
		fputs("\"parallel_passthrough_fix\": ", f);
		json_tri(f, srv->parallel_fix);
		fputs(", ", f);
		json_kv(f, "parallel_passthrough_fix_evidence", srv->parallel_fix_how, false);
		fputs("}", f);
	}
	fputs("\n  ],\n  \"mounts\": [", f);
	for (i = 0; i < st->nmounts; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		json_kv(f, "family", st->mounts[i].family, true);
		json_kv(f, "fstype", st->mounts[i].fstype, true);
		json_kv(f, "mountpoint", st->mounts[i].mountpoint, true);
		json_kv(f, "source", st->mounts[i].source, true);
		fprintf(f, "\"fallback\": %s}", st->mounts[i].fallback ? "true" : "false");
	}
	fputs(st->nmounts ? "\n  ],\n  \"kernels\": [" : "],\n  \"kernels\": [", f);
	for (i = 0; i < st->nkernels; i++) {
		struct kernel *k = &st->kernels[i];
		char cfg[2] = { k->fuse_cfg, 0 };

		fputs(i ? ",\n    {" : "\n    {", f);
		json_kv(f, "kernel", k->kver, true);
		fprintf(f, "\"running\": %s, \"newest\": %s, \"headers\": %s, ",
			k->running ? "true" : "false", k->newest ? "true" : "false",
			k->headers ? "true" : "false");
		json_kv(f, "config_fuse_fs", k->fuse_cfg == '?' ? NULL : cfg, true);
		json_kv(f, "config_evidence", k->cfg_how, true);
		json_kv(f, "flavor", k->flavor, true);
		json_kv(f, "ours_module", k->ours_name, true);
		json_kv(f, "ours_file", k->ours.file, true);
		json_kv(f, "ours_version", k->ours.version, true);
		json_kv(f, "dkms_installed", k->dkms_installed, true);
		json_kv(f, "dkms_built", *k->dkms_built ? k->dkms_built : NULL, true);
		json_kv(f, "why_none", k->why_none, false);
		fputs("}", f);
	}
	fputs(st->nkernels ? "\n  ],\n  " : "],\n  ", f);
	json_kv(f, "warning", st->warning, true);
	fputs("\n  \"problems\": [", f);
	for (i = 0; i < st->nproblems; i++) {
		fputs(i ? ", " : "", f);
		fb_json_str(f, st->problems[i]);
	}
	fputs("],\n  \"notes\": [", f);
	for (i = 0; i < st->nnotes; i++) {
		fputs(i ? ", " : "", f);
		fb_json_str(f, st->notes[i]);
	}
	fputs("],\n  ", f);
	json_kv(f, "health", health(st), true);
	fprintf(f, "\"exit_status\": %d\n}\n", exit_code(st));
}

#define FIELD "  %-28s "

/*
 * Names anyone can choose (fsname through fusermount3, mountpoints) go to
 * the terminal with control bytes and invalid UTF-8 escaped (\\xHH): no
 * escape sequence, no line of their making. Kept for the process's life.
 */
static const char *text(const char *s)
{
	return fb_printable(s);
}

static void print_text(struct state *st)
{
	struct kernel *r = st->running;
	int i, nf = 0, nb = 0;

	printf("fuse-backport %s on kernel %s", FB_TOOL_VERSION, st->uts.release);
	if (r && r->flavor)
		printf(" (FUSE %s: our %s flavor serves -t %s)\n",
		       r->fuse_cfg == 'y' ? "built in" : "as a module", r->flavor,
		       strcmp(r->flavor, "dropin") ? FB_PREFIX : "fuse");
	else
		printf("\n");
	for (i = 0; i < 2; i++) {
		struct type_server *srv = &st->servers[i];

		printf("\n-t %s: %s", srv->fstype, kind_text[srv->kind]);
		if (srv->kind != K_NONE && srv->kind != K_STOCK_BUILTIN)
			printf(" (module %s, %s)", srv->modname, srv->state);
		printf("\n" FIELD "%s\n", "device:", srv->dev);
		if (srv->kind == K_NONE)
			continue;
		printf(FIELD "%s", "version:", srv->version ? srv->version : "none");
		if (srv->flavor || srv->base)
			printf(", flavor %s, base %s", srv->flavor ? srv->flavor : "?",
			       srv->base ? srv->base : "?");
		printf("\n" FIELD "%s\n", "evidence:", srv->source ? srv->source : "-");
		printf(FIELD "%s (%s)\n", "protocol:",
		       srv->protocol ? srv->protocol : "unknown", srv->protocol_how);
		printf(FIELD "%s (%s)\n", "passthrough:", yes_no_unknown(srv->passthrough),
		       srv->passthrough_how);
		printf(FIELD "%s (%s)\n", "parallel passthrough writes:",
		       yes_no_unknown(srv->parallel_fix), srv->parallel_fix_how);
	}
	for (i = 0; i < st->nmounts; i++) {
		if (!strcmp(st->mounts[i].family, "fuse"))
			nf++;
		else
			nb++;
	}
	printf("\nFUSE mounts: fuse %d, %s %d\n", nf, FB_PREFIX, nb);
	for (i = 0; i < st->nmounts; i++)
		printf("  %-8s %s on %s (source %s)%s\n", st->mounts[i].family,
		       text(st->mounts[i].fstype), text(st->mounts[i].mountpoint),
		       text(st->mounts[i].source),
		       st->mounts[i].fallback ? " [fallback]" : "");
	printf("\ninstalled kernels (newest first):\n");
	if (!st->nkernels)
		printf("  none under " FB_MODULES_DIR "\n");
	for (i = 0; i < st->nkernels; i++) {
		struct kernel *k = &st->kernels[i];

		printf("  %s%s%s: FUSE=%c (%s), ", k->kver,
		       k->running ? " [running]" : "", k->newest ? " [newest]" : "",
		       k->fuse_cfg, k->flavor ? k->flavor : "no flavor");
		if (k->ours.file)
			printf("ours: %s %s", k->ours.file, k->ours.version);
		else
			printf("ours: none: %s", k->why_none);
		printf("; dkms: %s%s%s\n",
		       k->dkms_installed ? "installed " : "",
		       k->dkms_installed ? k->dkms_installed : "",
		       *k->dkms_built ? (k->dkms_installed ? ", built" : "built") :
		       (k->dkms_installed ? "" : "nothing"));
	}
	if (st->warning)
		printf("\n"
		       "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
		       "WARNING: %s\n"
		       "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
		       st->warning);
	printf("\nstatus: %s\n", health(st));
	for (i = 0; i < st->nproblems; i++)
		printf("  problem: %s\n", text(st->problems[i]));
	for (i = 0; i < st->nnotes; i++)
		printf("  note: %s\n", text(st->notes[i]));
}

static void status_usage(FILE *f)
{
	fprintf(f,
		"usage: fuse-backport status [--json] [--no-probe]\n"
		"\n"
		"Which FUSE serves new mounts of -t fuse and of -t " FB_PREFIX ", with version,\n"
		"flavor, base, protocol, passthrough and the parallel-passthrough fix; the\n"
		"FUSE mounts; and, for every installed kernel, whether a module of ours is\n"
		"installed for it.\n"
		"\n"
		"  --json      one JSON object on stdout\n"
		"  --no-probe  do not mount anything: the protocol stays unknown\n"
		"\n"
		"Evidence: /proc/filesystems and /sys/module (registered, loaded), the\n"
		"module's version and srcversion (sysfs, modinfo), /proc/kallsyms (code:\n"
		"fuse_passthrough_open, and fuse_write_need_excl_lock, which the series\n"
		"adds), the FUSE_INIT request of a throwaway mount made in a private mount\n"
		"namespace on a private tmpfs (protocol, FUSE_PASSTHROUGH; only types that\n"
		"are already registered: nothing gets loaded), modules.builtin/modules.order\n"
		"or the kernel config (how a kernel has FUSE), modules.dep (what modprobe\n"
		"loads; else updates/dkms, extra or updates/" FB_DKMS_NAME " under\n"
		"/lib/modules/KVER) and /var/lib/dkms/" FB_DKMS_NAME " (our builds).\n"
		"\n"
		"An installed kernel is a /lib/modules/KVER with modules.order or kernel/\n"
		"(an image, not headers only); the newest is the highest version.\n"
		"\n"
		"Exit status:\n"
		"  0  healthy: all of\n"
		"     - a module of ours (modinfo version *+fb*) is installed for the\n"
		"       running kernel (see above for where);\n"
		"     - it serves its type: drop-in (FUSE as a module): the loaded fuse is\n"
		"       ours, or none is loaded and modprobe resolves fuse to ours;\n"
		"       renamed (FUSE built in): " FB_PREFIX " is loaded;\n"
		"     - the loaded module is the installed one (same srcversion);\n"
		"     - the newest installed kernel has a module of ours installed too.\n"
		"  1  degraded: any of these does not hold (each is listed as a problem;\n"
		"     notes, such as older kernels without our module, do not count)\n"
		"  2  error: the state could not be read (/proc, /lib/modules, modinfo)\n"
		"     or bad usage\n"
		"A mount of the kernel's FUSE made by 'run -o fallback' counts as a problem.\n"
		"Names (fsname, mountpoints) are printed with control bytes and invalid\n"
		"UTF-8 as \\xHH; JSON replaces invalid UTF-8 by U+FFFD.\n");
}

int fb_cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "no-probe", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct state st;
	bool json = false;
	int c;

	fb_fatal_status = 2;
	/* root runs modinfo from the system's directories, not a caller's PATH */
	if (geteuid() == 0)
		setenv("PATH", FB_SAFE_PATH, 1);
	memset(&st, 0, sizeof(st));
	st.probe = true;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'P':
			st.probe = false;
			break;
		case 'h':
			status_usage(stdout);
			return 0;
		default:
			status_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fb_msg("status: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (uname(&st.uts) < 0) {
		fb_msg("uname: %s", strerror(errno));
		return 2;
	}
	st.filesystems = fb_read_file("/proc/filesystems", NULL);
	if (!st.filesystems) {
		fb_msg("cannot read /proc/filesystems: %s", strerror(errno));
		return 2;
	}
	read_kallsyms(&st);
	if (survey_kernels(&st) < 0 || survey_mounts(&st) < 0)
		st.error = true;
	survey_type_server(&st, &st.servers[0], "fuse", "fuse");
	survey_type_server(&st, &st.servers[1], FB_PREFIX, FB_PREFIX);
	judge(&st);
	if (json)
		print_json(&st);
	else
		print_text(&st);
	fflush(stdout);
	return exit_code(&st);
}
