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
#include "util/error.h"

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

static void put_link(struct kb_buf *out, const char *dir, const char *file)
{
	put(out, "<a href=\"");
	report_put_url(out, dir);
	kb_buf_putc(out, '/');
	report_put_url(out, file);
	put(out, "\">");
	put_text(out, file);
	put(out, "</a>");
}

static void put_links(struct kb_buf *out, const char *dir, char *const *files, size_t n)
{
	size_t i;

	put(out, "<td class=\"logs\">");
	for (i = 0; i < n; i++)
		put_link(out, dir, files[i]);
	put(out, "</td>");
}

static void put_apply_status(struct kb_buf *out, const struct kb_report_apply *a)
{
	struct kb_buf text = KB_BUF_INIT;

	report_put_apply_cell(&text, a);
	kb_buf_carry_oom(out, &text);
	put_status(out, a->present ? kb_status_name(a->status) : "none", NULL, text.ptr);
	kb_buf_release(&text);
}

static void put_test_cell(struct kb_buf *out, const struct kb_report_lane *l)
{
	struct kb_buf counts = KB_BUF_INIT;

	put(out, "<td>");
	put_status(out, kb_verdict_name(l->verdict),
		   l->baseline && l->verdict == KB_VERDICT_VULNERABLE ? "st-baseline" : NULL,
		   report_lane_verdict_text(l));
	if (l->nsuites) {
		report_put_suite_counts(&counts, l);
		put(out, " ");
		put_text(out, counts.ptr);
	}
	kb_buf_carry_oom(out, &counts);
	kb_buf_clear(&counts);
	report_put_boot_image(&counts, l);
	if (counts.size)
		put_text(out, counts.ptr);
	kb_buf_carry_oom(out, &counts);
	put(out, "</td>");
	kb_buf_release(&counts);
}

static void put_branch_cells(struct kb_buf *out, const struct kb_report_branch *b)
{
	size_t rows = b->nlanes ? b->nlanes : 1;

	kb_buf_printf(out, "<td rowspan=\"%zu\"><a href=\"#", rows);
	put_id(out, b->name);
	put(out, "\"><code>");
	put_text(out, b->name);
	kb_buf_printf(out, "</code></a></td><td rowspan=\"%zu\">", rows);
	put_status(out, kb_verdict_name(b->verdict), NULL, NULL);
	kb_buf_printf(out, "</td><td rowspan=\"%zu\">", rows);
	put_apply_status(out, &b->apply);
	put(out, "</td>");
}

static void put_row_start(struct kb_buf *out, const struct kb_report_branch *b, const char *lane)
{
	put(out, "<tr data-branch=\"");
	put_text(out, b->name);
	put(out, "\" data-lane=\"");
	put_text(out, lane);
	put(out, "\">");
}

static void put_lane_row(struct kb_buf *out, const struct kb_report_branch *b,
			 const struct kb_report_lane *l, bool first)
{
	put_row_start(out, b, kb_lane_kind_name(l->kind));
	if (first)
		put_branch_cells(out, b);
	kb_buf_printf(out, "<td>%s</td><td>", kb_lane_kind_name(l->kind));
	put_status(out, l->has_build ? kb_build_status_name(l->build) : "none", NULL,
		   l->has_build ? kb_build_status_name(l->build) : "-");
	put(out, "</td>");
	put_test_cell(out, l);
	put_links(out, l->dir, l->files, l->nfiles);
	put(out, "</tr>\n");
}

static void put_bare_row(struct kb_buf *out, const struct kb_report_branch *b)
{
	put_row_start(out, b, "-");
	put_branch_cells(out, b);
	put(out, "<td>-</td><td>-</td><td>-</td>");
	put_links(out, b->name, b->files, b->nfiles);
	put(out, "</tr>\n");
}

