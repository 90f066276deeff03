// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuse-backport status, step 2: judge what collect found. Who serves a
 * type (the decision table), the flavor of each kernel and why it has no
 * module of ours, then healthy / degraded / error with the problems and
 * notes that say why (the rules: status --help and README).
 */
#include <stdlib.h>
#include <string.h>

#include "status.h"

static const char *const server_kind_text[] = {
	"none (no such file system type, no module to load)",
	"stock FUSE, built into the kernel",
	"stock FUSE module",
	"ours, drop-in flavor",
	"ours, renamed flavor",
	"a module that is not ours",
};

/*
 * Who serves a file system type: the first row that matches (ANY: either).
 * "module": a module is loaded or modprobe would load one.
 */
#define ANY -1
static const struct {
	int fuse_type;		/* -t fuse (1) or -t fusebp (0) */
	int ours;		/* the module's version is ours */
	int builtin;		/* registered with no module loaded */
	int module;
	enum server_kind kind;
} who_serves_table[] = {
	/* fuse_type ours builtin module  kind */
	{ 1,   1,   ANY, ANY, K_OURS_DROPIN },
	{ 0,   1,   ANY, ANY, K_OURS_RENAMED },
	{ 1,   0,   1,   ANY, K_STOCK_BUILTIN },
	{ 1,   0,   0,   1,   K_STOCK_MODULE },
	{ 0,   0,   ANY, 1,   K_OTHER },
	{ ANY, ANY, ANY, ANY, K_NONE },
};

static const char *const health_text[] = { "healthy", "degraded", "error" };

static bool cell(int want, bool have)
{
	return want == ANY || want == have;
}

static enum server_kind who_serves(bool fuse_type, bool ours, bool builtin, bool module)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(who_serves_table); i++)
		if (cell(who_serves_table[i].fuse_type, fuse_type) &&
		    cell(who_serves_table[i].ours, ours) &&
		    cell(who_serves_table[i].builtin, builtin) &&
		    cell(who_serves_table[i].module, module))
			return who_serves_table[i].kind;
	return K_NONE;
}

/*
 * Who serves each type; with the takeover active, new -t fuse mounts are
 * ours: -t fuse is served as -t FB_PREFIX is, on /dev/fuse.
 */
static void judge_servers(struct fuse_state *st)
{
	struct type_server *srv, *fuse = &st->servers[0];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(st->servers); i++) {
		srv = &st->servers[i];
		srv->kind = who_serves(!strcmp(srv->modname, "fuse"), srv->ours,
				       srv->registered && !srv->loaded,
				       srv->loaded || srv->file.file);
		srv->kind_text = server_kind_text[srv->kind];
	}
	if (st->takeover.active != 1)
		return;
	*fuse = st->servers[1];
	fuse->fstype = "fuse";
	fuse->device = fb_strdup("/dev/fuse");
	fuse->state = "loaded, takeover active";
}

/*
 * The kernel hook left K to the stock module: this release's build failed
 * there (scripts/kernel-hook.sh), and dkms.conf excludes the kernel for
 * that version until the next try: a configure of the package removes
 * every record and builds again. Another version's record is stale.
 */
static char *build_failed(const struct kernel *k)
{
	if (!k->failed_version || strcmp(k->failed_version, FB_TOOL_VERSION))
		return NULL;
	return fb_fmt("its build of %s failed: %s; the stock FUSE stays in use (to try again: dpkg-reconfigure fuse-backport-dkms, or dnf reinstall fuse-backport-dkms)",
		      k->failed_version, k->failed_why);
}

/*
 * K (Linux V) is ahead of our fs/fuse, as its base says: "newer than C,
 * the newest release checked to carry our fs/fuse (base U)".
 */
static char *ahead_of(const struct kernel *k)
{
	const struct fb_base *b = base_for(k->kver);

	return fb_fmt("Linux %s is newer than %s, the newest release checked to carry our fs/fuse (base %s)",
		      k->linux_version, b->current_to, b->upstream);
}

