#include "apply/backport.h"
#include "util/buf.h"
#include "apply/commit.h"
#include "apply/detect.h"
#include "util/array.h"
#include "util/error.h"
#include "lanes.h"
#include "repo.h"
#include "apply/reproduce.h"
#include "kbuild/source.h"

#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const status_names[] = {
	[KB_STATUS_APPLIED] = "applied",
	[KB_STATUS_ALREADY_APPLIED] = "already-applied",
	[KB_STATUS_NOT_AFFECTED] = "not-affected",
	[KB_STATUS_CONFLICT] = "conflict",
	[KB_STATUS_PARTIAL] = "partial",
	[KB_STATUS_ERROR] = "error",
	[KB_STATUS_REVERSE_APPLIED] = "reverse-applied",
	[KB_STATUS_REVERTED] = "reverted",
};

bool kb_status_needs_hand(enum kb_status status)
{
	return status == KB_STATUS_CONFLICT || status == KB_STATUS_PARTIAL ||
	       status == KB_STATUS_REVERTED;
}

const char *kb_status_name(enum kb_status status)
{
	return status_names[status];
}

bool kb_status_parse(enum kb_status *out, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(status_names) / sizeof(*status_names); i++)
		if (!strcmp(status_names[i], name)) {
			*out = (enum kb_status)i;
			return true;
		}
	return false;
}

void kb_backport_opts_init(struct kb_backport_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	kb_locate_opts_init(&opts->locate);
}

/* Everything one backport needs from the branch's repository. */
struct lane {
	git_repository *repo;
	git_commit *base;
	git_tree *tree;
	struct kb_source *src;
	git_odb_backend *mempack;	/* dry run: new objects stay in memory */
	struct kb_queue *queue;		/* set: fixes one after another, see below */
};

static void lane_release(struct lane *lane)
{
	kb_source_free(lane->src);
	git_tree_free(lane->tree);
	git_commit_free(lane->base);
	if (lane->mempack)
		git_mempack_reset(lane->mempack);
	git_repository_free(lane->repo);
}

static int use_mempack(struct lane *lane)
{
	git_odb *odb = NULL;
	int err;

	if ((err = git_repository_odb(&odb, lane->repo)) < 0 ||
	    (err = git_mempack_new(&lane->mempack)) < 0 ||
	    (err = git_odb_add_backend(odb, lane->mempack, 999)) < 0)
		err = kb_error_git(err, "cannot set up an in-memory object store");
	git_odb_free(odb);
	return err;
}

static int lane_open(struct lane *lane, struct kb_result *res,
		     const struct kb_branch *branch, bool dry_run)
{
	int err;

	if ((err = kb_branch_open(&lane->repo, &lane->base, branch)) < 0)
		return err;
	git_oid_tostr(res->base, sizeof(res->base), git_commit_id(lane->base));
	if ((err = git_commit_tree(&lane->tree, lane->base)) < 0)
		return kb_error_git(err, "branch '%s': cannot read the tree of '%s'",
				    branch->name, branch->ref);
	if ((err = kb_source_new(&lane->src, lane->repo, lane->tree)) < 0)
		return err;
	return dry_run ? use_mempack(lane) : 0;
}

static int set_str(char **field, const char *value)
{
	free(*field);
	*field = NULL;
	if (value && !(*field = kb_strdup(value)))
		return kb_error_oom();
	return 0;
}

static int set_detail(struct kb_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int set_detail(struct kb_result *res, const char *fmt, ...)
{
	struct kb_buf buf = KB_BUF_INIT;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || kb_buf_grow(&buf, (size_t)n) < 0)
		return kb_error_oom();
	va_start(ap, fmt);
	vsnprintf(buf.ptr, (size_t)n + 1, fmt, ap);
	va_end(ap);
	free(res->detail);
	res->detail = buf.ptr;
	return 0;
}

static int pre_fix_message(char **out, const struct kb_branch *branch,
			   const struct lane *lane, const struct kb_fix *fix,
			   const struct kb_variant *variant)
{
	struct kb_buf msg = KB_BUF_INIT;
	char base[13];

	git_oid_tostr(base, sizeof(base), git_commit_id(lane->base));
	kb_buf_printf(&msg,
		"kbackport: reconstructed pre-fix state of %s for %s\n\n"
		"NOT A STABLE RELEASE. This is %s (%s) with variant '%s' of\n"
		"%s%s\n(\"%s\")\n"
		"reverse-applied by kbackport, so that the fix can be backported onto,\n"
		"built and tested against a tree that is vulnerable again.\n",
		branch->ref, fix->id, branch->ref, base, variant->name,
		fix->upstream ? "upstream commit " : "the patch", fix->upstream ? fix->upstream : "",
		fix->subject);
	KB_ERROR_CHECK_ALLOC(msg.ptr);
	*out = kb_buf_detach(&msg);
	return 0;
}

/* Point the lane at `commit`: later steps read the reconstructed tree. */
static int lane_move(struct lane *lane, const git_oid *commit)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	struct kb_source *src = NULL;
	int err;

	if ((err = git_commit_lookup(&c, lane->repo, commit)) < 0 ||
	    (err = git_commit_tree(&t, c)) < 0) {
		git_commit_free(c);
		return kb_error_git(err, "cannot read the reconstructed commit");
	}
	if ((err = kb_source_new(&src, lane->repo, t)) < 0) {
		git_tree_free(t);
		git_commit_free(c);
		return err;
	}
	kb_source_free(lane->src);
	git_tree_free(lane->tree);
	git_commit_free(lane->base);
	lane->src = src;
	lane->tree = t;
	lane->base = c;
	return 0;
}

/* The commit of the pre-fix state: on its ref, or only in memory (dry run). */
static int pre_fix_commit(git_oid *commit, struct kb_result *res, struct lane *lane,
			  const char *refname, const git_oid *tree_id,
			  const char *message, bool dry_run)
{
	const git_commit *parents[1] = { lane->base };
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	bool created;
	int err;

	if ((err = kb_committer(&sig, lane->repo)) < 0)
		return err;
	if (!dry_run)
		err = kb_commit_backport(commit, &created, lane->repo, refname, lane->base,
					 tree_id, message, sig, sig);
	else if ((err = git_tree_lookup(&tree, lane->repo, tree_id)) < 0 ||
		 (err = git_commit_create(commit, lane->repo, NULL, sig, sig, NULL,
					  message, tree, 1, parents)) < 0)
		err = kb_error_git(err, "cannot write the pre-fix commit");
	if (!err && !dry_run)
		git_oid_tostr(res->pre_fix_commit, sizeof(res->pre_fix_commit), commit);
	git_tree_free(tree);
	git_signature_free(sig);
	return err;
}

/* The branch with the fix it carries (`survey->present`) reversed, committed
 * on its pre-fix ref; the lane moves onto that commit. */
static int reconstruct(struct kb_result *res, struct lane *lane, const struct kb_survey *survey,
		       const struct kb_branch *branch, const struct kb_fix *fix,
		       const struct kb_backport_opts *opts)
{
	char *message = NULL;
	git_oid tree, commit;
	int err;

	if ((err = kb_prefix_ref(&res->pre_fix_ref, fix->id, branch->name)) < 0 ||
	    (err = set_str(&res->pre_fix_variant, survey->present->name)) < 0 ||
	    (err = kb_ref_check_namespace(lane->repo, res->pre_fix_ref)) < 0 ||
	    (!opts->dry_run && (err = kb_ref_check_lock(lane->repo, res->pre_fix_ref)) < 0) ||
	    (err = kb_apply_write_tree(&tree, lane->repo, lane->tree, survey->present_apply, true)) < 0 ||
	    (err = pre_fix_message(&message, branch, lane, fix, survey->present)) < 0 ||
	    (err = pre_fix_commit(&commit, res, lane, res->pre_fix_ref, &tree, message,
				  opts->dry_run)) < 0 ||
	    (err = lane_move(lane, &commit)) < 0)
		goto done;
	git_oid_tostr(res->base, sizeof(res->base), &commit);
done:
	free(message);
	return err;
}

/* Variants to try: the forced one, or those whose conditions hold. */
static int candidates(const struct kb_variant ***out, size_t *n, struct kb_result *res,
		      struct kb_source *src, const struct kb_branch *branch,
		      const struct kb_fix *fix)
{
	const char *forced = kb_branch_variant(branch, fix->id);
	const struct kb_variant **list;
	size_t i;
	bool fits;
	int err;

	*n = 0;
	KB_ERROR_CHECK_ALLOC(*out = list = calloc(fix->nvariants + 1, sizeof(*list)));
	if (forced) {
		if (!(list[0] = kb_fix_variant(fix, forced)))
			return kb_error_set(KB_ENOTFOUND, "fix '%s' has no variant '%s'",
					    fix->id, forced);
		res->forced = true;
		*n = 1;
		return 0;
	}
	for (i = 0; i < fix->nvariants; i++) {
		if ((err = kb_variant_fits(&fits, NULL, src, &fix->variants[i])) < 0)
			return err;
		if (fits)
			list[(*n)++] = &fix->variants[i];
	}
	return 0;
}

static const char *hunk_status(const struct kb_file_result *fr, const struct kb_hunk_result *r)
{
	switch (r->status) {
	case KB_HUNK_APPLIED: return fr->state == KB_FILE_PARTIAL ? "missing" : "applied";
	case KB_HUNK_PRESENT: return "in";
	case KB_HUNK_AMBIGUOUS: return "ambiguous";
	case KB_HUNK_FAILED: break;
	}
	return "failed";
}

static const char *anchor_name(enum kb_anchor anchor)
{
	static const char *const names[] = {
		[KB_ANCHOR_NONE] = NULL, [KB_ANCHOR_LEAD] = "leading",
		[KB_ANCHOR_TRAIL] = "trailing", [KB_ANCHOR_BLOCK] = "own-lines",
		[KB_ANCHOR_BLOCKS] = "blocks",
	};
	return names[anchor];
}

/* An applied hunk's line is where it went, as its note says; any other
 * hunk's is where it stands (or would go) in the tree's file. */
static bool applied_here(const struct kb_file_result *fr, const struct kb_hunk_result *r)
{
	return r->status == KB_HUNK_APPLIED && fr->state != KB_FILE_PARTIAL;
}

/* The context line fuzz dropped that stands changed in the tree. */
static int set_changed(struct kb_placement *p, const struct kb_hunk *h, const struct kb_match *m)
{
	const struct kb_line *l = &h->lines[m->changed_hunk_line];

	p->changed_line = m->changed_file_line + 1;
	p->changed_text = kb_strndup(l->text, l->len);
	KB_ERROR_CHECK_ALLOC(p->changed_text);
	return 0;
}

/* Every hunk of the deciding look at the tree, for --json. */
static int set_placements(struct kb_result *res, const struct kb_apply *apply,
			  const struct kb_variant *variant)
{
	size_t f, h, n = 0;
	int err;

	for (f = 0; f < apply->patch->nfiles; f++)
		n += apply->files[f].hunks ? apply->files[f].used->nhunks : 0;
	res->hunks = calloc(n ? n : 1, sizeof(*res->hunks));
	KB_ERROR_CHECK_ALLOC(res->hunks);
	for (f = 0; f < apply->patch->nfiles; f++) {
		const struct kb_file_result *fr = &apply->files[f];
		for (h = 0; fr->hunks && h < fr->used->nhunks; h++) {
			const struct kb_hunk_result *r = &fr->hunks[h];
			struct kb_placement *p = &res->hunks[res->nhunks++];
			bool placed = r->status != KB_HUNK_FAILED;
			p->hunk = h + 1;
			p->status = hunk_status(fr, r);
			p->line = !placed ? 0 : applied_here(fr, r) ?
				  r->match.line - r->match.trim_head + 1 : r->tree_line + 1;
			p->offset = placed ? r->match.offset : 0;
			p->fuzz = placed ? r->match.fuzz : 0;
			p->whitespace = placed && r->match.whitespace;
			p->anchor = placed ? anchor_name(r->match.anchor) : NULL;
			if (r->status == KB_HUNK_APPLIED && r->match.changed &&
			    (err = set_changed(p, &fr->used->hunks[h], &r->match)) < 0)
				return err;
			if (!(p->path = kb_strdup(kb_file_patch_path(fr->fp))) ||
			    !(p->variant = kb_strdup(fr->from ? fr->from : variant->name)) ||
			    (fr->moved && !(p->moved = kb_strdup(fr->moved))))
				return kb_error_oom();
		}
	}
	return 0;
}

