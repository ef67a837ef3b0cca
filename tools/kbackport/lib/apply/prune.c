#include "apply/prune.h"
#include "util/array.h"
#include "apply/backport.h"
#include "util/buf.h"
#include "apply/commit.h"
#include "util/error.h"
#include "lanes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "refs/heads/backport/"
#define QUEUES "queue/"
#define PRE_FIX ".pre-fix"

static const char *const kind_names[] = {
	[KB_PRUNE_BACKPORT] = "backport",
	[KB_PRUNE_PRE_FIX] = "pre-fix",
	[KB_PRUNE_QUEUE] = "queue",
	[KB_PRUNE_QUEUE_PRE_FIX] = "queue-pre-fix",
};

const char *kb_prune_kind_name(enum kb_prune_kind kind)
{
	return kind_names[kind];
}

/* ---- whose ref a name is ---- */

/* `*out` = the formatted text (malloc'ed): 0, or KB_ENOMEM. */
static int set_text(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_text(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*out = NULL;
		return kb_error_oom();
	}
	return 0;
}

/*
 * The branch of `config` whose ref's last component `last` is: its own
 * name first, else "<name>.pre-fix" (*pre_fix set); NULL when none.
 */
static const struct kb_branch *owner(const struct kb_config *config, const char *last,
				     bool *pre_fix)
{
	size_t len = strlen(last), stem = len - strlen(PRE_FIX), i;
	const struct kb_branch *b = kb_config_branch(config, last);

	*pre_fix = false;
	if (b)
		return b->kernel ? NULL : b;
	if (len <= strlen(PRE_FIX) || strcmp(last + stem, PRE_FIX))
		return NULL;
	for (i = 0; i < config->nbranches; i++) {
		b = &config->branches[i];
		if (!b->kernel && strlen(b->name) == stem && !strncmp(b->name, last, stem)) {
			*pre_fix = true;
			return b;
		}
	}
	return NULL;
}

/* The name kbackport's ref builders give `who`: malloc'ed in *out. */
static int build_name(char **out, const struct kb_prune_name *who)
{
	struct kb_buf pre = KB_BUF_INIT;
	int err;

	switch (who->kind) {
	case KB_PRUNE_BACKPORT:
		return kb_backport_ref(out, who->fix, who->branch->name);
	case KB_PRUNE_PRE_FIX:
		return kb_prefix_ref(out, who->fix, who->branch->name);
	case KB_PRUNE_QUEUE:
		return kb_queue_ref(out, who->queue, who->branch->name);
	case KB_PRUNE_QUEUE_PRE_FIX:
		break;
	}
	*out = NULL;
	if ((err = kb_buf_printf(&pre, "%s" PRE_FIX, who->branch->name)) == 0)
		err = kb_queue_ref(out, who->queue, pre.ptr);
	kb_buf_release(&pre);
	return err;
}

/* Split `refname` into fix or queue and last component; false: no such shape. */
static bool split(const char **id, size_t *idlen, bool *queue, const char **last,
		  const char *refname)
{
	const char *rest = refname + strlen(PREFIX), *slash;

	if (strncmp(refname, PREFIX, strlen(PREFIX)))
		return false;
	*queue = !strncmp(rest, QUEUES, strlen(QUEUES));
	if (*queue)
		rest += strlen(QUEUES);
	if (!(slash = strchr(rest, '/')) || strchr(slash + 1, '/'))
		return false;
	*id = rest;
	*idlen = (size_t)(slash - rest);
	*last = slash + 1;
	return true;
}

int kb_prune_parse(struct kb_prune_name *out, const char *refname,
		   const struct kb_config *config)
{
	const char *id, *last;
	char *built = NULL;
	size_t idlen;
	bool queue, pre_fix;
	int err;

	memset(out, 0, sizeof(*out));
	if (!split(&id, &idlen, &queue, &last, refname) ||
	    !(out->branch = owner(config, last, &pre_fix)))
		return 0;
	out->kind = queue ? (pre_fix ? KB_PRUNE_QUEUE_PRE_FIX : KB_PRUNE_QUEUE) :
			    (pre_fix ? KB_PRUNE_PRE_FIX : KB_PRUNE_BACKPORT);
	if (!(*(queue ? &out->queue : &out->fix) = kb_strndup(id, idlen))) {
		err = kb_error_oom();
		goto done;
	}
	/* the writers' own names: what they would not write is not theirs */
	if ((err = build_name(&built, out)) == KB_ENOMEM)
		goto done;
	err = !err && !strcmp(built, refname);
	kb_error_clear();
done:
	free(built);
	if (err <= 0)
		kb_prune_name_release(out);
	return err;
}

