/* One branch through apply -> build -> test -> verdict (see pipeline.h). */
#include "pipeline.h"
#include "util/array.h"
#include "util/buf.h"
#include "boot/distro.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "boot/pvh.h"
#include "repo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kb_pipeline_init(struct kb_pipeline *p)
{
	memset(p, 0, sizeof(*p));
	kb_backport_opts_init(&p->backport);
	kb_build_opts_init(&p->build_opts);
	p->distro_bzimage = getenv("KBACKPORT_DISTRO_BOOT") &&
			    !strcmp(getenv("KBACKPORT_DISTRO_BOOT"), "bzimage");
}

const char *kb_boot_image_text(enum kb_boot_image image)
{
	return image == KB_BOOT_IMAGE_PVH ? "PVH vmlinux" :
	       image == KB_BOOT_IMAGE_BZIMAGE ? "bzImage" : NULL;
}

const char *kb_boot_image_name(enum kb_boot_image image)
{
	return image == KB_BOOT_IMAGE_PVH ? "pvh-vmlinux" :
	       image == KB_BOOT_IMAGE_BZIMAGE ? "bzimage" : NULL;
}

bool kb_verdict_ok(enum kb_verdict v)
{
	return v == KB_VERDICT_VERIFIED || v == KB_VERDICT_FIXED || v == KB_VERDICT_SKIPPED ||
	       v == KB_VERDICT_NOT_AFFECTED;
}

/* The state of one call: the pipeline, the branch, the lane now running. */
struct walk {
	struct kb_pipeline *p;
	struct kb_branch_run *out;
	const struct kb_lane_run *lane;
};

static void tell(const struct walk *w, enum kb_pipeline_event_kind kind,
		 const struct kb_lane_run *lane, const char *text)
{
	struct kb_pipeline_event ev = { kind, w->out, lane, text, NULL };

	if (w->p->event)
		w->p->event(&ev, w->p->payload);
}

static void build_line(const char *line, void *payload)
{
	const struct walk *w = payload;

	tell(w, KB_EVENT_BUILD_LINE, w->lane, line);
}

static void lane_tick(const struct kb_tick *tick, void *payload)
{
	const struct walk *w = payload;
	struct kb_pipeline_event ev = { KB_EVENT_TICK, w->out, w->lane, NULL, tick };

	w->p->event(&ev, w->p->payload);
}

/* Ticks to the lane now running, when there is someone to tell. */
static struct kb_ticker ticker(struct walk *w)
{
	struct kb_ticker t = { 0, NULL, NULL };

	if (w->p->event && w->p->tick_interval > 0)
		t = (struct kb_ticker){ w->p->tick_interval, lane_tick, w };
	return t;
}

static struct kb_lane_run *new_lane(struct kb_branch_run *b, const char *fix,
				    enum kb_lane_kind kind, const char *ref)
{
	struct kb_lane_run *v;

	if (KB_ARRAY_GROW(b->lanes, b->alanes, b->nlanes + 1) < 0)
		return NULL;
	v = memset(&b->lanes[b->nlanes++], 0, sizeof(*v));
	v->fix = fix;
	v->kind = kind;
	return (v->ref = kb_strdup(ref)) ? v : NULL;
}

static int set_error(char **field, const char *why)
{
	free(*field);
	return (*field = kb_strdup(why)) ? 0 : kb_error_oom();
}

/* Boot `target` as lane `l`: its verdict, or the reason there is none. */
static int boot(struct walk *w, struct kb_lane_run *l, struct kb_test_target *target,
		bool with_kunit)
{
	struct kb_buf dir = KB_BUF_INIT;
	int err;

	if (kb_buf_printf(&dir, "%s/test/%s/%s/%s", w->p->build_opts.workdir, l->fix,
			  w->out->branch->name, kb_lane_kind_name(l->kind)) < 0)
		return kb_error_oom();
	l->outdir = kb_buf_detach(&dir);
	target->outdir = l->outdir;
	w->lane = l;
	w->p->tester->opts.ticker = ticker(w);
	tell(w, KB_EVENT_BOOTING, l, l->outdir);
	if (w->p->queue)
		err = kb_tester_lane_any(&l->test, w->p->tester, target, with_kunit,
					 w->out->judged, w->out->njudged);
	else
		err = kb_tester_lane(&l->test, w->p->tester, target, with_kunit, l->fix);
	w->p->tester->opts.ticker = (struct kb_ticker){ 0, NULL, NULL };	/* `w` ends */
	if (err < 0)
		return err;
	tell(w, KB_EVENT_TESTED, l, NULL);
	return 0;
}

