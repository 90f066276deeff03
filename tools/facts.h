/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport: the facts every command reads, each read in one place
 * (the fact_*.c files), which call nothing but util.c:
 *
 *   fact_kernel.c   a kernel's config and module lists: how it has FUSE
 *                   (the flavor rule, scripts/fuse-config.sh's), what
 *                   modules.dep resolves a name to
 *   fact_kmod.c     modinfo (kmod) of a module file; is a version ours
 *   fact_bases.c    the bases of this release and the series they serve
 *   fact_age.c      a kernel's Linux version, and how its own FUSE compares
 *                   in age with its base's (scripts/fuse-age.sh's rule)
 *   fact_conf.c     the admin's settings (FB_CONF_FILE)
 *   fact_fusectl.c  the takeover's state and the FUSE control file systems
 *   fact_devnode.c  /dev/fuse's node (mode, owner) and whether udev runs
 *   fact_probe.c    the FUSE_INIT request of a throwaway mount (fb.h)
 *
 * tools/layers lists every file's layer; tests/lint/layers.sh checks it.
 */
#ifndef FB_FACTS_H
#define FB_FACTS_H

#include <stdbool.h>

#include "fb.h"

/* fact_bases.c: the bases of this release (tools/Makefile: backports/<base>/pin). */
#ifndef FB_BASES
#error "FB_BASES is not defined: build with tools/Makefile (it reads backports/*/pin)"
#endif

/*
 * A base: the kernel series it serves, from and to, its module version, the
 * upstream release its fs/fuse is (UPSTREAM_VERSION) and the newest release
 * checked to carry exactly that fs/fuse (FUSE_CURRENT_TO).
 */
struct fb_base {
	const char *min, *max, *version, *upstream, *current_to;
};

/* The base serving kernel release KVER by its series, or NULL. */
const struct fb_base *base_for(const char *kver);
/* "6.1 to 6.12, 7.2 to 7.2, 7.3 to 7.3": what the bases serve. */
char *served_series(void);

/* fact_age.c: the classes of scripts/fuse-age.sh; AGE_NONE: outside every base */
enum fuse_age {
	AGE_NONE,
	AGE_CURRENT,
	AGE_AHEAD,
	AGE_OLDER_SERIES,
	AGE_UNKNOWN,
};

/* "current", "ahead", "older-series", "unknown"; NULL for AGE_NONE */
const char *fuse_age_name(enum fuse_age age);
/*
 * KDIR's VERSION.PATCHLEVEL.SUBLEVEL from its top Makefile, or the one it
 * includes (scripts/fuse-age.sh --headers), allocated; NULL where it has
 * none. *mk (if not NULL) is the Makefile read, allocated.
 */
char *headers_linux_version(const char *kdir, char **mk);
/*
 * How KVER's own FUSE compares with its base's: *linux_version its
 * version (or NULL), *evidence where that comes from, *why the script's
 * line after "CLASS: " (NULL for AGE_NONE); each allocated.
 */
enum fuse_age fuse_age(const char *kver, char **linux_version, char **evidence, char **why);

/* fact_kmod.c */
struct modinfo {
	char *file;
	char *version;
	char *flavor;
	char *base;
	char *srcversion;
	char *signer;
};

/* Is V the version of a module of ours ("...+fbN")? */
bool is_ours_version(const char *v);
/* modinfo FILE into *MI (MI->file set even when it fails); false when it fails. */
bool modinfo_read(const char *file, struct modinfo *mi);

/* fact_kernel.c */
/* The file modules.dep of KVER resolves module NAME to, or NULL. */
char *modules_dep_file(const char *kver, const char *name);
/*
 * CONFIG_NAME in a config file: 'y' or 'm' (its first line NAME=y or =m),
 * 'n' (a line says it is not set, or =n), or 0 (no line says).
 */
char config_value(const char *path, const char *name);
/*
 * The config file of KVER, or NULL: the first that exists of its headers'
 * .config, /boot/config-KVER and /lib/modules/KVER/config.
 */
char *kernel_config_file(const char *kver);
/*
 * How KVER has FUSE: 'y' built in, 'm', 'n', '?' unknown, by the flavor
 * rule of scripts/fuse-config.sh; *evidence (if not NULL) says where from,
 * allocated, as that script says it.
 */
char kernel_fuse_config(const char *kver, char **evidence);
/* The same for the running kernel, else from what is registered and loaded. */
char running_fuse_config(void);

/*
 * fact_conf.c: the settings. The package's defaults (TAKEOVER=yes,
 * WHEN_AHEAD=serve), then the admin's file, which no package ships: a key
 * set there wins.
 */
#define FB_CONF_DEFAULTS "/usr/lib/fuse-backport/fuse-backport.conf"
#define FB_CONF_FILE "/etc/fuse-backport/fuse-backport.conf"

/* TAKEOVER=: 1 yes, 0 no, -1 not set, -2 invalid; *why says where (free it). */
int takeover_configured(char **why);
/*
 * WHEN_AHEAD=: 1 serve (also where it is not set), 0 stock, -2 invalid
 * (serve is used); *why says where, or why invalid (free it).
 */
int when_ahead_configured(char **why);
/*
 * FB_PREFIX= of the config file, the name fuse-backport-dkms builds the
 * renamed module with (scripts/prefix.sh), quotes taken off; NULL where it
 * is not set (free it).
 */
char *conf_prefix(void);

/* fact_fusectl.c: the renamed module's takeover parameter. */
#define FB_TAKEOVER_PARAM "/sys/module/" FB_PREFIX "/parameters/takeover"

/*
 * 1 active, 0 not, 2 partly (a swap that stopped half way: the kernel's
 * takeover.c), -1 the module (its parameter) is not loaded.
 */
int takeover_active(void);
/* "fuse=SIDE fuseblk=SIDE /dev/fuse=SIDE" (free it), NULL: not loaded. */
char *takeover_sides(void);
/* FB_PREFIX, "built-in", or NULL: whose control fs lists SB_DEV's connection. */
const char *takeover_served_by(const char *sb_dev);

/* fact_devnode.c: the node of a character device, and udev. */
#define FB_UDEV_CONTROL "/run/udev/control"

/* A character device node's permission bits and owner. */
struct fb_devnode {
	mode_t perm;
	uid_t uid;
	gid_t gid;
};

/* PATH is the character device MAJ:MIN: true, and *n is its mode and owner. */
bool devnode_read(const char *path, unsigned int maj, unsigned int min, struct fb_devnode *n);
/* udev runs here (FB_UDEV_CONTROL exists): it applies its rules to new nodes. */
bool udev_running(void);

#endif /* FB_FACTS_H */