/* K is ahead and WHEN_AHEAD=stock leaves it its own FUSE. */
static bool ahead_stock(const struct fuse_state *st, const struct kernel *k)
{
	return k && k->age == AGE_AHEAD && st->when_ahead.value == 0;
}

/* A module of ours is loaded (for -t fuse or -t fusebp), or the takeover is active. */
static bool ours_loaded(const struct fuse_state *st)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(st->servers); i++)
		if (st->servers[i].loaded && st->servers[i].ours)
			return true;
	return st->takeover.active == 1;
}

/*
 * The running kernel is ahead, WHEN_AHEAD=stock, and no module of ours
 * serves it: its own FUSE serves it by the admin's choice.
 */
static bool own_by_choice(const struct fuse_state *st)
{
	return ahead_stock(st, st->running) && !ours_loaded(st);
}

/* Is FILE our prebuilt module (the kmod package's)? modprobe passes it over for an ahead kernel under stock. */
static bool prebuilt(const char *file)
{
	return file && strstr(file, "/updates/" FB_DKMS_NAME "/");
}

/* Why K has no module of ours installed, and what to do. */
static char *why_none(const struct fuse_state *st, const struct kernel *k)
{
	char *served, *why;

	if (k->fuse_cfg == 'n')
		return fb_strdup("FUSE is disabled in this kernel");
	if (ahead_stock(st, k)) {
		served = ahead_of(k);
		why = fb_fmt("the kernel's own FUSE serves it by choice (%s): it is ahead of ours (%s)",
			     st->when_ahead.evidence, served);
		free(served);
		return why;
	}
	if (!base_for(k->kver)) {
		served = served_series();
		why = fb_fmt("outside every base this release has (it serves %s)", served);
		free(served);
		return why;
	}
	if (!k->headers)
		return fb_fmt("no headers (install linux-headers-%s, then: dkms autoinstall -k %s)",
			      k->kver, k->kver);
	why = build_failed(k);
	if (why)
		return why;
	if (*k->dkms_built)
		return fb_fmt("DKMS built %s but did not install it (dkms install -m %s -v %s -k %s)",
			      k->dkms_built, FB_DKMS_NAME, k->dkms_built, k->kver);
	return fb_fmt("not built (dkms autoinstall -k %s; see /var/lib/dkms/%s/*/build/make.log)",
		      k->kver, FB_DKMS_NAME);
}

/* The flavor of each kernel, by how it has FUSE; why it has none of ours. */
static void judge_kernels(struct fuse_state *st)
{
	struct kernel *k;
	int i;

	for (i = 0; i < st->nkernels; i++) {
		k = &st->kernels[i];
		k->flavor = k->fuse_cfg == 'm' ? "dropin" :
			    k->fuse_cfg == 'y' ? "renamed" : NULL;
		if (!k->ours.file)
			k->why_none = why_none(st, k);
	}
}

static void add_str(char ***list, int *n, char *s)
{
	char **l = realloc(*list, (*n + 1) * sizeof(**list));

	if (!l) {
		fb_msg("out of memory");
		exit(2);
	}
	l[(*n)++] = s;
	*list = l;
}

static void problem(struct fuse_state *st, char *s)
{
	add_str(&st->problems, &st->nproblems, s);
}

static void note(struct fuse_state *st, char *s)
{
	add_str(&st->notes, &st->nnotes, s);
}

/*
 * The loaded module is not the installed one: older (an upgrade waits for
 * the module to be reloaded), newer (a rollback) or another build of the
 * same version, as scripts/reboot-required.sh tells them apart (sort -V;
 * strverscmp orders "<upstream>+fb<N>" the same way).
 */
