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

static int put_links(struct kb_buf *out, const char *dir, char *const *files, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		if ((err = kb_buf_puts(out, i ? ", [" : "[")) < 0 || (err = report_put_md(out, files[i])) < 0 ||
		    (err = kb_buf_puts(out, "](")) < 0 || (err = report_put_url(out, dir)) < 0 ||
		    (err = kb_buf_putc(out, '/')) < 0 || (err = report_put_url(out, files[i])) < 0)
			break;
		err = kb_buf_putc(out, ')');
	}
	return err;
}

/* A cell made by `put` into a scratch buffer, then escaped. */
static int put_cell_apply(struct kb_buf *out, const struct kb_report_apply *a)
{
	struct kb_buf cell = KB_BUF_INIT;
	int err;

	if ((err = report_put_apply_cell(&cell, a)) == 0)
		err = report_put_md(out, cell.ptr);
	kb_buf_release(&cell);
	return err;
}

static int put_cell_test(struct kb_buf *out, const struct kb_report_lane *l)
{
	struct kb_buf cell = KB_BUF_INIT;
	int err;

	if ((err = kb_buf_printf(&cell, "%s", report_lane_verdict_text(l))) == 0 &&
	    (!l->nsuites || (err = kb_buf_puts(&cell, ": ")) == 0) &&
	    (!l->nsuites || (err = report_put_suite_counts(&cell, l)) == 0) &&
	    (err = report_put_boot_image(&cell, l)) == 0)
		err = report_put_md(out, cell.ptr);
	kb_buf_release(&cell);
	return err;
}

/* The branch's own cells, on its first row: name, verdict, apply. */
static int put_branch_cells(struct kb_buf *out, const struct kb_report_branch *b, bool first)
{
	int err;

	if (!first)
		return kb_buf_puts(out, "| | | ");
	if ((err = kb_buf_puts(out, "| ")) < 0 || (err = report_put_md_code(out, b->name)) < 0 ||
	    (err = kb_buf_printf(out, " | **%s** | ", kb_verdict_name(b->verdict))) < 0 ||
	    (err = put_cell_apply(out, &b->apply)) < 0)
		return err;
	return kb_buf_puts(out, " ");
}

static int put_lane_row(struct kb_buf *out, const struct kb_report_branch *b,
			const struct kb_report_lane *l, bool first)
{
	int err;

	if ((err = put_branch_cells(out, b, first)) < 0 ||
	    (err = kb_buf_printf(out, "| %s | %s | ", kb_lane_kind_name(l->kind),
				 l->has_build ? kb_build_status_name(l->build) : "-")) < 0 ||
	    (err = put_cell_test(out, l)) < 0 || (err = kb_buf_puts(out, " | ")) < 0 ||
	    (err = put_links(out, l->dir, l->files, l->nfiles)) < 0)
		return err;
	return kb_buf_puts(out, " |\n");
}

/* A branch without lanes (conflict, not affected, skipped): one row. */
static int put_bare_row(struct kb_buf *out, const struct kb_report_branch *b)
{
	int err;

	if ((err = put_branch_cells(out, b, true)) < 0 || (err = kb_buf_puts(out, "| - | - | - | ")) < 0 ||
	    (err = put_links(out, b->name, b->files, b->nfiles)) < 0)
		return err;
	return kb_buf_puts(out, " |\n");
}

static int put_matrix(struct kb_buf *out, const struct kb_report *r)
{
	size_t i, j;
	int err;

	if ((err = kb_buf_puts(out, "| branch | verdict | apply | lane | build | test | logs |\n"
			       "|---|---|---|---|---|---|---|\n")) < 0)
		return err;
	for (i = 0; i < r->nbranches && !err; i++) {
		const struct kb_report_branch *b = &r->branches[i];
		if (!b->nlanes)
			err = put_bare_row(out, b);
		for (j = 0; j < b->nlanes && !err; j++)
			err = put_lane_row(out, b, &b->lanes[j], j == 0);
	}
	return err;
}

