#include "apply/queue.h"
#include "util/error.h"
#include "apply/patch.h"
#include "apply/reproduce.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

static bool needs_hand(enum kb_status s)
{
	return kb_status_needs_hand(s) || s == KB_STATUS_ERROR;
}

/* A branch whose queue could not start or end: the error, unless out of memory. */
static int branch_failed(struct kb_queue_result *out)
{
	return (out->error = strdup(kb_error_last())) ? 0 : kb_error_oom();
}

/* The patch file of the variant `name` of `fix`. */
static int variant_patch(const char **out, const struct kb_fix *fix, const char *name)
{
	const struct kb_variant *v = name ? kb_fix_variant(fix, name) : NULL;

	if (!v)
		return kb_error_set(KB_ENOTFOUND, "fix '%s' has no variant '%s'", fix->id,
				    name ? name : "");
	*out = v->patch_path;
	return 0;
}

/*
 * A skipped fix's commands to do it by hand start from the queue as it
 * stood: the branch, then `git am -3` of each fix applied before it.
 */
static int queue_reproduce(struct kb_queue_result *out, size_t at, const struct kb_branch *branch,
			   const struct kb_series *series)
{
	struct kb_result *r = &out->results[at];
	const char **before;
	char *cmds = NULL;
	size_t i, n = 0;
	int err = 0;

	before = calloc(at + 1, sizeof(*before));
	KB_ERROR_CHECK_ALLOC(before);
	for (i = 0; i < at && !err; i++)
		if (out->results[i].status == KB_STATUS_APPLIED)
			err = variant_patch(&before[n++], series->fixes[i], out->results[i].variant);
	if (!err && (err = kb_reproduce(&cmds, branch, series->fixes[at], r, before)) == 0) {
		free(r->reproduce);
		r->reproduce = cmds;
	}
	free(before);
	return err;
}

/* Found in the queue's tree: say that the tree has the earlier fixes. */
static int append_detail(struct kb_result *r, const char *text)
{
	struct kb_buf detail = KB_BUF_INIT;
	int err;

	kb_buf_puts(&detail, r->detail ? r->detail : "");
	kb_buf_puts(&detail, text);
	if ((err = kb_buf_check(&detail)) < 0) {
		kb_buf_release(&detail);
		return err;
	}
	free(r->detail);
	r->detail = kb_buf_detach(&detail);
	return 0;
}

int kb_queue_apply(struct kb_queue_result *out, const struct kb_branch *branch,
		   const struct kb_series *series, const char *name,
		   const struct kb_backport_opts *opts)
{
	struct kb_queue *q = NULL;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->results = calloc(series->nfixes ? series->nfixes : 1, sizeof(*out->results));
	KB_ERROR_CHECK_ALLOC(out->results);
	kb_error_clear();
	if (kb_queue_open(&q, branch, name, series->nfixes, opts->dry_run) < 0) {
		err = branch_failed(out);
		goto done;
	}
	if (!(out->ref = strdup(kb_queue_refname(q)))) {
		err = kb_error_oom();
		goto done;
	}
	if (branch->pre_fix &&
	    kb_queue_pre_fix(&out->pre_fix, q, name, (const struct kb_fix *const *)series->fixes,
			     series->nfixes, opts) < 0) {
		err = branch_failed(out);
		goto done;
	}
	while (out->nresults < series->nfixes) {
		size_t at = out->nresults++;	/* released with `out` whatever happens */
		struct kb_result *r = &out->results[at];
		if ((err = kb_queue_step(r, q, series->fixes[at], opts)) < 0)
			goto done;
		if (r->status == KB_STATUS_ALREADY_APPLIED && kb_queue_applied(out) &&
		    (err = append_detail(r, " (with the fixes applied before it in the queue)")) < 0)
			goto done;
		if (r->reproduce && queue_reproduce(out, at, branch, series) < 0) {
			err = branch_failed(out);
			goto done;
		}
	}
	if (kb_queue_finish(q, out->commit, &out->created) < 0)
		err = branch_failed(out);
done:
	kb_queue_free(q);
	return err;
}

bool kb_queue_needs_hand(const struct kb_queue_result *q)
{
	size_t i;

	for (i = 0; i < q->nresults; i++)
		if (needs_hand(q->results[i].status))
			return true;
	return q->error != NULL;
}

