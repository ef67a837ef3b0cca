/*
 * results.json written: the one writer, beside its reader (report_load.c).
 * `kbackport run` saves its branches here, `kbackport report --merge` its
 * merged document, and `apply --json` prints the same JSON form of an
 * apply result (kb_result_json()) as results.json keeps.
 */
#ifndef KB_RESULTS_JSON_H
#define KB_RESULTS_JSON_H

#include <jansson.h>

#include "apply/backport.h"
#include "boot/cases.h"
#include "fix.h"
#include "pipeline.h"
#include "apply/queue.h"
#include "apply/series.h"

/*
 * One apply result: branch, status, variant, base, commit, ref, created,
 * forced, detail, notes and reproduce (arrays, empty when none), pre_fix,
 * hunks (each hunk's placement) and patch_hash (the sha256 of the
 * variant's patch file, null when not known).
 */
json_t *kb_result_json(const struct kb_result *r, const char *patch_hash);

/*
 * A queue on one branch, as `apply --queue --json` prints it and a queue's
 * run keeps it in results.json: branch, ref, commit, created, applied (a
 * count), error, and results: per fix of `series` in order, its apply
 * result (kb_result_json()) with "fix" and "mail" (mails[f], NULL: none).
 */
json_t *kb_queue_result_json(const struct kb_queue_result *q, const struct kb_series *series,
			     const char *branch, char *const *mails);

/* results.json's entry for a branch that went through the pipeline; with
 * "queue" (kb_queue_result_json()) for a queue's run only. */
json_t *kb_branch_run_json(const struct kb_branch_run *b, const struct kb_cases *cases);

/* The "apply" object of a lane: what its tree is as far as the fix goes. */
json_t *kb_lane_apply_json(const struct kb_branch_run *b, const struct kb_lane_run *l);

/* `doc` as <rundir>/results.json (2-space indent, a final newline),
 * through a temporary file and a rename. */
int kb_results_save(const char *rundir, json_t *doc);

#endif
