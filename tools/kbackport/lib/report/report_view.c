/* The view of a report that summary.md and summary.html format. */
#include "report/report_view.h"
#include "report/report_priv.h"
#include "util/array.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/*
 * The view fails sticky, as a kb_buf does: a failed allocation records its
 * error in view->err, what would have been made is left out (or "") and
 * report_view_init() checks once at the end.
 */
static void *own(struct report_view *v, void *p)
{
	if (!v->err && !p)
		v->err = kb_error_oom();
	if (!v->err)
		v->err = KB_ARRAY_GROW(v->owned, v->aowned, v->nowned + 1);
	if (v->err < 0) {
		free(p);
		return NULL;
	}
	v->owned[v->nowned++] = p;
	return p;
}

/* The text of `text`, kept by the view ("" when out of memory); `text` is
 * left empty. */
static const char *keep(struct report_view *v, struct kb_buf *text)
{
	const char *s = own(v, kb_buf_detach(text));

	kb_buf_release(text);
	return s ? s : "";
}

/* `dir`/`file` as a URL relative to the run directory. */
static const char *url(struct report_view *v, const char *dir, const char *file)
{
	struct kb_buf text = KB_BUF_INIT;

	if (dir) {
		report_put_url(&text, dir);
		kb_buf_putc(&text, '/');
	}
	report_put_url(&text, file);
	return keep(v, &text);
}

/* The files of `dir` as links (NULL, with *n 0, when there are none). */
static const struct report_view_link *links(struct report_view *v, size_t *n, const char *dir,
					     char *const *files, size_t nfiles)
{
	struct report_view_link *l;
	size_t i;

	*n = 0;
	if (!nfiles || !(l = own(v, calloc(nfiles, sizeof(*l)))))
		return NULL;
	for (i = 0; i < nfiles; i++) {
		l[i].name = files[i];
		l[i].url = url(v, dir, files[i]);
	}
	*n = nfiles;
	return l;
}

static struct report_view_cell apply_cell(struct report_view *v, const struct kb_report_apply *a)
{
	struct kb_buf text = KB_BUF_INIT;

	report_put_apply_cell(&text, a);
	return (struct report_view_cell){ a->present ? kb_status_name(a->status) : "none",
					  keep(v, &text), false };
}

static void make_branch(struct report_view *v, struct report_view_branch *vb,
			const struct kb_report_branch *b)
{
	struct kb_buf name = KB_BUF_INIT;
	const char *word = kb_verdict_name(b->verdict);

	vb->branch = b;
	vb->verdict = (struct report_view_cell){ word, word, false };
	vb->apply = apply_cell(v, &b->apply);
	vb->nrows = b->nlanes ? b->nlanes : 1;
	vb->files = links(v, &vb->nfiles, b->name, b->files, b->nfiles);
	if (!kb_report_needs_hand(&b->apply))
		return;
	kb_report_failed_name(&name, b);
	vb->mail.name = keep(v, &name);
	vb->mail.url = url(v, NULL, vb->mail.name);
}

/* A case failed that nobody expected to, or the lane is not what it should be. */
static bool lane_needs_look(const struct kb_report_lane *l)
{
	size_t i, j;

	if (l->verdict != KB_VERDICT_FIXED && !(l->baseline && l->verdict == KB_VERDICT_VULNERABLE))
		return true;
	for (i = 0; i < l->nsuites; i++)
		for (j = 0; j < l->suites[i].ncases; j++)
			if (l->suites[i].cases[j].status != KB_KTAP_PASS &&
			    l->suites[i].cases[j].status != KB_KTAP_SKIP &&
			    !report_case_expected_failure(l, &l->suites[i].cases[j]))
				return true;
	return false;
}

static void lane_cells(struct report_view *v, struct report_view_row *row,
		       const struct kb_report_lane *l)
{
	struct kb_buf text = KB_BUF_INIT;
	const char *build = l->has_build ? kb_build_status_name(l->build) : NULL;

	row->kind = kb_lane_kind_name(l->kind);
	row->build = (struct report_view_cell){ build ? build : "none", build ? build : "-", false };
	row->test = (struct report_view_cell){ kb_verdict_name(l->verdict),
					       report_lane_verdict_text(l),
					       l->baseline && l->verdict == KB_VERDICT_VULNERABLE };
	if (l->nsuites) {
		report_put_suite_counts(&text, l);
		row->counts = keep(v, &text);
	}
	report_put_boot_image(&text, l);
	row->boot = keep(v, &text);
	row->links = links(v, &row->nlinks, l->dir, l->files, l->nfiles);
	row->needs_look = lane_needs_look(l);
}