static int put_item(struct kb_buf *out, const char *indent, const char *label, const char *text)
{
	int err;

	if (!text)
		return 0;
	if ((err = kb_buf_printf(out, "%s- %s", indent, label)) < 0 || (err = report_put_md(out, text)) < 0)
		return err;
	return kb_buf_putc(out, '\n');
}

static int put_items(struct kb_buf *out, const char *indent, const char *const *lines)
{
	int err = 0;

	for (; lines && *lines && !err; lines++)
		err = put_item(out, indent, "", *lines);
	return err;
}

/* A fenced block longer than any run of backticks inside it. */
static int put_fenced(struct kb_buf *out, const char *indent, const char *info,
		      const char *const *lines)
{
	size_t longest = 2, run, i;
	const char *const *l;
	const char *p;
	int err;

	for (l = lines; *l; l++)
		for (p = *l, run = 0; *p; p++)
			if ((run = *p == '`' ? run + 1 : 0) > longest)
				longest = run;
	if ((err = kb_buf_puts(out, indent)) < 0)
		return err;
	for (i = 0; i <= longest && !err; i++)
		err = kb_buf_putc(out, '`');
	if (err < 0 || (err = kb_buf_printf(out, "%s\n", info)) < 0)
		return err;
	for (l = lines; *l && !err; l++)
		err = kb_buf_printf(out, "%s%s\n", indent, *l);
	if (err < 0 || (err = kb_buf_puts(out, indent)) < 0)
		return err;
	for (i = 0; i <= longest && !err; i++)
		err = kb_buf_putc(out, '`');
	return err < 0 ? err : kb_buf_putc(out, '\n');
}

static int put_apply(struct kb_buf *out, const struct kb_report_apply *a)
{
	struct kb_buf head = KB_BUF_INIT;
	int err;

	if (!a->present)
		return 0;
	if ((err = report_put_apply_cell(&head, a)) == 0 &&
	    (!a->detail || (err = kb_buf_printf(&head, ": %s", a->detail)) == 0))
		err = put_item(out, "", "apply: ", head.ptr);
	kb_buf_release(&head);
	if (err < 0 || (err = put_items(out, "  ", a->notes)) < 0 || !a->nreproduce)
		return err;
	if ((err = kb_buf_puts(out, "- to resolve it by hand:\n\n")) < 0)
		return err;
	return put_fenced(out, "  ", "sh", a->reproduce);
}

/* How the fix went onto a lane, when the lane says more than its branch. */
static int put_lane_apply(struct kb_buf *out, const struct kb_report_lane *l)
{
	const struct kb_report_apply *a = &l->apply;
	struct kb_buf head = KB_BUF_INIT;
	int err;

	if (!a->present || (!a->detail && !a->nnotes))
		return 0;
	if ((err = kb_buf_printf(&head, "%s lane: ", kb_lane_kind_name(l->kind))) == 0 &&
	    (err = report_put_apply_cell(&head, a)) == 0 &&
	    (!a->detail || (err = kb_buf_printf(&head, ": %s", a->detail)) == 0))
		err = put_item(out, "", "", head.ptr);
	kb_buf_release(&head);
	return err < 0 ? err : put_items(out, "  ", a->notes);
}

static int put_lane_reasons(struct kb_buf *out, const struct kb_report_lane *l)
{
	int err;

	if (!l->nreason)
		return 0;
	if ((err = kb_buf_printf(out, "- %s lane, ", kb_lane_kind_name(l->kind))) < 0 ||
	    (err = report_put_md(out, report_lane_verdict_text(l))) < 0 ||
	    (err = kb_buf_puts(out, ":\n")) < 0)
		return err;
	return put_items(out, "  ", l->reason);
}

static int put_where(struct kb_buf *out, const struct kb_report_branch *b)
{
	int err;

	if (!b->repo && !b->ref)
		return 0;
	if ((err = kb_buf_puts(out, "- tree:")) < 0 ||
	    (b->repo && ((err = kb_buf_putc(out, ' ')) < 0 || (err = report_put_md_code(out, b->repo)) < 0)) ||
	    (b->ref && ((err = kb_buf_puts(out, " ref ")) < 0 || (err = report_put_md_code(out, b->ref)) < 0)))
		return err;
	return kb_buf_putc(out, '\n');
}

