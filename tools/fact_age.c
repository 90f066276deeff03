// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport facts: how a kernel's own FUSE compares in age with its
 * base's fs/fuse, from version numbers only: the rule and the words of
 * scripts/fuse-age.sh (what the build says and dkms.conf decides
 * WHEN_AHEAD by; the tools package has no copy of it).
 *
 * The kernel's VERSION.PATCHLEVEL.SUBLEVEL is its headers' top Makefile's
 * (/lib/modules/KVER/build/Makefile, or the Makefile it includes: Debian's
 * flavour directories include the -common one), as the script's --headers
 * reads it. One difference: where a kernel has no headers (or they give no
 * version) the script is never asked (DKMS cannot build without them),
 * while status still tells an installed kernel's age: the leading X.Y.Z
 * of the release name is the version then, and the evidence says "from
 * the release name".
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

static const char *const age_names[] = {
	[AGE_NONE] = NULL,
	[AGE_CURRENT] = "current",
	[AGE_AHEAD] = "ahead",
	[AGE_OLDER_SERIES] = "older-series",
	[AGE_UNKNOWN] = "unknown",
};

const char *fuse_age_name(enum fuse_age age)
{
	return age_names[age];
}

/* S is N.N.N, digits only (the script's ^[0-9]+\.[0-9]+\.[0-9]+$) */
static bool is_xyz(const char *s)
{
	int dots = 0;
	bool digit = false;

	for (; *s; s++) {
		if (isdigit((unsigned char)*s)) {
			digit = true;
		} else if (*s == '.' && digit && dots < 2) {
			dots++;
			digit = false;
		} else {
			return false;
		}
	}
	return dots == 2 && digit;
}

/* The first line "include PATH/Makefile" of BUF: PATH/Makefile, or NULL. */
static char *included_makefile(char *buf)
{
	char *line, *save = NULL, *p;
	size_t n;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!fb_has_prefix(line, "include") || !isspace((unsigned char)line[7]))
			continue;
		for (p = line + 7; isspace((unsigned char)*p); p++)
			;
		n = strlen(p);
		if (n > strlen("/Makefile") && !strcmp(p + n - strlen("/Makefile"), "/Makefile"))
			return fb_strdup(p);
	}
	return NULL;
}

/* Does BUF have a line starting "VERSION = "? */
static bool has_version_line(const char *buf)
{
	return fb_has_prefix(buf, "VERSION = ") || strstr(buf, "\nVERSION = ");
}

char *headers_linux_version(const char *kdir, char **mkp)
{
	static const char *const keys[] = { "VERSION = ", "PATCHLEVEL = ", "SUBLEVEL = " };
	char *mk = fb_fmt("%s/Makefile", kdir), *buf, *line, *save = NULL, *v, *t;
	unsigned int i, n = 0;

	if (mkp)
		*mkp = NULL;
	buf = fb_exists(mk) && !fb_is_dir(mk) ? fb_read_file(mk, NULL) : NULL;
	if (!buf) {
		free(mk);
		return NULL;
	}
	if (!has_version_line(buf)) {
		free(mk);
		mk = included_makefile(buf);
		free(buf);
		buf = mk && !fb_is_dir(mk) ? fb_read_file(mk, NULL) : NULL;
		if (!buf) {
			free(mk);
			return NULL;
		}
	}
	/* the first three lines of the three keys, joined by dots */
	v = fb_strdup("");
	for (line = strtok_r(buf, "\n", &save); line && n < 3; line = strtok_r(NULL, "\n", &save))
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (fb_has_prefix(line, keys[i])) {
				t = fb_fmt("%s%s%s", v, n++ ? "." : "", line + strlen(keys[i]));
				free(v);
				v = t;
				break;
			}
	free(buf);
	if (!is_xyz(v)) {
		free(v);
		free(mk);
		return NULL;
	}
	if (mkp)
		*mkp = mk;
	else
		free(mk);
	return v;
}

