// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, step 3: print what was collected and judged, as
 * text for a terminal or as one JSON object. It reads the state only.
 */
#include <stdlib.h>
#include <string.h>

#include "status.h"

static const char *const server_kind_json[] = {
	"none", "stock-builtin", "stock-module", "ours-dropin", "ours-renamed",
	"other",
};

static const char *yes_no_unknown(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

static void json_yes_no_null(FILE *f, int v)
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

void print_json(const struct fuse_state *st)
{
	FILE *f = stdout;
	int i;

	fputs("{\n  ", f);
	json_kv(f, "tool_version", FB_TOOL_VERSION, true);
	json_kv(f, "kernel", st->uts.release, true);
	json_kv(f, "newest_installed_kernel", st->newest ? st->newest->kver : NULL, false);
	fputs(",\n  \"implementations\": [", f);
	for (i = 0; i < 2; i++) {
		const struct type_server *srv = &st->servers[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		json_kv(f, "fstype", srv->fstype, true);
		json_kv(f, "device", srv->device, true);
		json_kv(f, "module", srv->modname, true);
		json_kv(f, "kind", server_kind_json[srv->kind], true);
		json_kv(f, "state", srv->state, true);
		json_kv(f, "version", srv->version, true);
		json_kv(f, "flavor", srv->flavor, true);
		json_kv(f, "base", srv->base, true);
		json_kv(f, "srcversion", srv->srcversion, true);
		json_kv(f, "evidence", srv->evidence, true);
		json_kv(f, "installed_file", srv->file.file, true);
		json_kv(f, "installed_version", srv->file.version, true);
		fputs("\"loaded_is_installed\": ", f);
		json_yes_no_null(f, srv->loaded_is_installed);
		fputs(", ", f);
		json_kv(f, "protocol", srv->protocol, true);
		json_kv(f, "protocol_evidence", srv->protocol_evidence, true);
		fputs("\"passthrough\": ", f);
		json_yes_no_null(f, srv->passthrough);
		fputs(", ", f);
		json_kv(f, "passthrough_evidence", srv->passthrough_evidence, true);
		fputs("\"parallel_passthrough_fix\": ", f);
		json_yes_no_null(f, srv->parallel_fix);
		fputs(", ", f);
		json_kv(f, "parallel_passthrough_fix_evidence", srv->parallel_fix_evidence, false);
		fputs("}", f);
	}
	fputs("\n  ],\n  \"takeover\": {", f);
	json_kv(f, "configured", st->takeover.configured == 1 ? "yes" :
		st->takeover.configured == 0 ? "no" : st->takeover.configured == -2 ? "invalid" : NULL, true);
	json_kv(f, "evidence", st->takeover.evidence, true);
	fputs("\"active\": ", f);
	json_yes_no_null(f, st->takeover.active == 2 ? 0 : st->takeover.active);
	fputs(", ", f);
	json_kv(f, "partly", st->takeover.sides, false);
	fputs("},\n  \"when_ahead\": {", f);
	json_kv(f, "value", st->when_ahead.value == 0 ? "stock" : "serve", true);
	json_kv(f, "evidence", st->when_ahead.evidence, false);
	fputs("},\n  \"module_signatures\": {\"enforced\": ", f);
	json_yes_no_null(f, st->signing.enforced);
	fputs(", ", f);
	json_kv(f, "evidence", st->signing.why, true);
	fputs("\"secure_boot\": ", f);
	json_yes_no_null(f, st->signing.secure_boot);
	fputs(", ", f);
	json_kv(f, "ours", st->signing.ours, false);
	fputs("},\n  \"mounts\": [", f);
	for (i = 0; i < st->nmounts; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		json_kv(f, "family", st->mounts[i].family, true);
		json_kv(f, "fstype", st->mounts[i].fstype, true);
		json_kv(f, "mountpoint", st->mounts[i].mountpoint, true);
		json_kv(f, "source", st->mounts[i].source, true);
		json_kv(f, "served_by", st->mounts[i].served_by, true);
		fprintf(f, "\"fallback\": %s}", st->mounts[i].fallback ? "true" : "false");
	}
	fputs(st->nmounts ? "\n  ],\n  \"kernels\": [" : "],\n  \"kernels\": [", f);
	for (i = 0; i < st->nkernels; i++) {
		const struct kernel *k = &st->kernels[i];
		char cfg[2] = { k->fuse_cfg, 0 };

		fputs(i ? ",\n    {" : "\n    {", f);
		json_kv(f, "kernel", k->kver, true);
		fprintf(f, "\"running\": %s, \"newest\": %s, \"headers\": %s, ",
			k->running ? "true" : "false", k->newest ? "true" : "false",
			k->headers ? "true" : "false");
		json_kv(f, "config_fuse_fs", k->fuse_cfg == '?' ? NULL : cfg, true);
		json_kv(f, "config_evidence", k->config_evidence, true);
		json_kv(f, "flavor", k->flavor, true);
		json_kv(f, "ours_module", k->ours_name, true);
		json_kv(f, "ours_file", k->ours.file, true);
		json_kv(f, "ours_version", k->ours.version, true);
		json_kv(f, "dkms_installed", k->dkms_installed, true);
		json_kv(f, "dkms_built", *k->dkms_built ? k->dkms_built : NULL, true);
		json_kv(f, "why_none", k->why_none, true);
		json_kv(f, "linux_version", k->linux_version, true);
		json_kv(f, "linux_version_evidence", k->linux_version_evidence, true);
		json_kv(f, "fuse_age", fuse_age_name(k->age), true);
		json_kv(f, "fuse_age_why", k->age_why, false);
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
	json_kv(f, "health", st->health, true);
	fprintf(f, "\"exit_status\": %d\n}\n", st->exit_status);
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

static void print_takeover(const struct fuse_state *st)
{
	const struct takeover_info *t = &st->takeover;
	const struct kernel *r = st->running;

	if (r && r->fuse_cfg == 'm') {
		printf("takeover: not applicable (FUSE is a module: the drop-in serves -t fuse)\n");
		return;
	}
	if (t->active == 2) {
		printf("takeover: configured %s (%s), active partly: %s (a swap stopped half way)\n",
		       t->configured == 1 ? "yes" : t->configured == -2 ? "invalid" : "no",
		       t->evidence ? t->evidence : "-", t->sides ? t->sides : "unknown");
		return;
	}
	printf("takeover: configured %s (%s), active %s: new -t fuse mounts are served by %s\n",
	       t->configured == 1 ? "yes" : t->configured == -2 ? "invalid" : "no",
	       t->evidence ? t->evidence : "-",
	       t->active < 0 ? "no (" FB_PREFIX " not loaded)" : t->active ? "yes" : "no",
	       t->active == 1 ? FB_PREFIX " (ours)" : "the built-in FUSE");
}

static void print_signing(const struct fuse_state *st)
{
	const char *by = st->signing.ours;

	printf("module signatures: %s (%s)%s%s\n",
	       st->signing.enforced == 1 ? "enforced" : st->signing.enforced == 0 ? "not enforced" : "unknown",
	       st->signing.why, by ? "; ours for this kernel: " : "", by ? by : "");
}

void print_text(const struct fuse_state *st)
{
	const struct kernel *r = st->running;
	int i, nf = 0, nb = 0;

	printf("fuse-backport %s on kernel %s", FB_TOOL_VERSION, st->uts.release);
	if (r && r->flavor)
		printf(" (FUSE %s: our %s flavor serves -t %s)\n",
		       r->fuse_cfg == 'y' ? "built in" : "as a module", r->flavor,
		       strcmp(r->flavor, "dropin") ? FB_PREFIX : "fuse");
	else
		printf("\n");
	print_takeover(st);
	printf("when ahead: %s (%s)\n", st->when_ahead.value == 0 ?
	       "stock: a kernel ahead of our fs/fuse keeps its own FUSE" :
	       "serve: ours serves a kernel ahead of our fs/fuse", st->when_ahead.evidence);
	print_signing(st);
	for (i = 0; i < 2; i++) {
		const struct type_server *srv = &st->servers[i];

		printf("\n-t %s: %s", srv->fstype, srv->kind_text);
		if (srv->kind != K_NONE && srv->kind != K_STOCK_BUILTIN)
			printf(" (module %s, %s)", srv->modname, srv->state);
		printf("\n" FIELD "%s\n", "device:", srv->device);
		if (srv->kind == K_NONE)
			continue;
		printf(FIELD "%s", "version:", srv->version ? srv->version : "none");
		if (srv->flavor || srv->base)
			printf(", flavor %s, base %s", srv->flavor ? srv->flavor : "?",
			       srv->base ? srv->base : "?");
		printf("\n" FIELD "%s\n", "evidence:", srv->evidence ? srv->evidence : "-");
		printf(FIELD "%s (%s)\n", "protocol:",
		       srv->protocol ? srv->protocol : "unknown", srv->protocol_evidence);
		printf(FIELD "%s (%s)\n", "passthrough:", yes_no_unknown(srv->passthrough),
		       srv->passthrough_evidence);
		printf(FIELD "%s (%s)\n", "parallel passthrough writes:",
		       yes_no_unknown(srv->parallel_fix), srv->parallel_fix_evidence);
	}
	for (i = 0; i < st->nmounts; i++) {
		if (!strcmp(st->mounts[i].family, "fuse"))
			nf++;
		else
			nb++;
	}
	printf("\nFUSE mounts: fuse %d, %s %d\n", nf, FB_PREFIX, nb);
	for (i = 0; i < st->nmounts; i++)
		printf("  %-8s %s on %s (source %s), served by %s%s\n", st->mounts[i].family,
		       text(st->mounts[i].fstype), text(st->mounts[i].mountpoint),
		       text(st->mounts[i].source),
		       st->mounts[i].served_by ? st->mounts[i].served_by : "unknown",
		       st->mounts[i].fallback ? " [fallback]" : "");
	printf("\ninstalled kernels (newest first):\n");
	if (!st->nkernels)
		printf("  none under " FB_MODULES_DIR "\n");
	for (i = 0; i < st->nkernels; i++) {
		const struct kernel *k = &st->kernels[i];

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
		if (k->age == AGE_NONE)
			printf("    FUSE age: none (outside every base); Linux %s (%s)\n",
			       k->linux_version ? k->linux_version : "unknown",
			       k->linux_version_evidence);
		else
			printf("    FUSE age: %s: %s; Linux version %s\n", fuse_age_name(k->age),
			       k->age_why, k->linux_version_evidence);
	}
	if (st->warning)
		printf("\n"
		       "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
		       "WARNING: %s\n"
		       "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
		       st->warning);
	printf("\nstatus: %s\n", st->health);
	for (i = 0; i < st->nproblems; i++)
		printf("  problem: %s\n", text(st->problems[i]));
	for (i = 0; i < st->nnotes; i++)
		printf("  note: %s\n", text(st->notes[i]));
}
