// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport takeover: the switch of the renamed module's takeover of a
 * built-in FUSE (its parameter /sys/module/fusebp/parameters/takeover,
 * fact_fusectl.c) and the admin's setting (TAKEOVER= in FB_CONF_FILE,
 * fact_conf.c).
 *
 *   fuse-backport takeover            the setting and the state
 *   fuse-backport takeover on|off     switch it now (the setting stays)
 *   fuse-backport takeover boot       what the boot unit runs: on where
 *                                     TAKEOVER=yes and FUSE is built in;
 *                                     with TAKEOVER=no there, the module
 *                                     loaded beside it (/dev/fusebp);
 *                                     neither where the kernel is ahead
 *                                     of our fs/fuse and WHEN_AHEAD=stock
 *
 * Every refusal is one line and changes nothing; the kernel logs its own.
 * A switch the kernel could not finish nor undo (takeover.c: a restore of
 * the built-in that failed) is one line naming who serves each name, and
 * exit 1; on or off again finishes or undoes it.
 * A switch returns once /dev/fuse is back as udev makes it (wait_node()).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "facts.h"

#define FUSE_DEV "/dev/fuse"
#define FUSE_DEV_MAJOR 10
#define FUSE_DEV_MINOR 229
/* the bound of wait_node(), in milliseconds, and its step */
#define NODE_WAIT_MS 10000
#define NODE_STEP_MS 10

/*
 * /dev/fuse before a switch (the node udev has made), saved by node_save():
 * node_had is false where there was no such node.
 */
static struct fb_devnode node_before;
static bool node_had;

static void node_save(void)
{
	node_had = devnode_read(FUSE_DEV, FUSE_DEV_MAJOR, FUSE_DEV_MINOR, &node_before);
}

/*
 * A switch deregisters the misc device 10:229 and registers the other
 * side's: before the parameter's write (or modprobe) returns, devtmpfs has
 * removed /dev/fuse and made it anew, mode 0600 root:root, and udev gives
 * it its rules' mode (0666 on Debian) a moment later; until then a non-root
 * opener gets EACCES. Wait until the node is back as it was before the
 * switch, within NODE_WAIT_MS, where udev runs; where it does not (an
 * initramfs without it, a container) nothing would change the node, and
 * where there was none before there is nothing to restore: no wait. One
 * line, only where the wait ends without it; the switch stands.
 */
static void wait_node(void)
{
	struct timespec step = { 0, NODE_STEP_MS * 1000000L };
	struct fb_devnode now;
	bool got = false;
	int ms;

	if (!node_had || !udev_running())
		return;
	for (ms = 0; ms <= NODE_WAIT_MS; ms += NODE_STEP_MS) {
		got = devnode_read(FUSE_DEV, FUSE_DEV_MAJOR, FUSE_DEV_MINOR, &now);
		if (got && now.perm == node_before.perm && now.uid == node_before.uid &&
		    now.gid == node_before.gid)
			return;
		nanosleep(&step, NULL);
	}
	if (got)
		fb_msg("takeover: warning: waited %d s for udev to give " FUSE_DEV " mode %04o %u:%u again, as before the switch; it is %04o %u:%u (non-root openers may get EACCES)",
		       NODE_WAIT_MS / 1000, (unsigned int)node_before.perm, (unsigned int)node_before.uid,
		       (unsigned int)node_before.gid, (unsigned int)now.perm, (unsigned int)now.uid,
		       (unsigned int)now.gid);
	else
		fb_msg("takeover: warning: waited %d s for " FUSE_DEV " to be back as the character device %d:%d with mode %04o %u:%u; it is not",
		       NODE_WAIT_MS / 1000, FUSE_DEV_MAJOR, FUSE_DEV_MINOR, (unsigned int)node_before.perm,
		       (unsigned int)node_before.uid, (unsigned int)node_before.gid);
}

