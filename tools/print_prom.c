// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status --prometheus: the state print_json prints, as the
 * Prometheus text exposition format (version 0.0.4), for node_exporter's
 * textfile collector (fuse-backport-prometheus.service). Every metric is
 * named fuse_backport_*, has one # HELP and one # TYPE line before its
 * samples, and no series twice. Label values are valid UTF-8 (invalid
 * bytes become U+FFFD) with backslash, double quote and newline escaped
 * as the format says. It reads the state only.
 */
#include <stdlib.h>
#include <string.h>

#include "status.h"

static const char *const server_kind_prom[] = {
	"none", "stock-builtin", "stock-module", "ours-dropin", "ours-renamed",
	"other",
};

/* A label value, escaped, allocated; NULL prints as "" (no value). */
static char *prom_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char *buf = NULL;
	size_t len = 0, n;
	unsigned int c;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		fb_msg("out of memory");
		exit(fb_fatal_status);
	}
	while (*p) {
		n = fb_utf8_len(p, &c);
		if (!n) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '"')
			fputs("\\\"", f);
		else if (c == '\n')
			fputs("\\n", f);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
	if (fclose(f)) {
		fb_msg("out of memory");
		exit(fb_fatal_status);
	}
	return buf;
}

static void prom_head(const char *name, const char *help)
{
	printf("# HELP fuse_backport_%s %s\n# TYPE fuse_backport_%s gauge\n", name, help, name);
}

/* One label, name="value", with a comma before it unless it is the first. */
static void prom_label(bool *first, const char *name, const char *value)
{
	char *v = prom_escape(value);

	printf("%s%s=\"%s\"", *first ? "" : ",", name, v);
	*first = false;
	free(v);
}

static void prom_gauge(const char *name, const char *help, long value)
{
	prom_head(name, help);
	printf("fuse_backport_%s %ld\n", name, value);
}

static void print_modules(const struct fuse_state *st)
{
	int i;

	prom_head("module_info",
		  "What serves new mounts of each type, as status sees it (1 per type).");
	for (i = 0; i < 2; i++) {
		const struct type_server *srv = &st->servers[i];
		bool first = true;

		printf("fuse_backport_module_info{");
		prom_label(&first, "fstype", srv->fstype);
		prom_label(&first, "module", srv->modname);
		prom_label(&first, "kind", server_kind_prom[srv->kind]);
		prom_label(&first, "ours", srv->ours ? "1" : "0");
		prom_label(&first, "state", srv->state);
		prom_label(&first, "version", srv->version);
		prom_label(&first, "flavor", srv->flavor);
		prom_label(&first, "base", srv->base);
		prom_label(&first, "srcversion", srv->srcversion);
		printf("} 1\n");
	}
}

static void print_kernels(const struct fuse_state *st)
{
	int i;

	prom_gauge("kernels", "Installed kernels (/lib/modules/KVER with an image).", st->nkernels);
	prom_head("kernel_info",
		  "Each installed kernel (1 per kernel): state ours (a module of ours is installed for it) or none.");
	for (i = 0; i < st->nkernels; i++) {
		const struct kernel *k = &st->kernels[i];
		char cfg[2] = { k->fuse_cfg, 0 };
		bool first = true;

		printf("fuse_backport_kernel_info{");
		prom_label(&first, "kernel", k->kver);
		prom_label(&first, "running", k->running ? "1" : "0");
		prom_label(&first, "newest", k->newest ? "1" : "0");
		prom_label(&first, "config_fuse_fs", k->fuse_cfg == '?' ? NULL : cfg);
		prom_label(&first, "flavor", k->flavor);
		prom_label(&first, "state", k->ours.file ? "ours" : "none");
		prom_label(&first, "ours_version", k->ours.version);
		prom_label(&first, "fuse_age", k->age == AGE_NONE ? "none" : fuse_age_name(k->age));
		printf("} 1\n");
	}
}

/* The problems, each once (the same text twice would be one series twice). */
static void print_problems(const struct fuse_state *st)
{
	char **seen = fb_alloc((st->nproblems + 1) * sizeof(*seen));
	int i, j, n = 0;

	prom_gauge("problems", "How many problems status lists (each makes it degraded).",
		   st->nproblems);
	prom_head("problem", "Each problem status lists, its text the reason (1 per problem).");
	for (i = 0; i < st->nproblems; i++) {
		char *v = prom_escape(st->problems[i]);

		for (j = 0; j < n && strcmp(seen[j], v); j++)
			;
		if (j < n) {
			free(v);
			continue;
		}
		seen[n++] = v;
		printf("fuse_backport_problem{reason=\"%s\"} 1\n", v);
	}
	for (j = 0; j < n; j++)
		free(seen[j]);
	free(seen);
}

/* The tool's version and the health: what even an unread state has. */
static void print_tool_health(int health)
{
	char *v = prom_escape(FB_TOOL_VERSION);

	prom_head("tool_info", "The version of the fuse-backport tool that wrote this.");
	printf("fuse_backport_tool_info{version=\"%s\"} 1\n", v);
	free(v);
	prom_gauge("health", "fuse-backport status's verdict (its exit status): 0 healthy, 1 degraded, 2 error.",
		   health);
}

void print_prometheus(const struct fuse_state *st)
{
	int i, nf = 0, nb = 0, nfb = 0;

	print_tool_health(st->exit_status);
	print_problems(st);
	prom_gauge("notes", "How many notes status lists (they do not count against health).",
		   st->nnotes);
	prom_gauge("warning", "1 when status prints a warning (the newest kernel has no module of ours).",
		   st->warning ? 1 : 0);
	print_modules(st);
	prom_gauge("takeover_configured", "1 when TAKEOVER=yes in the config file, else 0.",
		   st->takeover.configured == 1);
	prom_gauge("takeover_active",
		   "1 when our module serves -t fuse in place of the built-in FUSE, else 0 (also when it is not loaded).",
		   st->takeover.active == 1);
	print_kernels(st);
	for (i = 0; i < st->nmounts; i++) {
		if (!strcmp(st->mounts[i].family, "fuse"))
			nf++;
		else
			nb++;
		if (st->mounts[i].fallback)
			nfb++;
	}
	prom_head("mounts", "FUSE mounts by family.");
	printf("fuse_backport_mounts{family=\"fuse\"} %d\n", nf);
	printf("fuse_backport_mounts{family=\"%s\"} %d\n", FB_PREFIX, nb);
	prom_gauge("fallback_mounts", "Mounts made by run -o fallback on the kernel's own FUSE.", nfb);
}

void print_prometheus_unread(void)
{
	print_tool_health(2);
}
