/*
 * Lanes: the trees of one branch that later stages build and test.
 *
 *   as-is     the branch as configured (its `ref`)
 *   pre-fix   for `pre-fix: true` branches: `ref` with the fix reverse-
 *             applied, a reconstructed state kbackport commits on
 *             refs/heads/backport/<fix>/<branch>.pre-fix
 *   backport  the backport commit on refs/heads/backport/<fix>/<branch>
 *             (on top of the pre-fix lane for `pre-fix: true` branches)
 *
 * Lanes whose ref kbackport apply has not made (yet) are not listed.
 */
#ifndef KB_LANES_H
#define KB_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "config.h"

enum kb_lane_kind {
	KB_LANE_AS_IS,
	KB_LANE_PRE_FIX,
	KB_LANE_BACKPORT,
};

/* "as-is", "pre-fix", "backport". */
const char *kb_lane_kind_name(enum kb_lane_kind kind);
/* The kind named `name` in *out; false when no kind has that name. */
bool kb_lane_kind_parse(enum kb_lane_kind *out, const char *name);

struct kb_lane {
	enum kb_lane_kind kind;
	char *ref;		/* the config's ref, or a refs/heads/backport/... ref */
	git_oid commit;
	git_oid tree;
};

/* "refs/heads/backport/<fix>/<branch>.pre-fix", checked to be valid. */
int kb_prefix_ref(char **out, const char *fix_id, const char *branch);

/*
 * The lanes of `branch` for `fix_id`, in build order: as-is, then pre-fix
 * and backport when their refs exist and each descends from the lane below
 * it (a ref left on an older branch commit is no lane); read from `repo`,
 * the branch's repository. `passed_over`, when not NULL, is set to NULL or
 * to a line naming each ref that was not taken as a lane, and why.
 */
int kb_branch_lanes(struct kb_lane **out, size_t *n, char **passed_over, git_repository *repo,
		    const struct kb_branch *branch, const char *fix_id);

/*
 * The lanes of `branch` for a queue (run --queue): as-is, then the
 * queue's pre-fix lane `pre_fix_ref` (the branch with the queue's fixes
 * reversed) when not NULL, then backport, the queue's tip `queue_ref`,
 * when not NULL; each must exist and descend from the lane below it.
 */
int kb_queue_lanes(struct kb_lane **out, size_t *n, git_repository *repo,
		   const struct kb_branch *branch, const char *pre_fix_ref,
		   const char *queue_ref);

void kb_lanes_free(struct kb_lane *lanes, size_t n);

#endif