static char *loaded_not_installed(const struct type_server *srv)
{
	const char *lv = srv->version ? srv->version : "";
	const char *iv = srv->file.version ? srv->file.version : "";
	char *lsrc = srv->srcversion ? fb_fmt(", srcversion %s", srv->srcversion) : fb_strdup("");
	char *isrc = srv->file.srcversion ? fb_fmt(", srcversion %s", srv->file.srcversion) : fb_strdup("");
	const char *how, *what;
	char *s;

	if (!strcmp(lv, iv)) {
		how = "is not";
		what = "another build of the same version; reload it to serve the installed one";
	} else if (strverscmp(lv, iv) < 0) {
		how = "is older than";
		what = "an upgrade is installed and not in use yet: reboot (or rmmod it with no mount of its type left, then modprobe it) to use it; the package's postinst wrote the reboot-required note (/var/run/reboot-required)";
	} else {
		how = "is newer than";
		what = "a rollback is installed and not in use yet: reboot (or rmmod it with no mount of its type left, then modprobe it) to use it; the package's postinst wrote the reboot-required note (/var/run/reboot-required)";
	}
	s = fb_fmt("the loaded %s (%s%s) %s the installed %s (%s%s): %s",
		   srv->modname, lv, lsrc, how, srv->file.file, iv, isrc, what);
	free(lsrc);
	free(isrc);
	return s;
}

/* Is K's module of ours not the one this release's base for K builds? */
static bool other_release(const struct kernel *k)
{
	const struct fb_base *b = base_for(k->kver);

	return k->ours.version && b && strcmp(k->ours.version, b->version);
}

/*
 * K has a module of ours that no base of this release builds (another
 * release's, left behind): a later rebuild for K will skip it.
 */
static void note_unserved(struct fuse_state *st, const struct kernel *k)
{
	char *served = served_series();

	note(st, fb_fmt("kernel %s has our %s, which this release does not build: %s is outside every base (it serves %s)",
			k->kver, k->ours.version ? k->ours.version : "module", k->kver, served));
	free(served);
}

/*
 * The takeover (FUSE built in, ours installed): configured but not active
 * is degraded; built-in mounts left over are a note.
 */
static void judge_takeover(struct fuse_state *st)
{
	const struct takeover_info *t = &st->takeover;
	const struct kernel *r = st->running;
	int i;

	if (t->configured == -2)
		problem(st, fb_strdup(t->evidence));
	if (t->active == 2)
		problem(st, fb_fmt("the takeover is partly done: %s; 'fuse-backport takeover on' finishes it, 'off' undoes it (the kernel log says why it stopped)",
				   t->sides ? t->sides : "unknown"));
	if (!r || r->fuse_cfg != 'y' || !r->ours.file || own_by_choice(st))
		return;
	if (t->configured == 1 && t->active != 1 && t->active != 2)
		problem(st, fb_fmt("takeover is configured (%s) but not active: new -t fuse mounts go to the built-in FUSE; run 'fuse-backport takeover on' (the kernel log says why it is off)",
				   t->evidence));
	if (t->active != 1)
		return;
	for (i = 0; i < st->nmounts; i++)
		if (st->mounts[i].served_by && !strcmp(st->mounts[i].served_by, "built-in"))
			note(st, fb_fmt("%s is on the built-in FUSE (mounted before the takeover); mounted again, it is ours",
					st->mounts[i].mountpoint));
}