/* The candidate's look at the tree, from the survey. */
static struct kb_apply *survey_of(const struct kb_survey *survey, const struct kb_fix *fix,
				  const struct kb_variant *variant)
{
	return &survey->v[variant - fix->variants];
}

/* "variant 'X' is partly in: 'a' in, 'b' missing, 'c' partly in" */
static int partial(struct kb_result *res, const struct kb_apply *apply,
		   const struct kb_variant *variant, const char *why)
{
	struct kb_buf d = KB_BUF_INIT;
	size_t f;

	res->status = KB_STATUS_PARTIAL;
	kb_buf_printf(&d, "%svariant '%s' is partly in:", why, variant->name);
	for (f = 0; f < apply->patch->nfiles; f++) {
		const struct kb_file_result *fr = &apply->files[f];
		kb_buf_printf(&d, "%s '%s' %s", f ? "," : "", kb_file_patch_path(fr->fp),
			      fr->state == KB_FILE_PRESENT ? "in" :
			      fr->state == KB_FILE_APPLIES ? "missing" :
			      kb_file_state_name(fr->state));
	}
	free(res->detail);
	free(res->notes);
	res->detail = kb_buf_detach(&d);
	res->notes = kb_apply_describe(apply, true);
	if (!res->detail || !res->notes || set_str(&res->variant, variant->name) < 0)
		return kb_error_oom();
	return set_placements(res, apply, variant);
}

/* Why no variant was chosen: one line each. */
static int why_not(struct kb_buf *out, struct kb_source *src, const struct kb_fix *fix)
{
	const struct kb_cond *failed;
	size_t v;
	bool fits;
	int err;

	for (v = 0; v < fix->nvariants; v++) {
		char *cond;
		if ((err = kb_variant_fits(&fits, &failed, src, &fix->variants[v])) < 0)
			return err;
		if (fits || !failed || !(cond = kb_cond_describe(failed)))
			continue;
		kb_buf_printf(out, "variant '%s' not chosen: %s does not hold\n",
			      fix->variants[v].name, cond);
		free(cond);
	}
	return 0;
}

static char *first_line_of(const char *notes)
{
	return kb_strndup(notes, strcspn(notes, "\n"));
}

/* No variant's conditions hold: what the upstream patch meets, and why. */
static int no_candidate(struct kb_result *res, struct kb_source *src,
			const struct kb_branch *branch, const struct kb_fix *fix,
			const struct kb_locate_opts *opts)
{
	struct kb_apply apply = { 0 };
	struct kb_buf notes = KB_BUF_INIT;
	char *failures = NULL, *first = NULL;
	int err;

	res->status = KB_STATUS_CONFLICT;
	if ((err = kb_apply_patch(&apply, src, fix->patch, fix->reverse, opts)) < 0 ||
	    (err = why_not(&notes, src, fix)) < 0)
		goto done;
	failures = kb_apply_describe(&apply, true);
	if (!failures || !(first = first_line_of(failures))) {
		err = kb_error_oom();
		goto done;
	}
	kb_buf_puts(&notes, failures);
	if (apply.state == KB_FILE_APPLIES)
		err = set_detail(res, "no variant's conditions hold for this tree; the upstream patch would apply, but no variant says it fits");
	else if (apply.state == KB_FILE_PRESENT)
		err = set_detail(res, "no variant's conditions hold for this tree; the upstream patch's changes seem to be in");
	else
		err = set_detail(res, "no variant fits this tree; the upstream patch fails: %s",
				 *first ? first : kb_file_state_name(apply.state));
	free(res->notes);
	res->notes = kb_buf_detach(&notes);
	if (!err && !res->notes)
		err = kb_error_oom();
	if (!err)
		err = kb_reproduce(&res->reproduce, branch, fix, res, NULL);
done:
	kb_apply_release(&apply);
	kb_buf_release(&notes);
	free(failures);
	free(first);
	return err;
}

/* "225516a2b3c4 ("gro: Reset dev pointer on reuse")" */
static void prereq_words(struct kb_buf *b, const struct kb_prereqs *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		kb_buf_printf(b, "%s%.12s (\"%s\")", i ? ", " : "", p->list[i].id,
			      p->list[i].subject);
}

static bool same_prereqs(const struct kb_prereqs *a, const struct kb_prereqs *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->list[i].id, b->list[i].id))
			return false;
	return true;
}

/*
 * One note per set of commits a file's hunks need: "hunk 2 of 'f' needs
 * X", "hunks 1-9, 12 of 'f' need X, Y, which this branch lacks".
 */
static int prereq_notes(struct kb_buf *notes, const struct kb_prereqs *found, size_t n,
			const char *path)
{
	bool *done = calloc(n ? n : 1, sizeof(*done));
	size_t h, j, count, run;
	int err = 0;

	KB_ERROR_CHECK_ALLOC(done);
	for (h = 0; h < n; h++) {
		if (done[h] || !found[h].n)
			continue;
		for (j = h, count = 0; j < n; j++)
			if (!done[j] && same_prereqs(&found[h], &found[j]))
				count++;
		kb_buf_puts(notes, count > 1 ? "hunks " : "hunk ");
		for (j = h, run = 0; j < n; j++) {
			bool in = !done[j] && same_prereqs(&found[h], &found[j]);
			bool next = j + 1 < n && !done[j + 1] && same_prereqs(&found[h], &found[j + 1]);

			if (!in)
				continue;
			if (run == 0)
				kb_buf_printf(notes, "%s%zu", j > h ? ", " : "", j + 1);
			if (next) {
				run++;
			} else {
				if (run)
					kb_buf_printf(notes, "-%zu", j + 1);
				run = 0;
			}
			done[j] = true;
		}
		kb_buf_printf(notes, " of '%s' %s ", path, count > 1 ? "need" : "needs");
		prereq_words(notes, &found[h]);
		if ((err = kb_buf_puts(notes, ", which this branch lacks\n")) < 0)
			break;
	}
	free(done);
	return err;
}

/*
 * The failed hunks' missing prerequisites (prereq.h), in the placements
 * (set_placements() order) and one note per hunk that needs any.
 */
static int prereqs(struct kb_result *res, struct lane *lane, const struct kb_apply *apply,
		   const struct kb_fix *fix, const struct kb_backport_opts *opts, const bool *pick)
{
	struct kb_prereq_look *look = NULL;
	const struct kb_hunk **hunks = NULL;
	struct kb_prereqs *found = NULL;
	struct kb_buf notes = KB_BUF_INIT;
	size_t f, h, k = 0, nfailed;
	int err;

	if ((err = kb_prereq_look_new(&look, lane->repo, git_commit_id(lane->base), lane->src,
				      fix, opts->history)) < 0 ||
	    (err = kb_buf_puts(&notes, res->notes ? res->notes : "")) < 0)
		goto done;
	for (f = 0; f < apply->patch->nfiles && !err; f++) {
		const struct kb_file_result *fr = &apply->files[f];
		size_t n = fr->hunks ? fr->used->nhunks : 0;

#define PICKED(h) (pick ? pick[k + (h)] : fr->hunks[h].status == KB_HUNK_FAILED)
		for (h = nfailed = 0; h < n; h++)
			nfailed += PICKED(h);
		if (nfailed) {
			if (!(hunks = calloc(n, sizeof(*hunks))) ||
			    !(found = calloc(n, sizeof(*found)))) {
				err = kb_error_oom();
				goto done;
			}
			for (h = 0; h < n; h++)
				if (PICKED(h))
					hunks[h] = &fr->used->hunks[h];
#undef PICKED
			err = kb_prereq_find(found, look, kb_file_patch_path(fr->fp), hunks, n);
			if (!err)
				err = prereq_notes(&notes, found, n, kb_file_patch_path(fr->fp));
			for (h = 0; h < n && !err; h++) {
				res->hunks[k + h].needs = found[h];
				found[h] = (struct kb_prereqs){ 0 };
			}
			for (h = 0; h < n; h++)
				kb_prereqs_release(&found[h]);
			free(found);
			free(hunks);
			found = NULL;
			hunks = NULL;
		}
		k += n;
	}
	if (!err && !notes.ptr)
		err = kb_error_oom();
	if (!err) {
		free(res->notes);
		res->notes = kb_buf_detach(&notes);
	}
done:
	kb_prereq_look_free(look);
	kb_buf_release(&notes);
	free(hunks);
	free(found);
	return err;
}

static int conflict(struct kb_result *res, const struct kb_apply *apply,
		    struct lane *lane, const struct kb_branch *branch, const struct kb_fix *fix,
		    const struct kb_variant *tried, const struct kb_backport_opts *opts)
{
	char *first_line;
	int err;

	res->status = KB_STATUS_CONFLICT;
	free(res->notes);
	if (!(res->notes = kb_apply_describe(apply, true)) ||
	    !(first_line = first_line_of(res->notes)) ||
	    set_str(&res->variant, tried->name) < 0)
		return kb_error_oom();
	set_detail(res, "variant '%s' does not apply: %s", tried->name,
		   *first_line ? first_line : kb_file_state_name(apply->state));
	free(first_line);
	KB_ERROR_CHECK_ALLOC(res->detail);
	if ((err = kb_reproduce(&res->reproduce, branch, fix, res, NULL)) < 0 ||
	    (err = set_placements(res, apply, tried)) < 0)
		return err;
	return prereqs(res, lane, apply, fix, opts, NULL);
}

static int queue_record(struct kb_result *res, struct lane *lane, const git_oid *tree,
			const struct kb_variant *variant, const struct kb_fix *fix);

/*
 * The commits the fix's message names beside its own (`Commit fa8b18ed
 * didn't ...`, `Fixes: ...`) that the branch's commit does not hold as
 * such: one note each, the candidates a maintainer looks at first.
 */
