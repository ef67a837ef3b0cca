/*
 * A new fix directory (backports/<id>/) made from a patch: a git
 * format-patch file, a mail-style patch (DEP-3 From/Subject/Date headers),
 * one patch of an mbox, or a commit of a repository. The fix has no
 * variants: its own patch is its one variant (see fix.h).
 */
#ifndef KB_FIXNEW_H
#define KB_FIXNEW_H

#include <stdbool.h>
#include <stddef.h>

struct kb_fix_draft_opts {
	const char *id;		/* or NULL: the CVE, else the subject made a name */
	const char *cve;	/* or NULL: the first CVE-YYYY-N named in the mail */
	const char *upstream;	/* or NULL: from the message, else the commit */
};

struct kb_fix_draft {
	char *id;
	char *subject;
	char *upstream;		/* 40 hex, or NULL: the patch names none */
	char *cve;		/* or NULL */
	char *patch;		/* the patch, as given (NUL-terminated) */
	size_t len;
	char *origin;		/* where it came from, for messages ("FILE (mail 2)") */
};

/*
 * A draft from one patch. The upstream commit is the option's, else the
 * one the message names ("commit <sha> upstream.", "[ Upstream commit
 * <sha> ]", "(cherry picked from commit <sha>)"), else the patch's own
 * ("From <sha> ..." of format-patch). Errors (KB_EINVALID, naming
 * `origin`): no diff, no subject, a bad upstream commit, id or CVE. A
 * patch that names no upstream commit (a distribution's own change) makes
 * a fix without one.
 */
int kb_fix_draft_new(struct kb_fix_draft **out, const char *buf, size_t len,
		     const char *origin, const struct kb_fix_draft_opts *opts);

/* A draft from commit `rev` of the repository at `repo` (its own patch). */
int kb_fix_draft_from_commit(struct kb_fix_draft **out, const char *repo,
			     const char *rev, const struct kb_fix_draft_opts *opts);

/*
 * Drafts from commits of the repository at `repo`, in order: each of
 * `revs` a commit, or a range "A..B" whose commits come oldest first,
 * merges left out, as git format-patch A..B takes them (a range with no
 * such commit is an error). A merge named alone is an error. *out is
 * malloc'ed, *n drafts; nothing on error.
 */
int kb_fix_drafts_from_commits(struct kb_fix_draft ***out, size_t *n, const char *repo,
			       const char *const *revs, size_t nrevs,
			       const struct kb_fix_draft_opts *opts);

/*
 * Split an mbox into its mails: at each line "From " that starts a mail
 * (the first line, or one after a blank line). Each part points into
 * `buf`; *starts and *lens (malloc'ed, *n entries) say where.
 */
int kb_mbox_split(size_t **starts, size_t **lens, size_t *n, const char *buf, size_t len);

/* fix.yaml for the draft (malloc'ed). */
char *kb_fix_draft_yaml(const struct kb_fix_draft *draft);

/*
 * Write <backports>/<id>/fix.yaml and <id>/fix.patch: into a temporary
 * directory renamed into place, so a fix is there whole or not at all.
 * KB_EEXISTS when <backports>/<id> exists. *dir gets the new directory.
 */
int kb_fix_draft_write(char **dir, const struct kb_fix_draft *draft, const char *backports);

/*
 * Does the draft make a fix that loads as apply loads it? It is written
 * into a temporary directory (under $TMPDIR), loaded back with
 * kb_fix_load() and removed: fix new checks every draft so before it
 * writes any. The load's error (KB_EINVALID) names `origin` and the fix
 * as it would be under `backports`.
 */
int kb_fix_draft_check(const struct kb_fix_draft *draft, const char *origin,
		       const char *backports);

struct kb_fix;

/*
 * The fix the draft would be, in memory (as kb_fix_load() would read it
 * back once written); `dir` is what the fix's directory is said to be.
 */
int kb_fix_draft_to_fix(struct kb_fix **out, const struct kb_fix_draft *draft, const char *dir);

void kb_fix_draft_free(struct kb_fix_draft *draft);

#endif