/* modprobe FB_PREFIX with PARAM (NULL: none); 0 when it is loaded */
static int modprobe_ours(char *param)
{
	char *argv[] = { "/sbin/modprobe", "-q", FB_PREFIX, param, NULL };
	int status;
	char *out = fb_capture(argv, &status);

	free(out);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int set_param(bool on)
{
	FILE *f = fopen(FB_TAKEOVER_PARAM, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fputs(on ? "1\n" : "0\n", f) == EOF)
		err = -errno;
	if (fclose(f) == EOF && !err)
		err = -errno;
	return err;
}

/*
 * Copy each tunable of the built-in FUSE in FROM (a directory: its module
 * parameters, its sysctls) to ours of the same name in TO, where ours is
 * writable; "takeover" itself is not one. Appends "name=value" to *done.
 */
static void copy_tunables(const char *from, const char *to, char **done)
{
	DIR *d = opendir(from);
	struct dirent *e;
	char *src, *dst, *v, *s;
	FILE *f;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "takeover"))
			continue;
		src = fb_fmt("%s/%s", from, e->d_name);
		dst = fb_fmt("%s/%s", to, e->d_name);
		v = fb_read_line(src);
		f = v && access(dst, W_OK) == 0 ? fopen(dst, "w") : NULL;
		if (f) {
			fprintf(f, "%s\n", v);
			if (fclose(f) == 0) {
				s = fb_fmt("%s%s%s=%s", *done ? *done : "", *done ? " " : "",
					   e->d_name, v);
				free(*done);
				*done = s;
			}
		}
		free(v);
		free(src);
		free(dst);
	}
	closedir(d);
}

/*
 * The built-in's values go with its names: its module parameters
 * (max_user_bgreq, ...) and its sysctls (/proc/sys/fs/fuse, 6.14 on).
 */
static void take_tunables(void)
{
	char *done = NULL;

	copy_tunables("/sys/module/fuse/parameters", "/sys/module/" FB_PREFIX "/parameters", &done);
	copy_tunables("/proc/sys/fs/fuse", "/proc/sys/fs/" FB_PREFIX, &done);
	printf("takeover: the built-in's values carried over: %s\n", done ? done : "none");
	free(done);
}

/*
 * The running kernel is ahead of our fs/fuse (fact_age.c): "the running
 * kernel K (Linux V) is ahead of ours: ...", allocated, else NULL.
 */
static char *running_ahead(void)
{
	const struct fb_base *b;
	struct utsname u;
	char *v, *ev, *why, *s = NULL;

	if (uname(&u))
		return NULL;
	b = base_for(u.release);
	if (fuse_age(u.release, &v, &ev, &why) == AGE_AHEAD)
		s = fb_fmt("the running kernel %s (Linux %s) is ahead of ours: newer than %s, the newest release checked to carry our fs/fuse (base %s)",
			   u.release, v, b->current_to, b->upstream);
	free(v);
	free(ev);
	free(why);
	return s;
}

/* A switch that stopped half way (ERR: the write's, or 0): one line, 1. */
static int switch_failed(const char *how, int err)
{
	char *sides = takeover_sides();

	fb_msg("takeover %s failed%s%s; now %s (the kernel log says why; 'fuse-backport takeover on' finishes the takeover, 'off' undoes it)",
	       how, err ? ": " : "", err ? strerror(-err) : "", sides ? sides : "unknown, " FB_PREFIX " not loaded");
	free(sides);
	return 1;
}

static int switch_on(void)
{
	int err;

	if (running_fuse_config() == 'm') {
		fb_msg("takeover refused: FUSE is a module on this kernel; the drop-in fuse.ko serves -t fuse");
		return 1;
	}
	if (takeover_active() == 1) {
		printf("takeover: already active\n");
		return 0;
	}
	node_save();
	if (takeover_active() < 0) {
		if (modprobe_ours("takeover=1")) {
			fb_msg("takeover refused: modprobe %s takeover=1 failed (is %s installed for this kernel? see the kernel log)",
			       FB_PREFIX, FB_PREFIX);
			return 1;
		}
	} else {
		err = set_param(true);
		if (err && takeover_active() != 0)
			return switch_failed("on", err);
		if (err) {
			fb_msg("takeover refused: %s: %s (the kernel log says why)", FB_TAKEOVER_PARAM, strerror(-err));
			return 1;
		}
	}
	if (takeover_active() == 2)
		return switch_failed("on", 0);
	if (takeover_active() != 1) {
		fb_msg("takeover refused: %s loaded but not active (the kernel log says why)", FB_PREFIX);
		return 1;
	}
	wait_node();
	printf("takeover: active: -t fuse, fuseblk and /dev/fuse are served by %s\n", FB_PREFIX);
	take_tunables();
	return 0;
}

static int switch_off(void)
{
	int err, act = takeover_active();

	if (act != 1 && act != 2) {
		printf("takeover: not active\n");
		return 0;
	}
	node_save();
	err = set_param(false);
	if (err || takeover_active() != 0)
		return switch_failed("off", err);
	wait_node();
	printf("takeover: ended: -t fuse is the built-in FUSE's again; mounts of %s keep serving\n",
	       FB_PREFIX);
	return 0;
}