static void put_matrix(struct kb_buf *out, const struct kb_report *r)
{
	size_t i, j;

	put(out, "<table id=\"matrix\">\n<thead><tr><th>branch</th><th>verdict</th>"
	    "<th>apply</th><th>lane</th><th>build</th><th>test</th><th>logs</th></tr>"
	    "</thead>\n<tbody>\n");
	for (i = 0; i < r->nbranches; i++) {
		const struct kb_report_branch *b = &r->branches[i];
		if (!b->nlanes)
			put_bare_row(out, b);
		for (j = 0; j < b->nlanes; j++)
			put_lane_row(out, b, &b->lanes[j], j == 0);
	}
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

static void put_lane(struct kb_buf *out, const struct kb_report_lane *l)
{
	size_t i, j;

	kb_buf_printf(out, "<details%s><summary>%s lane: ", lane_needs_look(l) ? " open" : "",
		      kb_lane_kind_name(l->kind));
	put_status(out, kb_verdict_name(l->verdict),
		   l->baseline && l->verdict == KB_VERDICT_VULNERABLE ? "st-baseline" : NULL,
		   report_lane_verdict_text(l));
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

static void put_files(struct kb_buf *out, const struct kb_report_branch *b)
{
	struct kb_buf mail = KB_BUF_INIT;
	size_t i;

	if (b->nfiles) {
		put(out, "<p class=\"logs\">files: ");
		for (i = 0; i < b->nfiles; i++)
			put_link(out, b->name, b->files[i]);
		put(out, "</p>\n");
	}
	if (!kb_report_needs_hand(&b->apply))
		return;
	kb_report_failed_name(&mail, b);
	kb_buf_carry_oom(out, &mail);
	put(out, "<p>mail to the author: <a href=\"");
	report_put_url(out, mail.ptr);
	put(out, "\">");
	put_text(out, mail.ptr);
	put(out, "</a></p>\n");
	kb_buf_release(&mail);
}

static void put_branch(struct kb_buf *out, const struct kb_report_branch *b)
{
	size_t i;

	put(out, "<section id=\"");
	put_id(out, b->name);
	put(out, "\">\n<h2><code>");
	put_text(out, b->name);
	put(out, "</code> ");
	put_status(out, kb_verdict_name(b->verdict), NULL, NULL);
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
		put_lane(out, &b->lanes[i]);
	put_files(out, b);
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

static int put_meta(struct kb_buf *out, const struct kb_report *r)
{
	const struct kb_report_branch **list = NULL;
	size_t i, n = 0;
	int err;

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
	if ((err = kb_report_attention(&list, &n, r)) < 0)
		return err;
	kb_buf_printf(out, "<p class=\"result\">%zu of %zu branches need attention%s", n,
		      r->nbranches, n ? ":" : ".");
	for (i = 0; i < n; i++) {
		put(out, i ? ", <code>" : " <code>");
		put_text(out, list[i]->name);
		kb_buf_printf(out, "</code> %s", kb_verdict_name(list[i]->verdict));
	}
	put(out, n ? ".</p>\n" : "</p>\n");
	free(list);
	return 0;
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

/* A queue fix's cell: its status word, coloured as an apply status. */
static void put_queued_cell(struct kb_buf *out, const struct kb_report_branch *b, size_t f)
{
	struct kb_buf text = KB_BUF_INIT;
	const char *word = b->queue.error ? "error" :
			   f < b->queue.nfixes ? kb_status_name(b->queue.fixes[f].apply.status) : "none";

	put(out, "<td>");
	report_put_queued_cell(&text, b, f);
	kb_buf_carry_oom(out, &text);
	put_status(out, word, NULL, text.ptr);
	put(out, "</td>");
	kb_buf_release(&text);
}

/* Why fix `f` was not applied on `b`, as a list item; nothing when it was. */
static void put_queued_why(struct kb_buf *out, const struct kb_report *r,
			   const struct kb_report_branch *b, size_t f, struct kb_buf *why)
{
	const char *mail = f < b->queue.nfixes ? b->queue.fixes[f].mail : NULL;

	kb_buf_clear(why);
	report_put_queued_why(why, b, f);
	kb_buf_carry_oom(out, why);
	if (!why->size)
		return;
	put(out, "<li><code>");
	put_text(out, b->name);
	put(out, "</code> <code>");
	put_text(out, r->queue_fixes[f]);
	put(out, "</code>: ");
	put_text(out, why->ptr);
	if (mail) {
		put(out, " (<a href=\"");
		report_put_url(out, mail);
		put(out, "\">FAILED mail</a>)");
	}
	put(out, "</li>\n");
}

/* A queue's run: the fix x branch matrix, then why a fix was not applied. */
static void put_queue(struct kb_buf *out, const struct kb_report *r)
{
	struct kb_buf why = KB_BUF_INIT;
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
			put_queued_cell(out, &r->branches[i], f);
		put(out, "</tr>\n");
	}
	put(out, "</tbody>\n</table>\n<ul class=\"queue-skipped\">\n");
	for (i = 0; i < r->nbranches; i++)
		for (f = 0; f < r->nqueue_fixes; f++)
			put_queued_why(out, r, &r->branches[i], f, &why);
	kb_buf_release(&why);
	put(out, "</ul>\n<h2>Lanes</h2>\n");
}

int kb_report_html(struct kb_buf *out, const struct kb_report *r)
{
	size_t i;
	int err;

	put_head(out, r);
	if ((err = put_meta(out, r)) < 0)
		return err;
	if (r->queue)
		put_queue(out, r);
	put_matrix(out, r);
	for (i = 0; i < r->nbranches; i++)
		put_branch(out, &r->branches[i]);
	put(out, "</body>\n</html>\n");
	return kb_buf_check(out);
}
