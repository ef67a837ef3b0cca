/* Opening a branch's repository and resolving its ref, for every stage. */
#ifndef KB_REPO_H
#define KB_REPO_H

#include <git2.h>

#include "config.h"

/*
 * Open `branch`'s repository (bare or not; the path itself, no search
 * upwards) and peel its ref to a commit. On error both outputs are NULL and
 * the message names the repository or the ref.
 */
int kb_branch_open(git_repository **repo, git_commit **commit,
		   const struct kb_branch *branch);

/*
 * A branch with `skip-if-missing` whose repository or ref is not there:
 * `*why` (owned by the caller) says which, then the branch's reason, and
 * the branch is to be skipped. 0 with `*why` NULL when the branch is there
 * or has no `skip-if-missing` (a missing ref then fails where it is used).
 */
int kb_branch_missing(char **why, const struct kb_branch *branch);

#endif
