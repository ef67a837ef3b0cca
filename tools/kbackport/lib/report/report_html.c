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

static int put(struct kb_buf *out, const char *s)
{
	return kb_buf_puts(out, s);
}

static int put_text(struct kb_buf *out, const char *s)
{
	return report_put_xml(out, s);
}

/* <span class="st st-WORD extra">text</span> */
static int put_status(struct kb_buf *out, const char *word, const char *extra, const char *text)
{
	int err;

	if ((err = put(out, "<span class=\"st st-")) < 0 || (err = put_text(out, word)) < 0 ||
	    (extra && ((err = kb_buf_putc(out, ' ')) < 0 || (err = put_text(out, extra)) < 0)) ||
	    (err = put(out, "\">")) < 0 || (err = put_text(out, text ? text : word)) < 0)
		return err;
	return put(out, "</span>");
}

static int put_id(struct kb_buf *out, const char *name)
{
	int err = put(out, "branch-");

	for (; *name && !err; name++)
		err = kb_buf_putc(out, strchr(" \t\n\"'<>&", *name) ? '_' : *name);
	return err;
}

static int put_link(struct kb_buf *out, const char *dir, const char *file)
{
	int err;

	if ((err = put(out, "<a href=\"")) < 0 || (err = report_put_url(out, dir)) < 0 ||
	    (err = kb_buf_putc(out, '/')) < 0 || (err = report_put_url(out, file)) < 0 ||
	    (err = put(out, "\">")) < 0 || (err = put_text(out, file)) < 0)
		return err;
	return put(out, "</a>");
}

static int put_links(struct kb_buf *out, const char *dir, char *const *files, size_t n)
{
	size_t i;
	int err = put(out, "<td class=\"logs\">");

	for (i = 0; i < n && !err; i++)
		err = put_link(out, dir, files[i]);
	return err < 0 ? err : put(out, "</td>");
}

static int put_apply_status(struct kb_buf *out, const struct kb_report_apply *a)
{
	struct kb_buf text = KB_BUF_INIT;
	int err;

	if ((err = report_put_apply_cell(&text, a)) == 0)
		err = put_status(out, a->present ? kb_status_name(a->status) : "none", NULL, text.ptr);
	kb_buf_release(&text);
	return err;
}

static int put_test_cell(struct kb_buf *out, const struct kb_report_lane *l)
{
	struct kb_buf counts = KB_BUF_INIT;
	int err;

	if ((err = put(out, "<td>")) < 0 ||
	    (err = put_status(out, kb_verdict_name(l->verdict),
			      l->baseline && l->verdict == KB_VERDICT_VULNERABLE ?
			      "st-baseline" : NULL, report_lane_verdict_text(l))) < 0)
		goto done;
	if (l->nsuites && ((err = report_put_suite_counts(&counts, l)) < 0 ||
			   (err = put(out, " ")) < 0 || (err = put_text(out, counts.ptr)) < 0))
		goto done;
	kb_buf_clear(&counts);
	if ((err = report_put_boot_image(&counts, l)) < 0 ||
	    (counts.size && (err = put_text(out, counts.ptr)) < 0))
		goto done;
	err = put(out, "</td>");
done:
	kb_buf_release(&counts);
	return err;
}

static int put_branch_cells(struct kb_buf *out, const struct kb_report_branch *b)
{
	size_t rows = b->nlanes ? b->nlanes : 1;
	int err;

	if ((err = kb_buf_printf(out, "<td rowspan=\"%zu\"><a href=\"#", rows)) < 0 ||
	    (err = put_id(out, b->name)) < 0 || (err = put(out, "\"><code>")) < 0 ||
	    (err = put_text(out, b->name)) < 0 ||
	    (err = kb_buf_printf(out, "</code></a></td><td rowspan=\"%zu\">", rows)) < 0 ||
	    (err = put_status(out, kb_verdict_name(b->verdict), NULL, NULL)) < 0 ||
	    (err = kb_buf_printf(out, "</td><td rowspan=\"%zu\">", rows)) < 0 ||
	    (err = put_apply_status(out, &b->apply)) < 0)
		return err;
	return put(out, "</td>");
}

