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

#endif