void kb_prune_name_release(struct kb_prune_name *name)
{
	free(name->fix);
	free(name->queue);
	memset(name, 0, sizeof(*name));
}

/* ---- finding ---- */

struct finder {
	const struct kb_config *config;
	const struct kb_prune_select *sel;
	struct kb_prune *p;
	bool *fix_seen, *queue_seen;	/* per sel->fixes, sel->queues */
	git_oid *tips;			/* per config branch, with sel->stale */
	signed char *tip_state;		/* 0 not read, 1 read, -1 not found */
};

/* One more entry of p->errors: the formatted text, then libgit2's message if any. */
static int add_error(struct kb_prune *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_error(struct kb_prune *p, const char *fmt, ...)
{
	const git_error *git = git_error_last();
	char *what = NULL;
	va_list ap;
	int n, err;

	if ((err = KB_ARRAY_GROW(p->errors, p->aerrors, p->nerrors + 1)) < 0)
		return err;
	va_start(ap, fmt);
	n = vasprintf(&what, fmt, ap);
	va_end(ap);
	if (n < 0 || set_text(&p->errors[p->nerrors], "%s%s%s", what, git ? ": " : "",
			       git ? git->message : "") < 0) {
		free(n < 0 ? NULL : what);
		return kb_error_oom();
	}
	free(what);
	git_error_clear();
	p->nerrors++;
	return 0;
}

static bool listed(const char *const *names, size_t n, const char *name, bool *seen)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name)) {
			if (seen)
				seen[i] = true;
			return true;
		}
	return false;
}

static bool branch_selected(const struct kb_prune_select *sel, const struct kb_branch *b)
{
	size_t i;

	for (i = 0; i < sel->nbranches; i++)
		if (sel->branches[i] == b)
			return true;
	return false;
}

/* Is `who` among the fixes and queues selected? Notes the ones seen. */
static bool what_selected(struct finder *f, const struct kb_prune_name *who)
{
	const struct kb_prune_select *sel = f->sel;
	bool fix = who->fix && listed(sel->fixes, sel->nfixes, who->fix, f->fix_seen);
	bool queue = who->queue && listed(sel->queues, sel->nqueues, who->queue, f->queue_seen);

	return (!sel->nfixes && !sel->nqueues) || fix || queue;
}

/* The branch's commit now, read once: 0, 1 when it cannot be (an error listed). */
static int branch_tip(const git_oid **out, struct finder *f, git_repository *repo,
		      const struct kb_branch *b)
{
	size_t i = (size_t)(b - f->config->branches);
	git_object *obj = NULL, *commit = NULL;
	int err = 0;

	if (!f->tip_state[i]) {
		git_error_clear();
		if (git_revparse_single(&obj, repo, b->ref) < 0 ||
		    git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
			err = add_error(f->p, "branch '%s': cannot tell which of its refs are "
					"stale (they are left): no commit '%s' in '%s'",
					b->name, b->ref, b->repo);
			f->tip_state[i] = -1;
		} else {
			git_oid_cpy(&f->tips[i], git_object_id(commit));
			f->tip_state[i] = 1;
		}
	}
	git_object_free(commit);
	git_object_free(obj);
	*out = &f->tips[i];
	return err < 0 ? err : f->tip_state[i] < 0;
}

/*
 * With --stale: *why says why the ref at `id` is stale, or stays NULL.
 * 1 when it cannot be told (an error listed).
 */
static int stale(char **why, struct finder *f, git_repository *repo, const git_oid *id,
		 const struct kb_prune_name *who, const char *refname)
{
	const git_oid *tip;
	char hex[GIT_OID_HEXSZ + 1];
	int err;

	*why = NULL;
	if ((err = branch_tip(&tip, f, repo, who->branch)) != 0)
		return err;
	if (git_oid_equal(id, tip) || (err = git_graph_descendant_of(repo, id, tip)) == 1)
		return 0;
	git_oid_tostr(hex, sizeof(hex), tip);
	if (err < 0)
		return add_error(f->p, "cannot tell whether '%s' is stale (it is left)",
				 refname) < 0 ? kb_error_oom() : 1;
	return set_text(why, "'%s' at %.12s is not in its history", who->branch->ref, hex);
}

