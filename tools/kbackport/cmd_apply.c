/* kbackport apply: every fix on every selected branch, one result each. */
#include "apply/backport.h"
#include "util/buf.h"
#include "util/interrupt.h"
#include "util/fsutil.h"
#include "apply/queue.h"
#include "report/report.h"
#include "cli.h"
#include "util/error.h"
#include "report/results_json.h"
#include "apply/series.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt options[] = {
	CLI_OPTS_TARGET,
	{ 'n', true, "dry-run", no_argument, NULL,
	  "decide and report, write no object and no ref" },
	{ 'j', false, "json", no_argument, NULL,
	  "a JSON array of one document per fix, even for one" },
	{ 'q', true, "quiet", no_argument, NULL,
	  "the table and the tally only, not each branch's details" },
	{ 'v', true, "verbose", no_argument, NULL,
	  "under each result, also each hunk the notes do not\n"
	  "place (in, missing, ambiguous, failed: the hunks of\n"
	  "--json): line, offset, fuzz, anchor, what it needs" },
	{ 'z', false, "max-fuzz", required_argument, "N",
	  "context lines a hunk may drop at each end (default 2)" },
	{ 'H', false, "no-history", no_argument, NULL,
	  "the content alone: do not look for the fix in the\n"
	  "branch's history" },
	{ 'R', false, "reapply", no_argument, NULL,
	  "apply a fix the branch's history reverted, where the\n"
	  "tree lets it (default: status reverted, nothing\n"
	  "written: a person decides)" },
	{ 'w', true, "workdir", required_argument, "DIR",
	  "where the history index is kept, in DIR/history/\n"
	  "(default: work/ beside the config; a cache, written\n"
	  "by dry runs too; in memory when it cannot be written)" },
	{ 'Q', false, "queue", required_argument, "FILE",
	  "a series file (one fix directory or patch a line, '#'\n"
	  "comments): the fixes in order onto each branch, each on\n"
	  "top of the previous, to refs/heads/backport/queue/\n"
	  "<FILE's name>/<branch>; a fix that does not apply or is\n"
	  "in already is skipped there and the next goes on" },
	{ 'N', false, "name", required_argument, "NAME",
	  "the queue's name in its refs, one component, no '/'\n"
	  "(default: FILE's name without its extension)" },
	{ 'M', false, "mails", required_argument, "DIR",
	  "write DIR/<fix>/FAILED-<branch>.txt for each fix that\n"
	  "does not apply to a branch (conflict, partial): the\n"
	  "FAILED mail, with the commands to resolve it and the\n"
	  "variant tried in mail form; recipients and the tree's\n"
	  "name from the branch's `mail:` in the config (default\n"
	  "for a stable branch: stable@vger.kernel.org). Never\n"
	  "through a symbolic link; not with --dry-run" },
	CLI_OPT_COLOR_ENTRY("statuses"),
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport apply [--config FILE] [--fix DIR]... [--branch NAME]...\n"
	"                       [--dry-run] [--json] [--quiet|--verbose] [--max-fuzz N]\n"
	"                       [--no-history] [--reapply] [--workdir DIR] [--mails DIR]\n"
	"       kbackport apply --queue FILE [--name NAME] [--mails DIR] [--config FILE]\n"
	"                       [--branch NAME]... [--dry-run] [--json] [--quiet|--verbose]\n"
	"                       [--max-fuzz N] [--no-history] [--reapply] [--workdir DIR]\n"
	"\n"
	"Apply the right variant of each fix to each branch of branches.yaml, in\n"
	"memory, and record a stable-style commit on refs/heads/backport/<fix>/<branch>\n"
	"in the branch's repository. Nothing else in the repository is touched.\n"
	"\n",
	.opts = options,
	.column = 22,
	.tail =
	"\n"
	"A conflict comes with the commands to resolve it by hand (a work tree beside\n"
	"the repository, git am -3 of the patch), quoted for sh. Once it is resolved\n"
	"on refs/heads/backport/<fix>/<branch>, on the branch and holding the fix,\n"
	"that commit is the result: applied, \"resolved by hand\".\n"
	"\n"
	"The branch's history is a witness: a commit that names the fix's upstream\n"
	"commit (\"commit <sha> upstream.\", \"(cherry picked from commit <sha>)\", ...)\n"
	"and changes the lines the fix changes, or has the patch-id of the fix or a\n"
	"variant, or is the upstream commit itself, proposes already-applied. The\n"
	"tree decides: where its lines stand as before the fix and a later commit\n"
	"took them back, the fix is not in (\"brought in by X, undone by Y\"), and\n"
	"the content answers. A fix the history reverted and the tree lacks is\n"
	"reverted: nothing written unless --reapply.\n"
	"\n"
	"Statuses: applied, already-applied, not-affected, partial, conflict, reverted,\n"
	"error. Exit status: 0 when no result is conflict, partial, reverted or error,\n"
	"1 otherwise, 2 for usage.\n",
};

