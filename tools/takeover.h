/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The takeover of a built-in FUSE by the renamed module (takeover.c): the
 * admin's setting, the module's state, and which FUSE serves a mount.
 */
#ifndef FB_TAKEOVER_H
#define FB_TAKEOVER_H

/* The admin's settings; the packages ship it with TAKEOVER=yes. */
#define FB_CONF_FILE "/etc/fuse-backport/fuse-backport.conf"

/* TAKEOVER=: 1 yes, 0 no, -1 not set, -2 invalid; *why says where (free it). */
int takeover_configured(char **why);
/*
 * FB_PREFIX= of the config file, the name fuse-backport-dkms builds the
 * renamed module with (scripts/prefix.sh), quotes taken off; NULL where it
 * is not set (free it).
 */
char *conf_prefix(void);
/* 1 active, 0 not, -1 the module (its parameter) is not loaded. */
int takeover_active(void);
/* FB_PREFIX, "built-in", or NULL: whose control fs lists SB_DEV's connection. */
const char *takeover_served_by(const char *sb_dev);

#endif /* FB_TAKEOVER_H */
