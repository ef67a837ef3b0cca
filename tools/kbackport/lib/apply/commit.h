/*
 * Stable-style backport commits and their refs.
 *
 *   <subject>
 *
 *   commit <upstream sha> upstream.
 *
 *   <the upstream body, sign-offs included>
 *   [ <variant note, wrapped at 72 columns> ]
 *
 * Author and author date are the upstream commit's; the committer comes
 * from git config (user.name/user.email) or GIT_COMMITTER_NAME/_EMAIL,
 * with GIT_COMMITTER_DATE ("<epoch> <+hhmm>") honoured for reproducibility.
 * A date git would refuse (a time outside 0..4294967295, what libgit2 1.5
 * writes whole; a zone with hours above 23 or minutes above 59) is
 * KB_EINVALID, from either, so that every commit passes git fsck.
 */
#ifndef KB_COMMIT_H
#define KB_COMMIT_H

#include <stdbool.h>
#include <git2.h>

#include "fix.h"

/* The commit message for `fix` backported with `variant` (malloc'ed). */
int kb_commit_message(char **out, const struct kb_fix *fix,
		      const struct kb_variant *variant);
/* The same with the hunks of several variants: each one's note, in order. */
int kb_commit_message_variants(char **out, const struct kb_fix *fix,
			       const struct kb_variant *const *variants, size_t n);

/* "refs/heads/backport/<fix>/<branch>", checked to be a valid ref name. */
int kb_backport_ref(char **out, const char *fix_id, const char *branch);

int kb_commit_author(git_signature **out, const struct kb_fix *fix);
int kb_committer(git_signature **out, git_repository *repo);
/*
 * A commit by `committer` (kb_committer()'s) was written and its ref
 * updated: kb_commit_backport() says so itself, other writers call this.
 */
void kb_committer_written(const git_signature *committer);
/*
 * Whether a commit written so far is by an identity kb_committer() guessed
 * for want of user.name/user.email (the login name and user@host, as git
 * does), and which. Async-signal-safe; the strings are static.
 */
bool kb_committer_guessed(const char **name, const char **email);

/*
 * Fails when `refname`'s lock file exists (a stale lock, or a git at work)
 * and is still there after a second: checked before anything is written,
 * so that no object is left behind; a writer at work is waited for.
 */
int kb_ref_check_lock(git_repository *repo, const char *refname);

/*
 * Where `refname` is checked out, as `git branch -f` and `git branch -d`
 * look: the HEAD of the main working tree and of every linked worktree
 * (one whose directory is gone too), whichever of them `repo` is. *where
 * gets its path (owned by the caller), or NULL when it is nowhere.
 */
int kb_ref_checked_out(char **where, git_repository *repo, const char *refname);

/*
 * Fails (KB_EEXISTS, saying which ref is in the way and what to do) when
 * `refname` cannot be written for the refs already there: a ref named as
 * one of its folders (a branch "backport/X" for refs/heads/backport/X/
 * <branch>), or refs inside it as a folder. Git keeps refs as files in
 * folders: one name cannot be both. Checked before anything is written.
 */
int kb_ref_check_namespace(git_repository *repo, const char *refname);

/*
 * Make `refname` point at a commit with parent `base`, `tree` and `message`.
 * When the ref already points at such a commit (same parent, tree and
 * message) nothing is written and *created is false: re-running is
 * idempotent. Otherwise the commit is written and the ref moved with a
 * compare-and-swap on its old value (for a new ref: that it still does not
 * exist), made under the ref's lock, so a concurrent writer is detected,
 * never overwritten: when it wrote the same backport (another kbackport at
 * the same time), its commit is the result and *created is false; else
 * KB_EEXISTS. Refuses, as `git branch -f` does, when `refname` is
 * checked out: the HEAD of the main working tree or of any linked
 * worktree points at it (KB_EEXISTS, naming the working tree).
 */
int kb_commit_backport(git_oid *commit_id, bool *created, git_repository *repo,
		       const char *refname, git_commit *base, const git_oid *tree,
		       const char *message, const git_signature *author,
		       const git_signature *committer);

/*
 * kb_commit_backport() for a caller that looked at `refname` before and
 * decided on what it saw there: `seen` (zero: no ref). A ref that holds
 * something else by the time of the compare-and-swap was changed by
 * another writer: KB_EEXISTS, never overwritten (unless it holds the very
 * commit this would write: then *created is false, as above).
 */
int kb_commit_backport_seen(git_oid *commit_id, bool *created, git_repository *repo,
			    const char *refname, git_commit *base, const git_oid *tree,
			    const char *message, const git_signature *author,
			    const git_signature *committer, const git_oid *seen);

#endif