static int put_mail_link(struct kb_buf *out, const struct kb_report_branch *b)
{
	struct kb_buf name = KB_BUF_INIT;
	int err;

	if (!kb_report_needs_hand(&b->apply))
		return 0;
	if ((err = kb_report_failed_name(&name, b)) == 0 &&
	    (err = kb_buf_puts(out, "- mail to the author: [")) == 0 &&
	    (err = report_put_md(out, name.ptr)) == 0 && (err = kb_buf_puts(out, "](")) == 0 &&
	    (err = report_put_url(out, name.ptr)) == 0)
		err = kb_buf_puts(out, ")\n");
	kb_buf_release(&name);
	return err;
}

static int put_branch(struct kb_buf *out, const struct kb_report_branch *b)
{
	size_t i;
	int err;

	if ((err = kb_buf_puts(out, "\n## ")) < 0 || (err = report_put_md_code(out, b->name)) < 0 ||
	    (err = kb_buf_printf(out, ": %s\n\n", kb_verdict_name(b->verdict))) < 0 ||
	    (err = put_where(out, b)) < 0 ||
	    (err = put_apply(out, &b->apply)) < 0 || (err = put_item(out, "", "note: ", b->note)) < 0)
		return err;
	for (i = 0; i < b->nlanes && !err; i++)
		err = put_lane_apply(out, &b->lanes[i]);
	for (i = 0; i < b->nlanes && !err; i++)
		err = put_lane_reasons(out, &b->lanes[i]);
	if (!err && b->nfiles && (err = kb_buf_puts(out, "- files: ")) == 0 &&
	    (err = put_links(out, b->name, b->files, b->nfiles)) == 0)
		err = kb_buf_putc(out, '\n');
	return err < 0 ? err : put_mail_link(out, b);
}

static int put_attention(struct kb_buf *out, const struct kb_report *r)
{
	const struct kb_report_branch **list = NULL;
	size_t i, n = 0;
	int err;

	if ((err = kb_report_attention(&list, &n, r)) < 0)
		return err;
	if (!n)
		err = kb_buf_printf(out, "- result: all %zu branches are verified, fixed, not affected "
				    "or skipped\n", r->nbranches);
	else
		err = kb_buf_printf(out, "- result: %zu of %zu branches need attention:", n,
				    r->nbranches);
	for (i = 0; i < n && !err; i++)
		if ((err = kb_buf_puts(out, i ? ", " : " ")) == 0 &&
		    (err = report_put_md_code(out, list[i]->name)) == 0)
			err = kb_buf_printf(out, " %s", kb_verdict_name(list[i]->verdict));
	if (!err && n)
		err = kb_buf_putc(out, '\n');
	free(list);
	return err;
}

static int put_head(struct kb_buf *out, const struct kb_report *r)
{
	int err;

	if ((err = kb_buf_puts(out, "# ")) < 0 || (err = report_put_md(out, r->fix)) < 0 ||
	    (r->subject && ((err = kb_buf_puts(out, ": ")) < 0 || (err = report_put_md(out, r->subject)) < 0)) ||
	    (err = kb_buf_puts(out, "\n\n")) < 0)
		return err;
	if (r->upstream && ((err = kb_buf_puts(out, "- upstream: ")) < 0 ||
			    (err = report_put_md_code(out, r->upstream)) < 0 ||
			    (r->author && ((err = kb_buf_puts(out, " by ")) < 0 ||
					   (err = report_put_md(out, r->author)) < 0)) ||
			    (err = kb_buf_putc(out, '\n')) < 0))
		return err;
	if ((err = kb_buf_puts(out, "- run: ")) < 0 || (err = report_put_md_code(out, r->run)) < 0 ||
	    (r->host && ((err = kb_buf_puts(out, " on ")) < 0 || (err = report_put_md_code(out, r->host)) < 0)) ||
	    (r->started && ((err = kb_buf_puts(out, ", ")) < 0 || (err = report_put_md(out, r->started)) < 0)) ||
	    (r->finished && ((err = kb_buf_puts(out, " to ")) < 0 || (err = report_put_md(out, r->finished)) < 0)) ||
	    (err = kb_buf_putc(out, '\n')) < 0)
		return err;
	return put_attention(out, r);
}

