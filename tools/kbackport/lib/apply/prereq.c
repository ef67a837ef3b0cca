/* The commits a failed hunk needs (prereq.h). */
#include "apply/prereq.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/* Bounds on one walk: far beyond a stable range, short of a runaway. */
#define MAX_WALKED 200000
#define MAX_DIFFED 5000
/* Other branches asked where the fix is, at most. */
#define MAX_REFS 64

struct kb_prereq_look {
	git_repository *repo;
	git_oid base;
	struct kb_source *src;
	const struct kb_fix *fix;
	struct kb_history *history;
	bool looked;		/* the source was searched for */
	bool found;
	git_oid source;		/* the fix's commit */
};

/* A pre-image line of a hunk that the branch's file lacks. */
struct need {
	const char *text;	/* trimmed, into the patch */
	size_t len;
	size_t hunk;		/* index in the caller's hunks */
	bool explained;
};

int kb_prereq_look_new(struct kb_prereq_look **out, git_repository *repo, const git_oid *base,
		       struct kb_source *src, const struct kb_fix *fix, struct kb_history *history)
{
	struct kb_prereq_look *l;

	KB_ERROR_CHECK_ALLOC(*out = l = calloc(1, sizeof(*l)));
	l->repo = repo;
	git_oid_cpy(&l->base, base);
	l->src = src;
	l->fix = fix;
	l->history = history;
	return 0;
}

void kb_prereq_look_free(struct kb_prereq_look *l)
{
	free(l);
}

const git_oid *kb_prereq_source(const struct kb_prereq_look *l)
{
	return l->found ? &l->source : NULL;
}

void kb_prereqs_release(struct kb_prereqs *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->list[i].subject);
	free(p->list);
	p->list = NULL;
	p->n = p->alloc = 0;
}

/* Is `id` the branch commit or one of its ancestors? */
static bool in_base(const struct kb_prereq_look *l, const git_oid *id)
{
	return git_oid_equal(id, &l->base) ||
	       git_graph_descendant_of(l->repo, &l->base, id) == 1;
}

/* `id` as the source: a commit with a parent, not in the branch. */
static bool take_source(struct kb_prereq_look *l, const git_oid *id)
{
	git_commit *c = NULL;
	bool ok;

	if (git_commit_lookup(&c, l->repo, id) < 0)
		return false;
	ok = git_commit_parentcount(c) > 0 && !in_base(l, id);
	if (ok) {
		git_oid_cpy(&l->source, git_commit_id(c));
		l->found = true;
	}
	git_commit_free(c);
	return ok;
}

/* A commit named by a (maybe abbreviated) sha, when the object store has it. */
static bool take_named(struct kb_prereq_look *l, const char *hex)
{
	git_commit *c = NULL;
	git_oid id;
	size_t n;
	bool ok;

	if (!hex)
		return false;
	n = strspn(hex, "0123456789abcdefABCDEF");
	if (n < 7 || n > GIT_OID_HEXSZ || hex[n] || git_oid_fromstrn(&id, hex, n) < 0 ||
	    git_commit_lookup_prefix(&c, l->repo, &id, n) < 0)
		return false;
	ok = take_source(l, git_commit_id(c));
	git_commit_free(c);
	return ok;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool other_branch(const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(name, "refs/heads/", 11))
		return strncmp(name, "refs/heads/backport/", 20) != 0;
	return !strncmp(name, "refs/remotes/", 13) && (n < 5 || strcmp(name + n - 5, "/HEAD"));
}

static int branch_names(char ***out, size_t *n, git_repository *repo)
{
	git_reference_iterator *it = NULL;
	const char *name;
	char **names = NULL;
	size_t count = 0, alloc = 0;
	int err = 0;

	if (git_reference_iterator_new(&it, repo) < 0)
		goto done;
	while (git_reference_next_name(&name, it) == 0) {
		if (!other_branch(name))
			continue;
		if ((err = KB_ARRAY_GROW(names, alloc, count + 1)) < 0)
			goto done;
		if (!(names[count] = kb_strdup(name))) {
			err = kb_error_oom();
			goto done;
		}
		count++;
	}
	if (count > 1)
		qsort(names, count, sizeof(*names), name_cmp);
done:
	git_reference_iterator_free(it);
	*out = names;
	*n = count;
	return err;
}

