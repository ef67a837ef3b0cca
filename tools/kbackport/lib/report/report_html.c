/*
 * summary.html: the matrix of summary.md as one self-contained page (inline
 * CSS, no script, no external asset), readable offline from the run
 * directory: every log file that exists is linked relative to the page.
 * Each status word is a <span class="st st-WORD">: green for verified,
 * fixed and the stages that passed, red for vulnerable, conflict,
 * regression and failures, orange for errors, grey for skipped and
 * not-affected. Then a section per branch with the notes, the reasons, the
 * commands to resolve a conflict, and each lane's cases.
 */
#include "report/report.h"
#include "report/report_priv.h"
#include "report/report_view.h"

#include <string.h>

static const char style[] =
	"body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#1b1b1b;line-height:1.4}\n"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\n"
	"table{border-collapse:collapse;margin:.6em 0}\n"
	"th,td{border:1px solid #c8c8c8;padding:.25em .6em;text-align:left;vertical-align:top}\n"
	"th{background:#f0f0f0}\n"
	"code,pre{font-family:ui-monospace,monospace;font-size:.92em}\n"
	"pre{background:#f6f6f6;border:1px solid #ddd;padding:.5em;overflow-x:auto}\n"
	"td pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}\n"
	"table.cases td:nth-child(4){min-width:16em}\n"
	".st{display:inline-block;padding:0 .35em;border-radius:3px;font-weight:600;white-space:nowrap}\n"
	".st-verified,.st-fixed,.st-applied,.st-already-applied,.st-pass,.st-cached"
	"{background:#d9f2d9;color:#17601f}\n"
	".st-vulnerable,.st-conflict,.st-regression,.st-fail{background:#fadada;color:#9b1111}\n"
	".st-error{background:#ffe4c4;color:#8a4b00}\n"
	".st-untested{background:#fff3c4;color:#7a5d00}\n"
	".st-skipped,.st-not-affected,.st-skip,.st-none{background:#e6e6e6;color:#555}\n"
	".st-baseline{background:#fff;border:1px dashed #c55;font-weight:normal}\n"
	"td.logs{max-width:30em}.logs a{display:inline-block;margin-right:.6em}\n"
	"details{margin:.4em 0}summary{cursor:pointer}\n";

/*
 * Every writer here appends without checking: a failed append leaves `out`
 * failed (util/buf.h), and kb_report_html() checks it once at the end.
 */
static void put(struct kb_buf *out, const char *s)
{
	kb_buf_puts(out, s);
}

static void put_text(struct kb_buf *out, const char *s)
{
	report_put_xml(out, s);
}

/* <span class="st st-WORD extra">text</span> */
static void put_status(struct kb_buf *out, const char *word, const char *extra, const char *text)
{
	put(out, "<span class=\"st st-");
	put_text(out, word);
	if (extra) {
		kb_buf_putc(out, ' ');
		put_text(out, extra);
	}
	put(out, "\">");
	put_text(out, text ? text : word);
	put(out, "</span>");
}

static void put_id(struct kb_buf *out, const char *name)
{
	put(out, "branch-");
	for (; *name; name++)
		kb_buf_putc(out, strchr(" \t\n\"'<>&", *name) ? '_' : *name);
}

/* A status cell: a span, or plain text when it has no status word. */
static void put_cell(struct kb_buf *out, const struct report_view_cell *c)
{
	if (c->word)
		put_status(out, c->word, c->baseline ? "st-baseline" : NULL, c->text);
	else
		put_text(out, c->text);
}

static void put_link(struct kb_buf *out, const struct report_view_link *l)
{
	put(out, "<a href=\"");
	put(out, l->url);
	put(out, "\">");
	put_text(out, l->name);
	put(out, "</a>");
}

static void put_links(struct kb_buf *out, const struct report_view_link *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put_link(out, &l[i]);
}

/* <td>cell</td> */
static void put_td(struct kb_buf *out, const struct report_view_cell *c)
{
	put(out, "<td>");
	put_cell(out, c);
	put(out, "</td>");
}

/* The test cell: the verdict's span, then the suites' counts and the boot. */
static void put_test_td(struct kb_buf *out, const struct report_view_row *row)
{
	put(out, "<td>");
	put_cell(out, &row->test);
	if (row->counts) {
		put(out, " ");
		put_text(out, row->counts);
	}
	put_text(out, row->boot);
	put(out, "</td>");
}

static void put_logs_td(struct kb_buf *out, const struct report_view_row *row)
{
	put(out, "<td class=\"logs\">");
	put_links(out, row->links, row->nlinks);
	put(out, "</td>");
}

/* The branch's own cells, spanning its rows: name, verdict, apply. */
static void put_branch_tds(struct kb_buf *out, const struct report_view_branch *vb)
{
	kb_buf_printf(out, "<td rowspan=\"%zu\"><a href=\"#", vb->nrows);
	put_id(out, vb->branch->name);
	put(out, "\"><code>");
	put_text(out, vb->branch->name);
	kb_buf_printf(out, "</code></a></td><td rowspan=\"%zu\">", vb->nrows);
	put_cell(out, &vb->verdict);
	kb_buf_printf(out, "</td><td rowspan=\"%zu\">", vb->nrows);
	put_cell(out, &vb->apply);
	put(out, "</td>");
}

