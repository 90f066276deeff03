// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: the admin's settings in FB_CONF_FILE: TAKEOVER=
 * (the boot unit and status read it), WHEN_AHEAD= (what a kernel ahead of
 * our fs/fuse gets: the build, the load, the boot and status read it) and
 * FB_PREFIX= (the name DKMS builds the renamed module with,
 * scripts/prefix.sh).
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

/*
 * KEY= (given with its "=") of BUF, the config file: its last such line,
 * blanks before the key and after the value (a CR too) and one pair of
 * quotes taken off, as scripts/prefix.sh and scripts/when-ahead.sh read
 * it; NULL for none.
 */
static char *conf_value(char *buf, const char *key_eq)
{
	char *line, *save = NULL, *v, *ret = NULL;
	size_t n;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		n = strlen(line);
		while (n && strchr(" \t\r", line[n - 1]))
			line[--n] = '\0';
		if (!fb_has_prefix(line, key_eq))
			continue;
		v = line + strlen(key_eq);
		n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		free(ret);
		ret = fb_strdup(v);
	}
	return ret;
}

/* FB_PREFIX= of the config file: its last such line, NULL for none. */
char *conf_prefix(void)
{
	char *buf = fb_read_file(FB_CONF_FILE, NULL);
	char *ret;

	if (!buf)
		return NULL;
	ret = conf_value(buf, "FB_PREFIX=");
	free(buf);
	return ret;
}

/*
 * WHEN_AHEAD= of the config file, its last such line: serve 1, stock 0;
 * no file, no key: serve; another value: -2, and serve is used.
 */
int when_ahead_configured(char **why)
{
	char *buf = fb_read_file(FB_CONF_FILE, NULL);
	char *v = buf ? conf_value(buf, "WHEN_AHEAD=") : NULL;
	int ret;

	if (!buf)
		*why = fb_fmt("%s: %s: serve", FB_CONF_FILE, strerror(errno));
	else if (!v)
		*why = fb_strdup("no WHEN_AHEAD= in " FB_CONF_FILE ": serve");
	if (!v) {
		free(buf);
		return 1;
	}
	if (!strcmp(v, "serve") || !strcmp(v, "stock")) {
		ret = !strcmp(v, "serve");
		*why = fb_fmt("WHEN_AHEAD=%s in %s", v, FB_CONF_FILE);
	} else {
		ret = -2;
		*why = fb_fmt("WHEN_AHEAD=%s in %s is not serve or stock; serve is used", v, FB_CONF_FILE);
	}
	free(v);
	free(buf);
	return ret;
}
