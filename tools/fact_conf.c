// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: the settings, FB_CONF_FILE (the admin's) over
 * FB_CONF_DEFAULTS (the package's): TAKEOVER=
 * (the boot unit and status read it), WHEN_AHEAD= (what a kernel ahead of
 * our fs/fuse gets: the build, the load, the boot and status read it) and
 * FB_PREFIX= (the name DKMS builds the renamed module with,
 * scripts/prefix.sh).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

/*
 * The files, in the order they are read: a key's last line in the last
 * file that has it wins. The defaults are the package's (never edited); the
 * admin's file is never shipped, so no upgrade asks about it.
 */
static const char *const conf_files[] = { FB_CONF_DEFAULTS, FB_CONF_FILE };

/*
 * KEY= (given with its "=") of BUF, one config file: its last such line,
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

/*
 * KEY= of the settings: the admin's file over the defaults. *from (if not
 * NULL) is the file it came from, or NULL where none has it; *none (if not
 * NULL) says that no file could be read at all (allocated, or NULL).
 */
static char *conf_lookup(const char *key_eq, const char **from, char **none)
{
	char *ret = NULL, *v, *buf;
	size_t i;
	bool read = false;

	if (from)
		*from = NULL;
	for (i = 0; i < sizeof(conf_files) / sizeof(conf_files[0]); i++) {
		buf = fb_read_file(conf_files[i], NULL);
		if (!buf)
			continue;
		read = true;
		v = conf_value(buf, key_eq);
		free(buf);
		if (!v)
			continue;
		free(ret);
		ret = v;
		if (from)
			*from = conf_files[i];
	}
	if (none)
		*none = read ? NULL : fb_strdup("neither " FB_CONF_DEFAULTS " nor " FB_CONF_FILE " exists");
	return ret;
}

/* TAKEOVER= of the settings: 1 yes, 0 no, -1 not set (no file, no key). */
int takeover_configured(char **why)
{
	const char *from;
	char *none, *v = conf_lookup("TAKEOVER=", &from, &none);
	int ret;

	if (!v) {
		*why = none ?: fb_strdup("no TAKEOVER= in " FB_CONF_DEFAULTS " or " FB_CONF_FILE);
		return -1;
	}
	free(none);
	if (!strcmp(v, "yes") || !strcmp(v, "no")) {
		ret = !strcmp(v, "yes");
		*why = fb_fmt("TAKEOVER=%s in %s", v, from);
	} else {
		ret = -2;
		*why = fb_fmt("%s: TAKEOVER=%s is not yes or no", from, v);
	}
	free(v);
	return ret;
}

/* FB_PREFIX= of the settings, NULL for none. */
char *conf_prefix(void)
{
	return conf_lookup("FB_PREFIX=", NULL, NULL);
}

/*
 * WHEN_AHEAD= of the settings: serve 1, stock 0; no file, no key: serve;
 * another value: -2, and serve is used.
 */
int when_ahead_configured(char **why)
{
	const char *from;
	char *none, *v = conf_lookup("WHEN_AHEAD=", &from, &none);
	int ret;

	if (!v) {
		*why = none ? fb_fmt("%s: serve", none) :
			fb_strdup("no WHEN_AHEAD= in " FB_CONF_DEFAULTS " or " FB_CONF_FILE ": serve");
		free(none);
		return 1;
	}
	free(none);
	if (!strcmp(v, "serve") || !strcmp(v, "stock")) {
		ret = !strcmp(v, "serve");
		*why = fb_fmt("WHEN_AHEAD=%s in %s", v, from);
	} else {
		ret = -2;
		*why = fb_fmt("WHEN_AHEAD=%s in %s is not serve or stock; serve is used", v, from);
	}
	free(v);
	return ret;
}