size_t kb_queue_applied(const struct kb_queue_result *q)
{
	size_t i, n = 0;

	for (i = 0; i < q->nresults; i++)
		n += q->results[i].status == KB_STATUS_APPLIED;
	return n;
}

void kb_queue_result_release(struct kb_queue_result *q)
{
	size_t i;

	for (i = 0; i < q->nresults; i++)
		kb_result_release(&q->results[i]);
	free(q->results);
	free(q->ref);
	free(q->error);
	kb_queue_pre_fix_release(&q->pre_fix);
	memset(q, 0, sizeof(*q));
}

/* '\n'-separated `text` as a NULL-terminated array of lines, in `copy`. */
static int split_lines(const char ***out, size_t *n, char **copy, const char *text)
{
	const char **v;
	char *p;
	size_t count = 0;

	*out = NULL;
	*n = 0;
	if (!text || !*text)
		return 0;
	*copy = strdup(text);
	KB_ERROR_CHECK_ALLOC(*copy);
	for (p = *copy; *p; p++)
		count += *p == '\n';
	v = calloc(count + 2, sizeof(*v));
	KB_ERROR_CHECK_ALLOC(v);
	for (p = strtok(*copy, "\n"); p; p = strtok(NULL, "\n"))
		v[(*n)++] = p;
	*out = v;
	return 0;
}

int kb_result_failed_patch(struct kb_buf *out, const struct kb_result *r,
			   const struct kb_fix *fix)
{
	const struct kb_variant *v = r->variant ? kb_fix_variant(fix, r->variant) : NULL;

	if (r->variant && !v)
		return kb_error_set(KB_ENOTFOUND, "fix '%s' has no variant '%s' to mail",
				    fix->id, r->variant);
	if (v)
		return kb_failed_patch(out, fix, v->patch, v->patch_path);
	return fix->patch ? kb_failed_patch(out, fix, fix->patch, fix->patch_path) : 0;
}

int kb_result_failed_mail(struct kb_buf *out, const struct kb_result *r,
			  const struct kb_fix *fix, const struct kb_branch *branch,
			  const char *queue)
{
	struct kb_report_apply a = { .present = true, .status = r->status, .detail = r->detail };
	struct kb_failed_mail m = { .fix = fix->id, .upstream = fix->upstream,
				    .subject = fix->subject, .mail = &branch->mail, .apply = &a };
	struct kb_buf author = KB_BUF_INIT, where = KB_BUF_INIT, patch = KB_BUF_INIT;
	char *notes = NULL, *reproduce = NULL;
	int err = 0;

	if (!kb_status_needs_hand(r->status))
		return kb_error_set(KB_ENOTFOUND, "fix '%s' is %s on '%s': no FAILED mail",
				    r->fix, kb_status_name(r->status), r->branch);
	if (fix->patch && fix->patch->author_name &&
	    (err = kb_buf_printf(&author, "%s <%s>", fix->patch->author_name,
				 fix->patch->author_email ? fix->patch->author_email : "")) < 0)
		goto done;
	if (queue)
		err = kb_buf_printf(&where, "%s of %s, on top of the fixes before it in the queue '%s'",
				    r->branch, r->repo, queue);
	else
		err = kb_buf_printf(&where, "%s of %s", branch->ref ? branch->ref : r->branch, r->repo);
	if (err < 0 || (err = kb_result_failed_patch(&patch, r, fix)) < 0)
		goto done;
	m.author = author.ptr;
	m.where = where.ptr;
	m.patch = patch.ptr;
	if ((err = split_lines(&a.notes, &a.nnotes, &notes, r->notes)) < 0 ||
	    (err = split_lines(&a.reproduce, &a.nreproduce, &reproduce, r->reproduce)) < 0 ||
	    (err = kb_failed_mail(out, &m)) < 0)
		goto done;
done:
	if (err == KB_ENOMEM)
		kb_error_oom();
	free((void *)a.notes);
	free((void *)a.reproduce);
	free(notes);
	free(reproduce);
	kb_buf_release(&author);
	kb_buf_release(&where);
	kb_buf_release(&patch);
	return err;
}