/* A row for lane `l` of `vb` (NULL: the branch's only row, without lanes). */
static void add_row(struct report_view *v, const struct report_view_branch *vb,
		    const struct kb_report_lane *l, bool first)
{
	static const struct report_view_cell none = { NULL, "-", false };
	struct report_view_row *row;

	if (v->err || (v->err = KB_ARRAY_GROW(v->rows, v->arows, v->nrows + 1)) < 0)
		return;
	row = memset(&v->rows[v->nrows++], 0, sizeof(*row));
	row->branch = vb;
	row->lane = l;
	row->first = first;
	if (l) {
		lane_cells(v, row, l);
		return;
	}
	row->kind = "-";
	row->build = row->test = none;
	row->boot = "";
	row->links = vb->files;
	row->nlinks = vb->nfiles;
}

static void make_matrix(struct report_view *v)
{
	const struct kb_report *r = v->report;
	size_t i, j;

	for (i = 0; i < r->nbranches && !v->err; i++) {
		struct report_view_branch *vb = &v->branches[i];
		make_branch(v, vb, &r->branches[i]);
		vb->row = v->nrows;
		if (!r->branches[i].nlanes)
			add_row(v, vb, NULL, true);
		for (j = 0; j < r->branches[i].nlanes; j++)
			add_row(v, vb, &r->branches[i].lanes[j], j == 0);
	}
}

static struct report_view_cell queued_cell(struct report_view *v, const struct kb_report_branch *b,
					   size_t f)
{
	struct kb_buf text = KB_BUF_INIT;
	const char *word = b->queue.error ? "error" :
			   f < b->queue.nfixes ? kb_status_name(b->queue.fixes[f].apply.status) : "none";

	report_put_queued_cell(&text, b, f);
	return (struct report_view_cell){ word, keep(v, &text), false };
}

/* Fix `f` on `b`, when it was not applied there. */
static void add_skipped(struct report_view *v, const struct kb_report_branch *b, size_t f)
{
	const char *mail = f < b->queue.nfixes ? b->queue.fixes[f].mail : NULL;
	struct report_view_skipped *s;
	struct kb_buf why = KB_BUF_INIT;

	report_put_queued_why(&why, b, f);
	if (!kb_buf_oom(&why) && !why.size) {
		kb_buf_release(&why);
		return;
	}
	if (v->err || (v->err = KB_ARRAY_GROW(v->skipped, v->askipped, v->nskipped + 1)) < 0) {
		kb_buf_release(&why);
		return;
	}
	s = &v->skipped[v->nskipped++];
	s->branch = b->name;
	s->fix = v->report->queue_fixes[f];
	s->why = keep(v, &why);
	s->mail = mail ? url(v, NULL, mail) : NULL;
}

static void make_queue(struct report_view *v)
{
	const struct kb_report *r = v->report;
	size_t f, i;

	if (v->err || !r->queue || !r->nqueue_fixes || !r->nbranches ||
	    !(v->queued = own(v, calloc(r->nqueue_fixes * r->nbranches, sizeof(*v->queued)))))
		return;
	for (f = 0; f < r->nqueue_fixes; f++)
		for (i = 0; i < r->nbranches; i++)
			v->queued[f * r->nbranches + i] = queued_cell(v, &r->branches[i], f);
	for (i = 0; i < r->nbranches; i++)
		for (f = 0; f < r->nqueue_fixes; f++)
			add_skipped(v, &r->branches[i], f);
}

int report_view_init(struct report_view *v, const struct kb_report *r)
{
	int err;

	memset(v, 0, sizeof(*v));
	v->report = r;
	if ((v->err = kb_report_attention(&v->attention, &v->nattention, r)) == 0 && r->nbranches)
		v->branches = own(v, calloc(r->nbranches, sizeof(*v->branches)));
	make_matrix(v);
	make_queue(v);
	if ((err = v->err) < 0)
		report_view_release(v);
	return err;
}

void report_view_release(struct report_view *v)
{
	size_t i;

	for (i = 0; i < v->nowned; i++)
		free(v->owned[i]);
	free(v->owned);
	free(v->rows);
	free(v->skipped);
	free(v->attention);
	memset(v, 0, sizeof(*v));
}

const struct report_view_cell *report_view_queued(const struct report_view *v, size_t f, size_t b)
{
	return &v->queued[f * v->report->nbranches + b];
}
