// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: what modinfo (kmod) says of a module file, and
 * whether a module version is ours.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "facts.h"

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