static int put_row_start(struct kb_buf *out, const struct kb_report_branch *b, const char *lane)
{
	int err;

	if ((err = put(out, "<tr data-branch=\"")) < 0 || (err = put_text(out, b->name)) < 0 ||
	    (err = put(out, "\" data-lane=\"")) < 0 || (err = put_text(out, lane)) < 0)
		return err;
	return put(out, "\">");
}

static int put_lane_row(struct kb_buf *out, const struct kb_report_branch *b,
			const struct kb_report_lane *l, bool first)
{
	int err;

	if ((err = put_row_start(out, b, kb_lane_kind_name(l->kind))) < 0 || (first && (err = put_branch_cells(out, b)) < 0) ||
	    (err = kb_buf_printf(out, "<td>%s</td><td>", kb_lane_kind_name(l->kind))) < 0 ||
	    (err = put_status(out, l->has_build ? kb_build_status_name(l->build) : "none", NULL,
			      l->has_build ? kb_build_status_name(l->build) : "-")) < 0 ||
	    (err = put(out, "</td>")) < 0 || (err = put_test_cell(out, l)) < 0 ||
	    (err = put_links(out, l->dir, l->files, l->nfiles)) < 0)
		return err;
	return put(out, "</tr>\n");
}

static int put_bare_row(struct kb_buf *out, const struct kb_report_branch *b)
{
	int err;

	if ((err = put_row_start(out, b, "-")) < 0 || (err = put_branch_cells(out, b)) < 0 ||
	    (err = put(out, "<td>-</td><td>-</td><td>-</td>")) < 0 ||
	    (err = put_links(out, b->name, b->files, b->nfiles)) < 0)
		return err;
	return put(out, "</tr>\n");
}

static int put_matrix(struct kb_buf *out, const struct kb_report *r)
{
	size_t i, j;
	int err;

	if ((err = put(out, "<table id=\"matrix\">\n<thead><tr><th>branch</th><th>verdict</th>"
		       "<th>apply</th><th>lane</th><th>build</th><th>test</th><th>logs</th></tr>"
		       "</thead>\n<tbody>\n")) < 0)
		return err;
	for (i = 0; i < r->nbranches && !err; i++) {
		const struct kb_report_branch *b = &r->branches[i];
		if (!b->nlanes)
			err = put_bare_row(out, b);
		for (j = 0; j < b->nlanes && !err; j++)
			err = put_lane_row(out, b, &b->lanes[j], j == 0);
	}
	return err < 0 ? err : put(out, "</tbody>\n</table>\n");
}

static int put_list(struct kb_buf *out, const char *const *lines)
{
	int err;

	if (!lines || !*lines)
		return 0;
	if ((err = put(out, "<ul>\n")) < 0)
		return err;
	for (; *lines && !err; lines++)
		if ((err = put(out, "<li>")) == 0 && (err = put_text(out, *lines)) == 0)
			err = put(out, "</li>\n");
	return err < 0 ? err : put(out, "</ul>\n");
}

static int put_pre(struct kb_buf *out, const char *const *lines)
{
	int err = put(out, "<pre>");

	for (; lines && *lines && !err; lines++)
		if ((err = put_text(out, *lines)) == 0)
			err = kb_buf_putc(out, '\n');
	return err < 0 ? err : put(out, "</pre>\n");
}

static int put_apply(struct kb_buf *out, const struct kb_report_apply *a)
{
	struct kb_buf head = KB_BUF_INIT;
	int err;

	if (!a->present)
		return 0;
	if ((err = put(out, "<p>apply: ")) < 0 || (err = report_put_apply_cell(&head, a)) < 0 ||
	    (err = put_status(out, kb_status_name(a->status), NULL, head.ptr)) < 0 ||
	    (a->detail && ((err = put(out, " ")) < 0 || (err = put_text(out, a->detail)) < 0)) ||
	    (err = put(out, "</p>\n")) < 0 || (err = put_list(out, a->notes)) < 0)
		goto done;
	if (a->nreproduce && (err = put(out, "<p>To resolve it by hand:</p>\n")) == 0)
		err = put_pre(out, a->reproduce);
done:
	kb_buf_release(&head);
	return err;
}

