/*
 * A run directory, <reports>/<id>/, as `kbackport run` fills it (see
 * docs/reports.md): per lane <branch>/<lane>/ with apply.json,
 * backport.patch or pre-fix.patch (git format-patch mails), build.log,
 * console.log and one .ktap per suite; then results.json, the report files
 * of report.h, and <reports>/latest pointing at it.
 */
#ifndef KB_RUN_DIR_H
#define KB_RUN_DIR_H

#include <jansson.h>
#include <time.h>

#include "boot/cases.h"
#include "fix.h"
#include "pipeline.h"
#include "apply/series.h"

struct kb_run_dir {
	char *reports;		/* where run directories go */
	char *dir;		/* <reports>/<id> */
	char id[64];		/* UTC time and 4 random hex digits */
	time_t started;
	json_t *branches;	/* results.json's "branches" so far */
};

/*
 * A new run directory under `reports` (created when missing). The id is
 * the UTC time and 4 random hex digits, so that runs of the same second
 * on different machines (CI jobs whose reports are merged) never share one.
 */
int kb_run_dir_create(struct kb_run_dir *rd, const char *reports);

/*
 * Keep `b`'s lane files in the run directory and its entry for results.json;
 * `fix` (NULL for a queue) gives a conflicting branch's FAILED mail its patch.
 */
int kb_run_dir_add(struct kb_run_dir *rd, const struct kb_branch_run *b,
		   const struct kb_cases *cases, const struct kb_fix *fix);

/*
 * results.json (about `fix`), the report files (kb_report_write()), then
 * <reports>/latest -> <id>, replaced atomically.
 */
int kb_run_dir_finish(struct kb_run_dir *rd, const struct kb_fix *fix);

/*
 * The same for a run of the queue `series` named `name`: results.json's
 * "fix" is "queue/<name>", "subject" says how many fixes, and "queue"
 * has the name and every fix (id, upstream, subject, author) in order.
 */
int kb_run_dir_finish_queue(struct kb_run_dir *rd, const struct kb_series *series,
			    const char *name);

/* Remove a run directory nothing was written to (a run that never began). */
void kb_run_dir_discard(struct kb_run_dir *rd);

void kb_run_dir_release(struct kb_run_dir *rd);

#endif
