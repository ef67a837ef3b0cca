/*
 * summary.md: a branch x stage matrix (apply, build, test per lane, the
 * branch's verdict, links to the logs), then a section per branch with the
 * apply result's notes, the lanes' reasons and the commands to resolve a
 * conflict by hand. CommonMark with GitHub's tables; every value from the
 * run is escaped or put in a code span.
 */
#include "report/report.h"
#include "report/report_priv.h"
#include "util/error.h"

#include <string.h>

/*
 * Every writer here appends without checking: a failed append leaves `out`
 * failed (util/buf.h), and kb_report_markdown() checks it once at the end.
 */
static void put_links(struct kb_buf *out, const char *dir, char *const *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		kb_buf_puts(out, i ? ", [" : "[");
		report_put_md(out, files[i]);
		kb_buf_puts(out, "](");
		report_put_url(out, dir);
		kb_buf_putc(out, '/');
		report_put_url(out, files[i]);
		kb_buf_putc(out, ')');
	}
}

/* A cell made in a scratch buffer, then escaped. */
static void put_cell(struct kb_buf *out, struct kb_buf *cell)
{
	kb_buf_carry_oom(out, cell);
	report_put_md(out, cell->ptr);
	kb_buf_release(cell);
}

static void put_cell_apply(struct kb_buf *out, const struct kb_report_apply *a)
{
	struct kb_buf cell = KB_BUF_INIT;

	report_put_apply_cell(&cell, a);
	put_cell(out, &cell);
}

static void put_cell_test(struct kb_buf *out, const struct kb_report_lane *l)
{
	struct kb_buf cell = KB_BUF_INIT;

	kb_buf_printf(&cell, "%s", report_lane_verdict_text(l));
	if (l->nsuites) {
		kb_buf_puts(&cell, ": ");
		report_put_suite_counts(&cell, l);
	}
	report_put_boot_image(&cell, l);
	put_cell(out, &cell);
}

/* The branch's own cells, on its first row: name, verdict, apply. */
static void put_branch_cells(struct kb_buf *out, const struct kb_report_branch *b, bool first)
{
	if (!first) {
		kb_buf_puts(out, "| | | ");
		return;
	}
	kb_buf_puts(out, "| ");
	report_put_md_code(out, b->name);
	kb_buf_printf(out, " | **%s** | ", kb_verdict_name(b->verdict));
	put_cell_apply(out, &b->apply);
	kb_buf_puts(out, " ");
}

static void put_lane_row(struct kb_buf *out, const struct kb_report_branch *b,
			 const struct kb_report_lane *l, bool first)
{
	put_branch_cells(out, b, first);
	kb_buf_printf(out, "| %s | %s | ", kb_lane_kind_name(l->kind),
		      l->has_build ? kb_build_status_name(l->build) : "-");
	put_cell_test(out, l);
	kb_buf_puts(out, " | ");
	put_links(out, l->dir, l->files, l->nfiles);
	kb_buf_puts(out, " |\n");
}

/* A branch without lanes (conflict, not affected, skipped): one row. */
static void put_bare_row(struct kb_buf *out, const struct kb_report_branch *b)
{
	put_branch_cells(out, b, true);
	kb_buf_puts(out, "| - | - | - | ");
	put_links(out, b->name, b->files, b->nfiles);
	kb_buf_puts(out, " |\n");
}

