/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport: the userspace companion of the module.
 *
 *   fuse-backport status [--json] [--no-probe]
 *   fuse-backport run [-o OPTS] [-t TYPE] -- DAEMON [ARG...] MOUNTPOINT
 *   mount.fusebp SOURCE MOUNTPOINT [-o OPTS] [-t TYPE] [-fnsv]
 */
#ifndef FB_TOOL_H
#define FB_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#ifndef FB_PREFIX
#define FB_PREFIX "fusebp"
#endif
#ifndef FB_TOOL_VERSION
#define FB_TOOL_VERSION "unknown"
#endif
/* The module versions of this release, one per base, space separated. */
#ifndef FB_MODULE_VERSIONS
#define FB_MODULE_VERSIONS ""
#endif
#define FB_DKMS_NAME "fuse-backport"
#define FB_DKMS_TREE "/var/lib/dkms"
#define FB_MODULES_DIR "/lib/modules"
/* The kernels whose build failed in the kernel hook (scripts/kernel-hook.sh) */
#define FB_BUILD_FAILED_DIR "/var/lib/fuse-backport/build-failed"

#define FB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* What a fatal allocation failure exits with: 2 for status, 1 otherwise. */
extern int fb_fatal_status;
extern const char *fb_prog;

void fb_msg(const char *fmt, ...) FB_PRINTF(1, 2);
void *fb_alloc(size_t size);
char *fb_strdup(const char *s);
char *fb_fmt(const char *fmt, ...) FB_PRINTF(1, 2);
char *fb_strip(char *s);
bool fb_has_prefix(const char *s, const char *prefix);

/* The whole file, NUL-terminated; NULL with errno set on failure. */
char *fb_read_file(const char *path, size_t *lenp);
/* First line of a file, without the newline; NULL when unreadable. */
char *fb_read_line(const char *path);
bool fb_exists(const char *path);
bool fb_is_dir(const char *path);
/* Is NAME in /proc/filesystems (now, or in a copy of it)? */
bool fb_fs_registered(const char *name);
bool fb_fs_in_list(const char *filesystems, const char *name);

/*
 * Run argv (looked up in PATH) with stdin and stderr on /dev/null and
 * return what it wrote to stdout; NULL when it could not be run. *status
 * gets the wait status.
 */
char *fb_capture(char *const argv[], int *status);

/*
 * The length of the valid UTF-8 sequence at p (1 to 4 bytes) with its code
 * point in *cp, 0 when invalid.
 */
size_t fb_utf8_len(const unsigned char *p, unsigned int *cp);
/* JSON output: valid UTF-8 (invalid bytes become U+FFFD), controls escaped. */
void fb_json_str(FILE *f, const char *s);
/* A copy for a terminal: controls and invalid UTF-8 as \xHH, \ as \\. */
char *fb_printable(const char *s);

/* One line of /proc/self/mountinfo, its escapes decoded. */
struct fb_mount {
	int id;
	int parent;
	char *sb_dev;		/* "major:minor" of the superblock */
	char *mountpoint;
	char *options;		/* per mount */
	char *fstype;
	char *source;
	char *super_options;
};

/* Every mount; NULL with errno set when mountinfo cannot be read. */
struct fb_mount *fb_mountinfo_read(size_t *np);
void fb_mountinfo_free(struct fb_mount *m, size_t n);

/* Where the supervisor notes mounts it made on the kernel's own FUSE. */
#define FB_FALLBACK_DIR "/run/fuse-backport/fallback"
/* The PATH helpers (modprobe, modinfo) are looked up in when run as root. */
#define FB_SAFE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* The FUSE_INIT request a device sends on a throwaway mount. */
struct fb_init_info {
	unsigned int major;
	unsigned int minor;
	unsigned long long flags;	/* flags | flags2 << 32 */
};

/*
 * Mount FSTYPE over DEV in a private mount namespace on a private tmpfs,
 * read the FUSE_INIT request, abort the connection and leave nothing
 * behind. 0 on success; else -1 with the reason in why.
 */
int fb_probe_init(const char *dev, const char *fstype,
		  struct fb_init_info *info, char *why, size_t whylen);

int fb_cmd_status(int argc, char **argv);
int fb_cmd_run(int argc, char **argv);
int fb_cmd_mount(int argc, char **argv, const char *progname);
int fb_cmd_takeover(int argc, char **argv);

#endif /* FB_TOOL_H */
