/*
 * kbackport's own refs, found and deleted (kbackport prune).
 *
 * A ref is kbackport's when it is in the repository of a branch of
 * branches.yaml and has, for that branch, the very name kbackport gives
 * its refs (kb_backport_ref(), kb_prefix_ref(), kb_queue_ref()):
 *
 *   refs/heads/backport/<fix>/<branch>                    backport
 *   refs/heads/backport/<fix>/<branch>.pre-fix            pre-fix
 *   refs/heads/backport/queue/<queue>/<branch>            queue
 *   refs/heads/backport/queue/<queue>/<branch>.pre-fix    queue-pre-fix
 *
 * (a backport ref resolved by hand is a backport ref). Anything else is
 * never touched: another name under refs/heads/backport/, a symbolic ref,
 * a ref of a branch that is not in the config, or of a branch whose
 * repository is another.
 */
#ifndef KB_PRUNE_H
#define KB_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "config.h"

enum kb_prune_kind {
	KB_PRUNE_BACKPORT,
	KB_PRUNE_PRE_FIX,
	KB_PRUNE_QUEUE,
	KB_PRUNE_QUEUE_PRE_FIX,
};

/* "backport", "pre-fix", "queue", "queue-pre-fix". */
const char *kb_prune_kind_name(enum kb_prune_kind kind);

/* Whose ref a name is: kb_prune_parse(). */
struct kb_prune_name {
	enum kb_prune_kind kind;
	char *fix;		/* backport, pre-fix: the fix id, else NULL */
	char *queue;		/* queue, queue-pre-fix: the queue, else NULL */
	const struct kb_branch *branch;	/* of `config` */
};

/*
 * Is `refname` a name kbackport gives a ref of a branch of `config`?
 * 1 and `out` filled (owned by the caller: kb_prune_name_release()), or 0
 * when it is not; negative when out of memory. A last component that is a
 * branch's name is that branch's (a branch may be named "x.pre-fix" when
 * x has no pre-fix lane); only otherwise is "<name>.pre-fix" the pre-fix
 * ref of branch <name>, whatever its `pre-fix:` says today. Repositories
 * are not looked at: the caller checks the branch's is the ref's.
 */
int kb_prune_parse(struct kb_prune_name *out, const char *refname,
		   const struct kb_config *config);
void kb_prune_name_release(struct kb_prune_name *name);

/*
 * Which refs: those of the branches `branches` (of the config), then of
 * the fixes `fixes` and the queues `queues` (neither given: of every fix
 * and queue), then, with `stale`, only those whose branch moved on: the
 * branch's commit now (its `ref`) is neither the ref's commit nor in the
 * ref's history, so the ref was made on an older commit of the branch
 * (or on something else). A fix id in `known_fixes` (those with a fix
 * directory) is known even when no ref has it.
 */
struct kb_prune_select {
	const struct kb_branch *const *branches;
	size_t nbranches;
	const char *const *fixes;
	size_t nfixes;
	const char *const *queues;
	size_t nqueues;
	bool stale;
	const char *const *known_fixes;
	size_t nknown_fixes;
};

struct kb_prune_ref {
	char *name;		/* refs/heads/backport/... */
	struct kb_prune_name who;
	char commit[GIT_OID_HEXSZ + 1];	/* what it pointed at when found */
	char *stale;		/* with `stale`: why it is, else NULL */
	char *kept;		/* why it stays (checked out, ...), or NULL */
	bool deleted;		/* kb_prune_delete() deleted it */
	size_t repo;		/* index into kb_prune.repos */
};

struct kb_prune {
	struct kb_prune_ref *refs;	/* by repository, then by name */
	size_t nrefs, arefs;	/* arefs, arepos, aerrors: how many are allocated */
	git_repository **repos;
	size_t nrepos, arepos;
	char **errors;		/* a repository or a branch's ref that could not
				 * be read: its refs are left alone */
	size_t nerrors, aerrors;
};

/*
 * The refs `sel` selects, in the repositories of its branches, each
 * read once; writes nothing. A ref checked out in a working tree of its
 * repository (kb_ref_checked_out()) is listed with `kept` saying where. A
 * repository that cannot be opened, or with `stale` a branch whose ref
 * cannot be resolved, is an entry of `errors` and the rest go on.
 * Errors, before any repository is read or once all are: an invalid fix
 * id or queue name (KB_EINVALID), and a fix or queue that neither has a
 * ref in those repositories nor is known (KB_ENOTFOUND).
 */
int kb_prune_find(struct kb_prune **out, const struct kb_config *config,
		  const struct kb_prune_select *sel);

/*
 * Delete every ref of `p` that is not `kept`, each only if it still
 * points at the commit it was found on, is not checked out and is not
 * locked (else `kept` says so and it stays), with its reflog. Only these
 * refs are touched. Returns 0, or a negative code when out of memory.
 */
int kb_prune_delete(struct kb_prune *p);

void kb_prune_free(struct kb_prune *p);

#endif
