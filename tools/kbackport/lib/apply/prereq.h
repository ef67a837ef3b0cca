/*
 * Missing prerequisites: for a hunk of a fix that does not apply, the
 * commits on the fix's own side of history that wrote lines the hunk
 * expects and that the branch lacks -- the candidates a stable maintainer
 * marks "Stable-dep-of:".
 *
 * The fix's side is its commit in the branch's repository: the commit its
 * patch was made from ("From <sha>") or its upstream commit when the
 * object store has one, else the commit another branch of the repository
 * carries it as (history.h: a message naming it, its patch-id). That
 * commit's first parent, minus the branch's own history, is walked newest
 * first; each commit that changes the hunk's file is diffed, and the
 * newest one that added a pre-image line of the hunk (context or removed)
 * that the branch's file does not hold at all is the commit that line
 * needs. The two sides must share history (a merge base): across
 * unrelated histories (a tarball import, a squashed vendor tree) nothing
 * tells a missing commit from one the branch carries in another form, so
 * nothing is named. Nothing found, nothing said: this never changes a
 * status, it only explains a conflict.
 */
#ifndef KB_PREREQ_H
#define KB_PREREQ_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

#include "fix.h"
#include "apply/history.h"
#include "apply/patch.h"
#include "kbuild/source.h"

struct kb_prereq {
	char id[GIT_OID_HEXSZ + 1];
	char *subject;
};

/* The commits one hunk needs, newest first. */
struct kb_prereqs {
	struct kb_prereq *list;
	size_t n, alloc;	/* alloc: how many `list` holds */
};

struct kb_prereq_look;

/*
 * A look for `fix` on `src` (the tree the fix failed on), whose branch
 * commit is `base`, in `repo`. `history` (may be NULL: then only the
 * fix's own commits are looked up, no other branch) finds the fix on the
 * repository's other branches. All borrowed; they must outlive the look.
 */
int kb_prereq_look_new(struct kb_prereq_look **out, git_repository *repo, const git_oid *base,
		       struct kb_source *src, const struct kb_fix *fix, struct kb_history *history);
void kb_prereq_look_free(struct kb_prereq_look *l);

/*
 * What each of the `n` hunks of `path` needs: out[i] for hunks[i] (a NULL
 * entry is skipped). Returns 0 also when nothing is known (no source
 * commit, unrelated histories); a negative code only when out of memory
 * or the repository cannot be read.
 */
int kb_prereq_find(struct kb_prereqs *out, struct kb_prereq_look *l, const char *path,
		   const struct kb_hunk *const *hunks, size_t n);

/* The source commit found, or NULL (after kb_prereq_find()). */
const git_oid *kb_prereq_source(const struct kb_prereq_look *l);

void kb_prereqs_release(struct kb_prereqs *p);

#endif
