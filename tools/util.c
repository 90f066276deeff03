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

void fb_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}