static int message_names(struct kb_buf *notes, struct lane *lane, const struct kb_fix *fix)
{
	const char *body = fix->patch && fix->patch->body ? fix->patch->body : "", *p;
	struct kb_history_ref *refs = NULL;
	size_t nrefs = 0, i, k, said = 0;
	int err;

	if ((err = kb_history_message_refs(&refs, &nrefs, body)) < 0)
		return err;
	for (p = body; *p && said < 4; p++) {
		char hex[GIT_OID_HEXSZ + 1];
		git_object *obj = NULL;
		git_oid id;
		bool own = false, has = false;
		size_t n;
		if (!((!strncasecmp(p, "commit ", 7) && (k = 7)) || (!strncmp(p, "Fixes: ", 7) && (k = 7))) ||
		    (p != body && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			continue;
		n = strspn(p + k, "0123456789abcdef");
		if (n < 7 || n > 40 || isalnum((unsigned char)p[k + n]))
			continue;
		snprintf(hex, sizeof(hex), "%.*s", (int)n, p + k);
		for (i = 0; i < nrefs && !own; i++)
			own = !strncmp(refs[i].hex, hex, n < strlen(refs[i].hex) ? n : strlen(refs[i].hex));
		own |= fix->upstream && !strncmp(fix->upstream, hex, n);
		own |= fix->patch && fix->patch->from_commit && !strncmp(fix->patch->from_commit, hex, n);
		if (own)
			continue;
		if (git_oid_fromstrn(&id, hex, n) == 0 &&
		    git_object_lookup_prefix(&obj, lane->repo, &id, n, GIT_OBJECT_COMMIT) == 0) {
			const git_oid *c = git_object_id(obj);
			has = git_oid_equal(c, git_commit_id(lane->base)) ||
			      git_graph_descendant_of(lane->repo, git_commit_id(lane->base), c) == 1;
		}
		git_object_free(obj);
		if (has)
			continue;
		kb_buf_printf(notes, "the fix's message names commit %s, which the branch does not hold "
			      "as such: a candidate prerequisite\n", hex);
		said++;
		p += k + n - 1;
	}
	kb_error_clear();
	free(refs);
	return 0;
}

/*
 * The variant applies only by fuzz over context lines the tree lacks
 * (witness.h: kb_fuzz_gaps()): fuzz is a witness too, and here it says a
 * change the fix builds on is missing. A conflict, naming the lines, the
 * commits of the fix's own history that wrote them (prereq.h), and the
 * commits its message names that the branch lacks.
 */
static int fuzz_conflict(struct kb_result *res, struct lane *lane, const struct kb_apply *apply,
			 const struct kb_variant *variant, const struct kb_fuzz_gap *gaps,
			 size_t ngaps, const struct kb_branch *branch, const struct kb_fix *fix,
			 const struct kb_backport_opts *opts)
{
	struct kb_buf notes = KB_BUF_INIT;
	char *described = NULL;
	bool *pick = NULL;
	size_t f, i, k, base = 0;
	int err;

	res->status = KB_STATUS_CONFLICT;
	if ((err = set_str(&res->variant, variant->name)) < 0 ||
	    (err = set_detail(res, "variant '%s' does not apply: hunk %zu of '%s' applies only by fuzz "
			      "over its context line '%.*s', which the tree lacks: a change it builds on "
			      "is missing", variant->name, gaps[0].hunk + 1, gaps[0].path,
			      (int)gaps[0].line->len, gaps[0].line->text)) < 0 ||
	    !(described = kb_apply_describe(apply, true)))
		goto nomem;
	kb_buf_puts(&notes, described);
	for (i = 0; i < ngaps; i++)
		kb_buf_printf(&notes, "hunk %zu of '%s' dropped its context line '%.*s' by fuzz; the tree "
			      "has no such line, and it names '%.*s' as the fix's change does: a "
			      "prerequisite is missing\n", gaps[i].hunk + 1, gaps[i].path,
			      (int)gaps[i].line->len, gaps[i].line->text, (int)gaps[i].name_len,
			      gaps[i].name);
	if ((err = message_names(&notes, lane, fix)) < 0)
		goto done;
	if (!notes.ptr)
		goto nomem;
	free(res->notes);
	res->notes = kb_buf_detach(&notes);
	if ((err = kb_reproduce(&res->reproduce, branch, fix, res, NULL)) < 0 ||
	    (err = set_placements(res, apply, variant)) < 0)
		goto done;
	if (!(pick = calloc(res->nhunks + 1, sizeof(*pick))))
		goto nomem;
	for (f = 0; f < apply->patch->nfiles; f++) {
		size_t n = apply->files[f].hunks ? apply->files[f].used->nhunks : 0;
		for (i = 0; i < ngaps; i++)
			if (gaps[i].file == f && base + gaps[i].hunk < res->nhunks) {
				pick[base + gaps[i].hunk] = true;
				res->hunks[base + gaps[i].hunk].status = "failed";
			}
		base += n;
	}
	for (k = 0; k < res->nhunks; k++)
		if (pick[k])
			res->hunks[k].line = 0;
	err = prereqs(res, lane, apply, fix, opts, pick);
	goto done;
nomem:
	err = kb_error_oom();
done:
	free(pick);
	free(described);
	kb_buf_release(&notes);
	return err;
}

/* Applies, unless fuzz over a missing line says otherwise: *gaps then lists why. */
static int applies_cleanly(bool *ok, struct kb_fuzz_gap **gaps, size_t *ngaps, struct lane *lane,
			   const struct kb_apply *apply)
{
	int err;

	*ok = false;
	*gaps = NULL;
	*ngaps = 0;
	if (apply->state != KB_FILE_APPLIES)
		return 0;
	if ((err = kb_fuzz_gaps(gaps, ngaps, lane->src, apply)) < 0)
		return err;
	*ok = !*ngaps;
	return 0;
}

/*
 * The variants whose hunks an applied look used, in fix order: `variant`
 * when some file used its own, and each one a file borrowed from. *named:
 * the one to name, `variant`, or the one other variant every file used.
 */
static int used_variants(const struct kb_variant ***out, size_t *n,
			 const struct kb_variant **named, const struct kb_apply *apply,
			 const struct kb_variant *variant, const struct kb_fix *fix)
{
	size_t f, v;
	bool own = false;

	*n = 0;
	KB_ERROR_CHECK_ALLOC(*out = calloc(fix->nvariants + 1, sizeof(**out)));
	for (f = 0; f < apply->patch->nfiles; f++)
		own |= !apply->files[f].from;
	for (v = 0; v < fix->nvariants; v++) {
		const struct kb_variant *x = &fix->variants[v];
		bool used = x == variant && own;
		for (f = 0; f < apply->patch->nfiles && !used; f++)
			used = apply->files[f].from && !strcmp(apply->files[f].from, x->name);
		if (used)
			(*out)[(*n)++] = x;
	}
	*named = !own && *n == 1 ? (*out)[0] : variant;
	return 0;
}

/* `used`: the variants whose hunks `apply` took (used_variants()), for the message. */
static int commit_result(struct kb_result *res, struct lane *lane,
			 const struct kb_apply *apply, const struct kb_variant *variant,
			 const struct kb_variant *const *used, size_t nused,
			 const struct kb_fix *fix, bool dry_run)
{
	git_signature *author = NULL, *committer = NULL;
	char *message = NULL, *refname = NULL;
	git_oid tree, commit;
	int err;

	if (lane->queue) {
		if ((err = kb_apply_write_tree(&tree, lane->repo, lane->tree, apply, false)) < 0)
			return err;
		if (git_oid_equal(&tree, git_tree_id(lane->tree))) {
			res->status = KB_STATUS_ALREADY_APPLIED;
			return 0;
		}
		return queue_record(res, lane, &tree, variant, fix);
	}
	if ((err = kb_backport_ref(&refname, fix->id, res->branch)) < 0 ||
	    (err = kb_ref_check_namespace(lane->repo, refname)) < 0 ||
	    (!dry_run && (err = kb_ref_check_lock(lane->repo, refname)) < 0) ||
	    (err = kb_apply_write_tree(&tree, lane->repo, lane->tree, apply, false)) < 0)
		goto done;
	/* every hunk was already there: an empty commit would say otherwise */
	if (git_oid_equal(&tree, git_tree_id(lane->tree))) {
		res->status = KB_STATUS_ALREADY_APPLIED;
		goto done;
	}
	if ((err = kb_commit_message_variants(&message, fix, used, nused)) < 0 ||
	    (err = kb_commit_author(&author, fix)) < 0 ||
	    (err = kb_committer(&committer, lane->repo)) < 0)
		goto done;
	/* a dry run stops before the commit: no ref may name an object that
	 * only ever lived in memory */
	if (!dry_run && (err = kb_commit_backport(&commit, &res->created, lane->repo, refname,
				      lane->base, &tree, message, author, committer)) < 0)
		goto done;
	if (!dry_run)
		git_oid_tostr(res->commit, sizeof(res->commit), &commit);
	res->ref = refname;
	refname = NULL;
	res->status = KB_STATUS_APPLIED;
done:
	git_signature_free(author);
	git_signature_free(committer);
	free(message);
	free(refname);
	return err;
}

static int applied(struct kb_result *res, struct lane *lane, const struct kb_apply *apply,
		   const struct kb_variant *variant, const struct kb_fix *fix, bool dry_run)
{
	char *warning;
	int err;

	const struct kb_variant **used = NULL, *named = variant;
	struct kb_buf also = KB_BUF_INIT;
	size_t nused = 0, i;

	if ((err = used_variants(&used, &nused, &named, apply, variant, fix)) < 0)
		return err;
	for (i = 0; i < nused; i++)
		if (used[i] != named)
			kb_buf_printf(&also, "%s'%s'", also.size ? ", " : " (with hunks of variant ",
				      used[i]->name);
	if (also.size)
		kb_buf_putc(&also, ')');
	err = set_str(&res->variant, named->name);
	if (!err)
		err = commit_result(res, lane, apply, variant, used, nused, fix, dry_run);
	free(used);
	if (err < 0) {
		kb_buf_release(&also);
		return err;
	}
	free(res->notes);
	res->notes = kb_apply_describe(apply, false);
	if (!res->notes || (err = set_placements(res, apply, variant)) < 0) {
		kb_buf_release(&also);
		return kb_error_oom();
	}
	if (res->status == KB_STATUS_ALREADY_APPLIED) {
		kb_buf_release(&also);
		return set_detail(res, "every hunk of variant '%s' is already in the tree",
				  named->name);
	}
	if (!(warning = kb_apply_warning(apply))) {
		kb_buf_release(&also);
		return kb_error_oom();
	}
	err = set_detail(res, "%s variant '%s'%s%s%s%s", dry_run ? "would apply" :
			 res->created ? "applied" : "unchanged, already backported with",
			 named->name, also.size ? also.ptr : "", res->forced ? " (forced)" : "",
			 *warning ? "; warning: " : "", warning);
	free(warning);
	kb_buf_release(&also);
	return err;
}

static int already_applied(struct kb_result *res, const struct kb_survey *survey,
			   const struct kb_branch *branch)
{
	res->status = KB_STATUS_ALREADY_APPLIED;
	free(res->notes);
	if (!(res->notes = kb_apply_describe(survey->present_apply, false)) ||
	    set_str(&res->variant, survey->present->name) < 0 ||
	    set_placements(res, survey->present_apply, survey->present) < 0)
		return kb_error_oom();
	return set_detail(res, "the changes of variant '%s' are already in '%s'",
			  survey->present->name, branch->ref);
}

static int forced(struct kb_result *res, struct lane *lane, const struct kb_variant *variant,
		  const struct kb_branch *branch, const struct kb_fix *fix,
		  const struct kb_backport_opts *opts)
{
	struct kb_apply apply = { 0 };
	int err;

	if ((err = kb_apply_patch(&apply, lane->src, variant->patch, variant->reverse,
				  &opts->locate)) < 0)
		goto done;
	if (apply.state == KB_FILE_APPLIES) {
		struct kb_fuzz_gap *gaps = NULL;
		size_t ngaps = 0;
		bool ok;
		if ((err = applies_cleanly(&ok, &gaps, &ngaps, lane, &apply)) == 0)
			err = ok ? applied(res, lane, &apply, variant, fix, opts->dry_run) :
			      fuzz_conflict(res, lane, &apply, variant, gaps, ngaps, branch, fix, opts);
		free(gaps);
	} else if (apply.state == KB_FILE_PARTIAL)
		err = partial(res, &apply, variant, "");
	else
		err = conflict(res, &apply, lane, branch, fix, variant, opts);
done:
	kb_apply_release(&apply);
	return err;
}

/* "ef2c1d01b3f5 (v2.6.32.30)" */
static void history_commit_words(struct kb_buf *b, const struct kb_history_commit *c)
{
	kb_buf_printf(b, "%.12s", c->id);
	if (c->tag)
		kb_buf_printf(b, " (%s)", c->tag);
}

/* "in since ef2c1d01b3f5 (v2.6.32.30): its message names ..." */
static void history_in_words(struct kb_buf *b, const struct kb_history_answer *h)
{
	kb_buf_puts(b, "in since ");
	history_commit_words(b, &h->commit);
	kb_buf_printf(b, ": %s", h->commit.evidence ? h->commit.evidence : "");
}

/* "; its lines were changed later by X ("subject", tag), ..." */
static void history_changed_words(struct kb_buf *b, const struct kb_history_answer *h)
{
	size_t i;

	if (!h->nchanged) {
		kb_buf_puts(b, "; the tree no longer holds all of its changes");
		return;
	}
	kb_buf_puts(b, "; its lines were changed later by ");
	for (i = 0; i < h->nchanged; i++) {
		const struct kb_history_commit *c = &h->changed[i];
		kb_buf_printf(b, "%s%.12s (\"%s\"%s%s)", i ? ", " : "", c->id,
			      c->subject ? c->subject : "", c->tag ? ", " : "", c->tag ? c->tag : "");
	}
}

/* The variant the history's answer is about: the one whose patch-id it
 * has, else the one partly in, else the first. */
static const struct kb_variant *history_variant(const struct kb_survey *survey,
						const struct kb_fix *fix,
						const struct kb_history_answer *h)
{
	const struct kb_variant *variant = h->variant ? kb_fix_variant(fix, h->variant) : NULL;

	if (!variant)
		variant = survey->partly ? survey->partly : &fix->variants[0];
	return variant;
}

/* Every hunk's post-image is in the tree (some found near their place). */
static bool tree_holds_all(const struct kb_witness *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->v[i].state != KB_TREE_POST)
			return false;
	return w->n > 0;
}

/* Lines of the tree around a hunk's place, on each side, that must have
 * stood so before the fix for an older copy to be named. */
#define OLDER_COPY_PAD 2

/*
 * Do the tree's lines at the hunk's place stand as they stood before the
 * commit that brought the fix in? An older copy of the file put back, not
 * a rework: only lines the history held before the fix prove it.
 */
static int older_copy(bool *yes, struct lane *lane, const struct kb_history_answer *h,
		      const struct kb_fix *fix, const struct kb_backport_opts *opts,
		      const struct kb_hunk_witness *w)
{
	struct kb_lines lines = KB_LINES_INIT;
	struct kb_buf text = KB_BUF_INIT;
	const char *buf;
	size_t len, from, to, i, words = 0;
	int err;

	*yes = false;
	if (!w->line || (err = kb_source_read(&buf, &len, lane->src, w->path)) < 0 ||
	    (err = kb_lines_split(&lines, buf, len)) < 0) {
		kb_error_clear();
		return 0;
	}
	from = w->line - 1 > OLDER_COPY_PAD ? w->line - 1 - OLDER_COPY_PAD : 0;
	to = w->line - 1 + w->span + OLDER_COPY_PAD;
	if (to > lines.n)
		to = lines.n;
	for (i = from; i < to; i++) {
		words += lines.v[i].len > 2;
		kb_buf_put(&text, lines.v[i].ptr, lines.v[i].len);
		kb_buf_putc(&text, '\n');
	}
	err = words < 3 ? 0 : !text.ptr ? kb_error_oom() :
	      kb_history_older_copy(yes, opts->history, lane->repo, h, fix, w->path, text.ptr,
				    text.size);
	if (err < 0 && err != KB_ENOMEM) {
		kb_error_clear();
		err = 0;
	}
	kb_buf_release(&text);
	kb_lines_release(&lines);
	return err;
}

/* The hunk's lines stand as before the fix: its pre-image cleanly there,
 * or every line it removed back, or nothing it added left and the lines
 * there as the history held them before the fix. The last only at the
 * hunk's own place: where most of its context stands (elsewhere, old code
 * unrelated to it would pass for an older copy). */
static int hunk_undone(bool *undone, struct lane *lane, const struct kb_history_answer *h,
		       const struct kb_fix *fix, const struct kb_backport_opts *opts,
		       const struct kb_hunk_witness *w)
{
	*undone = w->fate == KB_FATE_GONE &&
		  (w->state == KB_TREE_PRE || (w->removed && w->back == w->removed));
	if (*undone || w->fate != KB_FATE_GONE || w->state != KB_TREE_NEITHER ||
	    !w->context || 2 * w->context_here < w->context)
		return 0;
	return older_copy(undone, lane, h, fix, opts, w);
}

/*
 * The lines of the hunks the tree shows undone, file by file: a file
 * counts when every hunk of it that is not in is undone (a later commit
 * that reworked some of them, kept others, is no undoing). *all: every
 * hunk of the patch is undone, none in: the tree holds the fix's pre-image.
 */
static int undone_lines(struct kb_history_line **out, size_t *n, bool *all,
			const struct kb_witness *w, const struct kb_patch *patch, struct lane *lane,
			const struct kb_history_answer *h, const struct kb_fix *fix,
			const struct kb_backport_opts *opts)
{
	size_t f, hk, i, k = 0, alloc = 0, nundone = 0;
	bool *undone = calloc(w->n + 1, sizeof(*undone));
	int err = 0;

	*out = NULL;
	*n = 0;
	*all = w->n > 0;
	KB_ERROR_CHECK_ALLOC(undone);
	for (f = 0; f < patch->nfiles && !err; f++) {
		const struct kb_file_patch *fp = &patch->files[f];
		size_t first = k;
		bool whole = true;
		for (hk = 0, nundone = 0; hk < fp->nhunks && !err; hk++, k++) {
			if (w->v[k].fate == KB_FATE_IN) {
				*all = false;
				continue;
			}
			if ((err = hunk_undone(&undone[k], lane, h, fix, opts, &w->v[k])) < 0)
				break;
			nundone += undone[k];
			whole &= undone[k];
		}
		*all &= whole;
		if (err || !whole || !nundone)
			continue;
		for (hk = 0; hk < fp->nhunks && !err; hk++) {
			const struct kb_hunk *x = &fp->hunks[hk];
			if (!undone[first + hk])
				continue;
			for (i = 0; i < x->nlines && !err; i++) {
				if (x->lines[i].type == KB_LINE_CONTEXT ||
				    !kb_hunk_line_distinctive(x, i))
					continue;
				if ((err = KB_ARRAY_GROW(*out, alloc, *n + 1)) < 0)
					break;
				(*out)[(*n)++] = (struct kb_history_line){
					kb_file_patch_path(fp), x->lines[i].text, x->lines[i].len,
					x->lines[i].type == KB_LINE_ADD };
			}
		}
	}
	free(undone);
	return err;
}

/* "hunk 2 of 'f.c': gone (...)" for each hunk the tree does not hold as written. */
static void witness_words(struct kb_buf *b, const struct kb_witness *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		const struct kb_hunk_witness *x = &w->v[i];
		if (x->fate == KB_FATE_IN)
			continue;
		kb_buf_printf(b, "in the tree: hunk %zu of '%s' %s (%s", x->hunk, x->path,
			      x->fate == KB_FATE_CHANGED ? "is there changed" :
			      x->fate == KB_FATE_GONE ? "is undone" : "is not there",
			      kb_tree_state_name(x->state));
		if (x->added)
			kb_buf_printf(b, "; of the %zu lines it added %zu kept, %zu changed",
				      x->added, x->kept, x->changed);
		if (x->removed)
			kb_buf_printf(b, "; of the %zu it removed %zu back", x->removed, x->back);
		kb_buf_printf(b, ")%s", x->line ? "" : "\n");
		if (x->line)
			kb_buf_printf(b, " at line %zu\n", x->line);
	}
}