/* The kernel built in `build_dir` has KUnit (CONFIG_KUNIT=y in its .config). */
static bool has_kunit(const char *build_dir)
{
	struct kb_buf path = KB_BUF_INIT;
	char *config = NULL;
	bool yes;

	yes = kb_buf_printf(&path, "%s/.config", build_dir) == 0 &&
	      kb_read_file(&config, NULL, path.ptr) == 0 &&
	      (!strncmp(config, "CONFIG_KUNIT=y\n", 15) || strstr(config, "\nCONFIG_KUNIT=y\n"));
	free(config);
	kb_buf_release(&path);
	return yes;
}

/*
 * Boot a built lane. A kernel that cannot have KUnit (before 5.5) runs
 * the other suites, and its KUnit suites are named not-applicable.
 */
static int boot_built(struct walk *w, struct kb_lane_run *l, struct kb_test_target *target)
{
	bool kunit = w->p->kunit && has_kunit(l->build.build_dir);
	int err = boot(w, l, target, kunit);

	if (!err && w->p->kunit && !kunit && l->test.booted)
		err = kb_lane_verdict_not_applicable(&l->test.verdict, w->p->tester->cases,
						     "this kernel has no KUnit: no CONFIG_KUNIT=y");
	return err;
}

/* Build (or look up) one lane of a git branch, then test it. */
static int run_lane(struct walk *w, git_repository *repo, const char *fix,
		    const struct kb_lane *lane)
{
	struct kb_pipeline *p = w->p;
	struct kb_lane_run *l = new_lane(w->out, fix, lane->kind, lane->ref);
	struct kb_build_opts opts = p->build_opts;
	struct kb_test_target target;
	int err;

	KB_ERROR_CHECK_ALLOC(l);
	git_oid_tostr(l->commit, sizeof(l->commit), &lane->commit);
	w->lane = l;
	opts.lookup_only = !p->build;
	opts.progress = p->event ? build_line : NULL;
	opts.payload = w;
	opts.ticker = ticker(w);
	if ((err = kb_build_lane(&l->build, repo, w->out->branch, lane, &opts)) < 0)
		return err;
	l->built = true;
	tell(w, KB_EVENT_BUILT, l, NULL);
	if (!p->tester)
		return 0;
	switch (l->build.status) {
	case KB_BUILD_SKIPPED:
		l->test.verdict.verdict = KB_VERDICT_SKIPPED;
		return set_error(&l->test.verdict.reason,
				 l->build.reason ? l->build.reason : "not built");
	case KB_BUILD_FAIL:
		return kb_lane_test_error(&l->test, l->build.reason ? l->build.reason :
					  p->build ? "the build failed" :
					  "not built: run kbackport build");
	default:
		memset(&target, 0, sizeof(target));
		target.image = l->build.image;
		target.modules_root = l->build.staging_dir;
		return boot_built(w, l, &target);
	}
}

/* Lanes are per fix, or for the whole queue: how many ids, and each. */
static size_t lane_fixes(const struct kb_pipeline *p)
{
	return p->queue ? 1 : p->nfixes;
}

static const char *lane_fix(const struct kb_pipeline *p, size_t f)
{
	return p->queue ? p->queue_name : p->fixes[f]->id;
}

/* The queue's lanes: as-is, and its tip when a ref was written. */
static int queue_lanes(struct walk *w)
{
	const struct kb_branch *b = w->out->branch;
	git_repository *repo = NULL;
	git_commit *tip = NULL;
	struct kb_lane *lanes = NULL;
	size_t nlanes = 0, i;
	int err = 0;

	if (kb_branch_open(&repo, &tip, b) < 0 ||
	    kb_queue_lanes(&lanes, &nlanes, repo, b, w->out->queue.pre_fix.commit[0] ?
			   w->out->queue.pre_fix.ref : NULL,
			   w->out->queue.commit[0] ? w->out->queue.ref : NULL) < 0)
		err = set_error(&w->out->error, kb_error_last());
	for (i = 0; i < nlanes && !err; i++)
		err = run_lane(w, repo, w->p->queue_name, &lanes[i]);
	if (!err && w->out->error)
		tell(w, KB_EVENT_BRANCH_ERROR, NULL, w->out->error);
	kb_lanes_free(lanes, nlanes);
	git_commit_free(tip);
	git_repository_free(repo);
	return err;
}

