/*
 * summary.md: a branch x stage matrix (apply, build, test per lane, the
 * branch's verdict, links to the logs), then a section per branch with the
 * apply result's notes, the lanes' reasons and the commands to resolve a
 * conflict by hand. CommonMark with GitHub's tables; every value from the
 * run is escaped or put in a code span.
 */
#include "report/report.h"
#include "report/report_priv.h"
#include "report/report_view.h"

/*
 * Every writer here appends without checking: a failed append leaves `out`
 * failed (util/buf.h), and kb_report_markdown() checks it once at the end.
 */
static void put_links(struct kb_buf *out, const struct report_view_link *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		kb_buf_puts(out, i ? ", [" : "[");
		report_put_md(out, l[i].name);
		kb_buf_puts(out, "](");
		kb_buf_puts(out, l[i].url);
		kb_buf_putc(out, ')');
	}
}

/* The test cell: "fixed: kbackport_caps 5/6, booted as bzImage". */
static void put_test_cell(struct kb_buf *out, const struct report_view_row *row)
{
	report_put_md(out, row->test.text);
	if (row->counts) {
		kb_buf_puts(out, ": ");
		report_put_md(out, row->counts);
	}
	report_put_md(out, row->boot);
}

/* The branch's own cells, on its first row: name, verdict, apply. */
static void put_branch_cells(struct kb_buf *out, const struct report_view_row *row)
{
	if (!row->first) {
		kb_buf_puts(out, "| | | ");
		return;
	}
	kb_buf_puts(out, "| ");
	report_put_md_code(out, row->branch->branch->name);
	kb_buf_printf(out, " | **%s** | ", row->branch->verdict.text);
	report_put_md(out, row->branch->apply.text);
	kb_buf_puts(out, " ");
}

static void put_row(struct kb_buf *out, const struct report_view_row *row)
{
	put_branch_cells(out, row);
	/* status words, nothing to escape */
	kb_buf_printf(out, "| %s | %s | ", row->kind, row->build.text);
	put_test_cell(out, row);
	kb_buf_puts(out, " | ");
	put_links(out, row->links, row->nlinks);
	kb_buf_puts(out, " |\n");
}

static void put_matrix(struct kb_buf *out, const struct report_view *v)
{
	size_t i;

	kb_buf_puts(out, "| branch | verdict | apply | lane | build | test | logs |\n"
		    "|---|---|---|---|---|---|---|\n");
	for (i = 0; i < v->nrows; i++)
		put_row(out, &v->rows[i]);
}

static void put_item(struct kb_buf *out, const char *indent, const char *label, const char *text)
{
	if (!text)
		return;
	kb_buf_printf(out, "%s- %s", indent, label);
	report_put_md(out, text);
	kb_buf_putc(out, '\n');
}

static void put_items(struct kb_buf *out, const char *indent, const char *const *lines)
{
	for (; lines && *lines; lines++)
		put_item(out, indent, "", *lines);
}

static void put_fence(struct kb_buf *out, const char *indent, size_t longest)
{
	size_t i;

	kb_buf_puts(out, indent);
	for (i = 0; i <= longest; i++)
		kb_buf_putc(out, '`');
}

/* A fenced block longer than any run of backticks inside it. */
static void put_fenced(struct kb_buf *out, const char *indent, const char *info,
		       const char *const *lines)
{
	size_t longest = 2, run;
	const char *const *l;
	const char *p;

	for (l = lines; *l; l++)
		for (p = *l, run = 0; *p; p++)
			if ((run = *p == '`' ? run + 1 : 0) > longest)
				longest = run;
	put_fence(out, indent, longest);
	kb_buf_printf(out, "%s\n", info);
	for (l = lines; *l; l++)
		kb_buf_printf(out, "%s%s\n", indent, *l);
	put_fence(out, indent, longest);
	kb_buf_putc(out, '\n');
}