static void put_row(struct kb_buf *out, const struct report_view_row *row)
{
	const struct report_view_cell kind = { NULL, row->kind, false };

	put(out, "<tr data-branch=\"");
	put_text(out, row->branch->branch->name);
	put(out, "\" data-lane=\"");
	put_text(out, row->kind);
	put(out, "\">");
	if (row->first)
		put_branch_tds(out, row->branch);
	put_td(out, &kind);
	put_td(out, &row->build);
	put_test_td(out, row);
	put_logs_td(out, row);
	put(out, "</tr>\n");
}

static void put_matrix(struct kb_buf *out, const struct report_view *v)
{
	size_t i;

	put(out, "<table id=\"matrix\">\n<thead><tr><th>branch</th><th>verdict</th>"
	    "<th>apply</th><th>lane</th><th>build</th><th>test</th><th>logs</th></tr>"
	    "</thead>\n<tbody>\n");
	for (i = 0; i < v->nrows; i++)
		put_row(out, &v->rows[i]);
	put(out, "</tbody>\n</table>\n");
}

static void put_list(struct kb_buf *out, const char *const *lines)
{
	if (!lines || !*lines)
		return;
	put(out, "<ul>\n");
	for (; *lines; lines++) {
		put(out, "<li>");
		put_text(out, *lines);
		put(out, "</li>\n");
	}
	put(out, "</ul>\n");
}

static void put_pre(struct kb_buf *out, const char *const *lines)
{
	put(out, "<pre>");
	for (; lines && *lines; lines++) {
		put_text(out, *lines);
		kb_buf_putc(out, '\n');
	}
	put(out, "</pre>\n");
}

static void put_apply(struct kb_buf *out, const struct kb_report_apply *a)
{
	struct kb_buf head = KB_BUF_INIT;

	if (!a->present)
		return;
	put(out, "<p>apply: ");
	report_put_apply_cell(&head, a);
	kb_buf_carry_oom(out, &head);
	put_status(out, kb_status_name(a->status), NULL, head.ptr);
	if (a->detail) {
		put(out, " ");
		put_text(out, a->detail);
	}
	put(out, "</p>\n");
	put_list(out, a->notes);
	if (a->nreproduce) {
		put(out, "<p>To resolve it by hand:</p>\n");
		put_pre(out, a->reproduce);
	}
	kb_buf_release(&head);
}

static void put_case_row(struct kb_buf *out, const struct kb_report_lane *l,
			 const struct kb_report_suite *s, const struct kb_report_case *c)
{
	bool expected = report_case_expected_failure(l, c);

	put(out, "<tr><td>");
	put_text(out, s->name);
	put(out, "</td><td>");
	put_text(out, c->name);
	put(out, "</td><td>");
	put_status(out, kb_ktap_status_name(c->status), expected ? "st-baseline" : NULL,
		   expected ? "fail (expected)" : NULL);
	put(out, "</td><td>");
	put_text(out, c->proves);
	put(out, "</td><td>");
	if (c->diag) {
		put(out, "<pre>");
		put_text(out, c->diag);
		put(out, "</pre>");
	}
	put(out, "</td></tr>\n");
}

static void put_lane(struct kb_buf *out, const struct report_view_row *row)
{
	const struct kb_report_lane *l = row->lane;
	size_t i, j;

	kb_buf_printf(out, "<details%s><summary>%s lane: ", row->needs_look ? " open" : "",
		      row->kind);
	put_cell(out, &row->test);
	if (l->commit) {
		put(out, " <code>");
		put_text(out, l->commit);
		put(out, "</code>");
	}
	put(out, "</summary>\n");
	put_apply(out, &l->apply);
	put_list(out, l->reason);
	if (l->nsuites)
		put(out, "<table class=\"cases\">\n<tr><th>suite</th><th>case</th>"
		    "<th>status</th><th>proves</th><th>diagnostics</th></tr>\n");
	for (i = 0; i < l->nsuites; i++)
		for (j = 0; j < l->suites[i].ncases; j++)
			put_case_row(out, l, &l->suites[i], &l->suites[i].cases[j]);
	if (l->nsuites)
		put(out, "</table>\n");
	put(out, "</details>\n");
}

static void put_files(struct kb_buf *out, const struct report_view_branch *vb)
{
	if (vb->nfiles) {
		put(out, "<p class=\"logs\">files: ");
		put_links(out, vb->files, vb->nfiles);
		put(out, "</p>\n");
	}
	if (!vb->mail.name)
		return;
	put(out, "<p>mail to the author: ");
	put_link(out, &vb->mail);
	put(out, "</p>\n");
}