/*
 * After this run's apply, a pre-fix or backport lane is the commit that
 * apply wrote or found: a ref it did not (one left by an earlier run on the
 * same branch commit, when today's answer is conflict, not-affected or
 * already-applied) is no lane of this run.
 */
static bool not_this_runs(const struct walk *w, const struct kb_lane *lane)
{
	char hex[GIT_OID_HEXSZ + 1];

	if (!w->out->applied || lane->kind == KB_LANE_AS_IS)
		return false;
	git_oid_tostr(hex, sizeof(hex), &lane->commit);
	return strcmp(hex, lane->kind == KB_LANE_PRE_FIX ? w->out->apply.pre_fix_commit :
			   w->out->apply.commit) != 0;
}

/* Tell which refs kb_branch_lanes passed over, and what to do. */
static int passed_over_told(struct walk *w, const char *passed_over)
{
	struct kb_buf text = KB_BUF_INIT;

	if (kb_buf_printf(&text, "not built or booted: %s (an earlier apply's, on another "
			  "commit of the branch; kbackport apply writes it again)", passed_over) < 0)
		return kb_error_oom();
	tell(w, KB_EVENT_PASSED_OVER, NULL, text.ptr);
	kb_buf_release(&text);
	return 0;
}

/* The lanes of each fix; without a tester the as-is lane once. */
static int git_lanes(struct walk *w)
{
	const struct kb_branch *b = w->out->branch;
	git_repository *repo = NULL;
	git_commit *tip = NULL;
	char *passed_over = NULL;
	struct kb_lane *lanes = NULL;
	size_t nlanes = 0, f, i;
	int err = 0;

	if (kb_branch_open(&repo, &tip, b) < 0) {
		err = set_error(&w->out->error, kb_error_last());
		goto done;
	}
	for (f = 0; f < w->p->nfixes && !err; f++) {
		if (kb_branch_lanes(&lanes, &nlanes, &passed_over, repo, b,
				    w->p->fixes[f]->id) < 0) {
			err = set_error(&w->out->error, kb_error_last());
			break;
		}
		/* run has just applied the fix: its status says why a lane is missing */
		if (passed_over && !w->out->applied)
			err = passed_over_told(w, passed_over);
		free(passed_over);
		passed_over = NULL;
		for (i = 0; i < nlanes && !err; i++)
			if ((f == 0 || lanes[i].kind != KB_LANE_AS_IS || w->p->tester) &&
			    !not_this_runs(w, &lanes[i]))
				err = run_lane(w, repo, w->p->fixes[f]->id, &lanes[i]);
		kb_lanes_free(lanes, nlanes);
	}
done:
	if (!err && w->out->error)
		tell(w, KB_EVENT_BRANCH_ERROR, NULL, w->out->error);
	git_commit_free(tip);
	git_repository_free(repo);
	return err;
}

/*
 * What to boot of a distribution kernel: its vmlinux through PVH (*vmlinux
 * set), or its bzImage, with the reason in *why. Only running out of
 * memory is an error: anything else falls back to the bzImage.
 */
static int distro_image(char **vmlinux, char **why, const struct kb_pipeline *p,
			const char *bzimage)
{
	struct kb_buf cache = KB_BUF_INIT;
	int err;

	*vmlinux = *why = NULL;
	if (p->distro_bzimage)
		return (*why = kb_strdup("KBACKPORT_DISTRO_BOOT=bzimage")) ? 0 : kb_error_oom();
	if (kb_buf_printf(&cache, "%s/pvh", p->build_opts.workdir) < 0)
		return kb_error_oom();
	if ((err = kb_pvh_image(vmlinux, why, bzimage, cache.ptr)) < 0 && err != KB_ENOMEM) {
		err = (*why = kb_strdup(kb_error_last())) ? 0 : kb_error_oom();
		kb_error_clear();
	}
	kb_buf_release(&cache);
	return err;
}