/* An item made in a scratch buffer, then escaped. */
static void put_item_of(struct kb_buf *out, const char *label, struct kb_buf *head)
{
	kb_buf_carry_oom(out, head);
	put_item(out, "", label, head->ptr);
	kb_buf_release(head);
}

static void put_apply(struct kb_buf *out, const struct kb_report_apply *a)
{
	struct kb_buf head = KB_BUF_INIT;

	if (!a->present)
		return;
	report_put_apply_cell(&head, a);
	if (a->detail)
		kb_buf_printf(&head, ": %s", a->detail);
	put_item_of(out, "apply: ", &head);
	put_items(out, "  ", a->notes);
	if (!a->nreproduce)
		return;
	kb_buf_puts(out, "- to resolve it by hand:\n\n");
	put_fenced(out, "  ", "sh", a->reproduce);
}

/* How the fix went onto a lane, when the lane says more than its branch. */
static void put_lane_apply(struct kb_buf *out, const struct kb_report_lane *l)
{
	const struct kb_report_apply *a = &l->apply;
	struct kb_buf head = KB_BUF_INIT;

	if (!a->present || (!a->detail && !a->nnotes))
		return;
	kb_buf_printf(&head, "%s lane: ", kb_lane_kind_name(l->kind));
	report_put_apply_cell(&head, a);
	if (a->detail)
		kb_buf_printf(&head, ": %s", a->detail);
	put_item_of(out, "", &head);
	put_items(out, "  ", a->notes);
}

static void put_lane_reasons(struct kb_buf *out, const struct report_view_row *row)
{
	if (!row->lane->nreason)
		return;
	kb_buf_printf(out, "- %s lane, ", row->kind);
	report_put_md(out, row->test.text);
	kb_buf_puts(out, ":\n");
	put_items(out, "  ", row->lane->reason);
}

static void put_where(struct kb_buf *out, const struct kb_report_branch *b)
{
	if (!b->repo && !b->ref)
		return;
	kb_buf_puts(out, "- tree:");
	if (b->repo) {
		kb_buf_putc(out, ' ');
		report_put_md_code(out, b->repo);
	}
	if (b->ref) {
		kb_buf_puts(out, " ref ");
		report_put_md_code(out, b->ref);
	}
	kb_buf_putc(out, '\n');
}

static void put_mail_link(struct kb_buf *out, const struct report_view_branch *vb)
{
	if (!vb->mail.name)
		return;
	kb_buf_puts(out, "- mail to the author: ");
	put_links(out, &vb->mail, 1);
	kb_buf_putc(out, '\n');
}

static void put_branch(struct kb_buf *out, const struct report_view *v,
		       const struct report_view_branch *vb)
{
	const struct kb_report_branch *b = vb->branch;
	size_t i;

	kb_buf_puts(out, "\n## ");
	report_put_md_code(out, b->name);
	kb_buf_printf(out, ": %s\n\n", vb->verdict.text);
	put_where(out, b);
	put_apply(out, &b->apply);
	put_item(out, "", "note: ", b->note);
	for (i = 0; i < b->nlanes; i++)
		put_lane_apply(out, &b->lanes[i]);
	for (i = 0; i < b->nlanes; i++)
		put_lane_reasons(out, &v->rows[vb->row + i]);
	if (vb->nfiles) {
		kb_buf_puts(out, "- files: ");
		put_links(out, vb->files, vb->nfiles);
		kb_buf_putc(out, '\n');
	}
	put_mail_link(out, vb);
}

static void put_attention(struct kb_buf *out, const struct report_view *v)
{
	size_t i, n = v->nattention;

	if (!n)
		kb_buf_printf(out, "- result: all %zu branches are verified, fixed, not affected "
			      "or skipped\n", v->report->nbranches);
	else
		kb_buf_printf(out, "- result: %zu of %zu branches need attention:", n,
			      v->report->nbranches);
	for (i = 0; i < n; i++) {
		kb_buf_puts(out, i ? ", " : " ");
		report_put_md_code(out, v->attention[i]->name);
		kb_buf_printf(out, " %s", kb_verdict_name(v->attention[i]->verdict));
	}
	if (n)
		kb_buf_putc(out, '\n');
}