static void put_branch(struct kb_buf *out, const struct report_view *v,
		       const struct report_view_branch *vb)
{
	const struct kb_report_branch *b = vb->branch;
	size_t i;

	put(out, "<section id=\"");
	put_id(out, b->name);
	put(out, "\">\n<h2><code>");
	put_text(out, b->name);
	put(out, "</code> ");
	put_cell(out, &vb->verdict);
	put(out, "</h2>\n");
	if (b->repo || b->ref) {
		put(out, "<p>tree: <code>");
		put_text(out, b->repo ? b->repo : "");
		put(out, "</code> ref <code>");
		put_text(out, b->ref ? b->ref : "");
		put(out, "</code></p>\n");
	}
	put_apply(out, &b->apply);
	if (b->note) {
		put(out, "<p class=\"note\">note: ");
		put_text(out, b->note);
		put(out, "</p>\n");
	}
	for (i = 0; i < b->nlanes; i++)
		put_lane(out, &v->rows[vb->row + i]);
	put_files(out, vb);
	put(out, "</section>\n");
}

/* `text` escaped between `before` and `after`; nothing when there is none. */
static void put_opt(struct kb_buf *out, const char *before, const char *text, const char *after)
{
	if (!text)
		return;
	put(out, before);
	put_text(out, text);
	put(out, after);
}

static void put_meta(struct kb_buf *out, const struct report_view *v)
{
	const struct kb_report *r = v->report;
	size_t i;

	put(out, "<p class=\"meta\">");
	put_opt(out, "upstream <code>", r->upstream, "</code> ");
	put_opt(out, "by ", r->author, "");
	put(out, "<br>run <code>");
	put_text(out, r->run);
	put(out, "</code>");
	put_opt(out, " on <code>", r->host, "</code>");
	put_opt(out, ", ", r->started, "");
	put_opt(out, " to ", r->finished, "");
	put(out, "</p>\n");
	/* which ones, as summary.md says it */
	kb_buf_printf(out, "<p class=\"result\">%zu of %zu branches need attention%s",
		      v->nattention, r->nbranches, v->nattention ? ":" : ".");
	for (i = 0; i < v->nattention; i++) {
		put(out, i ? ", <code>" : " <code>");
		put_text(out, v->attention[i]->name);
		kb_buf_printf(out, "</code> %s", kb_verdict_name(v->attention[i]->verdict));
	}
	put(out, v->nattention ? ".</p>\n" : "</p>\n");
}

static void put_head(struct kb_buf *out, const struct kb_report *r)
{
	put(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<title>kbackport ");
	put_text(out, r->fix);
	put(out, " run ");
	put_text(out, r->run);
	put(out, "</title>\n<style>\n");
	put(out, style);
	put(out, "</style>\n</head>\n<body>\n<h1>");
	put_text(out, r->fix);
	put_opt(out, ": ", r->subject, "");
	put(out, "</h1>\n");
}

/* Why a fix was not applied on a branch, as a list item. */
static void put_skipped(struct kb_buf *out, const struct report_view_skipped *s)
{
	put(out, "<li><code>");
	put_text(out, s->branch);
	put(out, "</code> <code>");
	put_text(out, s->fix);
	put(out, "</code>: ");
	put_text(out, s->why);
	if (s->mail)	/* a URL, %-encoded */
		kb_buf_printf(out, " (<a href=\"%s\">FAILED mail</a>)", s->mail);
	put(out, "</li>\n");
}

/* A queue's run: the fix x branch matrix, then why a fix was not applied. */
static void put_queue(struct kb_buf *out, const struct report_view *v)
{
	const struct kb_report *r = v->report;
	size_t f, i;

	put(out, "<h2>The queue <code>");
	put_text(out, r->queue);
	put(out, "</code>: each fix on each branch</h2>\n<table id=\"queue\">\n"
	    "<thead><tr><th>#</th><th>fix</th>");
	for (i = 0; i < r->nbranches; i++) {
		put(out, "<th>");
		put_text(out, r->branches[i].name);
		put(out, "</th>");
	}
	put(out, "</tr></thead>\n<tbody>\n");
	for (f = 0; f < r->nqueue_fixes; f++) {
		kb_buf_printf(out, "<tr><td>%zu</td><td><code>", f + 1);
		put_text(out, r->queue_fixes[f]);
		put(out, "</code></td>");
		for (i = 0; i < r->nbranches; i++)
			put_td(out, report_view_queued(v, f, i));
		put(out, "</tr>\n");
	}
	put(out, "</tbody>\n</table>\n<ul class=\"queue-skipped\">\n");
	for (i = 0; i < v->nskipped; i++)
		put_skipped(out, &v->skipped[i]);
	put(out, "</ul>\n<h2>Lanes</h2>\n");
}

int kb_report_html(struct kb_buf *out, const struct kb_report *r)
{
	struct report_view v;
	size_t i;
	int err;

	if ((err = report_view_init(&v, r)) < 0)
		return err;
	put_head(out, r);
	put_meta(out, &v);
	if (r->queue)
		put_queue(out, &v);
	put_matrix(out, &v);
	for (i = 0; i < r->nbranches; i++)
		put_branch(out, &v, &v.branches[i]);
	put(out, "</body>\n</html>\n");
	report_view_release(&v);
	return kb_buf_check(out);
}