/* A distribution kernel: fetched, booted as shipped (or its vmlinux through PVH), per fix. */
static int distro_lanes(struct walk *w)
{
	const struct kb_branch *b = w->out->branch;
	struct kb_distro_kernel kernel;
	struct kb_test_target target;
	struct kb_buf downloads = KB_BUF_INIT, what = KB_BUF_INIT;
	struct kb_lane_run *l;
	struct kb_ticker fetching;
	char *vmlinux = NULL, *why = NULL;
	bool fetched;
	size_t f;
	int err = 0;

	memset(&kernel, 0, sizeof(kernel));
	if (kb_buf_printf(&downloads, "%s/downloads", w->p->build_opts.workdir) < 0)
		return kb_error_oom();
	tell(w, KB_EVENT_FETCHING, NULL, b->kernel);
	w->lane = NULL;	/* the ticks are the branch's: no lane yet */
	fetching = ticker(w);
	fetched = kb_distro_kernel_fetch(&kernel, b->kernel, downloads.ptr, &fetching) == 0;
	if (fetched && kb_buf_printf(&what, "%s %s", kernel.package, kernel.version) == 0)
		tell(w, KB_EVENT_FETCHED, NULL, what.ptr);
	if (fetched && (err = distro_image(&vmlinux, &why, w->p, kernel.image)) < 0)
		goto done;
	for (f = 0; f < lane_fixes(w->p) && !err; f++) {
		if (!(l = new_lane(w->out, lane_fix(w->p, f), KB_LANE_AS_IS, b->kernel))) {
			err = kb_error_oom();
			break;
		}
		if (!fetched) {
			err = kb_lane_test_error(&l->test, kb_error_last());
			continue;
		}
		snprintf(l->commit, sizeof(l->commit), "%s", kernel.version);
		l->boot_image = vmlinux ? KB_BOOT_IMAGE_PVH : KB_BOOT_IMAGE_BZIMAGE;
		if (why && !(l->boot_note = kb_strdup(why))) {
			err = kb_error_oom();
			break;
		}
		memset(&target, 0, sizeof(target));
		target.image = vmlinux ? vmlinux : kernel.image;
		target.modules_root = kernel.modules_root;
		target.modules = (const char *const *)w->p->tester->distro_modules;
		err = boot(w, l, &target, false);
	}
done:
	free(vmlinux);
	free(why);
	kb_distro_kernel_release(&kernel);
	kb_buf_release(&downloads);
	kb_buf_release(&what);
	return err;
}

/*
 * The branch's verdict from its lanes, fix by fix (the worst wins); the
 * as-is lanes count for every fix. A queue's lanes were judged for all its
 * fixes at once: one verdict, named after the queue.
 */
static int lanes_verdict(enum kb_verdict *out, char **note, const struct kb_pipeline *p,
			 const struct kb_branch_run *b)
{
	struct kb_lane_outcome lanes[8];
	struct kb_buf what = KB_BUF_INIT;
	enum kb_verdict v;
	char *n = NULL;
	size_t f, i, k;
	int err = 0;

	*out = KB_VERDICT_SKIPPED;
	for (f = 0; f < lane_fixes(p) && b->nlanes && !err; f++) {
		for (i = k = 0; i < b->nlanes && k < 8; i++)
			if (!strcmp(b->lanes[i].fix, lane_fix(p, f)) ||
			    b->lanes[i].kind == KB_LANE_AS_IS) {
				lanes[k].kind = b->lanes[i].kind;
				lanes[k++].verdict = b->lanes[i].test.verdict.verdict;
			}
		kb_buf_clear(&what);
		if ((p->queue ? kb_buf_printf(&what, "the fixes of the queue '%s'", p->queue_name) :
				kb_buf_puts(&what, lane_fix(p, f))) < 0) {
			err = kb_error_oom();
			break;
		}
		if ((err = kb_branch_verdict(&v, &n, lanes, k, what.ptr)) < 0)
			break;
		*out = f ? kb_verdict_worse(*out, v) : v;
		if (n) {
			free(*note);
			*note = n;
		}
	}
	kb_buf_release(&what);
	return err;
}

/* What applying said overrides what the lanes showed. */
static enum kb_verdict apply_verdict(enum kb_status status, enum kb_verdict tested)
{
	switch (status) {
	case KB_STATUS_CONFLICT:
	case KB_STATUS_PARTIAL:
	case KB_STATUS_REVERTED: return KB_VERDICT_CONFLICT;
	case KB_STATUS_ERROR: return KB_VERDICT_ERROR;
	case KB_STATUS_NOT_AFFECTED:
		return tested == KB_VERDICT_ERROR || tested == KB_VERDICT_REGRESSION ?
		       tested : KB_VERDICT_NOT_AFFECTED;
	default: return tested;
	}
}

static int apply_fix(struct walk *w)
{
	struct kb_branch_run *out = w->out;
	int err;

	if (w->p->nfixes != 1)
		return kb_error_set(KB_EINVALID, "%zu fixes: a run is about one fix",
				    w->p->nfixes);
	if ((err = kb_backport(&out->apply, out->branch, w->p->fixes[0], &w->p->backport)) < 0)
		return err;
	out->applied = true;
	if ((err = kb_fix_patch_hash(out->patch_hash, w->p->fixes[0], out->apply.variant)) < 0)
		return err;
	tell(w, KB_EVENT_APPLIED, NULL, NULL);
	return 0;
}

