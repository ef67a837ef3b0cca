/*
 * One fix on one branch: detect, choose a variant, apply, commit. The
 * result is exactly one status; a failure on one branch is a result, not
 * an error, so callers can go on with the next branch.
 */
#ifndef KB_BACKPORT_H
#define KB_BACKPORT_H

#include <stdbool.h>

#include "apply/apply.h"
#include "config.h"
#include "fix.h"
#include "apply/history.h"
#include "apply/prereq.h"
#include "apply/witness.h"

enum kb_status {
	KB_STATUS_APPLIED,		/* a backport commit is on the ref */
	KB_STATUS_ALREADY_APPLIED,	/* the fix is in the branch */
	KB_STATUS_NOT_AFFECTED,		/* the vulnerable code is absent */
	KB_STATUS_CONFLICT,		/* no variant applies */
	KB_STATUS_PARTIAL,		/* part of the fix is in, part is missing */
	KB_STATUS_ERROR,		/* bad input, missing repo or ref, ... */
	KB_STATUS_REVERSE_APPLIED,	/* reports only: a pre-fix lane, the fix
					 * taken out of the branch */
	KB_STATUS_REVERTED,		/* the branch reverted it and the tree does
					 * not hold it: nothing written unless
					 * asked (reapply), a person decides */
};

/* "applied", "already-applied", "not-affected", "conflict", "partial", "error",
 * "reverse-applied", "reverted". */
const char *kb_status_name(enum kb_status status);
/* The status named `name`: true, or false when none is. */
bool kb_status_parse(enum kb_status *out, const char *name);
/* Does the result need a person before the branch goes on: conflict,
 * partial or reverted? */
bool kb_status_needs_hand(enum kb_status status);

/* How one hunk of the deciding variant met the tree. */
struct kb_placement {
	char *path;
	char *moved;		/* the file's path in the tree, when it moved, or NULL */
	size_t hunk;		/* 1-based, in the file patch used */
	char *variant;		/* whose hunks: the result's variant or another */
	const char *status;	/* "applied", "in", "missing", "ambiguous", "failed" */
	size_t line;		/* 1-based, 0 when failed */
	long offset;
	unsigned fuzz;
	bool whitespace;
	const char *anchor;	/* NULL, "leading", "trailing", "own-lines" or "blocks" */
	/* applied: a context line fuzz dropped that stands changed in the
	 * tree (kb_apply_warning()): its 1-based tree line, or 0, and the
	 * patch's text of it (NULL when none) */
	size_t changed_line;
	char *changed_text;
	/* failed: the commits on the fix's side that wrote lines it expects
	 * and that the branch lacks (prereq.h), newest first */
	struct kb_prereqs needs;
	/* the hunk's state in the branch's tree as it is (witness.h; `path`
	 * not set), whatever placing it said; has_tree false: not looked at */
	struct kb_hunk_witness tree;
	bool has_tree;
};

struct kb_result {
	enum kb_status status;
	char *fix;		/* fix id */
	char *branch;		/* branch name from the config */
	char *repo;		/* repository path */
	char *variant;		/* applied / already-applied / conflict, or NULL */
	char *ref;		/* the backport ref when applied, or NULL */
	char base[GIT_OID_HEXSZ + 1];	/* branch tip, "" if unresolved */
	char commit[GIT_OID_HEXSZ + 1];	/* backport commit, "" if none */
	bool created;		/* applied: a commit was written by this run */
	bool forced;		/* the variant was forced in branches.yaml */
	char *detail;		/* one line for people: why this status */
	char *notes;		/* per-hunk notes (offsets, fuzz, failures),
				 * '\n'-terminated lines, or "" */
	char *reproduce;	/* conflict: commands to do it by hand, or NULL */
	/* `pre-fix: true` branches: the reconstructed lane the backport sits on */
	char *pre_fix_ref;	/* refs/heads/backport/<fix>/<branch>.pre-fix, or NULL */
	char pre_fix_commit[GIT_OID_HEXSZ + 1];	/* "" on a dry run */
	char *pre_fix_variant;	/* the variant reverse-applied */
	struct kb_placement *hunks;	/* the deciding variant's hunks, or NULL */
	size_t nhunks;
	/* what the branch's history says (history.h), or NULL: not looked at
	 * (no history asked for, a `pre-fix: true` branch, or it failed: the
	 * notes say why) */
	struct kb_history_answer *history;
};

