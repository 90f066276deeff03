// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, collect: what serves new mounts of the fuse and
 * fusebp types: registered, loaded or built in, the module's version and
 * whether it is ours, the protocol (fact_probe.c) and the code it holds
 * (/proc/kallsyms). Who that is (the kind) is judge.c's.
 */
#include <linux/fuse.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "status.h"

#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH (1ULL << 37)
#endif

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
void read_kallsyms(struct fuse_state *st)
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

void survey_type_server(struct fuse_state *st, struct type_server *srv, const char *fstype,
			const char *modname)
{
	char *p, *lv, *ls, *tag;
	bool builtin, module;

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
		srv->ours = is_ours_version(lv);
		srv->version = lv;
		srv->srcversion = ls;
		if (ls && srv->file.srcversion)
			srv->loaded_is_installed = !strcmp(ls, srv->file.srcversion);
		if (srv->loaded_is_installed == 1) {
			srv->flavor = srv->file.flavor;
			srv->base = srv->file.base;
			srv->evidence = fb_fmt("/sys/module/%s; srcversion %s is the one of %s",
					    modname, ls, srv->file.file);
		} else if (srv->ours) {
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
		srv->ours = false;
		srv->evidence = fb_strdup("registered in /proc/filesystems with no module loaded");
	} else if (srv->file.file) {
		srv->state = "not loaded";
		srv->ours = is_ours_version(srv->file.version);
		srv->version = srv->file.version;
		srv->flavor = srv->file.flavor;
		srv->base = srv->file.base;
		srv->evidence = fb_fmt("modinfo %s (what modprobe %s loads)",
				    srv->file.file, modname);
	} else {
		srv->state = "absent";
		srv->ours = false;
	}
	module = srv->loaded || srv->file.file;

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
	} else if (srv->ours) {
		srv->passthrough_evidence = fb_strdup("unknown until loaded");
		srv->parallel_fix_evidence = fb_fmt("unknown until loaded (the installed module is ours, version %s)",
				     srv->version);
	} else if (!strcmp(modname, "fuse") && module) {
		/* the stock module, not loaded */
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
