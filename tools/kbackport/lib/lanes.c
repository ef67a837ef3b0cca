#include "lanes.h"
#include "util/array.h"
#include "util/buf.h"
#include "apply/commit.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static const char *const lane_kind_names[] = {
	[KB_LANE_AS_IS] = "as-is",
	[KB_LANE_PRE_FIX] = "pre-fix",
	[KB_LANE_BACKPORT] = "backport",
};

const char *kb_lane_kind_name(enum kb_lane_kind kind)
{
	return lane_kind_names[kind];
}

bool kb_lane_kind_parse(enum kb_lane_kind *out, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(lane_kind_names) / sizeof(*lane_kind_names); i++)
		if (!strcmp(lane_kind_names[i], name)) {
			*out = (enum kb_lane_kind)i;
			return true;
		}
	return false;
}

int kb_prefix_ref(char **out, const char *fix_id, const char *branch)
{
	struct kb_buf name = KB_BUF_INIT;
	int err;

	*out = NULL;
	if ((err = kb_buf_printf(&name, "%s.pre-fix", branch)) < 0)
		return err;
	err = kb_backport_ref(out, fix_id, name.ptr);
	kb_buf_release(&name);
	return err;
}

/* The lanes found so far, bottom first. */
struct lanes {
	struct kb_lane *v;
	size_t n, alloc;
};

/* Append a lane for `ref`; a ref that does not exist adds nothing. */
static int add_lane(struct lanes *l, git_repository *repo, enum kb_lane_kind kind,
		    const char *ref, int missing_ok)
{
	git_object *obj = NULL;
	git_commit *commit = NULL;
	struct kb_lane *lane;
	int err;

	if ((err = git_revparse_single(&obj, repo, ref)) < 0) {
		if (missing_ok && err == GIT_ENOTFOUND)
			return 0;
		return kb_error_git(err, "ref '%s' not found", ref);
	}
	err = git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (err < 0)
		return kb_error_git(err, "ref '%s' is not a commit", ref);
	if ((err = KB_ARRAY_GROW(l->v, l->alloc, l->n + 1)) < 0) {
		git_commit_free(commit);
		return err;
	}
	lane = &l->v[l->n++];
	lane->kind = kind;
	git_oid_cpy(&lane->commit, git_commit_id(commit));
	git_oid_cpy(&lane->tree, git_commit_tree_id(commit));
	git_commit_free(commit);
	return (lane->ref = kb_strdup(ref)) ? 0 : kb_error_oom();
}

/*
 * A pre-fix or backport lane is built on the lane below it: kbackport
 * writes the pre-fix commit on the branch's own commit and the backport
 * commit on the pre-fix commit or, without one, on the branch; a person who
 * resolves a conflict by hand may add commits of their own on top. A ref
 * that does not descend from the lane below (left by an earlier run before
 * the branch moved on, or while the branch still carried the fix) is not
 * this branch's lane: the last lane added is dropped, and `passed_over`
 * says so.
 */
static int drop_stale(struct kb_lane *lanes, size_t *n, size_t before, git_repository *repo,
		      struct kb_buf *passed_over)
{
	struct kb_lane *top = &lanes[*n - 1], *below = &lanes[*n - 2];
	char top_hex[GIT_OID_HEXSZ + 1], below_hex[GIT_OID_HEXSZ + 1];
	int on;

	if (*n == before || *n < 2)
		return 0;
	if ((on = git_graph_descendant_of(repo, &top->commit, &below->commit)) < 0)
		return kb_error_git(on, "cannot tell whether '%s' is built on '%s'", top->ref,
				    below->ref);
	if (on)
		return 0;
	git_oid_tostr(top_hex, sizeof(top_hex), &top->commit);
	git_oid_tostr(below_hex, sizeof(below_hex), &below->commit);
	if ((git_oid_equal(&top->commit, &below->commit) ?
	     kb_buf_printf(passed_over, "%s%s at %.12s is %s itself, not a commit on it",
			   passed_over->size ? "; " : "", top->ref, top_hex, below->ref) :
	     kb_buf_printf(passed_over, "%s%s at %.12s is not built on %s at %.12s",
			   passed_over->size ? "; " : "", top->ref, top_hex, below->ref,
			   below_hex)) < 0)
		return kb_error_oom();
	free(top->ref);
	(*n)--;
	return 0;
}

/* add_lane of a lane above the branch, kept only when it is built on the lane below. */
static int add_lane_above(struct lanes *l, git_repository *repo, enum kb_lane_kind kind,
			  const char *ref, struct kb_buf *passed_over)
{
	size_t before = l->n;
	int err;

	if ((err = add_lane(l, repo, kind, ref, 1)) < 0)
		return err;
	return drop_stale(l->v, &l->n, before, repo, passed_over);
}

/* Hand the lanes to the caller, or free them on error. */
static int lanes_out(struct kb_lane **out, size_t *n, struct lanes *l, int err)
{
	if (err < 0) {
		kb_lanes_free(l->v, l->n);
		return err;
	}
	*out = l->v;
	*n = l->n;
	return err;
}

int kb_branch_lanes(struct kb_lane **out, size_t *n, char **passed_over, git_repository *repo,
		    const struct kb_branch *branch, const char *fix_id)
{
	struct kb_buf skipped = KB_BUF_INIT;
	struct lanes l = { 0 };
	char *prefix = NULL, *backport = NULL;
	int err;

	*out = NULL;
	*n = 0;
	if (passed_over)
		*passed_over = NULL;
	if ((err = kb_backport_ref(&backport, fix_id, branch->name)) < 0)
		goto done;
	if ((err = add_lane(&l, repo, KB_LANE_AS_IS, branch->ref, 0)) < 0)
		goto done;
	if (branch->pre_fix &&
	    ((err = kb_prefix_ref(&prefix, fix_id, branch->name)) < 0 ||
	     (err = add_lane_above(&l, repo, KB_LANE_PRE_FIX, prefix, &skipped)) < 0))
		goto done;
	if ((err = add_lane_above(&l, repo, KB_LANE_BACKPORT, backport, &skipped)) < 0)
		goto done;
	if (passed_over && skipped.size)
		*passed_over = kb_buf_detach(&skipped);
done:
	kb_buf_release(&skipped);
	free(prefix);
	free(backport);
	return lanes_out(out, n, &l, err);
}

int kb_queue_lanes(struct kb_lane **out, size_t *n, git_repository *repo,
		   const struct kb_branch *branch, const char *pre_fix_ref,
		   const char *queue_ref)
{
	struct kb_buf skipped = KB_BUF_INIT;
	struct lanes l = { 0 };
	int err;

	*out = NULL;
	*n = 0;
	err = add_lane(&l, repo, KB_LANE_AS_IS, branch->ref, 0);
	if (!err && pre_fix_ref)
		err = add_lane_above(&l, repo, KB_LANE_PRE_FIX, pre_fix_ref, &skipped);
	if (!err && queue_ref)
		err = add_lane_above(&l, repo, KB_LANE_BACKPORT, queue_ref, &skipped);
	kb_buf_release(&skipped);	/* this run wrote them: they are on the lanes below */
	return lanes_out(out, n, &l, err);
}

void kb_lanes_free(struct kb_lane *lanes, size_t n)
{
	size_t i;

	for (i = 0; lanes && i < n; i++)
		free(lanes[i].ref);
	free(lanes);
}