/* The queue's fixes that the cases detect: the lanes are judged for them. */
static int judged_fixes(struct kb_branch_run *out, const struct kb_pipeline *p)
{
	size_t f;

	out->judged = calloc(p->queue->nfixes + 1, sizeof(*out->judged));
	KB_ERROR_CHECK_ALLOC(out->judged);
	for (f = 0; f < p->queue->nfixes; f++)
		if (!p->tester || kb_cases_detect(p->tester->cases, p->queue->fixes[f]->id))
			out->judged[out->njudged++] = p->queue->fixes[f]->id;
	return 0;
}

static int apply_queue(struct walk *w)
{
	struct kb_branch_run *out = w->out;
	int err;

	err = kb_queue_apply(&out->queue, out->branch, w->p->queue, w->p->queue_name,
			     &w->p->backport);
	out->queued = true;	/* released whatever happened */
	if (err < 0)
		return err;
	tell(w, KB_EVENT_APPLIED, NULL, NULL);
	return out->queue.error ? set_error(&out->error, out->queue.error) : 0;
}

/*
 * What the fixes' statuses say beside the lanes: one that needs a person
 * makes the branch need one; a queue none of whose fixes touch the
 * branch is not-affected.
 */
static enum kb_verdict queue_verdict(const struct kb_queue_result *q, enum kb_verdict tested)
{
	enum kb_verdict v = tested;
	size_t i, not_affected = 0;

	for (i = 0; i < q->nresults; i++) {
		enum kb_status s = q->results[i].status;
		not_affected += s == KB_STATUS_NOT_AFFECTED;
		if (kb_status_needs_hand(s) || s == KB_STATUS_ERROR)
			v = kb_verdict_worse(v, apply_verdict(s, tested));
	}
	if (q->nresults && not_affected == q->nresults)
		v = apply_verdict(KB_STATUS_NOT_AFFECTED, tested);
	return q->error ? KB_VERDICT_ERROR : v;
}

int kb_pipeline_branch(struct kb_branch_run *out, struct kb_pipeline *p,
		       const struct kb_branch *branch)
{
	struct walk w = { p, out, NULL };
	enum kb_verdict tested = KB_VERDICT_SKIPPED;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->branch = branch;
	out->verdict = KB_VERDICT_SKIPPED;
	out->series = p->queue;
	out->queue_name = p->queue_name;
	if ((err = kb_branch_missing(&out->note, branch)) < 0)
		return err;
	if (out->note) {	/* skip-if-missing: not there, and said so */
		tell(&w, KB_EVENT_DONE, NULL, NULL);
		return 0;
	}
	if (p->queue && (err = judged_fixes(out, p)) < 0)
		return err;
	if (branch->kernel) {
		if (p->tester)
			err = distro_lanes(&w);
	} else if (p->queue) {
		if ((err = apply_queue(&w)) == 0 && !out->error)
			err = queue_lanes(&w);
	} else if (p->apply) {
		if ((err = apply_fix(&w)) == 0 && out->apply.status != KB_STATUS_ERROR)
			err = git_lanes(&w);
	} else if (!branch->build) {
		err = set_error(&out->note, branch->build_skip_reason ?
				branch->build_skip_reason : "build: false");
	} else {
		err = git_lanes(&w);
	}
	if (err < 0)
		return err;
	if (p->tester && (err = lanes_verdict(&tested, &out->note, p, out)) < 0)
		return err;
	if (out->error)
		tested = KB_VERDICT_ERROR;
	out->verdict = out->applied ? apply_verdict(out->apply.status, tested) :
		       out->queued ? queue_verdict(&out->queue, tested) : tested;
	tell(&w, KB_EVENT_DONE, NULL, NULL);
	return 0;
}

void kb_branch_run_release(struct kb_branch_run *run)
{
	size_t i;

	for (i = 0; i < run->nlanes; i++) {
		struct kb_lane_run *l = &run->lanes[i];
		if (l->built)
			kb_build_result_release(&l->build);
		kb_lane_test_release(&l->test);
		free(l->ref);
		free(l->outdir);
		free(l->boot_note);
	}
	free(run->lanes);
	if (run->applied)
		kb_result_release(&run->apply);
	if (run->queued)
		kb_queue_result_release(&run->queue);
	free(run->judged);
	free(run->note);
	free(run->error);
	memset(run, 0, sizeof(*run));
}