struct kb_backport_opts {
	bool dry_run;		/* compute everything, write nothing */
	struct kb_locate_opts locate;
	/*
	 * The branches' history, looked at before the content (history.h):
	 * a commit of the branch that brought the fix in, and was not
	 * reverted since, makes it already-applied whatever the content says
	 * (the answer names that commit); a revert is named and the content
	 * decides. NULL: the content alone.
	 */
	struct kb_history *history;
	/* a fix the history says was reverted is applied again when the tree
	 * lets it (else: KB_STATUS_REVERTED, nothing written) */
	bool reapply;
};

void kb_backport_opts_init(struct kb_backport_opts *opts);

/*
 * Backport `fix` to `branch`. Fills `out` in every case; returns a negative
 * code only when out of memory. Writes nothing but objects and the ref
 * refs/heads/backport/<fix>/<branch> in the branch's repository (nothing
 * at all with dry_run). For a `pre-fix: true` branch, the fix is first
 * reverse-applied to `ref` (the variant found in it) and committed on
 * refs/heads/backport/<fix>/<branch>.pre-fix, clearly labelled; the
 * backport is then made on top of that reconstructed state.
 */
int kb_backport(struct kb_result *out, const struct kb_branch *branch,
		const struct kb_fix *fix, const struct kb_backport_opts *opts);

void kb_result_release(struct kb_result *result);

/*
 * A queue: fixes applied one after another onto one branch, each on top of
 * the previous one's result, to one ref refs/heads/backport/queue/<queue>/
 * <branch> (written by kb_queue_finish() with a compare-and-swap; no ref
 * when nothing applied). A fix that does not apply, or is already in, is
 * skipped and the next is looked at on the same tree. The branch's tip is
 * the start, or its pre-fix commit (kb_queue_pre_fix()).
 */
struct kb_queue;

int kb_queue_ref(char **out, const char *queue, const char *branch);
/*
 * Open the queue `queue` of at most `nfixes` fixes on `branch`. A re-run of
 * the same queue on the same branch commit finds the ref's chain (the same
 * changes: trees, messages, authors, in order, whatever their committer)
 * and takes its commits: nothing is written, the ref does not move, and
 * the results say `created` false. Another kbackport that wrote the same
 * queue meanwhile is found the same way by kb_queue_finish().
 */
int kb_queue_open(struct kb_queue **out, const struct kb_branch *branch, const char *queue,
		  size_t nfixes, bool dry_run);
/* A queue's pre-fix state (kb_queue_pre_fix()). */
struct kb_queue_pre_fix {
	char *ref;		/* refs/heads/backport/queue/<queue>/<branch>.pre-fix,
				 * or NULL: no pre-fix lane (`note` says why) */
	char commit[GIT_OID_HEXSZ + 1];	/* its commit, "" in a dry run */
	bool created;		/* this run wrote it */
	char **reversed;	/* "<fix> (variant '<v>')", in the order reversed */
	size_t nreversed;
	char *note;		/* the branch carries none of the queue: no lane */
};

/*
 * A queue's pre-fix lane, right after kb_queue_open(): the branch with
 * every fix of `fixes` it carries reversed, the last fix first, each on
 * the tree the later ones' reversal left, committed on the queue's
 * pre-fix ref (a commit on the branch's), which the queue then starts
 * from. A branch that carries none of them is itself the state before the
 * queue: no pre-fix lane, `out->note` says so. A re-run on the same branch
 * commit finds the same commit.
 */
int kb_queue_pre_fix(struct kb_queue_pre_fix *out, struct kb_queue *q, const char *queue,
		     const struct kb_fix *const *fixes, size_t n,
		     const struct kb_backport_opts *opts);
void kb_queue_pre_fix_release(struct kb_queue_pre_fix *p);

/* One fix on the queue's tip: fills `out` as kb_backport() does. */
int kb_queue_step(struct kb_result *out, struct kb_queue *q, const struct kb_fix *fix,
		  const struct kb_backport_opts *opts);
/* Write the last commit and the queue's ref; `commit` "" when nothing applied;
 * *created false when the ref already held this queue (see kb_queue_open). */
int kb_queue_finish(struct kb_queue *q, char commit[GIT_OID_HEXSZ + 1], bool *created);
const char *kb_queue_refname(const struct kb_queue *q);
void kb_queue_free(struct kb_queue *q);

#endif