/*
 * Does the tree show the fix undone? Yes where some variant's every hunk
 * stands as before it (the fix's pre-image is there: not in, whatever
 * commit did it, a merge or an import the history cannot name), or where a
 * file of `variant` (the history's) does and a later commit took its lines
 * back. The commit is named in h->undone when one is found. *w: the
 * witness of `variant`, for the notes.
 */
static int tree_undoes(bool *undone, struct kb_witness *w, struct lane *lane,
		       const struct kb_variant *variant, struct kb_history_answer *h,
		       const struct kb_fix *fix, const struct kb_backport_opts *opts)
{
	struct kb_witness other = KB_WITNESS_INIT;
	struct kb_history_line *lines = NULL;
	size_t nlines = 0, v;
	bool all = false;
	int err;

	*undone = false;
	if ((err = kb_witness_patch(w, lane->src, variant->patch)) < 0 ||
	    (err = undone_lines(&lines, &nlines, &all, w, variant->patch, lane, h, fix, opts)) < 0)
		goto done;
	for (v = 0; v < fix->nvariants && !all; v++) {
		if (&fix->variants[v] == variant)
			continue;
		free(lines);
		lines = NULL;
		kb_witness_release(&other);
		if ((err = kb_witness_patch(&other, lane->src, fix->variants[v].patch)) < 0 ||
		    (err = undone_lines(&lines, &nlines, &all, &other, fix->variants[v].patch,
					lane, h, fix, opts)) < 0)
			goto done;
		if (!all)
			nlines = 0;	/* another variant counts only whole */
	}
	if ((err = kb_history_undone(&h->undone, opts->history, lane->repo, h, fix, lines,
				     nlines)) == KB_ENOMEM)
		goto done;
	kb_error_clear();
	err = 0;
	*undone = all || h->undone.id[0];
done:
	kb_witness_release(&other);
	free(lines);
	return err;
}

/*
 * The history says the fix is in; the tree decides. Where the tree shows
 * it undone (a file of the fix whose hunks all stand as before it, and a
 * later commit that took its lines back), *overruled is set: the content
 * answers, and history_overruled() says why. Otherwise: already-applied,
 * naming the commit; the content agreeing says so, else the notes keep
 * what the content alone saw and the later commits that changed the
 * fix's lines are named.
 */
static int history_in(bool *overruled, struct kb_result *res, struct lane *lane,
		      const struct kb_survey *survey, const struct kb_branch *branch,
		      const struct kb_fix *fix, const struct kb_backport_opts *opts)
{
	struct kb_history_answer *h = res->history;
	const struct kb_variant *variant;
	const struct kb_apply *look;
	struct kb_witness w = KB_WITNESS_INIT;
	struct kb_buf d = KB_BUF_INIT, notes = KB_BUF_INIT;
	char *described = NULL;
	int err;

	*overruled = false;
	if (survey->present) {
		if ((err = already_applied(res, survey, branch)) < 0)
			return err;
		kb_buf_printf(&d, "%s; history: ", res->detail);
		history_in_words(&d, h);
		goto done;
	}
	variant = history_variant(survey, fix, h);
	if ((err = tree_undoes(overruled, &w, lane, variant, h, fix, opts)) < 0 || *overruled)
		goto done;
	if ((err = kb_history_changed(h, opts->history, lane->repo, fix)) == KB_ENOMEM)
		goto done;
	kb_error_clear();
	err = 0;
	res->status = KB_STATUS_ALREADY_APPLIED;
	look = survey_of(survey, fix, variant);
	history_in_words(&d, h);
	if (tree_holds_all(&w))
		kb_buf_puts(&d, "; the tree holds every hunk of it");
	else
		history_changed_words(&d, h);
	described = kb_apply_describe(look, true);
	KB_ERROR_CHECK_ALLOC(described);
	kb_buf_printf(&notes, "the content alone, in '%s': variant '%s' %s\n%s", branch->ref,
		      variant->name, kb_file_state_name(look->state), described);
	witness_words(&notes, &w);
	free(described);
	free(res->notes);
	res->notes = kb_buf_detach(&notes);
	if ((err = set_str(&res->variant, h->variant)) < 0 ||
	    (err = set_placements(res, look, variant)) < 0)
		goto done;
done:
	kb_witness_release(&w);
	kb_buf_release(&notes);
	if (err < 0 || *overruled) {
		kb_buf_release(&d);
		return err;
	}
	KB_ERROR_CHECK_ALLOC(d.ptr);
	free(res->detail);
	res->detail = kb_buf_detach(&d);
	return 0;
}

/* The tree overruled the history (history_in()): its first note, and the
 * detail says both witnesses. */
static int history_overruled(struct kb_result *res)
{
	const struct kb_history_answer *h = res->history;
	struct kb_buf b = KB_BUF_INIT, d = KB_BUF_INIT;

	kb_buf_puts(&b, "history: brought in by ");
	history_commit_words(&b, &h->commit);
	kb_buf_printf(&b, " (%s), ", h->commit.evidence ? h->commit.evidence : "");
	if (h->undone.id[0]) {
		kb_buf_puts(&b, "undone since by ");
		history_commit_words(&b, &h->undone);
		kb_buf_printf(&b, " (\"%s\"): its lines stand as before the fix; the tree decides\n",
			      h->undone.subject ? h->undone.subject : "");
		kb_buf_printf(&d, "%s; brought in by %.12s, undone by %.12s",
			      res->detail ? res->detail : "", h->commit.id, h->undone.id);
	} else {
		kb_buf_puts(&b, "but every line of it stands as before the fix, and no later commit "
			    "of the branch's own took them back (a merge did, or history not read): "
			    "the tree decides\n");
		kb_buf_printf(&d, "%s; brought in by %.12s, undone since (the tree holds the fix's "
			      "pre-image)", res->detail ? res->detail : "", h->commit.id);
	}
	kb_buf_puts(&b, res->notes ? res->notes : "");
	if (!b.ptr || !d.ptr) {
		kb_buf_release(&b);
		kb_buf_release(&d);
		return kb_error_oom();
	}
	free(res->notes);
	res->notes = kb_buf_detach(&b);
	free(res->detail);
	res->detail = kb_buf_detach(&d);
	return 0;
}

