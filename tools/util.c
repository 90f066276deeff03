// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport: small helpers (messages, allocation, files, child output,
 * JSON strings).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fb.h"

int fb_fatal_status = 1;
const char *fb_prog = "fuse-backport";

void fb_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", fb_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void fb_oom(void)
{
	fb_msg("out of memory");
	exit(fb_fatal_status);
}

void *fb_alloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		fb_oom();
	return p;
}

char *fb_strdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		fb_oom();
	return p;
}

char *fb_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		fb_oom();
	return s;
}

/* Trailing white space goes, in place. */
char *fb_strip(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

bool fb_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Read fd to its end into a NUL-terminated buffer (the caller frees it);
 * *lenp gets the length. On a read error: the buffer so far is freed, NULL
 * is returned and errno says why.
 */
static char *read_fd_all(int fd, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf, *nbuf;
	ssize_t n;

	buf = fb_alloc(cap + 1);
	for (;;) {
		if (len == cap) {
			cap *= 2;
			nbuf = realloc(buf, cap + 1);
			if (!nbuf)
				fb_oom();
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	if (n < 0) {
		int err = errno;

		free(buf);
		errno = err;
		return NULL;
	}
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

char *fb_read_file(const char *path, size_t *lenp)
{
	char *buf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = read_fd_all(fd, lenp);
	err = errno;
	close(fd);
	errno = err;
	return buf;
}

char *fb_read_line(const char *path)
{
	char *s = fb_read_file(path, NULL);
	char *nl;

	if (!s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	return s;
}

bool fb_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

bool fb_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *fb_capture(char *const argv[], int *status)
{
	char *buf;
	int pfd[2], nul;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 2);
		}
		dup2(pfd[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	buf = read_fd_all(pfd[0], NULL);
	close(pfd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (buf && WIFEXITED(*status) && WEXITSTATUS(*status) == 127) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * The length of the valid UTF-8 sequence at p (1 to 4 bytes; no overlong
 * forms, surrogates or code points above U+10FFFF), 0 when invalid.
 */
size_t fb_utf8_len(const unsigned char *p, unsigned int *cp)
{
	size_t n, i;
	unsigned int c;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		c = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		c = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		c = p[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * A JSON string: quotes, backslashes and control characters (C0, DEL, C1)
 * escaped; bytes that are not valid UTF-8 replaced by U+FFFD, so that the
 * output is valid UTF-8 whatever a mount's name holds.
 */
void fb_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int c;
	size_t n;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		n = fb_utf8_len(p, &c);
		if (!n) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (c == '"')
			fputs("\\\"", f);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
			fprintf(f, "\\u%04x", c);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

/* mountinfo's octal escapes (\040 and the like) decoded. */
static char *mountinfo_decode(const char *s)
{
	char *r = fb_strdup(s), *o = r;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return r;
}

struct fb_mount *fb_mountinfo_read(size_t *np)
{
	char *mi = fb_read_file("/proc/self/mountinfo", NULL);
	char *line, *save = NULL, *sep, *f[6], *s2;
	struct fb_mount *all = NULL, *m;
	size_t n = 0;
	int i;

	*np = 0;
	if (!mi)
		return NULL;
	for (line = strtok_r(mi, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* id parent major:minor root mountpoint options [tags] - type source super */
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		s2 = NULL;
		f[0] = strtok_r(line, " ", &s2);
		for (i = 1; i < 6 && f[i - 1]; i++)
			f[i] = strtok_r(NULL, " ", &s2);
		if (i < 6 || !f[5])
			continue;
		all = realloc(all, (n + 2) * sizeof(*all));
		if (!all) {
			fb_msg("out of memory");
			exit(fb_fatal_status);
		}
		m = &all[n++];
		memset(m, 0, sizeof(*m));
		m->id = atoi(f[0]);
		m->parent = atoi(f[1]);
		m->sb_dev = fb_strdup(f[2]);
		m->mountpoint = mountinfo_decode(f[4]);
		m->options = fb_strdup(f[5]);
		s2 = NULL;
		f[0] = strtok_r(sep + 3, " ", &s2);
		f[1] = f[0] ? strtok_r(NULL, " ", &s2) : NULL;
		f[2] = f[1] ? strtok_r(NULL, " ", &s2) : NULL;
		m->fstype = mountinfo_decode(f[0] ? f[0] : "");
		m->source = mountinfo_decode(f[1] ? f[1] : "");
		m->super_options = fb_strdup(f[2] ? f[2] : "");
	}
	free(mi);
	if (!all)
		all = fb_alloc(sizeof(*all));
	memset(&all[n], 0, sizeof(*all));
	*np = n;
	return all;
}

void fb_mountinfo_free(struct fb_mount *m, size_t n)
{
	size_t i;

	for (i = 0; m && i < n; i++) {
		free(m[i].sb_dev);
		free(m[i].mountpoint);
		free(m[i].options);
		free(m[i].fstype);
		free(m[i].source);
		free(m[i].super_options);
	}
	free(m);
}

/*
 * Text for a terminal: control bytes and DEL as \xHH, a backslash as \\,
 * so that no name a user chose can move the cursor or start a line.
 */
char *fb_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int c;
	size_t n, i;
	char *r, *o;

	if (!s)
		return fb_strdup("");
	r = fb_alloc(strlen(s) * 4 + 1);
	for (o = r; *p;) {
		n = fb_utf8_len(p, &c);
		if (!n || c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
			/* invalid UTF-8 or a control character: every byte */
			for (i = 0; i < (n ? n : 1); i++)
				o += sprintf(o, "\\x%02x", p[i]);
			p += n ? n : 1;
		} else if (c == '\\') {
			o += sprintf(o, "\\\\");
			p++;
		} else {
			memcpy(o, p, n);
			o += n;
			p += n;
		}
	}
	*o = '\0';
	return r;
}

bool fb_fs_in_list(const char *filesystems, const char *name)
{
	char *copy = fb_strdup(filesystems), *line, *save = NULL, *f;
	bool found = false;

	for (line = strtok_r(copy, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		f = strrchr(line, '\t');
		found = !strcmp(f ? f + 1 : line, name);
	}
	free(copy);
	return found;
}

bool fb_fs_registered(const char *name)
{
	char *s = fb_read_file("/proc/filesystems", NULL);
	bool found = s && fb_fs_in_list(s, name);

	free(s);
	return found;
}