static int add_ref(struct finder *f, struct kb_prune_ref *r)
{
	struct kb_prune *p = f->p;
	int err;

	if ((err = KB_ARRAY_GROW(p->refs, p->arefs, p->nrefs + 1)) < 0)
		return err;
	p->refs[p->nrefs++] = *r;
	return 0;
}

/* Where it is checked out, as `kept`: NULL when nowhere. */
static int checked_out_note(char **kept, git_repository *repo, const char *refname)
{
	char *where = NULL;
	int err;

	*kept = NULL;
	if ((err = kb_ref_checked_out(&where, repo, refname)) == KB_ENOMEM)
		return err;
	if (err < 0)
		err = set_text(kept, "%s", kb_error_last());
	else if (where)
		err = set_text(kept, "checked out in '%s': switch branches there first", where);
	free(where);
	return err;
}

/* One ref of the repository `path` (index `repo`): listed when selected. */
static int consider(struct finder *f, git_repository *repo, size_t idx, const char *path,
		    git_reference *ref)
{
	struct kb_prune_ref r = { .repo = idx };
	const git_oid *id = git_reference_target(ref);
	int err;

	if ((err = kb_prune_parse(&r.who, git_reference_name(ref), f->config)) <= 0)
		return err;
	if (!id || strcmp(r.who.branch->repo, path) || !what_selected(f, &r.who) ||
	    !branch_selected(f->sel, r.who.branch))
		goto done;
	git_oid_tostr(r.commit, sizeof(r.commit), id);
	if (f->sel->stale && ((err = stale(&r.stale, f, repo, id, &r.who,
					   git_reference_name(ref))) != 0 || !r.stale))
		goto done;
	if (!(r.name = kb_strdup(git_reference_name(ref))))
		err = kb_error_oom();
	else if ((err = checked_out_note(&r.kept, repo, r.name)) == 0 &&
		 (err = add_ref(f, &r)) == 0)
		return 0;
done:
	free(r.name);
	free(r.stale);
	free(r.kept);
	kb_prune_name_release(&r.who);
	return err < 0 ? err : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct kb_prune_ref *)a)->name, ((const struct kb_prune_ref *)b)->name);
}

static int add_repo(struct kb_prune *p, git_repository *repo)
{
	int err;

	if ((err = KB_ARRAY_GROW(p->repos, p->arepos, p->nrepos + 1)) < 0)
		return err;
	p->repos[p->nrepos++] = repo;
	return 0;
}

/* Every ref under refs/heads/backport/ of the repository at `path`. */
static int scan_repo(struct finder *f, const char *path)
{
	git_repository *repo = NULL;
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	size_t first = f->p->nrefs;
	int err, git;

	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return add_error(f->p, "cannot open repository '%s' (its refs are left)", path);
	if ((err = add_repo(f->p, repo)) < 0) {
		git_repository_free(repo);
		return err;
	}
	if ((git = git_reference_iterator_glob_new(&it, repo, PREFIX "*")) == 0)
		while (!err && (git = git_reference_next(&ref, it)) == 0) {
			err = consider(f, repo, f->p->nrepos - 1, path, ref);
			git_reference_free(ref);
		}
	git_reference_iterator_free(it);
	if (!err && git != GIT_ITEROVER)
		err = add_error(f->p, "cannot list the refs of '%s' (they are left)", path);
	if (f->p->nrefs > first)	/* refs is NULL while empty */
		qsort(f->p->refs + first, f->p->nrefs - first, sizeof(*f->p->refs), by_name);
	return err;
}

/* An id or a name kbackport could have written a ref for: KB_EINVALID otherwise. */
static int check_names(const struct kb_prune_select *sel)
{
	char *name = NULL;
	size_t i;
	int err = 0;

	for (i = 0; i < sel->nfixes && !err; i++) {
		if (!*sel->fixes[i] || strchr(sel->fixes[i], '/'))
			err = kb_error_set(KB_EINVALID, "'%s' is not a fix id (the name of "
					   "a fix's directory, one component)", sel->fixes[i]);
		else
			err = kb_backport_ref(&name, sel->fixes[i], "x");
		free(name);
		name = NULL;
	}
	for (i = 0; i < sel->nqueues && !err; i++) {
		err = kb_queue_ref(&name, sel->queues[i], "x");
		free(name);
		name = NULL;
	}
	return err;
}