/* "brought in by X (...), reverted by Y (...)" */
static void reverted_words(struct kb_buf *b, const struct kb_history_answer *h)
{
	if (h->commit.id[0]) {
		kb_buf_puts(b, "brought in by ");
		history_commit_words(b, &h->commit);
		kb_buf_printf(b, " (%s), ", h->commit.evidence ? h->commit.evidence : "");
	}
	kb_buf_puts(b, "reverted by ");
	history_commit_words(b, &h->revert);
	kb_buf_printf(b, " (%s)", h->revert.evidence ? h->revert.evidence : "");
}

/*
 * The history says the fix was reverted and the tree does not hold it: a
 * maintainer decides before it is queued again. Nothing is written; what
 * the content would do is said.
 */
static int reverted(struct kb_result *res, const struct kb_survey *survey,
		    const struct kb_fix *fix, const struct kb_variant *const *list, size_t n)
{
	const struct kb_history_answer *h = res->history;
	const char *would = "does not apply";
	struct kb_buf d = KB_BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		enum kb_file_state st = survey_of(survey, fix, list[i])->state;
		if (st == KB_FILE_APPLIES) {
			would = "would apply";
			break;
		}
		if (st == KB_FILE_PARTIAL)
			would = "is partly in";
	}
	res->status = KB_STATUS_REVERTED;
	kb_buf_printf(&d, "reverted by %.12s", h->revert.id);
	if (h->revert.tag)
		kb_buf_printf(&d, " (%s)", h->revert.tag);
	if (h->commit.id[0])
		kb_buf_printf(&d, " after %.12s brought it in", h->commit.id);
	kb_buf_printf(&d, ": not applied again (the fix %s); --reapply to carry it anyway", would);
	KB_ERROR_CHECK_ALLOC(d.ptr);
	free(res->detail);
	res->detail = kb_buf_detach(&d);
	return 0;
}

/* What a history that is not `in` adds to the notes, first. */
static int history_notes(struct kb_result *res, const char *failed)
{
	const struct kb_history_answer *h = res->history;
	struct kb_buf b = KB_BUF_INIT;

	if (failed) {
		kb_buf_printf(&b, "history: not looked at: %s\n", failed);
	} else if (h && h->state == KB_HISTORY_REVERTED) {
		kb_buf_puts(&b, "history: ");
		reverted_words(&b, h);
		kb_buf_puts(&b, res->status == KB_STATUS_REVERTED ?
			    ": not applied again unless asked (--reapply)\n" :
			    res->status == KB_STATUS_ALREADY_APPLIED ?
			    ": yet the tree holds it, the tree decides\n" :
			    ": not in, applied again as asked (--reapply, or the fix's reapply: true)\n");
	} else {
		return 0;
	}
	kb_buf_puts(&b, res->notes ? res->notes : "");
	KB_ERROR_CHECK_ALLOC(b.ptr);
	free(res->notes);
	res->notes = kb_buf_detach(&b);
	return 0;
}

/* The branch's history at `tip` (none for a pre-fix branch: its lane is the content's). */
static int history_look(struct kb_result *res, char **failed, git_repository *repo,
			const git_oid *tip, const struct kb_branch *branch,
			const struct kb_fix *fix, const struct kb_backport_opts *opts)
{
	struct kb_history_answer *a;
	int err;

	*failed = NULL;
	if (!opts->history || branch->pre_fix)
		return 0;
	a = calloc(1, sizeof(*a));
	KB_ERROR_CHECK_ALLOC(a);
	if ((err = kb_history_find(a, opts->history, repo, tip, fix)) < 0) {
		free(a);
		if (err == KB_ENOMEM)
			return err;
		*failed = kb_strdup(kb_error_last());
		kb_error_clear();
		return *failed ? 0 : kb_error_oom();
	}
	res->history = a;
	return 0;
}

/*
 * Content finds what is in, not only where it was: a variant every hunk of
 * which the tree holds (witness.h), some by their added lines in order near
 * their place within its function (a squashed vendor tree, code moved a few
 * lines), is in. *found is its index, or -1.
 */
static int near_variant(long *found, struct kb_witness *w, struct kb_source *src,
			const struct kb_fix *fix)
{
	size_t v, i;
	bool all, near;
	int err;

	*found = -1;
	for (v = 0; v < fix->nvariants; v++) {
		const struct kb_patch *patch = fix->variants[v].patch;
		size_t f;
		kb_witness_release(w);
		/* file by file: the first hunk not in ends the look at this variant */
		for (f = 0, all = true; f < patch->nfiles && all; f++) {
			size_t from = w->n;
			if ((err = kb_witness_file(w, src, &patch->files[f])) < 0)
				return err;
			for (i = from; i < w->n; i++)
				all &= w->v[i].state == KB_TREE_POST;
		}
		for (i = 0, all &= w->n > 0, near = false; all && i < w->n; i++)
			near |= w->v[i].near;
		if (all && near) {
			*found = (long)v;
			return 0;
		}
	}
	kb_witness_release(w);
	return 0;
}

/* Lines of the hunk before its first added one (where it would insert,
 * from the start of its place). */
static size_t first_added(const struct kb_apply *apply, const struct kb_hunk_witness *x)
{
	size_t f, i, n = 0;

	for (f = 0; f < apply->patch->nfiles; f++) {
		const struct kb_file_patch *fp = &apply->patch->files[f];
		if (strcmp(kb_file_patch_path(fp), x->path) || x->hunk > fp->nhunks)
			continue;
		for (i = 0; i < fp->hunks[x->hunk - 1].nlines; i++) {
			if (fp->hunks[x->hunk - 1].lines[i].type == KB_LINE_ADD)
				break;
			n += fp->hunks[x->hunk - 1].lines[i].type == KB_LINE_CONTEXT;
		}
	}
	return n;
}

/* already-applied by near_variant(): each hunk's place said. */
static int already_near(struct kb_result *res, const struct kb_survey *survey,
			const struct kb_fix *fix, const struct kb_variant *variant,
			const struct kb_witness *w, const struct kb_branch *branch)
{
	struct kb_buf notes = KB_BUF_INIT;
	size_t i;
	int err;

	res->status = KB_STATUS_ALREADY_APPLIED;
	if ((err = set_str(&res->variant, variant->name)) < 0 ||
	    (err = set_placements(res, survey_of(survey, fix, variant), variant)) < 0)
		return err;
	for (i = 0; i < w->n; i++) {
		const struct kb_hunk_witness *x = &w->v[i];
		if (x->near)
			kb_buf_printf(&notes, "hunk %zu of '%s' is in by its lines: the first it adds "
				      "at line %zu, every one in order within its function, where the "
				      "patch puts them at line %zu\n", x->hunk, x->path, x->near_line,
				      x->line + first_added(survey_of(survey, fix, variant), x));
		else
			kb_buf_printf(&notes, "hunk %zu of '%s' is already in, at line %zu\n",
				      x->hunk, x->path, x->line);
		if (i < res->nhunks) {
			res->hunks[i].status = "in";
			res->hunks[i].line = x->line;
			res->hunks[i].offset = x->offset;
		}
	}
	KB_ERROR_CHECK_ALLOC(notes.ptr);
	free(res->notes);
	res->notes = kb_buf_detach(&notes);
	return set_detail(res, "the changes of variant '%s' are already in '%s', some a few lines "
			  "from where the patch expects them", variant->name, branch->ref);
}

/* What the tree is, from the survey and the candidates' looks at it. */
static int decide_content(struct kb_result *res, struct lane *lane, const struct kb_survey *survey,
			  const struct kb_branch *branch, const struct kb_fix *fix,
			  const struct kb_backport_opts *opts)
{
	const struct kb_variant **list = NULL, *gapped = NULL;
	struct kb_fuzz_gap *gaps = NULL;
	struct kb_witness w = KB_WITNESS_INIT;
	const char *where;
	size_t i, n = 0, ngaps = 0;
	long near;
	int err;

	if (survey->present)
		return already_applied(res, survey, branch);
	if ((err = near_variant(&near, &w, lane->src, fix)) < 0)
		return err;
	if (near >= 0) {
		err = already_near(res, survey, fix, &fix->variants[near], &w, branch);
		kb_witness_release(&w);
		return err;
	}
	if ((err = kb_detect_vulnerable(&where, lane->src, fix)) < 0)
		return err;
	if (!where && survey->partly)
		return partial(res, survey->partly_apply, survey->partly,
			       "the vulnerable code is gone, but only part of the fix is in: ");
	if (!where) {
		res->status = KB_STATUS_NOT_AFFECTED;
		return set_detail(res, "the vulnerable code is not in '%s'", branch->ref);
	}
	if ((err = candidates(&list, &n, res, lane->src, branch, fix)) < 0)
		goto done;
	if (res->history && res->history->state == KB_HISTORY_REVERTED && !opts->reapply &&
	    !fix->reapply) {
		err = reverted(res, survey, fix, list, n);
		goto done;
	}
	if (res->forced) {
		/* a forced variant is that variant's own hunks, none borrowed */
		err = forced(res, lane, list[0], branch, fix, opts);
		goto done;
	}
	for (i = 0; i < n; i++) {
		struct kb_fuzz_gap *g = NULL;
		size_t ng = 0;
		bool ok;
		if ((err = applies_cleanly(&ok, &g, &ng, lane, survey_of(survey, fix, list[i]))) < 0)
			goto done;
		if (ok) {
			free(gaps);
			err = applied(res, lane, survey_of(survey, fix, list[i]), list[i], fix,
				      opts->dry_run);
			goto done;
		}
		if (ng && !gaps) {
			gaps = g;
			ngaps = ng;
			gapped = list[i];
		} else {
			free(g);
		}
	}
	if (gapped) {
		err = fuzz_conflict(res, lane, survey_of(survey, fix, gapped), gapped, gaps, ngaps,
				    branch, fix, opts);
		free(gaps);
		goto done;
	}
	for (i = 0; i < n; i++)
		if (survey_of(survey, fix, list[i])->state == KB_FILE_PARTIAL) {
			err = partial(res, survey_of(survey, fix, list[i]), list[i], "");
			goto done;
		}
	if (n)
		err = conflict(res, survey_of(survey, fix, list[0]), lane, branch, fix, list[0],
			       opts);
	else
		err = no_candidate(res, lane->src, branch, fix, &opts->locate);
done:
	free(list);
	return err;
}

/* The history proposes (history_in()), the tree decides (decide_content()). */
static int decide(struct kb_result *res, struct lane *lane, const struct kb_survey *survey,
		  const struct kb_branch *branch, const struct kb_fix *fix,
		  const struct kb_backport_opts *opts)
{
	bool overruled = false;
	int err;

	if (res->history && res->history->state == KB_HISTORY_IN &&
	    ((err = history_in(&overruled, res, lane, survey, branch, fix, opts)) < 0 || !overruled))
		return err;
	if ((err = decide_content(res, lane, survey, branch, fix, opts)) < 0)
		return err;
	return overruled ? history_overruled(res) : 0;
}

/* The first line of the notes: why a pre-fix branch has no pre-fix lane. */
static int note_no_pre_fix(struct kb_result *res, const struct kb_branch *branch)
{
	struct kb_buf notes = KB_BUF_INIT;

	kb_buf_printf(&notes, "pre-fix: the fix is not in '%s': the branch itself is the "
		      "state before it, no pre-fix lane\n%s", branch->ref,
		      res->notes ? res->notes : "");
	KB_ERROR_CHECK_ALLOC(notes.ptr);
	free(res->notes);
	res->notes = kb_buf_detach(&notes);
	return 0;
}

