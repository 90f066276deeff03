// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status: which FUSE serves new mounts, what it offers, which
 * FUSE mounts exist, and which installed kernels have a module of ours.
 * This file is the command; the work is done in three steps (status.h):
 * collect, judge, print.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"

static void status_usage(FILE *f)
{
	fprintf(f,
		"usage: fuse-backport status [--json | --prometheus] [--no-probe]\n"
		"\n"
		"Which FUSE serves new mounts of -t fuse and of -t " FB_PREFIX ", with version,\n"
		"flavor, base, protocol, passthrough and the parallel-passthrough fix; the\n"
		"FUSE mounts; and, for every installed kernel, whether a module of ours is\n"
		"installed for it.\n"
		"\n"
		"  --json        one JSON object on stdout\n"
		"  --prometheus  the Prometheus text format (0.0.4) on stdout, metrics\n"
		"                fuse_backport_*, for node_exporter's textfile collector\n"
		"                (fuse-backport-prometheus.timer)\n"
		"  --no-probe    do not mount anything: the protocol stays unknown\n"
		"\n"
		"Evidence: /proc/filesystems and /sys/module (registered, loaded), the\n"
		"module's version and srcversion (sysfs, modinfo), /proc/kallsyms (code:\n"
		"fuse_passthrough_open, and fuse_inode_clear_nosec, which the series\n"
		"adds), the FUSE_INIT request of a throwaway mount made in a private mount\n"
		"namespace on a private tmpfs (protocol, FUSE_PASSTHROUGH; only types that\n"
		"are already registered: nothing gets loaded), the kernel's config (its\n"
		"headers' .config, else /boot/config-KVER, else /lib/modules/KVER/config),\n"
		"else modules.builtin/modules.order (how a kernel has FUSE: the rule DKMS\n"
		"builds by), modules.dep (what modprobe loads; else updates/dkms, extra or\n"
		"updates/" FB_DKMS_NAME " under /lib/modules/KVER) and\n"
		"/var/lib/dkms/" FB_DKMS_NAME " (our builds).\n"
		"\n"
		"An installed kernel is a /lib/modules/KVER with modules.order or kernel/\n"
		"(an image, not headers only); the newest is the highest version.\n"
		"\n"
		"Exit status:\n"
		"  0  healthy: all of\n"
		"     - a module of ours (modinfo version *+fb*) is installed for the\n"
		"       running kernel (see above for where);\n"
		"     - it serves its type: drop-in (FUSE as a module): the loaded fuse is\n"
		"       ours, or none is loaded and modprobe resolves fuse to ours;\n"
		"       renamed (FUSE built in): " FB_PREFIX " is loaded;\n"
		"     - the loaded module is the installed one (same srcversion);\n"
		"     - the newest installed kernel has a module of ours installed too;\n"
		"     - the running kernel is not ahead of our fs/fuse while ours serves\n"
		"       it (newer than the newest release checked to carry the same\n"
		"       fs/fuse: the Linux version of its headers' Makefile, else of its\n"
		"       release name); ahead with WHEN_AHEAD=stock and its own FUSE\n"
		"       serving it holds all of the above (a note); WHEN_AHEAD= is serve,\n"
		"       stock or not set.\n"
		"  1  degraded: any of these does not hold (each is listed as a problem;\n"
		"     notes, such as older kernels without our module, do not count)\n"
		"  2  error: the state could not be read (/proc, /lib/modules, modinfo)\n"
		"     or bad usage\n"
		"  3  --prometheus only: the metrics could not be written (stdout)\n"
		"A mount of the kernel's FUSE made by 'run -o fallback' counts as a problem.\n"
		"Names (fsname, mountpoints) are printed with control bytes and invalid\n"
		"UTF-8 as \\xHH; JSON replaces invalid UTF-8 by U+FFFD.\n");
}

int fb_cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "no-probe", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fuse_state st;
	bool json = false, prom = false;
	int c;

	fb_fatal_status = 2;
	/* root runs modinfo from the system's directories, not a caller's PATH */
	if (geteuid() == 0)
		setenv("PATH", FB_SAFE_PATH, 1);
	memset(&st, 0, sizeof(st));
	st.probe = true;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			prom = true;
			break;
		case 'P':
			st.probe = false;
			break;
		case 'h':
			status_usage(stdout);
			return 0;
		default:
			status_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fb_msg("status: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (json && prom) {
		fb_msg("status: --json and --prometheus exclude each other: give one");
		return 2;
	}
	if (uname(&st.uts) < 0) {
		fb_msg("uname: %s", strerror(errno));
		return 2;
	}
	if (collect_status(&st) < 0) {
		if (prom)
			print_prometheus_unread();
		return 2;
	}
	judge(&st);
	if (json)
		print_json(&st);
	else if (prom)
		print_prometheus(&st);
	else
		print_text(&st);
	/* a cut metrics file must not pass for a whole one (the timer's unit) */
	if ((fflush(stdout) || ferror(stdout)) && prom) {
		fb_msg("status: cannot write the metrics: %s", strerror(errno));
		return 3;
	}
	return st.exit_status;
}

