/*
 * A series of fixes on one branch (apply --queue): every fix in the
 * series' order on top of the previous one's result (kb_queue_open/step/
 * finish in backport.h), one result per fix, and the FAILED mail of a fix
 * skipped there. Returns errors, prints nothing.
 */
#ifndef KB_QUEUE_H
#define KB_QUEUE_H

#include "apply/backport.h"
#include "util/buf.h"
#include "apply/series.h"

struct kb_queue_result {
	struct kb_result *results;	/* one per fix of the series, in order */
	size_t nresults;
	char *ref;			/* refs/heads/backport/queue/<queue>/<branch> */
	char commit[GIT_OID_HEXSZ + 1];	/* the ref's commit, "" when none written */
	bool created;			/* this run wrote the ref */
	struct kb_queue_pre_fix pre_fix;	/* a `pre-fix: true` branch's pre-fix
						 * lane, the queue's start */
	char *error;			/* the queue could not start or end, or NULL */
};

/*
 * The series `series` under the name `name` on `branch` (on its pre-fix
 * state when the branch has `pre-fix: true`: kb_queue_pre_fix()). Fills `out` in
 * every case (a failure of the branch is `out->error`); returns a negative
 * code only when out of memory.
 */
int kb_queue_apply(struct kb_queue_result *out, const struct kb_branch *branch,
		   const struct kb_series *series, const char *name,
		   const struct kb_backport_opts *opts);

/* Does any result, or the branch itself, need a person? */
bool kb_queue_needs_hand(const struct kb_queue_result *q);

/* Applied fixes in `q`. */
size_t kb_queue_applied(const struct kb_queue_result *q);

void kb_queue_result_release(struct kb_queue_result *q);

/*
 * The FAILED mail (report.h) for the result `r` of `fix` on `branch`, with
 * the branch's recipients and tree (branch->mail) and the variant tried in
 * mail form; `queue` names the queue it was skipped in, or NULL for a fix
 * on its own. Only for conflict and partial (KB_ENOTFOUND otherwise).
 */
int kb_result_failed_mail(struct kb_buf *out, const struct kb_result *r,
			  const struct kb_fix *fix, const struct kb_branch *branch,
			  const char *queue);

/* Only the patch tried (`r`'s variant, else the fix's own) in mail form (kb_failed_patch()). */
int kb_result_failed_patch(struct kb_buf *out, const struct kb_result *r,
			   const struct kb_fix *fix);

#endif