/* Add a line to the notes. */
static int add_note(struct kb_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_note(struct kb_result *res, const char *fmt, ...)
{
	struct kb_buf notes = KB_BUF_INIT;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || kb_buf_puts(&notes, res->notes ? res->notes : "") < 0 ||
	    kb_buf_grow(&notes, (size_t)n + 1) < 0)
		goto nomem;
	va_start(ap, fmt);
	vsnprintf(notes.ptr + notes.size, (size_t)n + 1, fmt, ap);
	va_end(ap);
	notes.size += (size_t)n;
	if (kb_buf_putc(&notes, '\n') < 0)
		goto nomem;
	free(res->notes);
	res->notes = kb_buf_detach(&notes);
	return 0;
nomem:
	kb_buf_release(&notes);
	return kb_error_oom();
}

/* A commit in base..tip whose subject is the fix's: git am and cherry-pick keep it. */
static int subject_commit(git_oid *found, git_repository *repo, const git_oid *tip,
			  const git_oid *base, const char *subject)
{
	git_revwalk *walk = NULL;
	git_commit *c = NULL;
	git_oid id;
	int err, found_one = 0;

	if ((err = git_revwalk_new(&walk, repo)) < 0 || (err = git_revwalk_push(walk, tip)) < 0 ||
	    (err = git_revwalk_hide(walk, base)) < 0)
		goto done;
	while (!found_one && (err = git_revwalk_next(&id, walk)) == 0) {
		if ((err = git_commit_lookup(&c, repo, &id)) < 0)
			goto done;
		if ((found_one = subject && git_commit_summary(c) &&
				 !strcmp(git_commit_summary(c), subject)))
			git_oid_cpy(found, &id);
		git_commit_free(c);
		c = NULL;
	}
	if (err == GIT_ITEROVER)
		err = 0;
done:
	git_revwalk_free(walk);
	if (err < 0)
		return kb_error_git(err, "cannot walk the commits of the backport ref");
	return found_one;
}

/*
 * A commit with the fix's subject is a resolution only if its tree carries
 * every hunk of some variant (each hunk's state in the tree, witness.h):
 * half a resolution is no resolution. `how` says which hunks are missing.
 */
static int carries_every_hunk(bool *holds, bool *partly, struct kb_buf *how,
			      struct kb_source *src, const struct kb_fix *fix, const char *hex)
{
	struct kb_witness w = KB_WITNESS_INIT;
	size_t v, i, missing = 0;
	int err = 0;

	*holds = false;
	for (v = 0; v < fix->nvariants && !*holds && !err; v++) {
		if ((err = kb_witness_patch(&w, src, fix->variants[v].patch)) < 0)
			break;
		*holds = w.n > 0;
		for (i = 0; i < w.n; i++)
			*holds &= w.v[i].state == KB_TREE_POST;
		if (!*holds && v + 1 < fix->nvariants)
			kb_witness_release(&w);
	}
	if (err < 0 || *holds) {
		if (!err)
			err = kb_buf_printf(how, "its commit %.12s is '%s' and carries every hunk of the fix",
					    hex, fix->subject);
		kb_witness_release(&w);
		return err;
	}
	kb_buf_printf(how, "its commit %.12s is '%s', but its tree lacks", hex, fix->subject);
	for (i = 0; i < w.n; i++)
		*partly |= w.v[i].state == KB_TREE_POST;
	for (i = 0; i < w.n; i++)
		if (w.v[i].state != KB_TREE_POST)
			kb_buf_printf(how, "%s hunk %zu of '%s'", missing++ ? "," : "", w.v[i].hunk,
				      w.v[i].path);
	if (fix->nvariants > 1)
		kb_buf_printf(how, " (variant '%s', the last looked at)",
			      fix->variants[fix->nvariants - 1].name);
	kb_witness_release(&w);
	return 0;
}

/*
 * Does the tree of the commit `tip` (on the lane's base) hold the fix?
 * Yes when a variant is wholly in it, or the fix's vulnerable code is gone
 * from it; for a fix that names no vulnerable code, when a commit on the
 * base has the fix's subject. `how` says why, either way.
 */
static int holds_fix(bool *holds, bool *partly, struct kb_buf *how, struct lane *lane,
		     git_commit *tip,
		     const struct kb_fix *fix, const struct kb_backport_opts *opts)
{
	struct kb_survey survey = { 0 };
	struct kb_source *src = NULL;
	git_tree *tree = NULL;
	const char *where = NULL;
	git_oid found;
	int err;

	*holds = false;
	if ((err = git_commit_tree(&tree, tip)) < 0) {
		err = kb_error_git(err, "cannot read the tree of the backport ref");
		goto done;
	}
	if ((err = kb_source_new(&src, lane->repo, tree)) < 0 ||
	    (err = kb_survey_fix(&survey, src, fix, &opts->locate)) < 0 ||
	    (!survey.present && (err = kb_detect_vulnerable(&where, src, fix)) < 0))
		goto done;
	if (survey.present) {
		*holds = true;
		err = kb_buf_printf(how, "variant '%s' is in its tree", survey.present->name);
	} else if (fix->nvulnerable) {
		*holds = !where;
		err = where ? kb_buf_printf(how, "the vulnerable code is still in '%s'", where) :
			      kb_buf_puts(how, "the vulnerable code is not in its tree");
	} else if ((err = subject_commit(&found, lane->repo, git_commit_id(tip),
					 git_commit_id(lane->base), fix->subject)) >= 0) {
		char hex[GIT_OID_HEXSZ + 1];
		*holds = err > 0;
		git_oid_tostr(hex, sizeof(hex), &found);
		err = *holds ? carries_every_hunk(holds, partly, how, src, fix, hex) :
			       kb_buf_printf(how, "no commit on it is '%s'", fix->subject);
	}
done:
	kb_survey_release(&survey);
	kb_source_free(src);
	git_tree_free(tree);
	return err;
}

/* The result's placements, gone. */
static void placements_free(struct kb_result *r)
{
	size_t i;

	for (i = 0; i < r->nhunks; i++) {
		free(r->hunks[i].path);
		free(r->hunks[i].moved);
		free(r->hunks[i].variant);
		free(r->hunks[i].changed_text);
		kb_prereqs_release(&r->hunks[i].needs);
	}
	free(r->hunks);
	r->hunks = NULL;
	r->nhunks = 0;
}

/* The conflict resolved by hand on `refname` at `hex`: that commit is the result. */
static int resolved(struct kb_result *res, char **refname, const char *hex, const char *how)
{
	char *was = res->detail;
	int err;

	res->detail = NULL;
	free(res->notes);
	res->notes = NULL;
	if ((err = set_detail(res, "resolved by hand: %s at %.12s holds the fix", *refname, hex)) < 0 ||
	    (err = add_note(res, "%s", how)) < 0 ||
	    (err = add_note(res, "kbackport alone: %s", was ? was : "conflict")) < 0)
		goto done;
	res->status = KB_STATUS_APPLIED;
	res->created = false;
	snprintf(res->commit, sizeof(res->commit), "%s", hex);
	free(res->ref);
	res->ref = *refname;
	*refname = NULL;
	free(res->variant);
	res->variant = NULL;
	free(res->reproduce);
	res->reproduce = NULL;
	placements_free(res);
done:
	free(was);
	return err;
}

/*
 * A conflict (or a partial fix) a person resolved with the commands of
 * `reproduce`: the backport ref is a commit on the lane's base (the
 * branch's commit, or its pre-fix commit) whose tree holds the fix. That
 * commit is the result, as one kbackport wrote would be (`build`, `test`
 * and `run` take it as the backport lane); a ref that is not on the base,
 * or does not hold the fix, is named in the notes and the conflict stays.
 */
static int by_hand(struct kb_result *res, struct lane *lane, const struct kb_branch *branch,
		   const struct kb_fix *fix, const struct kb_backport_opts *opts)
{
	struct kb_buf how = KB_BUF_INIT;
	char *refname = NULL;
	char hex[GIT_OID_HEXSZ + 1], base[GIT_OID_HEXSZ + 1];
	git_commit *tip = NULL;
	git_oid id;
	bool holds = false, partly = false;
	int err, on;

	if ((err = kb_backport_ref(&refname, fix->id, branch->name)) < 0)
		goto done;
	if ((err = git_reference_name_to_id(&id, lane->repo, refname)) == GIT_ENOTFOUND) {
		err = 0;
		goto done;
	}
	if (err < 0 || (err = git_commit_lookup(&tip, lane->repo, &id)) < 0) {
		err = kb_error_git(err, "cannot read '%s'", refname);
		goto done;
	}
	git_oid_tostr(hex, sizeof(hex), &id);
	git_oid_tostr(base, sizeof(base), git_commit_id(lane->base));
	on = git_oid_equal(&id, git_commit_id(lane->base)) ? 0 :
	     git_graph_descendant_of(lane->repo, &id, git_commit_id(lane->base));
	if (on < 0) {
		err = kb_error_git(on, "cannot tell whether '%s' is built on '%s'", refname, base);
		goto done;
	}
	if (!on) {
		err = add_note(res, "%s at %.12s is not built on %s at %.12s: not taken as resolved by hand",
			       refname, hex, res->pre_fix_ref ? res->pre_fix_ref : branch->ref, base);
		goto done;
	}
	if ((err = holds_fix(&holds, &partly, &how, lane, tip, fix, opts)) < 0)
		goto done;
	if (!how.ptr)
		err = kb_error_oom();
	else if (holds)
		err = resolved(res, &refname, hex, how.ptr);
	else if ((err = add_note(res, "%s at %.12s does not hold the fix (%s): not taken as resolved by hand",
				 refname, hex, how.ptr)) == 0 && partly) {
		/* half a resolution: part of the fix is in that commit, the rest is not */
		res->status = KB_STATUS_PARTIAL;
		err = set_detail(res, "resolved by hand in part: %s at %.12s holds only part of the fix",
				 refname, hex);
	}
done:
	git_commit_free(tip);
	kb_buf_release(&how);
	free(refname);
	return err;
}

/* The file patch of `path` in the variant `name` of `fix` (or its patch), or NULL. */
static const struct kb_file_patch *variant_file(const struct kb_fix *fix, const char *name,
						const char *path)
{
	const struct kb_variant *v = name ? kb_fix_variant(fix, name) : NULL;
	const struct kb_patch *patch = v ? v->patch : fix->patch;
	size_t f;

	for (f = 0; patch && f < patch->nfiles; f++)
		if (!strcmp(kb_file_patch_path(&patch->files[f]), path))
			return &patch->files[f];
	return NULL;
}

/*
 * Each placement's hunk as the tree holds it (witness.h): one look per
 * file, on the tree the answer is about.
 */
static int witness_placements(struct kb_result *res, struct kb_source *src,
			      const struct kb_fix *fix)
{
	struct kb_witness w = KB_WITNESS_INIT;
	const struct kb_file_patch *fp;
	size_t i, k;
	int err = 0;

	for (i = 0; i < res->nhunks && !err; i = k) {
		struct kb_placement *p = &res->hunks[i];
		for (k = i + 1; k < res->nhunks && !strcmp(res->hunks[k].path, p->path) &&
				!strcmp(res->hunks[k].variant, p->variant); k++)
			;
		if (!(fp = variant_file(fix, p->variant, p->path)))
			continue;
		w.n = 0;
		if ((err = kb_witness_file_at(&w, src, fp, p->moved)) < 0)
			break;
		for (; i < k; i++)
			if (res->hunks[i].hunk >= 1 && res->hunks[i].hunk <= w.n) {
				res->hunks[i].tree = w.v[res->hunks[i].hunk - 1];
				res->hunks[i].tree.path = NULL;
				res->hunks[i].has_tree = true;
			}
	}
	kb_witness_release(&w);
	return err;
}

