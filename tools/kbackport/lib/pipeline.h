/*
 * The pipeline: one branch of branches.yaml through apply -> build -> test
 * -> verdict, lane by lane. `kbackport build`, `test` and `run` are this
 * one loop with different stages switched on:
 *
 *   build   lanes of each fix, built (the as-is lane once)
 *   test    lanes of each fix, their completed builds looked up and booted
 *   run     the fix applied first (backport.h), then each lane built and
 *           booted, and the branch's verdict from both
 *   run --queue  the fixes of a series applied in order (queue.h); the
 *           backport lane is the queue's tip, judged for every fix of it
 *
 * A distribution kernel branch (`kernel:`) has one as-is lane: the package
 * fetched and booted as shipped, capability suites only.
 *
 * What happens is told as it happens through `event` (the CLI prints it);
 * the outcome is a kb_branch_run, which results_json.h turns into
 * results.json. Nothing here prints.
 */
#ifndef KB_PIPELINE_H
#define KB_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "apply/backport.h"
#include "kbuild/build.h"
#include "config.h"
#include "fix.h"
#include "lanes.h"
#include "apply/queue.h"
#include "apply/series.h"
#include "boot/tester.h"
#include "boot/verdict.h"

/* What a distribution kernel lane booted (pvh.h). */
enum kb_boot_image {
	KB_BOOT_IMAGE_BUILT,	/* not a distribution kernel: its own build */
	KB_BOOT_IMAGE_PVH,	/* the vmlinux extracted from the bzImage, through PVH */
	KB_BOOT_IMAGE_BZIMAGE,	/* the bzImage as shipped */
};

/* One lane of one branch for one fix. */
struct kb_lane_run {
	const char *fix;	/* the fix id, or the queue's name (borrowed) */
	enum kb_lane_kind kind;
	char *ref;		/* the lane's ref, or the kernel package */
	char commit[GIT_OID_HEXSZ + 1];	/* or the package's version */
	bool built;		/* `build` holds a result (not for packages) */
	struct kb_build_result build;
	struct kb_lane_test test;	/* verdict always set; booted or not */
	char *outdir;		/* <workdir>/test/<fix>/<branch>/<lane>, once booted */
	enum kb_boot_image boot_image;	/* a distribution kernel: what was booted */
	char *boot_note;	/* why its bzImage was booted, not its vmlinux */
};

/* One branch. */
struct kb_branch_run {
	const struct kb_branch *branch;
	bool applied;		/* `apply` holds kb_backport()'s result */
	struct kb_result apply;
	char patch_hash[65];	/* sha256 of the applied variant's patch, or "" */
	bool queued;		/* `queue` holds kb_queue_apply()'s result */
	struct kb_queue_result queue;
	const struct kb_series *series;	/* the queue (borrowed), or NULL */
	const char *queue_name;	/* its name (borrowed) */
	const char **judged;	/* a queue: the ids of its fixes that cases
				 * detect, the lanes' verdicts are for them */
	size_t njudged;
	struct kb_lane_run *lanes;
	size_t nlanes, alanes;	/* alanes: how many `lanes` holds, as the pipeline grows it */
	enum kb_verdict verdict;
	char *note;		/* a warning on the verdict, or why it was skipped */
	char *error;		/* why the branch could not be looked at, or NULL */
};

enum kb_pipeline_event_kind {
	KB_EVENT_APPLIED,	/* run: the branch's kb_backport() or
				 * kb_queue_apply() ended */
	KB_EVENT_FETCHING,	/* a kernel package is looked up (text: its name) */
	KB_EVENT_FETCHED,	/* text: "<package> <version>" */
	KB_EVENT_BUILD_LINE,	/* a line of make's progress (text) */
	KB_EVENT_BUILT,		/* a lane's build ended (lane->build) */
	KB_EVENT_BOOTING,	/* a lane is about to boot (lane->outdir) */
	KB_EVENT_TESTED,	/* a lane's test ended (lane->test) */
	KB_EVENT_BRANCH_ERROR,	/* the branch could not be opened (text) */
	KB_EVENT_PASSED_OVER,	/* build, test (not run): a fix's pre-fix or backport ref
				 * is no lane, not built on the lane below it
				 * (text: which and why) */
	KB_EVENT_DONE,		/* the branch's verdict is known */
	KB_EVENT_TICK,		/* a build or boot of the lane goes on (tick) */
};

struct kb_pipeline_event {
	enum kb_pipeline_event_kind kind;
	const struct kb_branch_run *branch;
	const struct kb_lane_run *lane;	/* NULL for branch events */
	const char *text;
	const struct kb_tick *tick;	/* KB_EVENT_TICK only */
};

struct kb_pipeline {
	const struct kb_fix *const *fixes;	/* run: exactly one */
	size_t nfixes;
	const struct kb_series *queue;	/* run --queue: instead of `fixes` */
	const char *queue_name;		/* its name in refs and work paths */
	bool apply;		/* apply the fix first (run) */
	bool build;		/* build lanes; false: look builds up only */
	struct kb_tester *tester;	/* boot and judge lanes; NULL: not */
	bool kunit;		/* the built lanes carry the KUnit suite */
	struct kb_backport_opts backport;
	struct kb_build_opts build_opts;	/* progress and payload are the
						 * pipeline's own */
	void (*event)(const struct kb_pipeline_event *ev, void *payload);
	void *payload;
	bool distro_bzimage;	/* boot a distribution kernel's bzImage, never its
				 * vmlinux through PVH (KBACKPORT_DISTRO_BOOT=bzimage) */
	double tick_interval;	/* seconds between KB_EVENT_TICKs of a
				 * build or boot; 0: none */
};

/* Defaults: nothing switched on, kb_*_opts_init() for the rest;
 * distro_bzimage from $KBACKPORT_DISTRO_BOOT. */
void kb_pipeline_init(struct kb_pipeline *p);

/*
 * `branch` through the pipeline. A lane that fails to build or boot, a
 * fix that does not apply, a branch that cannot be opened: all are
 * outcomes in `out`, not errors. Returns a negative code only when out of
 * memory or when a file kbackport itself writes cannot be written.
 */
int kb_pipeline_branch(struct kb_branch_run *out, struct kb_pipeline *p,
		       const struct kb_branch *branch);

void kb_branch_run_release(struct kb_branch_run *run);

/* Verdicts that need nobody's attention: verified, fixed, not-affected,
 * skipped. */
bool kb_verdict_ok(enum kb_verdict verdict);

/* "PVH vmlinux", "bzImage", or NULL for a built lane (people read it). */
const char *kb_boot_image_text(enum kb_boot_image image);
/* "pvh-vmlinux", "bzimage", or NULL for a built lane (results.json). */
const char *kb_boot_image_name(enum kb_boot_image image);

#endif
