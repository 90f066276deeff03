// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: the admin's settings in FB_CONF_FILE: TAKEOVER=
 * (the boot unit and status read it) and FB_PREFIX= (the name DKMS builds
 * the renamed module with, scripts/prefix.sh).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

/* TAKEOVER= of the config file: 1 yes, 0 no, -1 not set (no file, no key). */
int takeover_configured(char **why)
{
	char *buf = fb_read_file(FB_CONF_FILE, NULL);
	char *line, *save = NULL, *v;
	int ret = -1;

	*why = NULL;
	if (!buf) {
		*why = fb_fmt("%s: %s", FB_CONF_FILE, strerror(errno));
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line = fb_strip(line);
		if (!fb_has_prefix(line, "TAKEOVER="))
			continue;
		v = line + strlen("TAKEOVER=");
		free(*why);
		if (!strcmp(v, "yes") || !strcmp(v, "\"yes\"")) {
			ret = 1;
		} else if (!strcmp(v, "no") || !strcmp(v, "\"no\"")) {
			ret = 0;
		} else {
			ret = -2;
			*why = fb_fmt("%s: TAKEOVER=%s is not yes or no", FB_CONF_FILE, v);
			continue;
		}
		*why = fb_fmt("TAKEOVER=%s in %s", ret ? "yes" : "no", FB_CONF_FILE);
	}
	if (ret == -1)
		*why = fb_fmt("no TAKEOVER= in %s", FB_CONF_FILE);
	free(buf);
	return ret;
}

/* FB_PREFIX= of the config file: its last such line, NULL for none. */
char *conf_prefix(void)
{
	char *buf = fb_read_file(FB_CONF_FILE, NULL);
	char *line, *save = NULL, *v, *ret = NULL;
	size_t n;

	if (!buf)
		return NULL;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line = fb_strip(line);
		if (!fb_has_prefix(line, "FB_PREFIX="))
			continue;
		v = line + strlen("FB_PREFIX=");
		n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		free(ret);
		ret = fb_strdup(v);
	}
	free(buf);
	return ret;
}