static void put_matrix(struct kb_buf *out, const struct kb_report *r)
{
	size_t i, j;

	kb_buf_puts(out, "| branch | verdict | apply | lane | build | test | logs |\n"
		    "|---|---|---|---|---|---|---|\n");
	for (i = 0; i < r->nbranches; i++) {
		const struct kb_report_branch *b = &r->branches[i];
		if (!b->nlanes)
			put_bare_row(out, b);
		for (j = 0; j < b->nlanes; j++)
			put_lane_row(out, b, &b->lanes[j], j == 0);
	}
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

static void put_lane_reasons(struct kb_buf *out, const struct kb_report_lane *l)
{
	if (!l->nreason)
		return;
	kb_buf_printf(out, "- %s lane, ", kb_lane_kind_name(l->kind));
	report_put_md(out, report_lane_verdict_text(l));
	kb_buf_puts(out, ":\n");
	put_items(out, "  ", l->reason);
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

static void put_mail_link(struct kb_buf *out, const struct kb_report_branch *b)
{
	struct kb_buf name = KB_BUF_INIT;

	if (!kb_report_needs_hand(&b->apply))
		return;
	kb_report_failed_name(&name, b);
	kb_buf_carry_oom(out, &name);
	kb_buf_puts(out, "- mail to the author: [");
	report_put_md(out, name.ptr);
	kb_buf_puts(out, "](");
	report_put_url(out, name.ptr);
	kb_buf_puts(out, ")\n");
	kb_buf_release(&name);
}

static void put_branch(struct kb_buf *out, const struct kb_report_branch *b)
{
	size_t i;

	kb_buf_puts(out, "\n## ");
	report_put_md_code(out, b->name);
	kb_buf_printf(out, ": %s\n\n", kb_verdict_name(b->verdict));
	put_where(out, b);
	put_apply(out, &b->apply);
	put_item(out, "", "note: ", b->note);
	for (i = 0; i < b->nlanes; i++)
		put_lane_apply(out, &b->lanes[i]);
	for (i = 0; i < b->nlanes; i++)
		put_lane_reasons(out, &b->lanes[i]);
	if (b->nfiles) {
		kb_buf_puts(out, "- files: ");
		put_links(out, b->name, b->files, b->nfiles);
		kb_buf_putc(out, '\n');
	}
	put_mail_link(out, b);
}

static int put_attention(struct kb_buf *out, const struct kb_report *r)
{
	const struct kb_report_branch **list = NULL;
	size_t i, n = 0;
	int err;

	if ((err = kb_report_attention(&list, &n, r)) < 0)
		return err;
	if (!n)
		kb_buf_printf(out, "- result: all %zu branches are verified, fixed, not affected "
			      "or skipped\n", r->nbranches);
	else
		kb_buf_printf(out, "- result: %zu of %zu branches need attention:", n, r->nbranches);
	for (i = 0; i < n; i++) {
		kb_buf_puts(out, i ? ", " : " ");
		report_put_md_code(out, list[i]->name);
		kb_buf_printf(out, " %s", kb_verdict_name(list[i]->verdict));
	}
	if (n)
		kb_buf_putc(out, '\n');
	free(list);
	return 0;
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

static int put_head(struct kb_buf *out, const struct kb_report *r)
{
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
	return put_attention(out, r);
}

/* A queue's run: the fix x branch matrix of statuses. */
static void put_queue_matrix(struct kb_buf *out, const struct kb_report *r)
{
	struct kb_buf cell = KB_BUF_INIT;
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
			report_put_queued_cell(&cell, &r->branches[i], f);
			put_cell(out, &cell);
		}
		kb_buf_puts(out, " |");
	}
	kb_buf_puts(out, "\n\n");
}

/* Every fix not applied on a branch, and why, with its FAILED mail. */
static void put_queue_skipped(struct kb_buf *out, const struct kb_report *r)
{
	struct kb_buf why = KB_BUF_INIT;
	size_t f, i;

	for (i = 0; i < r->nbranches; i++) {
		const struct kb_report_branch *b = &r->branches[i];
		for (f = 0; f < r->nqueue_fixes; f++) {
			const char *mail = f < b->queue.nfixes ? b->queue.fixes[f].mail : NULL;
			kb_buf_clear(&why);
			report_put_queued_why(&why, b, f);
			kb_buf_carry_oom(out, &why);
			if (!why.size)
				continue;
			kb_buf_puts(out, "- ");
			report_put_md_code(out, b->name);
			kb_buf_puts(out, " ");
			report_put_md_code(out, r->queue_fixes[f]);
			kb_buf_puts(out, ": ");
			report_put_md(out, why.ptr);
			if (mail) {
				kb_buf_puts(out, " ([FAILED mail](");
				report_put_url(out, mail);
				kb_buf_puts(out, "))");
			}
			kb_buf_putc(out, '\n');
		}
	}
	kb_buf_release(&why);
	kb_buf_puts(out, "\n## Lanes\n\n");
}

int kb_report_markdown(struct kb_buf *out, const struct kb_report *r)
{
	size_t i;
	int err;

	if ((err = put_head(out, r)) < 0)
		return err;
	kb_buf_puts(out, "\n");
	if (r->queue) {
		put_queue_matrix(out, r);
		put_queue_skipped(out, r);
	}
	put_matrix(out, r);
	for (i = 0; i < r->nbranches; i++)
		put_branch(out, &r->branches[i]);
	return kb_buf_check(out);
}
