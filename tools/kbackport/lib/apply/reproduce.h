/*
 * A conflict's commands to do the backport by hand (kb_result.reproduce),
 * to paste into sh from any directory, on a bare or a non-bare repository:
 *
 *   git -C REPO worktree add DIR -b backport/FIX/BRANCH START
 *   git -C DIR am -3 EARLIER          a queue: each fix applied before it
 *   git -C DIR am -3 PATCH
 *   # resolve the conflicts (see the failed hunks), then: git -C DIR add <files>
 *   # build and test the kernel
 *   git -C DIR am --continue
 *   # or cherry-pick the upstream commit instead of git am: git -C DIR am
 *     --abort && git -C DIR fetch UPSTREAM-REPO SHA && git -C DIR cherry-pick -x SHA
 *
 * REPO is the branch's repository, absolute and normalised; DIR a new work
 * tree beside it, "<repository's name>-<fix>-<branch>"; START the branch's
 * ref, or its pre-fix ref on a `pre-fix: true` branch; PATCH, absolute, the
 * patch whose hunks the result names: the variant tried, else the fix's
 * own. The cherry-pick line is there only when fix.yaml says where to fetch
 * the commit (`upstream-repo`). Every word that comes from data is quoted
 * for sh (kb_sh_quote()), so pasting runs nothing else.
 */
#ifndef KB_REPRODUCE_H
#define KB_REPRODUCE_H

#include "apply/backport.h"

/*
 * The commands for the result `res` of `fix` on `branch`; `before` (NULL,
 * or NULL-terminated) the patches to `git am` first. `*out` is malloc'ed.
 */
int kb_reproduce(char **out, const struct kb_branch *branch, const struct kb_fix *fix,
		 const struct kb_result *res, const char *const *before);

/* The work tree directory the commands make (malloc'ed). */
int kb_reproduce_dir(char **out, const char *repo, const char *fix, const char *branch);

#endif
