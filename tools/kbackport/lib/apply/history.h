/*
 * What a branch's history already knows about a fix: a commit whose
 * message names the fix's upstream commit, or with the fix's patch-id (or
 * one of its variants'), or the upstream commit itself, and whether a
 * later commit reverted it.
 *
 * One walk of a repository's history reads every commit's message once and
 * keeps what matters (upstream references, reverts) in an index; with a
 * cache directory the index is kept in <dir>/<repo>/index and extended from
 * a new tip by the commits it does not hold yet. The commits that touch a
 * path, and their per-file patch-ids, are found the first time a fix
 * touching that path is asked about and kept the same way
 * (<dir>/<repo>/paths/). A commit's facts never change, so the cache is
 * never stale; a file that does not read back whole is rebuilt.
 *
 * Evidence is always a commit of the branch's history that changes the
 * lines the fix changes: a message naming the fix's commit in a commit
 * that does not touch them (another file, a comment added) proves
 * nothing. The history proposes; the tree decides (backport.c, witness.h).
 */
#ifndef KB_HISTORY_H
#define KB_HISTORY_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

#include "fix.h"

struct kb_history;

/* Open an index set; `cache_dir` NULL: everything in memory, for this run. */
int kb_history_new(struct kb_history **out, const char *cache_dir);
void kb_history_free(struct kb_history *h);

/*
 * The fixes about to be asked about (borrowed: they must outlive `h` or a
 * later call): the first look at a repository walks its history once for
 * the files of all of them, not once per fix. Optional.
 */
void kb_history_expect(struct kb_history *h, const struct kb_fix *const *fixes, size_t n);

enum kb_history_state {
	KB_HISTORY_NOT_FOUND,	/* no commit of the branch names or matches it */
	KB_HISTORY_IN,		/* brought in by `commit`, not reverted since */
	KB_HISTORY_REVERTED,	/* brought in by `commit`, reverted by `revert` */
};

/* "not-found", "in", "reverted" */
const char *kb_history_state_name(enum kb_history_state state);

struct kb_history_commit {
	char id[GIT_OID_HEXSZ + 1];
	char *subject;
	char *tag;		/* the nearest tag holding it, or NULL */
	char *evidence;		/* why it counts, for people */
};

struct kb_history_answer {
	enum kb_history_state state;
	git_oid tip;		/* the branch commit asked about */
	struct kb_history_commit commit;	/* IN, REVERTED (id "" when only a
						 * revert was found) */
	char *variant;		/* the variant whose patch-id it has, or NULL */
	struct kb_history_commit revert;	/* REVERTED */
	/* IN: later commits of the branch that changed lines it added
	 * (kb_history_changed()), oldest first */
	struct kb_history_commit *changed;
	size_t nchanged;
	/* IN, overruled by the tree: the commit that took the fix's lines
	 * back (kb_history_undone()), or id "" */
	struct kb_history_commit undone;
};

/*
 * What the history of `tip` in `repo` says about `fix`. The names of the
 * fix are its `upstream`, the patch's "From <sha>" and the upstream
 * commits its message names (kb_history_message_refs()).
 */
int kb_history_find(struct kb_history_answer *out, struct kb_history *h,
		    git_repository *repo, const git_oid *tip, const struct kb_fix *fix);

/* IN: the commits after answer->commit, up to its tip, that changed lines it added. */
int kb_history_changed(struct kb_history_answer *answer, struct kb_history *h,
		       git_repository *repo, const struct kb_fix *fix);

/* A line of a fix's change, looked for in commits' diffs. */
struct kb_history_line {
	const char *path;
	const char *text;	/* borrowed; without its '+' or '-' */
	size_t len;
	bool added;		/* a line the fix adds (else one it removes) */
};

/*
 * IN: the newest commit after answer->commit, up to its tip, whose diff
 * takes one of `lines` back: removes a line the fix added, or adds back
 * one it removed. out->id is "" when there is none (then the tree is as
 * the commit that brought the fix left it). Release with
 * kb_history_commit_release().
 */
int kb_history_undone(struct kb_history_commit *out, struct kb_history *h,
		      git_repository *repo, const struct kb_history_answer *answer,
		      const struct kb_fix *fix, const struct kb_history_line *lines, size_t nlines);

/*
 * IN: did `path` hold `text`, byte for byte, at a commit before the one
 * that brought the fix in (answer->commit)? Lines of the tree that stand
 * as they stood before the fix came in are an older copy put back (a
 * vendor's import of its own older files), not a later rework.
 */
int kb_history_older_copy(bool *yes, struct kb_history *h, git_repository *repo,
			  const struct kb_history_answer *answer, const struct kb_fix *fix,
			  const char *path, const char *text, size_t len);

void kb_history_commit_release(struct kb_history_commit *c);

void kb_history_answer_release(struct kb_history_answer *answer);

/* One upstream reference of a commit message. */
struct kb_history_ref {
	char hex[GIT_OID_HEXSZ + 1];	/* 7 to 40 lowercase hex digits */
	const char *form;		/* "commit <sha> upstream", ... */
};

/*
 * The upstream references of `message`, in the forms stable, vendor and
 * distribution trees write, each at the start of a line: "commit <sha>
 * upstream" (with or without the dot, "(as of ...)"), "commit <sha>" alone
 * on its line, "Commit: <sha> upstream", "Upstream commit: <sha>", "[
 * Upstream commit <sha> ]", "(cherry picked from commit <sha>)",
 * "(backported from commit <sha>)", "This is a backport of upstream
 * commit: <sha>", "Based on commit <sha> upstream".
 */
int kb_history_message_refs(struct kb_history_ref **out, size_t *n, const char *message);

/*
 * What `message` says it reverts: the commits it names after "revert",
 * "reverts", "reverted" ("This reverts commit <sha> (...) and commit
 * <sha>", "revert stable <sha>"), as written (7 to 40 hex digits), and
 * the subject quoted in its first line (`Revert "<subject>"`, also after a
 * prefix: `USB: serial: revert "..."`), or NULL.
 */
int kb_history_message_reverts(char ***shas, size_t *nshas, char **subject,
			       const char *message);

#endif
