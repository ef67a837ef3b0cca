/*
 * One view of a report, what summary.md and summary.html both show, made
 * once from the model: the matrix's rows (a branch's cells, each lane's or
 * a bare branch's), the links to each lane's and branch's files, the
 * queue's fix x branch matrix and why a fix was not applied, the branches
 * that need a person and the lanes that need a look. Each writer only
 * formats it (escaping, table syntax). Not public: the report writers'.
 */
#ifndef KB_REPORT_VIEW_H
#define KB_REPORT_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

/* A status cell: its text, and the status word HTML colours it by. */
struct report_view_cell {
	const char *word;	/* "applied", "none" (no stage)...; NULL: plain text */
	const char *text;	/* "applied (3.9)", "vulnerable (baseline)", "-" */
	bool baseline;		/* a baseline lane's "vulnerable": what it should show */
};

/* A file of the run directory, linked from the summary beside it. */
struct report_view_link {
	const char *name;	/* the file's name, as it is (to escape) */
	const char *url;	/* its path from the run directory, %-encoded */
};

struct report_view_branch {
	const struct kb_report_branch *branch;
	struct report_view_cell verdict;	/* the branch's verdict */
	struct report_view_cell apply;		/* "applied (3.9)", "conflict", "-" */
	size_t row, nrows;	/* its rows in view->rows: one a lane, or one bare */
	const struct report_view_link *files;	/* the files of <branch>/ */
	size_t nfiles;
	struct report_view_link mail;	/* FAILED-<branch>.txt when the apply needs
					 * a hand (kb_report_needs_hand()); else NULLs */
};

/* A row of the matrix: a lane, or a branch without lanes ("-" cells). */
struct report_view_row {
	const struct report_view_branch *branch;
	const struct kb_report_lane *lane;	/* NULL: the branch has no lanes */
	bool first;		/* the branch's first row: its own cells go here */
	const char *kind;	/* "as-is", "pre-fix", "backport", or "-" */
	struct report_view_cell build;	/* "pass", "cached"...; "-" (word "none") */
	struct report_view_cell test;	/* the lane's verdict */
	const char *counts;	/* "kbackport_caps 5/6, ..." or NULL without suites */
	const char *boot;	/* ", booted as bzImage" or "" */
	const struct report_view_link *links;	/* the lane's files (a bare row:
						 * its branch's) */
	size_t nlinks;
	bool needs_look;	/* not what its kind should show, or a case failed
				 * that was not expected to: shown open */
};

/* Fix `fix` of a queue not applied on a branch, and why. */
struct report_view_skipped {
	const char *branch, *fix;
	const char *why;	/* "partial, skipped: hunk 2 fails" */
	const char *mail;	/* the URL of its FAILED mail, or NULL */
};

struct report_view {
	const struct kb_report *report;
	struct report_view_branch *branches;	/* one a branch of the report */
	struct report_view_row *rows;	/* the matrix, branch after branch */
	size_t nrows, arows;
	const struct kb_report_branch **attention;	/* kb_report_attention() */
	size_t nattention;
	/* A queue's run (report->queue): */
	struct report_view_cell *queued;	/* report_view_queued() */
	struct report_view_skipped *skipped;	/* branch after branch, fix after fix */
	size_t nskipped, askipped;
	/* What the view owns: its texts and link lists. */
	void **owned;
	size_t nowned, aowned;
	int err;	/* the first error while it was made (internal) */
};

/*
 * Make the view of `report` (which must outlive it); on error (KB_ENOMEM)
 * `view` is released. Free with report_view_release().
 */
int report_view_init(struct report_view *view, const struct kb_report *report);
void report_view_release(struct report_view *view);

/* A queue's cell, fix `f` on branch `b`: "applied (3.9)", "conflict",
 * "error" (the queue did not run there), "skipped" (word "none"). */
const struct report_view_cell *report_view_queued(const struct report_view *view, size_t f,
						  size_t b);

#endif