/* `before` and `text` escaped (put_md_code or put_md); nothing without a text. */
static void put_opt(struct kb_buf *out, const char *before, const char *text, bool code)
{
	if (!text)
		return;
	kb_buf_puts(out, before);
	if (code)
		report_put_md_code(out, text);
	else
		report_put_md(out, text);
}

static void put_head(struct kb_buf *out, const struct report_view *v)
{
	const struct kb_report *r = v->report;

	kb_buf_puts(out, "# ");
	report_put_md(out, r->fix);
	put_opt(out, ": ", r->subject, false);
	kb_buf_puts(out, "\n\n");
	if (r->upstream) {
		put_opt(out, "- upstream: ", r->upstream, true);
		put_opt(out, " by ", r->author, false);
		kb_buf_putc(out, '\n');
	}
	kb_buf_puts(out, "- run: ");
	report_put_md_code(out, r->run);
	put_opt(out, " on ", r->host, true);
	put_opt(out, ", ", r->started, false);
	put_opt(out, " to ", r->finished, false);
	kb_buf_putc(out, '\n');
	put_attention(out, v);
}

/* A queue's run: the fix x branch matrix of statuses. */
static void put_queue_matrix(struct kb_buf *out, const struct report_view *v)
{
	const struct kb_report *r = v->report;
	size_t f, i;

	kb_buf_puts(out, "## The queue ");
	report_put_md_code(out, r->queue);
	kb_buf_puts(out, ": each fix on each branch\n\n| # | fix |");
	for (i = 0; i < r->nbranches; i++) {
		kb_buf_putc(out, ' ');
		report_put_md_code(out, r->branches[i].name);
		kb_buf_puts(out, " |");
	}
	for (i = 0; i < r->nbranches + 2; i++)
		kb_buf_puts(out, i ? "---|" : "\n|---|");
	for (f = 0; f < r->nqueue_fixes; f++) {
		kb_buf_printf(out, "\n| %zu | ", f + 1);
		report_put_md_code(out, r->queue_fixes[f]);
		for (i = 0; i < r->nbranches; i++) {
			kb_buf_puts(out, " | ");
			report_put_md(out, report_view_queued(v, f, i)->text);
		}
		kb_buf_puts(out, " |");
	}
	kb_buf_puts(out, "\n\n");
}

/* Every fix not applied on a branch, and why, with its FAILED mail. */
static void put_queue_skipped(struct kb_buf *out, const struct report_view *v)
{
	const struct report_view_skipped *s;
	size_t i;

	for (i = 0; i < v->nskipped; i++) {
		s = &v->skipped[i];
		kb_buf_puts(out, "- ");
		report_put_md_code(out, s->branch);
		kb_buf_puts(out, " ");
		report_put_md_code(out, s->fix);
		kb_buf_puts(out, ": ");
		report_put_md(out, s->why);
		if (s->mail)
			kb_buf_printf(out, " ([FAILED mail](%s))", s->mail);
		kb_buf_putc(out, '\n');
	}
	kb_buf_puts(out, "\n## Lanes\n\n");
}

int kb_report_markdown(struct kb_buf *out, const struct kb_report *r)
{
	struct report_view v;
	size_t i;
	int err;

	if ((err = report_view_init(&v, r)) < 0)
		return err;
	put_head(out, &v);
	kb_buf_puts(out, "\n");
	if (r->queue) {
		put_queue_matrix(out, &v);
		put_queue_skipped(out, &v);
	}
	put_matrix(out, &v);
	for (i = 0; i < r->nbranches; i++)
		put_branch(out, &v, &v.branches[i]);
	report_view_release(&v);
	return kb_buf_check(out);
}