/*
 * Without the takeover, the renamed module is loaded beside the built-in
 * FUSE, so that /dev/fusebp exists after boot for run and mount.fusebp.
 * fuse-backport-dkms's modules-load.d entry has usually loaded it already
 * (systemd-modules-load.service, which this unit comes after: the name
 * fuse-backport-boot, whose modprobe install command, scripts/load-renamed.sh,
 * loads it where the kernel has it and is one line where it has none); this
 * loads it where that did not run (the prebuilt modules' packages have no
 * such entry). With TAKEOVER=yes, switch_on() finds it loaded and sets the
 * parameter. A module that is not there for this kernel is one line, not a
 * failure: status says what is missing.
 */
static int boot_side_by_side(void)
{
	if (takeover_active() >= 0) {
		printf("takeover: %s is loaded beside the built-in FUSE (/dev/%s)\n",
		       FB_PREFIX, FB_PREFIX);
		return 0;
	}
	if (modprobe_ours(NULL)) {
		printf("takeover: %s could not be loaded (is it installed for this kernel? fuse-backport status)\n",
		       FB_PREFIX);
		return 0;
	}
	printf("takeover: %s loaded beside the built-in FUSE (/dev/%s)\n", FB_PREFIX, FB_PREFIX);
	return 0;
}

/*
 * The boot unit: on if configured, else fusebp side by side where FUSE is
 * built in; never fails a boot for a kernel it does not fit or a module
 * that does not load (exit 1 only for a TAKEOVER= it cannot read).
 */
static int boot(void)
{
	char *why, *ahead = running_ahead();
	int conf, stock;
	char fuse = running_fuse_config();

	/* WHEN_AHEAD=stock: a kernel ahead of ours keeps its own FUSE, nothing loaded */
	stock = when_ahead_configured(&why) == 0;
	if (ahead && stock && fuse != 'm') {
		printf("takeover: not taking over, nothing loaded: %s; %s leaves it its own FUSE\n",
		       ahead, why);
		free(ahead);
		free(why);
		return 0;
	}
	free(ahead);
	free(why);
	conf = takeover_configured(&why);

	if (conf != 1) {
		printf("takeover: not configured (%s)\n", why);
		free(why);
		if (conf == -2)
			return 1;
		return fuse == 'y' ? boot_side_by_side() : 0;
	}
	free(why);
	if (fuse != 'y') {
		printf("takeover: not applicable: FUSE is not built into this kernel\n");
		return 0;
	}
	/*
	 * A module of ours that is not there for this kernel or does not load
	 * (no base serves it, a failed build, Secure Boot without our key) is
	 * switch_on()'s one line, not a failed boot: the built-in FUSE serves,
	 * and status reports it (degraded).
	 */
	switch_on();
	return 0;
}

static void show(void)
{
	char *why;
	int conf = takeover_configured(&why);
	int act = takeover_active();
	char *sides = act == 2 ? takeover_sides() : NULL;

	printf("takeover: configured %s (%s), active %s%s\n",
	       conf == 1 ? "yes" : conf == -2 ? "invalid" : "no", why,
	       act < 0 ? "no (" FB_PREFIX " not loaded)" : act == 2 ? "partly: " : act ? "yes" : "no",
	       sides ? sides : "");
	free(sides);
	free(why);
}

int fb_cmd_takeover(int argc, char **argv)
{
	char *why;

	if (argc < 2) {
		show();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "on")) {
		why = running_ahead();
		if (why)
			fb_msg("warning: %s: its own FUSE may have fixes ours lacks (WHEN_AHEAD=stock in " FB_CONF_FILE " leaves it its own at boot)",
			       why);
		free(why);
		return switch_on();
	}
	if (argc == 2 && !strcmp(argv[1], "off"))
		return switch_off();
	if (argc == 2 && !strcmp(argv[1], "boot"))
		return boot();
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: fuse-backport takeover [on|off|boot]\n"
		       "  (none)  the setting (TAKEOVER= in " FB_CONF_FILE ") and the state\n"
		       "  on|off  switch the takeover of the built-in FUSE now\n"
		       "  boot    on, where TAKEOVER=yes and FUSE is built in; with TAKEOVER=no\n"
		       "          there, " FB_PREFIX " loaded beside it (the boot unit); neither\n"
		       "          where the kernel is ahead of our fs/fuse and WHEN_AHEAD=stock\n");
		return 0;
	}
	fb_msg("usage: fuse-backport takeover [on|off|boot]");
	return 2;
}