/* The leading X.Y.Z of a release name (X.Y alone is X.Y.0), or NULL. */
static char *release_linux_version(const char *kver)
{
	unsigned int x, y, z;
	int n = 0;

	if (sscanf(kver, "%u.%u.%u%n", &x, &y, &z, &n) == 3 && n > 0 &&
	    !isdigit((unsigned char)kver[n]))
		return fb_fmt("%u.%u.%u", x, y, z);
	if (sscanf(kver, "%u.%u%n", &x, &y, &n) == 2 && n > 0 &&
	    !isdigit((unsigned char)kver[n]) && kver[n] != '.')
		return fb_fmt("%u.%u.0", x, y);
	return NULL;
}

/* version A is newer than B (the script's sort -V) */
static bool vgt(const char *a, const char *b)
{
	return strcmp(a, b) && strverscmp(a, b) > 0;
}

/* "6.12.118" -> "6.12" */
static char *series_of(const char *v)
{
	const char *dot = strrchr(v, '.');

	return dot ? strndup(v, dot - v) : fb_strdup(v);
}

/* The script's case *.el[0-9]*: a .elN anywhere in the release. */
static bool is_el(const char *kver)
{
	const char *p;

	for (p = strstr(kver, ".el"); p; p = strstr(p + 1, ".el"))
		if (isdigit((unsigned char)p[3]))
			return true;
	return false;
}

/* The class of KVER (Linux V, NULL: none known) against base B, and why. */
static enum fuse_age classify(const char *kver, const char *v, const struct fb_base *b,
			      char **why)
{
	char *series, *bseries = series_of(b->upstream);
	const char *sub;
	enum fuse_age age;

	if (is_el(kver)) {
		*why = fb_fmt("%s is a distribution build whose version says nothing about its fs/fuse",
			      kver);
		free(bseries);
		return AGE_UNKNOWN;
	}
	if (!v) {
		*why = fb_fmt("%s has no Linux version: no headers, and none in its release name", kver);
		free(bseries);
		return AGE_UNKNOWN;
	}
	series = series_of(v);
	sub = strrchr(v, '.') + 1;
	if (!strcmp(sub, "0")) {
		age = AGE_UNKNOWN;
		*why = fb_fmt("%s (Linux %s) carries sublevel 0, which says nothing about its fs/fuse",
			      kver, v);
	} else if (vgt(bseries, series)) {
		age = AGE_OLDER_SERIES;
		*why = fb_fmt("%s (Linux %s) is of series %s, older than base %s, served through its compat layer",
			      kver, v, series, bseries);
	} else if (vgt(v, b->current_to)) {
		age = AGE_AHEAD;
		*why = fb_fmt("%s (Linux %s) is newer than %s, the newest release checked to carry our fs/fuse (base %s: %s)",
			      kver, v, b->current_to, bseries, b->upstream);
	} else {
		age = AGE_CURRENT;
		*why = fb_fmt("%s (Linux %s) is no newer than %s, which carries our fs/fuse (base %s: %s)",
			      kver, v, b->current_to, bseries, b->upstream);
	}
	free(series);
	free(bseries);
	return age;
}

enum fuse_age fuse_age(const char *kver, char **linux_version, char **evidence, char **why)
{
	const struct fb_base *b = base_for(kver);
	char *kdir = fb_fmt(FB_MODULES_DIR "/%s/build", kver);
	char *mk = NULL, *v = headers_linux_version(kdir, &mk);
	enum fuse_age age = AGE_NONE;

	if (v) {
		*evidence = fb_fmt("from VERSION, PATCHLEVEL and SUBLEVEL of %s", mk);
	} else {
		v = release_linux_version(kver);
		mk = fb_fmt("%s/Makefile", kdir);
		*evidence = fb_fmt("%s (%s %s)", v ? "from the release name" : "none in the release name",
				   fb_exists(mk) ? "no VERSION.PATCHLEVEL.SUBLEVEL in" : "no headers: no", mk);
	}
	*why = NULL;
	if (b)
		age = classify(kver, v, b, why);
	*linux_version = v;
	free(mk);
	free(kdir);
	return age;
}