/* Does the history of `name`'s tip carry the fix? Then that commit is the source. */
static int ask_branch(struct kb_prereq_look *l, const char *name)
{
	struct kb_history_answer a = { 0 };
	git_object *obj = NULL, *tip = NULL;
	git_oid id;
	int err = 0;

	if (git_revparse_single(&obj, l->repo, name) < 0 ||
	    git_object_peel(&tip, obj, GIT_OBJECT_COMMIT) < 0) {
		git_object_free(obj);
		return 0;
	}
	git_object_free(obj);
	if (in_base(l, git_object_id(tip)))
		goto done;
	err = kb_history_find(&a, l->history, l->repo, git_object_id(tip), l->fix);
	if (err == KB_ENOMEM)
		goto done;
	if (err == 0 && a.state == KB_HISTORY_IN && a.commit.id[0] &&
	    git_oid_fromstr(&id, a.commit.id) == 0)
		take_source(l, &id);
	err = 0;
done:
	kb_history_answer_release(&a);
	git_object_free(tip);
	return err;
}

/* The fix's commit: its own names first, then the other branches' histories. */
static int find_source(struct kb_prereq_look *l)
{
	const struct kb_patch *patch = l->fix->patch;
	char **names = NULL;
	size_t n = 0, i;
	int err = 0;

	l->looked = true;
	if ((patch && take_named(l, patch->from_commit)) || take_named(l, l->fix->upstream))
		return 0;
	if (!l->history)
		return 0;
	if ((err = branch_names(&names, &n, l->repo)) < 0)
		goto done;
	for (i = 0; i < n && i < MAX_REFS && !l->found && !err; i++)
		err = ask_branch(l, names[i]);
done:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	kb_error_clear();
	return err == KB_ENOMEM ? err : 0;
}

static void trim(const char **text, size_t *len)
{
	const char *s = *text;
	size_t n = *len;

	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	*text = s;
	*len = n;
}

/* Does `buf` hold a line that reads `text` once trimmed? */
static bool holds_line(const char *buf, size_t len, const char *text, size_t tlen)
{
	const char *end = buf + len, *p = buf;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *s = p;
		size_t n = (nl ? nl : end) - p;

		trim(&s, &n);
		if (n == tlen && !memcmp(s, text, n))
			return true;
		p = nl ? nl + 1 : end;
	}
	return false;
}

/* The hunks' pre-image lines that the branch's file does not hold. */
static int needs_of(struct need **out, size_t *nout, const char *buf, size_t len,
		    const struct kb_hunk *const *hunks, size_t n)
{
	struct need *needs = NULL;
	size_t count = 0, alloc = 0, h, i, k;

	for (h = 0; h < n; h++) {
		for (i = 0; hunks[h] && i < hunks[h]->nlines; i++) {
			const struct kb_line *line = &hunks[h]->lines[i];
			const char *text = line->text;
			size_t tlen = line->len;
			bool dup = false;

			if (line->type == KB_LINE_ADD)
				continue;
			trim(&text, &tlen);
			if (!tlen || holds_line(buf, len, text, tlen))
				continue;
			for (k = 0; k < count && !dup; k++)
				dup = needs[k].hunk == h && needs[k].len == tlen &&
				      !memcmp(needs[k].text, text, tlen);
			if (dup)
				continue;
			if (KB_ARRAY_GROW(needs, alloc, count + 1) < 0) {
				free(needs);
				return KB_ENOMEM;
			}
			needs[count++] = (struct need){ text, tlen, h, false };
		}
	}
	*out = needs;
	*nout = count;
	return 0;
}

static int add_prereq(struct kb_prereqs *p, const git_commit *c)
{
	struct kb_prereq *pr;
	size_t i;
	int err;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->list[i].id, git_oid_tostr_s(git_commit_id(c))))
			return 0;
	if ((err = KB_ARRAY_GROW(p->list, p->alloc, p->n + 1)) < 0)
		return err;
	pr = &p->list[p->n];
	git_oid_tostr(pr->id, sizeof(pr->id), git_commit_id(c));
	if (!(pr->subject = kb_strdup(git_commit_summary((git_commit *)c) ?
					      git_commit_summary((git_commit *)c) : "")))
		return kb_error_oom();
	p->n++;
	return 0;
}

/* The blob id of `path` in `c`'s tree, or false when it has none. */
static bool blob_at(git_oid *out, const git_commit *c, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	bool ok = false;

	if (git_commit_tree(&tree, c) == 0 && git_tree_entry_bypath(&e, tree, path) == 0 &&
	    git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
		git_oid_cpy(out, git_tree_entry_id(e));
		ok = true;
	}
	git_tree_entry_free(e);
	git_tree_free(tree);
	return ok;
}