static int run(struct kb_result *res, struct lane *lane, const struct kb_branch *branch,
	       const struct kb_fix *fix, const struct kb_backport_opts *opts)
{
	struct kb_survey survey = { 0 };
	char *failed = NULL;
	bool absent;
	int err;

	if ((err = lane_open(lane, res, branch, opts->dry_run)) < 0 ||
	    (err = history_look(res, &failed, lane->repo, git_commit_id(lane->base), branch,
				fix, opts)) < 0 ||
	    (err = kb_survey_fix(&survey, lane->src, fix, &opts->locate)) < 0)
		goto done;
	/*
	 * `pre-fix: true`: the state before a fix the branch carries is
	 * reconstructed and the fix decided on that; a fix it does not carry
	 * has none to reconstruct: the branch itself is that state.
	 */
	absent = branch->pre_fix && !survey.present;
	if (branch->pre_fix && survey.present) {
		if ((err = reconstruct(res, lane, &survey, branch, fix, opts)) < 0)
			goto done;
		kb_survey_release(&survey);	/* the lane moved: survey its tree */
		if ((err = kb_survey_fix(&survey, lane->src, fix, &opts->locate)) < 0)
			goto done;
	}
	if ((err = decide(res, lane, &survey, branch, fix, opts)) < 0 ||
	    (err = witness_placements(res, lane->src, fix)) < 0)
		goto done;
	if ((res->status == KB_STATUS_CONFLICT || res->status == KB_STATUS_PARTIAL) &&
	    (err = by_hand(res, lane, branch, fix, opts)) < 0)
		goto done;
	if (absent && (err = note_no_pre_fix(res, branch)) < 0)
		goto done;
	err = history_notes(res, failed);
done:
	free(failed);
	kb_survey_release(&survey);
	return err;
}

int kb_backport(struct kb_result *out, const struct kb_branch *branch,
		const struct kb_fix *fix, const struct kb_backport_opts *opts)
{
	struct lane lane = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	if (set_str(&out->fix, fix->id) < 0 || set_str(&out->branch, branch->name) < 0 ||
	    set_str(&out->repo, branch->repo) < 0)
		return kb_error_oom();
	kb_error_clear();
	err = run(out, &lane, branch, fix, opts);
	lane_release(&lane);
	if (err == KB_ENOMEM)
		return err;
	if (err < 0) {
		out->status = KB_STATUS_ERROR;
		out->commit[0] = '\0';
		free(out->ref);
		out->ref = NULL;
		if (set_detail(out, "%s", kb_error_last()) < 0)
			return kb_error_oom();
	}
	if (!out->notes && !(out->notes = kb_strdup("")))
		return kb_error_oom();
	return 0;
}

void kb_result_release(struct kb_result *r)
{
	if (!r)
		return;
	free(r->fix);
	free(r->branch);
	free(r->repo);
	free(r->variant);
	free(r->ref);
	free(r->detail);
	free(r->notes);
	free(r->reproduce);
	free(r->pre_fix_ref);
	free(r->pre_fix_variant);
	placements_free(r);
	kb_history_answer_release(r->history);
	free(r->history);
	memset(r, 0, sizeof(*r));
}

/* ---- queues: fixes one after another on one branch ---- */

struct kb_queue {
	struct lane lane;
	const struct kb_branch *branch;
	char *refname;
	bool dry_run;
	git_oid tip;		/* the branch's commit the queue starts on */
	/*
	 * An earlier run's queue on the same branch commit: the ref's commits
	 * from the tip on, oldest first. A queue commit this run would make is
	 * taken from there when it is the same change on the same parent, so
	 * that a re-run writes nothing (whenever it runs, whoever runs it).
	 */
	git_oid *known;
	size_t nknown;
	/* This run's queue commits (made or taken), oldest first, and whose. */
	git_oid *made;
	struct kb_result **made_res;
	size_t nmade;
	struct kb_result **steps;	/* every fix's result, in order */
	size_t nsteps, max;		/* max: the fixes the queue may have */
	/*
	 * The last applied fix, whose commit is written when the next fix
	 * applies (then as a plain object) or when the queue ends (on the
	 * queue's ref, with a compare-and-swap). Its changes are already in
	 * the lane's tree, so the next fix is looked at on top of them.
	 */
	bool pending;
	git_oid pending_tree;
	char *pending_message;
	git_signature *pending_author;
	struct kb_result *pending_res;
};

int kb_queue_ref(char **out, const char *queue, const char *branch)
{
	struct kb_buf name = KB_BUF_INIT;
	int valid = 0;

	*out = NULL;
	/* one component, as a branch name: queue "a/b" would take queue "a"'s refs of a branch "b" */
	if (!*queue || strchr(queue, '/'))
		return kb_error_set(KB_EINVALID, "invalid queue name '%s' (must be usable as one "
				    "component of a git ref name)", queue);
	if (kb_buf_printf(&name, "refs/heads/backport/queue/%s/%s", queue, branch) < 0)
		return kb_error_oom();
	if (git_reference_name_is_valid(&valid, name.ptr) < 0 || !valid) {
		kb_error_set(KB_EINVALID, "'%s' is not a valid ref name", name.ptr);
		kb_buf_release(&name);
		return KB_EINVALID;
	}
	*out = kb_buf_detach(&name);
	return 0;
}

/*
 * The queue's ref's commits down to the branch's commit, oldest first,
 * when it sits on that commit at most `max` commits away (an earlier run
 * of the queue on this branch commit); else none. A commit that cannot be
 * read ends the walk: nothing is taken from a chain not seen whole.
 */
static int load_known(struct kb_queue *q, size_t max)
{
	git_commit *c = NULL;
	git_oid id, *v;
	size_t n = 0, i;

	if (!max || git_reference_name_to_id(&id, q->lane.repo, q->refname) < 0)
		return 0;
	v = calloc(max, sizeof(*v));
	KB_ERROR_CHECK_ALLOC(v);
	while (n < max && !git_oid_equal(&id, &q->tip) &&
	       git_commit_lookup(&c, q->lane.repo, &id) == 0 && git_commit_parentcount(c) == 1) {
		git_oid_cpy(&v[n++], &id);
		git_oid_cpy(&id, git_commit_parent_id(c, 0));
		git_commit_free(c);
		c = NULL;
	}
	git_commit_free(c);
	if (!n || !git_oid_equal(&id, &q->tip)) {
		free(v);
		return 0;
	}
	for (i = 0; i < n / 2; i++) {
		git_oid t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	q->known = v;
	q->nknown = n;
	return 0;
}

int kb_queue_open(struct kb_queue **out, const struct kb_branch *branch, const char *queue,
		  size_t nfixes, bool dry_run)
{
	struct kb_queue *q;
	struct kb_result scratch = { 0 };
	int err;

	*out = NULL;
	q = calloc(1, sizeof(*q));
	KB_ERROR_CHECK_ALLOC(q);
	q->branch = branch;
	q->dry_run = dry_run;
	q->max = nfixes;
	q->lane.queue = q;
	if ((err = kb_queue_ref(&q->refname, queue, branch->name)) < 0 ||
	    (err = lane_open(&q->lane, &scratch, branch, dry_run)) < 0 ||
	    (err = kb_ref_check_namespace(q->lane.repo, q->refname)) < 0 ||
	    (!dry_run && (err = kb_ref_check_lock(q->lane.repo, q->refname)) < 0))
		goto fail;
	git_oid_cpy(&q->tip, git_commit_id(q->lane.base));
	if ((err = load_known(q, nfixes)) < 0)
		goto fail;
	if (!(q->made = calloc(nfixes + 1, sizeof(*q->made))) ||
	    !(q->made_res = calloc(nfixes + 1, sizeof(*q->made_res))) ||
	    !(q->steps = calloc(nfixes + 1, sizeof(*q->steps)))) {
		err = kb_error_oom();
		goto fail;
	}
	*out = q;
	return 0;
fail:
	kb_queue_free(q);
	return err;
}

/* The lane now holds `tree` (the fix's changes), its commit not yet written. */
static int lane_move_tree(struct lane *lane, const git_oid *tree_id)
{
	struct kb_source *src = NULL;
	git_tree *tree = NULL;
	int err;

	if ((err = git_tree_lookup(&tree, lane->repo, tree_id)) < 0)
		return kb_error_git(err, "cannot read the new tree");
	if ((err = kb_source_new(&src, lane->repo, tree)) < 0) {
		git_tree_free(tree);
		return err;
	}
	kb_source_free(lane->src);
	git_tree_free(lane->tree);
	lane->src = src;
	lane->tree = tree;
	return 0;
}

static void pending_clear(struct kb_queue *q)
{
	free(q->pending_message);
	git_signature_free(q->pending_author);
	q->pending_message = NULL;
	q->pending_author = NULL;
	q->pending_res = NULL;
	q->pending = false;
}

static bool same_signature(const git_signature *a, const git_signature *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->email, b->email) &&
	       a->when.time == b->when.time && a->when.offset == b->when.offset;
}

/* Is `c` this change: the same tree, message and author (whoever
 * committed it, and when)? */
static bool same_change(git_commit *c, const git_oid *tree, const char *message,
			const git_signature *author)
{
	return git_commit_parentcount(c) == 1 && git_oid_equal(git_commit_tree_id(c), tree) &&
	       !strcmp(git_commit_message(c), message) &&
	       same_signature(git_commit_author(c), author);
}

/* The earlier run's commit of the pending change on the lane's base, or NULL. */
static git_commit *known_commit(struct kb_queue *q)
{
	git_commit *c = NULL;

	if (q->nmade >= q->nknown || git_commit_lookup(&c, q->lane.repo, &q->known[q->nmade]) < 0)
		return NULL;
	if (git_oid_equal(git_commit_parent_id(c, 0), git_commit_id(q->lane.base)) &&
	    same_change(c, &q->pending_tree, q->pending_message, q->pending_author))
		return c;
	git_commit_free(c);
	return NULL;
}

/* Write the pending fix's commit as an object on the lane's base. */
static int write_pending(git_commit **out, struct kb_queue *q)
{
	const git_commit *parents[1] = { q->lane.base };
	git_signature *committer = NULL;
	git_tree *tree = NULL;
	git_oid id;
	int err;

	if ((err = kb_committer(&committer, q->lane.repo)) < 0)
		return err;
	if ((err = git_tree_lookup(&tree, q->lane.repo, &q->pending_tree)) < 0 ||
	    (err = git_commit_create(&id, q->lane.repo, NULL, q->pending_author, committer, NULL,
				     q->pending_message, tree, 1, parents)) < 0 ||
	    (err = git_commit_lookup(out, q->lane.repo, &id)) < 0)
		err = kb_error_git(err, "cannot write the queue's commit");
	git_tree_free(tree);
	git_signature_free(committer);
	return err;
}

/* The pending fix's commit, an earlier run's or written now, becomes the
 * lane's base. */
static int flush_pending(struct kb_queue *q)
{
	git_commit *commit;
	int err;

	if (!q->pending)
		return 0;
	if (!(commit = known_commit(q)) && (err = write_pending(&commit, q)) < 0)
		return err;
	if (!q->dry_run)
		git_oid_tostr(q->pending_res->commit, sizeof(q->pending_res->commit),
			      git_commit_id(commit));
	git_oid_cpy(&q->made[q->nmade], git_commit_id(commit));
	q->made_res[q->nmade++] = q->pending_res;
	git_commit_free(q->lane.base);
	q->lane.base = commit;
	pending_clear(q);
	return 0;
}

static int queue_record(struct kb_result *res, struct lane *lane, const git_oid *tree,
			const struct kb_variant *variant, const struct kb_fix *fix)
{
	struct kb_queue *q = lane->queue;
	git_commit *known;
	int err;

	if ((err = flush_pending(q)) < 0)
		return err;
	if ((err = kb_commit_message(&q->pending_message, fix, variant)) < 0 ||
	    (err = kb_commit_author(&q->pending_author, fix)) < 0 ||
	    (err = lane_move_tree(lane, tree)) < 0 ||
	    set_str(&res->ref, q->refname) < 0) {
		pending_clear(q);
		return err < 0 ? err : kb_error_oom();
	}
	git_oid_cpy(&q->pending_tree, tree);
	q->pending_res = res;
	q->pending = true;
	res->status = KB_STATUS_APPLIED;
	known = known_commit(q);
	res->created = !q->dry_run && !known;	/* an earlier run's commit is taken */
	git_commit_free(known);
	return 0;
}

/* ---- a queue's pre-fix lane ---- */

void kb_queue_pre_fix_release(struct kb_queue_pre_fix *p)
{
	size_t i;

	free(p->ref);
	for (i = 0; i < p->nreversed; i++)
		free(p->reversed[i]);
	free(p->reversed);
	free(p->note);
	memset(p, 0, sizeof(*p));
}