struct apply_opts {
	struct cli_target t;
	struct kb_backport_opts backport;
	const char *queue;
	const char *queue_name;	/* --name, else the series file's */
	const char *mails;	/* --mails DIR: FAILED mails of skipped fixes */
	bool json;
	bool quiet;		/* the table and the tally only */
	bool verbose;		/* each hunk's placement under each result */
	bool no_history;
};

static int parse_options(struct apply_opts *o, int argc, char **argv)
{
	char *end;
	long fuzz;
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'c': case 'f': case 'b': case 'w': case CLI_OPT_COLOR:
			if (cli_target_option(&o->t, c, optarg))
				return EXIT_USAGE;
			break;
		case 'n': o->backport.dry_run = true; break;
		case 'j': o->json = true; break;
		case 'Q': o->queue = optarg; break;
		case 'q': o->quiet = true; o->verbose = false; break;
		case 'v': o->verbose = true; o->quiet = false; break;
		case 'N': o->queue_name = optarg; break;
		case 'M': o->mails = optarg; break;
		case 'H': o->no_history = true; break;
		case 'R': o->backport.reapply = true; break;
		case 'z':
			fuzz = strtol(optarg, &end, 10);
			if (*end || end == optarg || fuzz < 0 || fuzz > 10) {
				cli_error("--max-fuzz wants a number from 0 to 10, not '%s'", optarg);
				return EXIT_USAGE;
			}
			o->backport.locate.max_fuzz = (unsigned)fuzz;
			break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	if (o->queue && o->t.nfixes) {
		cli_error("--queue names the fixes: no --fix with it");
		return EXIT_USAGE;
	}
	if (!o->queue && o->queue_name) {
		cli_error("--name goes with --queue");
		return EXIT_USAGE;
	}
	if (o->mails && o->backport.dry_run) {
		cli_error("--dry-run writes nothing: no --mails with it");
		return EXIT_USAGE;
	}
	return cli_no_arguments(argc, argv);
}

/* DIR/<fix>/FAILED-<branch>.txt of a result that needs a hand, its path in *path. */
static int write_mail(char **path, const struct kb_result *r, const struct kb_fix *fix,
		      const struct kb_branch *branch, const char *queue, const char *dir)
{
	struct kb_buf mail = KB_BUF_INIT, rel = KB_BUF_INIT, full = KB_BUF_INIT;
	struct kb_report_branch b = { .name = r->branch };
	int err;

	*path = NULL;
	if (!kb_status_needs_hand(r->status))
		return 0;
	if ((err = kb_result_failed_mail(&mail, r, fix, branch, queue)) < 0 ||
	    (err = kb_buf_printf(&rel, "%s/", r->fix)) < 0 ||
	    (err = kb_report_failed_name(&rel, &b)) < 0 ||
	    (err = kb_report_write_mail(dir, rel.ptr, mail.ptr, mail.size)) < 0 ||
	    (err = kb_buf_printf(&full, "%s/%s", dir, rel.ptr)) < 0)
		goto done;
	*path = kb_buf_detach(&full);
done:
	kb_buf_release(&mail);
	kb_buf_release(&rel);
	kb_buf_release(&full);
	return err;
}

/* The result as results.json keeps it, with its variant's patch hash. */
static json_t *result_json(const struct kb_result *r, const struct kb_fix *fix)
{
	char hash[65] = "";

	if (kb_fix_patch_hash(hash, fix, r->variant) < 0)
		hash[0] = '\0';
	return kb_result_json(r, hash);
}