/* A queue's run: the fix x branch matrix of statuses. */
static int put_queue_matrix(struct kb_buf *out, const struct kb_report *r)
{
	struct kb_buf cell = KB_BUF_INIT;
	size_t f, i;
	int err;

	if ((err = kb_buf_puts(out, "## The queue ")) < 0 || (err = report_put_md_code(out, r->queue)) < 0 ||
	    (err = kb_buf_puts(out, ": each fix on each branch\n\n| # | fix |")) < 0)
		return err;
	for (i = 0; i < r->nbranches && !err; i++)
		if ((err = kb_buf_putc(out, ' ')) == 0 &&
		    (err = report_put_md_code(out, r->branches[i].name)) == 0)
			err = kb_buf_puts(out, " |");
	for (i = 0; i < r->nbranches + 2 && !err; i++)
		err = kb_buf_puts(out, i ? "---|" : "\n|---|");
	for (f = 0; f < r->nqueue_fixes && !err; f++) {
		if ((err = kb_buf_printf(out, "\n| %zu | ", f + 1)) < 0 ||
		    (err = report_put_md_code(out, r->queue_fixes[f])) < 0)
			break;
		for (i = 0; i < r->nbranches && !err; i++) {
			kb_buf_clear(&cell);
			if ((err = kb_buf_puts(out, " | ")) == 0 &&
			    (err = report_put_queued_cell(&cell, &r->branches[i], f)) == 0)
				err = report_put_md(out, cell.ptr);
		}
		if (!err)
			err = kb_buf_puts(out, " |");
	}
	kb_buf_release(&cell);
	return err < 0 ? err : kb_buf_puts(out, "\n\n");
}

/* Then every fix not applied on a branch, and why, with its FAILED mail. */
static int put_queue_skipped(struct kb_buf *out, const struct kb_report *r)
{
	struct kb_buf why = KB_BUF_INIT;
	size_t f, i;
	int err = 0;

	for (i = 0; i < r->nbranches && !err; i++) {
		const struct kb_report_branch *b = &r->branches[i];
		for (f = 0; f < r->nqueue_fixes && !err; f++) {
			const char *mail = f < b->queue.nfixes ? b->queue.fixes[f].mail : NULL;
			kb_buf_clear(&why);
			if ((err = report_put_queued_why(&why, b, f)) < 0 || !why.size)
				continue;
			if ((err = kb_buf_puts(out, "- ")) < 0 || (err = report_put_md_code(out, b->name)) < 0 ||
			    (err = kb_buf_puts(out, " ")) < 0 ||
			    (err = report_put_md_code(out, r->queue_fixes[f])) < 0 ||
			    (err = kb_buf_puts(out, ": ")) < 0 || (err = report_put_md(out, why.ptr)) < 0)
				break;
			if (mail && ((err = kb_buf_puts(out, " ([FAILED mail](")) < 0 ||
				     (err = report_put_url(out, mail)) < 0 || (err = kb_buf_puts(out, "))")) < 0))
				break;
			err = kb_buf_putc(out, '\n');
		}
	}
	kb_buf_release(&why);
	return err < 0 ? err : kb_buf_puts(out, "\n## Lanes\n\n");
}

int kb_report_markdown(struct kb_buf *out, const struct kb_report *r)
{
	size_t i;
	int err;

	if ((err = put_head(out, r)) < 0 || (err = kb_buf_puts(out, "\n")) < 0 ||
	    (r->queue && ((err = put_queue_matrix(out, r)) < 0 || (err = put_queue_skipped(out, r)) < 0)) ||
	    (err = put_matrix(out, r)) < 0)
		return err;
	for (i = 0; i < r->nbranches && !err; i++)
		err = put_branch(out, &r->branches[i]);
	return err;
}