/* `fix`, if the lane's tree carries it: reversed there, and named in `out`. */
static int reverse_one(struct kb_queue_pre_fix *out, struct kb_queue *q, const struct kb_fix *fix,
		       const struct kb_backport_opts *opts)
{
	struct kb_survey survey = { 0 };
	struct kb_buf name = KB_BUF_INIT;
	git_oid tree;
	int err;

	if ((err = kb_survey_fix(&survey, q->lane.src, fix, &opts->locate)) < 0 || !survey.present)
		goto done;
	if ((err = kb_apply_write_tree(&tree, q->lane.repo, q->lane.tree, survey.present_apply,
				       true)) < 0 ||
	    (err = lane_move_tree(&q->lane, &tree)) < 0 ||
	    (err = kb_buf_printf(&name, "%s (variant '%s')", fix->id, survey.present->name)) < 0)
		goto done;
	out->reversed[out->nreversed++] = kb_buf_detach(&name);
done:
	kb_survey_release(&survey);
	kb_buf_release(&name);
	return err;
}

static int queue_pre_fix_message(char **out, const struct kb_queue *q, const char *queue,
				 const struct kb_queue_pre_fix *p)
{
	struct kb_buf msg = KB_BUF_INIT;
	size_t i;

	kb_buf_printf(&msg,
		"kbackport: reconstructed pre-fix state of %s for the queue %s\n\n"
		"NOT A STABLE RELEASE. This is %s (%.12s) with the fixes of the queue\n"
		"'%s' it carries reverse-applied, in this order:\n\n",
		q->branch->ref, queue, q->branch->ref, git_oid_tostr_s(&q->tip), queue);
	for (i = 0; i < p->nreversed; i++)
		kb_buf_printf(&msg, "  %s\n", p->reversed[i]);
	kb_buf_puts(&msg, "\nso that the queue can be backported onto, built and tested against a\n"
			  "tree that is vulnerable again.\n");
	KB_ERROR_CHECK_ALLOC(msg.ptr);
	*out = kb_buf_detach(&msg);
	return 0;
}

/* The reversed tree, committed on the pre-fix ref; the queue starts there. */
static int queue_pre_fix_commit(struct kb_queue_pre_fix *out, struct kb_queue *q,
				const char *queue, bool dry_run)
{
	const git_commit *parents[1] = { q->lane.base };
	struct kb_buf name = KB_BUF_INIT;
	git_signature *sig = NULL;
	char *message = NULL;
	git_oid commit;
	int err;

	if ((err = kb_buf_printf(&name, "%s.pre-fix", q->branch->name)) < 0 ||
	    (err = kb_queue_ref(&out->ref, queue, name.ptr)) < 0 ||
	    (err = kb_ref_check_namespace(q->lane.repo, out->ref)) < 0 ||
	    (!dry_run && (err = kb_ref_check_lock(q->lane.repo, out->ref)) < 0) ||
	    (err = queue_pre_fix_message(&message, q, queue, out)) < 0 ||
	    (err = kb_committer(&sig, q->lane.repo)) < 0)
		goto done;
	if (!dry_run)
		err = kb_commit_backport(&commit, &out->created, q->lane.repo, out->ref,
					 q->lane.base, git_tree_id(q->lane.tree), message, sig, sig);
	else if ((err = git_commit_create(&commit, q->lane.repo, NULL, sig, sig, NULL, message,
					  q->lane.tree, 1, parents)) < 0)
		err = kb_error_git(err, "cannot write the queue's pre-fix commit");
	if (err < 0 || (err = lane_move(&q->lane, &commit)) < 0)
		goto done;
	if (!dry_run)
		git_oid_tostr(out->commit, sizeof(out->commit), &commit);
	git_oid_cpy(&q->tip, &commit);
	free(q->known);
	q->known = NULL;
	q->nknown = 0;
	err = load_known(q, q->max);
done:
	free(message);
	git_signature_free(sig);
	kb_buf_release(&name);
	return err;
}

int kb_queue_pre_fix(struct kb_queue_pre_fix *out, struct kb_queue *q, const char *queue,
		     const struct kb_fix *const *fixes, size_t n,
		     const struct kb_backport_opts *opts)
{
	struct kb_buf note = KB_BUF_INIT;
	size_t i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->reversed = calloc(n + 1, sizeof(*out->reversed));
	KB_ERROR_CHECK_ALLOC(out->reversed);
	for (i = n; i-- > 0 && !err;)
		err = reverse_one(out, q, fixes[i], opts);
	if (!err && out->nreversed)
		return queue_pre_fix_commit(out, q, queue, opts->dry_run);
	if (!err && (err = kb_buf_printf(&note, "pre-fix: no fix of the queue is in '%s': the "
					 "branch itself is the state before it, no pre-fix lane",
					 q->branch->ref)) == 0)
		out->note = kb_buf_detach(&note);
	kb_buf_release(&note);
	return err;
}

int kb_queue_step(struct kb_result *out, struct kb_queue *q, const struct kb_fix *fix,
		  const struct kb_backport_opts *opts)
{
	struct kb_survey survey = { 0 };
	struct kb_source *seen = NULL;
	git_tree *before = NULL;
	char *failed = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if (set_str(&out->fix, fix->id) < 0 || set_str(&out->branch, q->branch->name) < 0 ||
	    set_str(&out->repo, q->branch->repo) < 0)
		return kb_error_oom();
	if (q->nsteps == q->max) {	/* its arrays have room for that many */
		out->status = KB_STATUS_ERROR;
		return set_detail(out, "the queue was opened for %zu fixes", q->max) < 0 ||
		       !(out->notes = kb_strdup("")) ? kb_error_oom() : 0;
	}
	q->steps[q->nsteps++] = out;
	kb_error_clear();
	git_oid_tostr(out->base, sizeof(out->base), git_commit_id(q->lane.base));
	/* the tree the fix is looked at: the lane moves on when it applies */
	if ((err = git_tree_dup(&before, q->lane.tree)) < 0)
		err = kb_error_git(err, "cannot keep the queue's tree");
	else if ((err = history_look(out, &failed, q->lane.repo, &q->tip, q->branch, fix, opts)) == 0 &&
	    (err = kb_survey_fix(&survey, q->lane.src, fix, &opts->locate)) == 0 &&
	    (err = decide(out, &q->lane, &survey, q->branch, fix, opts)) == 0 &&
	    (err = kb_source_new(&seen, q->lane.repo, before)) == 0 &&
	    (err = witness_placements(out, seen, fix)) == 0)
		err = history_notes(out, failed);
	kb_source_free(seen);
	git_tree_free(before);
	free(failed);
	kb_survey_release(&survey);
	if (err == KB_ENOMEM)
		return err;
	if (err < 0) {
		out->status = KB_STATUS_ERROR;
		if (set_detail(out, "%s", kb_error_last()) < 0)
			return kb_error_oom();
	}
	if (!out->notes && !(out->notes = kb_strdup("")))
		return kb_error_oom();
	return 0;
}

/* This run's queue commit `i` (the pending one at nmade) is the same change as `c`. */
static bool same_as_made(struct kb_queue *q, size_t i, git_commit *c)
{
	git_commit *mine = NULL;
	bool same;

	if (i == q->nmade)
		return same_change(c, &q->pending_tree, q->pending_message, q->pending_author);
	if (git_commit_lookup(&mine, q->lane.repo, &q->made[i]) < 0)
		return false;
	same = same_change(c, git_commit_tree_id(mine), git_commit_message(mine),
			   git_commit_author(mine));
	git_commit_free(mine);
	return same;
}

/* A queue fix's detail once its commit is known: this run's or not. */
static int queue_detail(struct kb_result *r)
{
	return set_detail(r, "%s variant '%s'%s",
			  r->created ? "applied" : "unchanged, already backported with",
			  r->variant, r->forced ? " (forced)" : "");
}

/*
 * The results name `chain`'s commits for this run's own: as commits, and
 * as the bases of the fixes looked at on them. Nothing of it was created
 * by this run.
 */
static int take_chain(struct kb_queue *q, const git_oid *chain)
{
	char mine[GIT_OID_HEXSZ + 1], theirs[GIT_OID_HEXSZ + 1];
	size_t i, s;
	int err = 0;

	for (i = 0; i <= q->nmade && !err; i++) {
		struct kb_result *r = i < q->nmade ? q->made_res[i] : q->pending_res;
		git_oid_tostr(theirs, sizeof(theirs), &chain[i]);
		memcpy(r->commit, theirs, sizeof(theirs));
		r->created = false;
		err = queue_detail(r);
		if (i == q->nmade)
			break;
		git_oid_tostr(mine, sizeof(mine), &q->made[i]);
		for (s = 0; s < q->nsteps; s++)
			if (!strcmp(q->steps[s]->base, mine))
				memcpy(q->steps[s]->base, theirs, sizeof(theirs));
	}
	return err < 0 ? kb_error_oom() : 0;
}

/*
 * Does the queue's ref hold this run's queue already: one commit per
 * applied fix on the branch's commit, each the same change as this run's
 * (an earlier run at another time, or another kbackport meanwhile, whose
 * committer dates differ)? Then that chain is the result: 0 with its tip
 * in `commit`, else KB_ENOTFOUND. *seen is what the ref held (zero: none).
 */
static int take_existing(struct kb_queue *q, char commit[GIT_OID_HEXSZ + 1], git_oid *seen)
{
	size_t n = q->nmade + 1, i = n;
	git_commit *c = NULL;
	git_oid id, *chain;
	int err = KB_ENOTFOUND;

	memset(seen, 0, sizeof(*seen));
	if (git_reference_name_to_id(&id, q->lane.repo, q->refname) < 0)
		return KB_ENOTFOUND;
	git_oid_cpy(seen, &id);
	chain = calloc(n, sizeof(*chain));
	KB_ERROR_CHECK_ALLOC(chain);
	while (i > 0 && git_commit_lookup(&c, q->lane.repo, &id) == 0 && same_as_made(q, i - 1, c)) {
		git_oid_cpy(&chain[--i], &id);
		git_oid_cpy(&id, git_commit_parent_id(c, 0));
		git_commit_free(c);
		c = NULL;
	}
	git_commit_free(c);
	if (i == 0 && git_oid_equal(&id, &q->tip) && (err = take_chain(q, chain)) == 0)
		git_oid_tostr(commit, GIT_OID_HEXSZ + 1, &chain[n - 1]);
	free(chain);
	return err;
}

int kb_queue_finish(struct kb_queue *q, char commit[GIT_OID_HEXSZ + 1], bool *created)
{
	git_signature *committer = NULL;
	git_oid id, seen;
	int err = 0;

	commit[0] = '\0';
	*created = false;
	if (!q->pending)
		return 0;	/* nothing applied: no ref */
	if (q->dry_run)
		return flush_pending(q);
	if ((err = take_existing(q, commit, &seen)) != KB_ENOTFOUND)
		goto taken;
	/* the ref moves only from what was seen: a queue written meanwhile is
	 * looked at again, never overwritten */
	if ((err = kb_committer(&committer, q->lane.repo)) < 0)
		goto done;
	err = kb_commit_backport_seen(&id, created, q->lane.repo, q->refname, q->lane.base,
				      &q->pending_tree, q->pending_message, q->pending_author,
				      committer, &seen);
	/* another kbackport wrote this queue meanwhile, with its own commits */
	if (err == KB_EEXISTS && take_existing(q, commit, &seen) == 0) {
		kb_error_clear();
		err = 0;
		goto taken;
	}
	if (err < 0)
		goto done;
	git_oid_tostr(commit, GIT_OID_HEXSZ + 1, &id);
	git_oid_tostr(q->pending_res->commit, sizeof(q->pending_res->commit), &id);
	q->pending_res->created = *created;
	err = queue_detail(q->pending_res) < 0 ? kb_error_oom() : 0;
taken:
	if (err == 0)
		pending_clear(q);
done:
	git_signature_free(committer);
	return err;
}

const char *kb_queue_refname(const struct kb_queue *q)
{
	return q->refname;
}

void kb_queue_free(struct kb_queue *q)
{
	if (!q)
		return;
	pending_clear(q);
	lane_release(&q->lane);
	free(q->refname);
	free(q->known);
	free(q->made);
	free(q->made_res);
	free(q->steps);
	free(q);
}