static int put_case_row(struct kb_buf *out, const struct kb_report_lane *l,
			const struct kb_report_suite *s, const struct kb_report_case *c)
{
	bool expected = report_case_expected_failure(l, c);
	int err;

	if ((err = put(out, "<tr><td>")) < 0 || (err = put_text(out, s->name)) < 0 ||
	    (err = put(out, "</td><td>")) < 0 || (err = put_text(out, c->name)) < 0 ||
	    (err = put(out, "</td><td>")) < 0 ||
	    (err = put_status(out, kb_ktap_status_name(c->status), expected ? "st-baseline" : NULL,
			      expected ? "fail (expected)" : NULL)) < 0 ||
	    (err = put(out, "</td><td>")) < 0 || (err = put_text(out, c->proves)) < 0 ||
	    (err = put(out, "</td><td>")) < 0)
		return err;
	if (c->diag && ((err = put(out, "<pre>")) < 0 || (err = put_text(out, c->diag)) < 0 ||
			(err = put(out, "</pre>")) < 0))
		return err;
	return put(out, "</td></tr>\n");
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

static int put_lane(struct kb_buf *out, const struct kb_report_lane *l)
{
	size_t i, j;
	int err;

	if ((err = kb_buf_printf(out, "<details%s><summary>%s lane: ",
				 lane_needs_look(l) ? " open" : "", kb_lane_kind_name(l->kind))) < 0 ||
	    (err = put_status(out, kb_verdict_name(l->verdict),
			      l->baseline && l->verdict == KB_VERDICT_VULNERABLE ?
			      "st-baseline" : NULL, report_lane_verdict_text(l))) < 0 ||
	    (l->commit && ((err = put(out, " <code>")) < 0 || (err = put_text(out, l->commit)) < 0 ||
			   (err = put(out, "</code>")) < 0)) ||
	    (err = put(out, "</summary>\n")) < 0 || (err = put_apply(out, &l->apply)) < 0 ||
	    (err = put_list(out, l->reason)) < 0)
		return err;
	if (l->nsuites && (err = put(out, "<table class=\"cases\">\n<tr><th>suite</th><th>case</th>"
				     "<th>status</th><th>proves</th><th>diagnostics</th></tr>\n")) < 0)
		return err;
	for (i = 0; i < l->nsuites && !err; i++)
		for (j = 0; j < l->suites[i].ncases && !err; j++)
			err = put_case_row(out, l, &l->suites[i], &l->suites[i].cases[j]);
	if (!err && l->nsuites)
		err = put(out, "</table>\n");
	return err < 0 ? err : put(out, "</details>\n");
}

static int put_files(struct kb_buf *out, const struct kb_report_branch *b)
{
	struct kb_buf mail = KB_BUF_INIT;
	size_t i;
	int err = 0;

	if (b->nfiles && (err = put(out, "<p class=\"logs\">files: ")) == 0) {
		for (i = 0; i < b->nfiles && !err; i++)
			err = put_link(out, b->name, b->files[i]);
		if (!err)
			err = put(out, "</p>\n");
	}
	if (err < 0 || !kb_report_needs_hand(&b->apply))
		return err;
	if ((err = kb_report_failed_name(&mail, b)) == 0 &&
	    (err = put(out, "<p>mail to the author: <a href=\"")) == 0 &&
	    (err = report_put_url(out, mail.ptr)) == 0 && (err = put(out, "\">")) == 0 &&
	    (err = put_text(out, mail.ptr)) == 0)
		err = put(out, "</a></p>\n");
	kb_buf_release(&mail);
	return err;
}

static int put_branch(struct kb_buf *out, const struct kb_report_branch *b)
{
	size_t i;
	int err;

	if ((err = put(out, "<section id=\"")) < 0 || (err = put_id(out, b->name)) < 0 ||
	    (err = put(out, "\">\n<h2><code>")) < 0 || (err = put_text(out, b->name)) < 0 ||
	    (err = put(out, "</code> ")) < 0 || (err = put_status(out, kb_verdict_name(b->verdict), NULL, NULL)) < 0 ||
	    (err = put(out, "</h2>\n")) < 0)
		return err;
	if ((b->repo || b->ref) &&
	    ((err = put(out, "<p>tree: <code>")) < 0 || (err = put_text(out, b->repo ? b->repo : "")) < 0 ||
	     (err = put(out, "</code> ref <code>")) < 0 || (err = put_text(out, b->ref ? b->ref : "")) < 0 ||
	     (err = put(out, "</code></p>\n")) < 0))
		return err;
	if ((err = put_apply(out, &b->apply)) < 0 ||
	    (b->note && ((err = put(out, "<p class=\"note\">note: ")) < 0 ||
			 (err = put_text(out, b->note)) < 0 || (err = put(out, "</p>\n")) < 0)))
		return err;
	for (i = 0; i < b->nlanes && !err; i++)
		err = put_lane(out, &b->lanes[i]);
	if (err < 0 || (err = put_files(out, b)) < 0)
		return err;
	return put(out, "</section>\n");
}

static int put_meta(struct kb_buf *out, const struct kb_report *r)
{
	const struct kb_report_branch **list = NULL;
	size_t i, n = 0;
	int err;

	if ((err = put(out, "<p class=\"meta\">")) < 0 ||
	    (r->upstream && ((err = put(out, "upstream <code>")) < 0 || (err = put_text(out, r->upstream)) < 0 ||
			     (err = put(out, "</code> ")) < 0)) ||
	    (r->author && ((err = put(out, "by ")) < 0 || (err = put_text(out, r->author)) < 0)) ||
	    (err = put(out, "<br>run <code>")) < 0 || (err = put_text(out, r->run)) < 0 ||
	    (err = put(out, "</code>")) < 0 ||
	    (r->host && ((err = put(out, " on <code>")) < 0 || (err = put_text(out, r->host)) < 0 ||
			 (err = put(out, "</code>")) < 0)) ||
	    (r->started && ((err = put(out, ", ")) < 0 || (err = put_text(out, r->started)) < 0)) ||
	    (r->finished && ((err = put(out, " to ")) < 0 || (err = put_text(out, r->finished)) < 0)) ||
	    (err = put(out, "</p>\n")) < 0)
		return err;
	/* which ones, as summary.md says it */
	if ((err = kb_report_attention(&list, &n, r)) < 0)
		return err;
	err = kb_buf_printf(out, "<p class=\"result\">%zu of %zu branches need attention%s", n,
			    r->nbranches, n ? ":" : ".");
	for (i = 0; i < n && !err; i++)
		if ((err = put(out, i ? ", <code>" : " <code>")) == 0 &&
		    (err = put_text(out, list[i]->name)) == 0)
			err = kb_buf_printf(out, "</code> %s", kb_verdict_name(list[i]->verdict));
	if (!err)
		err = put(out, n ? ".</p>\n" : "</p>\n");
	free(list);
	return err;
}

static int put_head(struct kb_buf *out, const struct kb_report *r)
{
	int err;

	if ((err = put(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		       "<title>kbackport ")) < 0 || (err = put_text(out, r->fix)) < 0 ||
	    (err = put(out, " run ")) < 0 || (err = put_text(out, r->run)) < 0 ||
	    (err = put(out, "</title>\n<style>\n")) < 0 || (err = put(out, style)) < 0 ||
	    (err = put(out, "</style>\n</head>\n<body>\n<h1>")) < 0 || (err = put_text(out, r->fix)) < 0 ||
	    (r->subject && ((err = put(out, ": ")) < 0 || (err = put_text(out, r->subject)) < 0)))
		return err;
	return put(out, "</h1>\n");
}

/* A queue fix's cell: its status word, coloured as an apply status. */
static int put_queued_cell(struct kb_buf *out, const struct kb_report_branch *b, size_t f)
{
	struct kb_buf text = KB_BUF_INIT;
	const char *word = b->queue.error ? "error" :
			   f < b->queue.nfixes ? kb_status_name(b->queue.fixes[f].apply.status) : "none";
	int err;

	if ((err = put(out, "<td>")) == 0 && (err = report_put_queued_cell(&text, b, f)) == 0 &&
	    (err = put_status(out, word, NULL, text.ptr)) == 0)
		err = put(out, "</td>");
	kb_buf_release(&text);
	return err;
}

/* A queue's run: the fix x branch matrix, then why a fix was not applied. */
static int put_queue(struct kb_buf *out, const struct kb_report *r)
{
	struct kb_buf why = KB_BUF_INIT;
	size_t f, i;
	int err;

	if ((err = put(out, "<h2>The queue <code>")) < 0 || (err = put_text(out, r->queue)) < 0 ||
	    (err = put(out, "</code>: each fix on each branch</h2>\n<table id=\"queue\">\n"
		       "<thead><tr><th>#</th><th>fix</th>")) < 0)
		return err;
	for (i = 0; i < r->nbranches && !err; i++)
		if ((err = put(out, "<th>")) == 0 && (err = put_text(out, r->branches[i].name)) == 0)
			err = put(out, "</th>");
	if (!err)
		err = put(out, "</tr></thead>\n<tbody>\n");
	for (f = 0; f < r->nqueue_fixes && !err; f++) {
		if ((err = kb_buf_printf(out, "<tr><td>%zu</td><td><code>", f + 1)) < 0 ||
		    (err = put_text(out, r->queue_fixes[f])) < 0 || (err = put(out, "</code></td>")) < 0)
			break;
		for (i = 0; i < r->nbranches && !err; i++)
			err = put_queued_cell(out, &r->branches[i], f);
		if (!err)
			err = put(out, "</tr>\n");
	}
	if (!err)
		err = put(out, "</tbody>\n</table>\n<ul class=\"queue-skipped\">\n");
	for (i = 0; i < r->nbranches && !err; i++)
		for (f = 0; f < r->nqueue_fixes && !err; f++) {
			const struct kb_report_branch *b = &r->branches[i];
			const char *mail = f < b->queue.nfixes ? b->queue.fixes[f].mail : NULL;
			kb_buf_clear(&why);
			if ((err = report_put_queued_why(&why, b, f)) < 0 || !why.size)
				continue;
			if ((err = put(out, "<li><code>")) < 0 || (err = put_text(out, b->name)) < 0 ||
			    (err = put(out, "</code> <code>")) < 0 ||
			    (err = put_text(out, r->queue_fixes[f])) < 0 ||
			    (err = put(out, "</code>: ")) < 0 || (err = put_text(out, why.ptr)) < 0 ||
			    (mail && ((err = put(out, " (<a href=\"")) < 0 ||
				      (err = report_put_url(out, mail)) < 0 ||
				      (err = put(out, "\">FAILED mail</a>)")) < 0)))
				break;
			err = put(out, "</li>\n");
		}
	kb_buf_release(&why);
	return err < 0 ? err : put(out, "</ul>\n<h2>Lanes</h2>\n");
}

int kb_report_html(struct kb_buf *out, const struct kb_report *r)
{
	size_t i;
	int err;

	if ((err = put_head(out, r)) < 0 || (err = put_meta(out, r)) < 0 ||
	    (r->queue && (err = put_queue(out, r)) < 0) || (err = put_matrix(out, r)) < 0)
		return err;
	for (i = 0; i < r->nbranches && !err; i++)
		err = put_branch(out, &r->branches[i]);
	return err < 0 ? err : put(out, "</body>\n</html>\n");
}