/*
 * Always an array, one document per fix, even for one fix:
 * [{"fix": ID, "results": [one per branch]}, ...].
 */
static void print_json(struct kb_result *results, char **mails, size_t nbranches,
		       struct kb_fix **fixes, size_t nfixes)
{
	json_t *docs = json_array(), *doc, *list, *r;
	size_t f, b;

	for (f = 0; f < nfixes; f++) {
		list = json_array();
		for (b = 0; b < nbranches; b++) {
			r = result_json(&results[f * nbranches + b], fixes[f]);
			if (mails)
				json_object_set_new(r, "mail", kb_json_str(mails[f * nbranches + b]));
			json_array_append_new(list, r);
		}
		doc = json_pack("{s:s, s:o}", "fix", fixes[f]->id, "results", list);
		json_array_append_new(docs, doc);
	}
	json_dumpf(docs, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(docs);
}

/*
 * An already-applied answer the content gave: where each hunk of its
 * variant was found, "found: variant 'rcu' at net/core/dev.c:1120, ..."
 * (a hunk of another variant says whose). Nothing when the content does
 * not hold every hunk: the history decided, and the detail names its commit.
 */
static void print_found(const struct kb_result *r, const char *indent)
{
	size_t i;

	if (r->status != KB_STATUS_ALREADY_APPLIED || !r->nhunks || !r->variant)
		return;
	for (i = 0; i < r->nhunks; i++)
		if (strcmp(r->hunks[i].status, "in"))
			return;
	printf("%sfound: variant '%s' at ", indent, r->variant);
	for (i = 0; i < r->nhunks; i++) {
		const struct kb_placement *p = &r->hunks[i];
		printf("%s%s:%zu", i ? ", " : "", p->path, p->line);
		if (strcmp(p->variant, r->variant))
			printf(" (variant '%s')", p->variant);
	}
	putchar('\n');
}

/*
 * -v: each hunk of the deciding variant that the notes do not place (an
 * applied one's note says where it went), as --json's hunks say it:
 * "hunk 1 of 'net/core/dev.c': in at line 1120 (offset +30)", "hunk 2 of
 * 'x.c': failed; needs 1a2b3c4d5e6f".
 */
static void print_hunks(const struct kb_result *r, const char *indent)
{
	size_t i, k;

	for (i = 0; i < r->nhunks; i++) {
		const struct kb_placement *p = &r->hunks[i];
		if (!strcmp(p->status, "applied"))
			continue;
		printf("%shunk %zu of '%s': %s", indent, p->hunk, p->path, p->status);
		if (p->line)
			printf(" at line %zu", p->line);
		if (p->offset || p->fuzz || p->whitespace || p->anchor) {
			printf(" (offset %+ld", p->offset);
			if (p->fuzz)
				printf(", fuzz %u", p->fuzz);
			if (p->whitespace)
				printf(", whitespace");
			if (p->anchor)
				printf(", anchor %s", p->anchor);
			putchar(')');
		}
		if (r->variant && strcmp(p->variant, r->variant))
			printf(" [variant '%s']", p->variant);
		for (k = 0; k < p->needs.n; k++)
			printf("%s %.12s", k ? "," : "; needs", p->needs.list[k].id);
		putchar('\n');
	}
}

static size_t widest(size_t w, const char *s)
{
	return s && strlen(s) > w ? strlen(s) : w;
}

/* "13 branches: 6 applied, 1 already-applied, 2 conflict" */
static void print_tally(const struct kb_result *results, size_t n, size_t nfixes)
{
	size_t count[KB_STATUS_REVERTED + 1] = { 0 }, i, said = 0;

	for (i = 0; i < n; i++)
		if ((size_t)results[i].status <= KB_STATUS_REVERTED)
			count[results[i].status]++;
	printf("\n%zu %s: ", n, nfixes == 1 ? (n == 1 ? "branch" : "branches") :
	       (n == 1 ? "fix-branch pair" : "fix-branch pairs"));
	for (i = 0; i <= KB_STATUS_REVERTED; i++)
		if (count[i]) {
			printf("%s%zu ", said++ ? ", " : "", count[i]);
			cli_put_word(kb_status_name((enum kb_status)i), 0);
		}
	printf("%s\n", said ? "" : "none");
}

static void print_matrix(const struct kb_result *results, char **mails, size_t n,
			 size_t nfixes, bool dry_run, bool quiet, bool verbose)
{
	size_t i, w = 6, wf = 14, ws = 15, wv = 9;

	/* never narrower than they always were: scripts cut the short ones */
	for (i = 0; i < n; i++) {
		w = widest(w, results[i].branch);
		wf = widest(wf, results[i].fix);
		ws = widest(ws, kb_status_name(results[i].status));
		wv = widest(wv, results[i].variant);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %s\n", (int)w, "BRANCH", (int)wf, "FIX", (int)ws, "STATUS",
	       (int)wv, "VARIANT", "COMMIT");
	for (i = 0; i < n; i++) {
		const struct kb_result *r = &results[i];
		printf("%-*s  %-*s  ", (int)w, r->branch, (int)wf, r->fix);
		cli_put_word(kb_status_name(r->status), (int)ws);
		printf("  %-*s  %.12s\n", (int)wv, r->variant ? r->variant : "-",
		       r->commit[0] ? r->commit :
		       dry_run && r->status == KB_STATUS_APPLIED ? "(dry run)" : "-");
	}
	for (i = 0; i < n && !quiet; i++) {
		const struct kb_result *r = &results[i];
		printf("\n%s (%s): %s\n", r->branch, r->fix, r->detail);
		if (r->pre_fix_ref)
			printf("  on the reconstructed pre-fix state %s (variant '%s' reversed)\n",
			       r->pre_fix_ref, r->pre_fix_variant);
		if (r->ref)
			printf("  ref: %s\n", r->ref);
		print_found(r, "  ");
		cli_print_indented(r->notes, "  ");
		if (verbose)
			print_hunks(r, "  ");
		if (r->reproduce) {
			printf("  to resolve it by hand:\n");
			cli_print_indented(r->reproduce, "    ");
		}
		if (mails && mails[i])
			printf("  FAILED mail: %s\n", mails[i]);
	}
	print_tally(results, n, nfixes);
}

/* The history index set: under the work directory, or in memory (a dry
 * run writes nothing, not even the index). */
static int open_history(struct apply_opts *o, const struct kb_config *config)
{
	struct kb_buf dir = KB_BUF_INIT;
	int err;

	if (o->no_history)
		return 0;
	if (o->backport.dry_run)
		return kb_history_new(&o->backport.history, NULL);
	if (o->t.workdir)
		err = kb_buf_printf(&dir, "%s/history", o->t.workdir);
	else
		err = kb_buf_printf(&dir, "%s/work/history", config->dir);
	if (err == 0)
		err = kb_history_new(&o->backport.history, dir.ptr);
	kb_buf_release(&dir);
	return err;
}

/*
 * What both forms of apply work on: the config, the branches, the fixes
 * (or the queue's) and the history index, told which fixes to expect.
 * EXIT_USAGE, said on stderr, when one of them is wrong.
 */
static int open_session(struct kb_session *s, struct apply_opts *o)
{
	struct kb_session_opts so;

	cli_session_opts(&so, &o->t);
	so.queue = o->queue;
	so.queue_name = o->queue_name;
	if (cli_session_open(s, &so) < 0)
		return EXIT_USAGE;
	if (open_history(o, s->config) < 0) {
		cli_error_last();
		return EXIT_USAGE;
	}
	if (o->backport.history)
		kb_history_expect(o->backport.history, (const struct kb_fix *const *)
				  (o->queue ? s->series.fixes : s->fixes),
				  o->queue ? s->series.nfixes : s->nfixes);
	return 0;
}

static int run(struct apply_opts *o, const struct kb_session *s)
{
	const struct kb_branch **branches = s->branches;
	struct kb_fix **fixes = s->fixes;
	struct kb_result *results = NULL;
	char **mails = NULL;
	size_t nbranches = s->nbranches, nfixes = s->nfixes, f, b, nresults = 0;
	int rc = EXIT_USAGE;

	if (!(results = calloc(nfixes * nbranches + 1, sizeof(*results))) ||
	    !(mails = calloc(nfixes * nbranches + 1, sizeof(*mails))))
		goto done;
	rc = EXIT_OK;
	cli_interruptible(nfixes == 1 ? "branches" : "fix-branch pairs",
			  (long)(nfixes * nbranches), true, NULL);
	for (f = 0; f < nfixes; f++)
		for (b = 0; b < nbranches; b++, nresults++) {
			struct kb_result *r = &results[nresults];
			if (kb_backport(r, branches[b], fixes[f], &o->backport) < 0) {
				cli_error_last();
				rc = EXIT_ATTENTION;
				goto done;
			}
			kb_work_step();
			if (kb_status_needs_hand(r->status) || r->status == KB_STATUS_ERROR)
				rc = EXIT_ATTENTION;
			if (o->mails && write_mail(&mails[nresults], r, fixes[f], branches[b], NULL,
						   o->mails) < 0) {
				cli_error_last();
				rc = EXIT_ATTENTION;
				nresults++;
				goto done;
			}
		}
	if (o->json)
		print_json(results, o->mails ? mails : NULL, nbranches, fixes, nfixes);
	else
		print_matrix(results, o->mails ? mails : NULL, nresults, nfixes, o->backport.dry_run,
			     o->quiet, o->verbose);
done:
	for (b = 0; results && b < nresults; b++) {
		kb_result_release(&results[b]);
		free(mails[b]);
	}
	free(mails);
	free(results);
	return rc;
}

/* ---- --queue ---- */

/* DIR/<fix>/FAILED-<branch>.txt of each skipped fix, its path in `mails`. */
static int queue_mails(char **mails, const struct kb_queue_result *q, const struct kb_branch *branch,
		       const struct kb_series *series, const char *name, const char *dir)
{
	size_t f;
	int err = 0;

	for (f = 0; f < q->nresults && !err; f++)
		err = write_mail(&mails[f], &q->results[f], series->fixes[f], branch, name, dir);
	return err;
}

static json_t *queue_json(const struct kb_queue_result *rows, char ***mails,
			  const struct kb_branch **branches, size_t nbranches,
			  const struct kb_series *series, const char *name)
{
	json_t *list = json_array();
	size_t b;

	for (b = 0; b < nbranches; b++)
		json_array_append_new(list, kb_queue_result_json(&rows[b], series,
								 branches[b]->name, mails[b]));
	return json_pack("{s:s, s:o}", "queue", name, "branches", list);
}

/* The fix x branch matrix: one row per fix, one status column per branch. */
static void queue_matrix(const struct kb_queue_result *rows, const struct kb_branch **branches,
			 size_t nbranches, const struct kb_series *series)
{
	size_t b, f, wfix = 3, wcol;

	for (f = 0; f < series->nfixes; f++)
		if (strlen(series->fixes[f]->id) > wfix)
			wfix = strlen(series->fixes[f]->id);
	printf("%-3s %-*s", "#", (int)wfix, "FIX");
	for (b = 0; b < nbranches; b++) {
		wcol = strlen(branches[b]->name) > 15 ? strlen(branches[b]->name) : 15;
		printf("  %-*s", b + 1 < nbranches ? (int)wcol : 0, branches[b]->name);
	}
	putchar('\n');
	for (f = 0; f < series->nfixes; f++) {
		printf("%-3zu %-*s", f + 1, (int)wfix, series->fixes[f]->id);
		for (b = 0; b < nbranches; b++) {
			wcol = strlen(branches[b]->name) > 15 ? strlen(branches[b]->name) : 15;
			fputs("  ", stdout);
			cli_put_word(rows[b].error ? "error" : kb_status_name(rows[b].results[f].status),
				     b + 1 < nbranches ? (int)wcol : 0);
		}
		putchar('\n');
	}
}

/* A queue's pre-fix lane: its ref and what was reversed, or why there is none. */
static void print_pre_fix(const struct kb_queue_pre_fix *p)
{
	size_t i;

	if (p->note)
		printf("  %s\n", p->note);
	if (!p->ref)
		return;
	if (p->commit[0])
		printf("  pre-fix: %s at %.12s, the queue's fixes reversed:", p->ref, p->commit);
	else
		printf("  pre-fix (dry run: no ref), the queue's fixes reversed:");
	for (i = 0; i < p->nreversed; i++)
		printf("%s %s", i ? "," : "", p->reversed[i]);
	printf("\n");
}

/* Per branch: its ref, then every fix that was not applied and why. */
static void queue_text(const struct kb_queue_result *rows, char ***mails,
		       const struct kb_branch **branches, size_t nbranches,
		       const struct kb_series *series, bool quiet, bool verbose)
{
	size_t b, f;

	queue_matrix(rows, branches, nbranches, series);
	for (b = 0; b < nbranches && !quiet; b++) {
		const struct kb_queue_result *q = &rows[b];
		if (q->error) {
			printf("\n%s: error: %s\n", branches[b]->name, q->error);
			continue;
		}
		if (q->commit[0])
			printf("\n%s: %s at %.12s: %zu of %zu fixes applied\n", branches[b]->name,
			       q->ref, q->commit, kb_queue_applied(q), series->nfixes);
		else
			printf("\n%s: %zu of %zu fixes applied%s\n", branches[b]->name,
			       kb_queue_applied(q), series->nfixes,
			       kb_queue_applied(q) ? " (dry run: no ref)" : ": no ref written");
		print_pre_fix(&q->pre_fix);
		for (f = 0; f < q->nresults; f++) {
			const struct kb_result *r = &q->results[f];
			if (r->status == KB_STATUS_APPLIED)
				continue;
			printf("  %zu %s: %s: %s\n", f + 1, r->fix, kb_status_name(r->status),
			       r->detail ? r->detail : "");
			print_found(r, "      ");
			if (r->status != KB_STATUS_ALREADY_APPLIED &&
			    r->status != KB_STATUS_NOT_AFFECTED)
				cli_print_indented(r->notes, "      ");
			if (verbose)
				print_hunks(r, "      ");
			if (mails[b][f])
				printf("      FAILED mail: %s\n", mails[b][f]);
		}
	}
}

static int run_queue(struct apply_opts *o, const struct kb_session *s)
{
	const struct kb_branch **branches = s->branches;
	const struct kb_series *series = &s->series;
	const char *name = s->queue_name;
	struct kb_queue_result *rows = NULL;
	char ***mails = NULL;
	size_t nbranches = s->nbranches, b, f;
	int rc = EXIT_ATTENTION;

	if (!(rows = calloc(nbranches + 1, sizeof(*rows))) ||
	    !(mails = calloc(nbranches + 1, sizeof(*mails))))
		goto done;
	rc = EXIT_OK;
	cli_interruptible("branches", (long)nbranches, true, NULL);
	for (b = 0; b < nbranches; b++) {
		if (!(mails[b] = calloc(series->nfixes, sizeof(**mails))) ||
		    kb_queue_apply(&rows[b], branches[b], series, name, &o->backport) < 0 ||
		    (o->mails && queue_mails(mails[b], &rows[b], branches[b], series, name, o->mails) < 0)) {
			cli_error_last();
			rc = EXIT_ATTENTION;
			goto done;
		}
		if (kb_queue_needs_hand(&rows[b]))
			rc = EXIT_ATTENTION;
		kb_work_step();
	}
	if (o->json) {
		json_t *doc = queue_json(rows, mails, branches, nbranches, series, name);
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(doc);
	} else {
		queue_text(rows, mails, branches, nbranches, series, o->quiet, o->verbose);
	}
done:
	for (b = 0; rows && b < nbranches; b++)
		kb_queue_result_release(&rows[b]);
	for (b = 0; mails && b < nbranches; b++) {
		for (f = 0; mails[b] && f < series->nfixes; f++)
			free(mails[b][f]);
		free(mails[b]);
	}
	free(mails);
	free(rows);
	return rc;
}

int cmd_apply(int argc, char **argv)
{
	struct apply_opts o = { .t.config = NULL };
	struct kb_session s = { 0 };
	int rc;

	kb_backport_opts_init(&o.backport);
	if ((rc = parse_options(&o, argc, argv)) == 0 && (rc = open_session(&s, &o)) == 0)
		rc = o.queue ? run_queue(&o, &s) : run(&o, &s);
	else if (rc < 0)
		rc = EXIT_OK;
	kb_history_free(o.backport.history);
	kb_session_release(&s);
	cli_target_release(&o.t);
	return rc;
}