/* A fix or queue selected that no ref has and no fix directory is: KB_ENOTFOUND. */
static int check_known(const struct finder *f)
{
	const struct kb_prune_select *sel = f->sel;
	size_t i;

	for (i = 0; i < sel->nfixes; i++)
		if (!f->fix_seen[i] && !listed(sel->known_fixes, sel->nknown_fixes,
					       sel->fixes[i], NULL))
			return kb_error_set(KB_ENOTFOUND, "no fix '%s': no fix directory has that "
					    "id, and no ref refs/heads/backport/%s/<branch> is in "
					    "the branches' repositories", sel->fixes[i],
					    sel->fixes[i]);
	for (i = 0; i < sel->nqueues; i++)
		if (!f->queue_seen[i])
			return kb_error_set(KB_ENOTFOUND, "no queue '%s': no ref refs/heads/backport/"
					    "queue/%s/<branch> is in the branches' repositories",
					    sel->queues[i], sel->queues[i]);
	return 0;
}

/* Was `path` the repository of a branch before the i-th? */
static bool scanned(const struct kb_prune_select *sel, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(sel->branches[j]->repo, sel->branches[i]->repo))
			return true;
	return false;
}

int kb_prune_find(struct kb_prune **out, const struct kb_config *config,
		  const struct kb_prune_select *sel)
{
	struct finder f = { .config = config, .sel = sel };
	size_t i;
	int err;

	*out = NULL;
	if ((err = check_names(sel)) < 0)
		return err;
	if (!(f.p = calloc(1, sizeof(*f.p))) ||
	    !(f.fix_seen = calloc(sel->nfixes + 1, sizeof(*f.fix_seen))) ||
	    !(f.queue_seen = calloc(sel->nqueues + 1, sizeof(*f.queue_seen))) ||
	    !(f.tips = calloc(config->nbranches + 1, sizeof(*f.tips))) ||
	    !(f.tip_state = calloc(config->nbranches + 1, sizeof(*f.tip_state)))) {
		err = kb_error_oom();
		goto done;
	}
	for (i = 0; i < sel->nbranches && !err; i++)
		if (!sel->branches[i]->kernel && !scanned(sel, i))
			err = scan_repo(&f, sel->branches[i]->repo);
	if (!err)
		err = check_known(&f);
done:
	if (err < 0)
		kb_prune_free(f.p);
	else
		*out = f.p;
	free(f.fix_seen);
	free(f.queue_seen);
	free(f.tips);
	free(f.tip_state);
	return err;
}

/* ---- deleting ---- */

/* Delete `r` if it is still as found: else `r->kept` says why not. */
static int delete_one(struct kb_prune_ref *r, git_repository *repo)
{
	git_reference *ref = NULL;
	char hex[GIT_OID_HEXSZ + 1] = "";
	int err;

	if ((err = checked_out_note(&r->kept, repo, r->name)) < 0 || r->kept)
		return err;
	if ((err = kb_ref_check_lock(repo, r->name)) < 0) {
		err = set_text(&r->kept, "%s", kb_error_last());
		goto done;
	}
	if (git_reference_lookup(&ref, repo, r->name) < 0) {
		err = set_text(&r->kept, "not there any more: another git deleted or renamed it");
		goto done;
	}
	if (git_reference_target(ref))
		git_oid_tostr(hex, sizeof(hex), git_reference_target(ref));
	if (strcmp(hex, r->commit))
		err = set_text(&r->kept, "moved to %.12s meanwhile: left as it is",
			       hex[0] ? hex : "a symbolic ref");
	else if ((err = git_reference_delete(ref)) < 0)
		err = set_text(&r->kept, "%s: %s", err == GIT_EMODIFIED ?
			       "changed meanwhile, left as it is" : "cannot delete it",
			       git_error_last() ? git_error_last()->message : "unknown error");
	else
		r->deleted = true;
done:
	git_reference_free(ref);
	return err;
}

int kb_prune_delete(struct kb_prune *p)
{
	size_t i;
	int err = 0;

	for (i = 0; i < p->nrefs && !err; i++)
		if (!p->refs[i].kept)
			err = delete_one(&p->refs[i], p->repos[p->refs[i].repo]);
	return err;
}

void kb_prune_free(struct kb_prune *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nrefs; i++) {
		free(p->refs[i].name);
		free(p->refs[i].stale);
		free(p->refs[i].kept);
		kb_prune_name_release(&p->refs[i].who);
	}
	for (i = 0; i < p->nrepos; i++)
		git_repository_free(p->repos[i]);
	for (i = 0; i < p->nerrors; i++)
		free(p->errors[i]);
	free(p->refs);
	free(p->repos);
	free(p->errors);
	free(p);
}