/* A module name scripts/prefix.sh accepts: [a-z][a-z0-9_]{0,14}, not FUSE's own. */
static bool prefix_valid(const char *p)
{
	static const char *const fuse_names[] = { "fuse", "cuse", "virtiofs", "fuseblk", "fusectl" };
	size_t i, n = strlen(p);

	if (n < 1 || n > 15 || p[0] < 'a' || p[0] > 'z')
		return false;
	for (i = 1; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return false;
	for (i = 0; i < ARRAY_SIZE(fuse_names); i++)
		if (!strcmp(p, fuse_names[i]))
			return false;
	return true;
}

/*
 * FB_PREFIX of the config file is the name DKMS builds the renamed module
 * with; these tools serve the one they were built with. Another name, or
 * none DKMS accepts, is degraded.
 */
static void judge_prefix(struct fuse_state *st)
{
	const char *p = st->conf_prefix;

	if (!p || !strcmp(p, FB_PREFIX))
		return;
	if (!prefix_valid(p))
		problem(st, fb_fmt("FB_PREFIX=%s in " FB_CONF_FILE " is not a module name: DKMS builds no module of ours for kernels with FUSE built in; set a name of [a-z][a-z0-9_]{0,14}, not fuse, cuse, virtiofs, fuseblk or fusectl, there (these tools serve " FB_PREFIX ")",
				   p));
	else
		problem(st, fb_fmt("FB_PREFIX=%s in " FB_CONF_FILE ": DKMS builds the renamed module as %s, but these tools serve " FB_PREFIX " (built with FB_PREFIX=" FB_PREFIX "): set FB_PREFIX=" FB_PREFIX " there, or build the tools with FB_PREFIX=%s",
				   p, p, p));
}

/*
 * Why ours may not be what serves where the kernel enforces module
 * signatures: modprobe's fallback (scripts/modprobe-stock.sh) loads the
 * kernel's own module in its place.
 */
static const char *sig_hint(const struct fuse_state *st)
{
	const char *by = st->signing.ours;

	return fb_fmt(": the kernel enforces module signatures (%s) and ours is %s, so it cannot load unless that key is enrolled (mokutil --import /var/lib/dkms/mok.pub, then reboot) or the modules are signed centrally (docs/runbook.md); the kernel's own module loads in its place",
		      st->signing.why, by ? by : "not installed");
}

/*
 * The age of the kernels' own FUSE against ours (fact_age.c) and
 * WHEN_AHEAD=: the running kernel ahead and served by ours is degraded
 * (under stock too: a module built before the setting); its own FUSE
 * serving it under stock is a note; another kernel ahead is a note on what
 * it gets at boot.
 */
static void judge_age(struct fuse_state *st)
{
	const struct when_ahead_info *w = &st->when_ahead;
	const struct kernel *r = st->running;
	char *a;
	int i;

	if (w->value == -2)
		problem(st, fb_strdup(w->evidence));
	if (r && r->age == AGE_AHEAD) {
		a = ahead_of(r);
		if (w->value == 0 && ours_loaded(st))
			problem(st, fb_fmt("%s, but ours serves the running kernel %s, which is ahead of ours (%s): it was built before the setting; to hand %s back to its own FUSE: dkms remove -m %s -k %s, then reboot",
					   w->evidence, r->kver, a, r->kver, FB_DKMS_NAME, r->kver));
		else if (w->value == 0)
			note(st, fb_fmt("the kernel's own FUSE serves %s by choice (%s): it is ahead of ours (%s)",
					r->kver, w->evidence, a));
		else if (ours_loaded(st) || st->servers[0].kind == K_OURS_DROPIN ||
			 st->servers[1].kind == K_OURS_RENAMED)
			problem(st, fb_fmt("the running kernel %s is ahead of ours and ours serves it (%s): %s; its own FUSE may have fixes ours lacks: install a release of fuse-backport that follows it, or set WHEN_AHEAD=stock in " FB_CONF_FILE " to leave it its own FUSE (then: dkms remove -m %s -k %s, and reboot)",
					   r->kver, w->evidence, a, FB_DKMS_NAME, r->kver));
		free(a);
	}
	for (i = 0; i < st->nkernels; i++) {
		const struct kernel *k = &st->kernels[i];
		char *boot;

		if (k->running || k->age != AGE_AHEAD)
			continue;
		if (w->value != 0)
			boot = fb_fmt("ours serves it%s, though its own FUSE may have fixes ours lacks",
				      k->ours.file ? "" : " once built");
		else if (!k->ours.file)
			boot = fb_strdup("its own FUSE serves it, and DKMS builds nothing for it");
		else if (prebuilt(k->ours.file))
			boot = fb_strdup("its own FUSE serves it (modprobe loads the kernel's own module in place of our prebuilt one)");
		else
			boot = fb_fmt("ours serves it, built before the setting (to leave it its own FUSE: dkms remove -m %s -k %s)",
				      FB_DKMS_NAME, k->kver);
		a = ahead_of(k);
		note(st, fb_fmt("kernel %s is ahead of ours (%s): at boot, %s (%s)", k->kver, a, boot,
				w->evidence));
		free(boot);
		free(a);
	}
}

void judge(struct fuse_state *st)
{
	struct kernel *r = st->running;
	struct type_server *srv;
	int i;

	judge_servers(st);
	judge_kernels(st);
	if (!r) {
		problem(st, fb_fmt("the running kernel %s is not installed under " FB_MODULES_DIR
				   ": no module of ours can serve it", st->uts.release));
	} else if (!r->flavor) {
		problem(st, fb_fmt("the running kernel %s: %s (%s)", r->kver,
				   r->fuse_cfg == 'n' ? "FUSE is disabled" :
				   "cannot tell how it has FUSE", r->config_evidence));
	} else if (own_by_choice(st)) {
		/* judge_age() notes it */
	} else if (!r->ours.file) {
		problem(st, fb_fmt("no module of ours is installed for the running kernel %s: %s",
				   r->kver, r->why_none));
	} else {
		srv = !strcmp(r->flavor, "dropin") ? &st->servers[0] : &st->servers[1];
		if (srv->kind != K_OURS_DROPIN && srv->kind != K_OURS_RENAMED)
			problem(st, fb_fmt("-t %s is served by %s, not by our installed %s (%s)%s",
					   srv->fstype, srv->kind_text, r->ours.file,
					   r->ours.version,
					   st->signing.enforced == 1 ? sig_hint(st) :
					   srv->loaded ? ": it takes over after rmmod (no mount of that type left) and modprobe, or a reboot" : ""));
		else if (!srv->loaded && !strcmp(r->flavor, "renamed"))
			problem(st, fb_fmt("%s is not loaded, so %s does not exist: modprobe %s (at boot, systemd-modules-load loads it: /usr/lib/modules-load.d/fuse-backport.conf, and so does fuse-backport-takeover.service)%s",
					   srv->modname, srv->device, srv->modname,
					   st->signing.enforced == 1 ? sig_hint(st) : ""));
		else if (srv->loaded_is_installed == 0 ||
			 (srv->loaded && srv->loaded_is_installed < 0 && srv->file.file &&
			  strcmp(srv->version ? srv->version : "",
				 srv->file.version ? srv->file.version : "")))
			problem(st, loaded_not_installed(srv));
	}
	judge_takeover(st);
	judge_prefix(st);
	judge_age(st);
	for (i = 0; i < st->nmounts; i++)
		if (st->mounts[i].fallback)
			problem(st, fb_fmt("fallback: %s is served by the kernel's own FUSE (-t %s, mounted with -o fallback because %s could not be loaded)",
					   st->mounts[i].mountpoint, st->mounts[i].fstype,
					   FB_PREFIX));
	if (st->newest && !st->newest->ours.file && !ahead_stock(st, st->newest)) {
		st->warning = fb_fmt("the newest installed kernel %s has no module of ours (%s). Booting it (the default boot entry) serves FUSE from the stock code only%s.",
				     st->newest->kver, st->newest->why_none,
				     st->newest->fuse_cfg == 'y' ? " and leaves -t " FB_PREFIX " unavailable" : "");
		problem(st, fb_fmt("the newest installed kernel %s has no module of ours",
				   st->newest->kver));
	}
	for (i = 0; i < st->nkernels; i++) {
		struct kernel *k = &st->kernels[i];

		if (k->newest || k->running)
			continue;
		if (!k->ours.file && !ahead_stock(st, k))	/* else judge_age() notes it */
			note(st, fb_fmt("kernel %s has no module of ours: %s", k->kver, k->why_none));
		else if (!base_for(k->kver))
			note_unserved(st, k);
		else if (other_release(k))
			note(st, fb_fmt("kernel %s has our %s, this release's for it is %s", k->kver,
					k->ours.version, base_for(k->kver)->version));
	}
	if (r && r->ours.file && !base_for(r->kver))
		note_unserved(st, r);
	if (r && other_release(r))
		note(st, fb_fmt("the running kernel has our %s, this release's for it is %s",
				r->ours.version, base_for(r->kver)->version));
	st->exit_status = st->error ? 2 : st->nproblems ? 1 : 0;
	st->health = health_text[st->exit_status];
}