/* `c` changed `path` from `old` (NULL: created) to `new`: which needs do its added lines meet? */
static int diff_commit(struct kb_prereqs *out, struct need *needs, size_t nneeds, size_t *left,
		       git_repository *repo, const git_commit *c, const git_oid *old,
		       const git_oid *new, const char *path)
{
	git_diff_options opts;
	git_blob *a = NULL, *b = NULL;
	git_patch *patch = NULL;
	size_t h, nh, j, nlines, k;
	int err = 0;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 0;
	if ((old && git_blob_lookup(&a, repo, old) < 0) || git_blob_lookup(&b, repo, new) < 0 ||
	    git_patch_from_blobs(&patch, a, path, b, path, &opts) < 0)
		goto done;
	nh = git_patch_num_hunks(patch);
	for (h = 0; h < nh && *left && !err; h++) {
		const git_diff_hunk *hunk;
		if (git_patch_get_hunk(&hunk, &nlines, patch, h) < 0)
			break;
		for (j = 0; j < nlines && *left && !err; j++) {
			const git_diff_line *line;
			const char *text;
			size_t tlen;
			if (git_patch_get_line_in_hunk(&line, patch, h, j) < 0 ||
			    line->origin != GIT_DIFF_LINE_ADDITION)
				continue;
			text = line->content;
			tlen = line->content_len;
			trim(&text, &tlen);
			for (k = 0; k < nneeds && !err; k++) {
				if (needs[k].explained || needs[k].len != tlen ||
				    memcmp(needs[k].text, text, tlen))
					continue;
				needs[k].explained = true;
				(*left)--;
				err = add_prereq(&out[needs[k].hunk], c);
			}
		}
	}
done:
	git_patch_free(patch);
	git_blob_free(a);
	git_blob_free(b);
	return err;
}

/* Walk `from` minus the branch, newest first, until every need is explained. */
static int walk(struct kb_prereqs *out, struct need *needs, size_t nneeds,
		struct kb_prereq_look *l, const git_oid *from, const char *path)
{
	git_revwalk *w = NULL;
	git_oid id, old, new;
	size_t walked = 0, diffed = 0, left = nneeds;
	int err = 0;

	if (git_revwalk_new(&w, l->repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(w, from) < 0 || git_revwalk_hide(w, &l->base) < 0)
		goto done;
	while (left && !err && walked++ < MAX_WALKED && diffed < MAX_DIFFED &&
	       git_revwalk_next(&id, w) == 0) {
		git_commit *c = NULL, *parent = NULL;
		bool had, has;

		if (git_commit_lookup(&c, l->repo, &id) < 0)
			break;
		if (git_commit_parentcount(c) == 1 && git_commit_parent(&parent, c, 0) == 0) {
			had = blob_at(&old, parent, path);
			has = blob_at(&new, c, path);
			if (has && (!had || !git_oid_equal(&old, &new))) {
				diffed++;
				err = diff_commit(out, needs, nneeds, &left, l->repo, c,
						  had ? &old : NULL, &new, path);
			}
		}
		git_commit_free(parent);
		git_commit_free(c);
	}
done:
	git_revwalk_free(w);
	return err;
}

int kb_prereq_find(struct kb_prereqs *out, struct kb_prereq_look *l, const char *path,
		   const struct kb_hunk *const *hunks, size_t n)
{
	struct need *needs = NULL;
	git_commit *source = NULL;
	const char *buf;
	size_t len, nneeds = 0, i;
	git_oid parent, mb;
	int err = 0;

	for (i = 0; i < n; i++)
		out[i] = (struct kb_prereqs){ 0 };
	if (!l->looked && (err = find_source(l)) < 0)
		return err;
	if (!l->found || git_commit_lookup(&source, l->repo, &l->source) < 0)
		goto done;
	git_oid_cpy(&parent, git_commit_parent_id(source, 0));
	/* unrelated histories: nothing tells a missing commit from a rewritten one */
	if (git_merge_base(&mb, l->repo, &parent, &l->base) < 0 ||
	    kb_source_read(&buf, &len, l->src, path) < 0)
		goto done;
	if ((err = needs_of(&needs, &nneeds, buf, len, hunks, n)) < 0 || !nneeds)
		goto done;
	err = walk(out, needs, nneeds, l, &parent, path);
done:
	if (err < 0)
		for (i = 0; i < n; i++)
			kb_prereqs_release(&out[i]);
	free(needs);
	git_commit_free(source);
	if (err != KB_ENOMEM)
		err = 0;
	kb_error_clear();
	return err;
}
