/*
 * kbackport report: (re)write the reports of a run directory, or merge the
 * run directories of several CI jobs into one and write its reports.
 */
#include "cli.h"
#include "util/error.h"
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt options[] = {
	{ 'r', true, "reports", required_argument, "DIR",
	  "where runs are (default: reports); RUN_DIR defaults\n"
	  "to DIR/latest" },
	{ 'm', true, "merge", required_argument, "DIR",
	  "merge this run directory; repeatable, and every\n"
	  "RUN_DIR given joins them" },
	{ 'o', true, "output", required_argument, "DIR",
	  "the merged run directory (default: DIR/<new run id>)" },
	{ 'U', false, "url", required_argument, "URL",
	  "where the run directory is published: KCIDB log URLs\n"
	  "become URL/<path> (default: relative paths)" },
	{ 'J', false, "json", no_argument, NULL,
	  "one JSON document" },
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport report [--reports DIR] [--url URL] [--json] [RUN_DIR]\n"
	"   or: kbackport report [--reports DIR] [--output DIR] [--url URL] [--json]\n"
	"                        --merge RUN_DIR [RUN_DIR]...\n"
	"\n"
	"Write the reports of a run directory (as `kbackport run` leaves it in\n"
	"reports/<run-id>/) from its results.json:\n"
	"\n"
	"  summary.md, summary.html  the branch x stage matrix (apply, build, test of\n"
	"                            each lane, verdict) with links to the logs, then\n"
	"                            each branch's notes and reasons; the HTML page is\n"
	"                            self-contained and reads offline\n"
	"  <branch>/<lane>/junit.xml the stages and KTAP cases of a lane, for CI\n"
	"  kcidb.json                KCIDB I/O schema v4.0: a checkout per lane, a\n"
	"                            build per built lane, a test per case\n"
	"  FAILED-<branch>.txt       per branch the fix does not apply to: the FAILED\n"
	"                            mail (to the patch's author, or the branch's\n"
	"                            `mail:` as the run recorded it) with the failing\n"
	"                            hunks, the commands to resolve the conflict by\n"
	"                            hand and the patch tried, in mail form\n"
	"\n"
	"With --merge, the run directories given (one fix; typically one branch\n"
	"each, from CI jobs on different machines) become one new run directory:\n"
	"every branch in the order given, each lane's files copied. A branch in\n"
	"more than one run is kept once when the results are the same; otherwise\n"
	"the run that finished last wins, with a note (the same finish time is an\n"
	"error). The new run's id is <last finish>-m<hash of the run ids>, so the\n"
	"same merge gives the same id; the output directory must not exist yet.\n"
	"\n",
	.opts = options,
	.column = 22,
	.tail =
	"\n"
	"Exit status: 0 when every branch is verified, fixed, not-affected or\n"
	"skipped; 1 when one is vulnerable, conflict, regression or error; 2 for\n"
	"usage, an unreadable run directory, or a report that could not be written.\n",
};

struct report_cli {
	const char *reports;
	const char **merge;
	size_t nmerge, amerge;
	const char *output;
	const char *url;
	const char *rundir;
	bool json;
};

static int parse_options(struct report_cli *o, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'r': o->reports = optarg; break;
		case 'm':
			if (cli_strv_add(&o->merge, &o->nmerge, &o->amerge, optarg))
				return EXIT_USAGE;
			break;
		case 'o': o->output = optarg; break;
		case 'U': o->url = optarg; break;
		case 'J': o->json = true; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	for (; o->nmerge && optind < argc; optind++)
		if (cli_strv_add(&o->merge, &o->nmerge, &o->amerge, argv[optind]))
			return EXIT_USAGE;
	if (optind < argc)
		o->rundir = argv[optind++];
	if (o->output && !o->nmerge) {
		cli_error("--output is for --merge: a run's reports go into its own directory");
		return EXIT_USAGE;
	}
	return cli_no_arguments(argc, argv);
}

/* The verdicts decide: see the usage text. */
static int exit_code(const struct kb_report *r)
{
	size_t i;

	for (i = 0; i < r->nbranches; i++)
		if (!kb_report_verdict_ok(r->branches[i].verdict))
			return EXIT_ATTENTION;
	return EXIT_OK;
}

/* A queue's run: each fix's status per branch, as apply --queue prints it. */
static void print_queue(const struct kb_report *r)
{
	size_t b, f, wfix = 3, wcol;

	for (f = 0; f < r->nqueue_fixes; f++)
		if (strlen(r->queue_fixes[f]) > wfix)
			wfix = strlen(r->queue_fixes[f]);
	printf("queue %s:\n%-3s %-*s", r->queue, "#", (int)wfix, "FIX");
	for (b = 0; b < r->nbranches; b++) {
		wcol = strlen(r->branches[b].name) > 15 ? strlen(r->branches[b].name) : 15;
		printf("  %-*s", b + 1 < r->nbranches ? (int)wcol : 0, r->branches[b].name);
	}
	putchar('\n');
	for (f = 0; f < r->nqueue_fixes; f++) {
		printf("%-3zu %-*s", f + 1, (int)wfix, r->queue_fixes[f]);
		for (b = 0; b < r->nbranches; b++) {
			const struct kb_report_queue *q = &r->branches[b].queue;
			wcol = strlen(r->branches[b].name) > 15 ? strlen(r->branches[b].name) : 15;
			printf("  %-*s", b + 1 < r->nbranches ? (int)wcol : 0,
			       q->error ? "error" : f < q->nfixes ?
			       kb_status_name(q->fixes[f].apply.status) : "skipped");
		}
		putchar('\n');
	}
	putchar('\n');
}

static void print_text(const struct kb_report *r, char **written, char **notes)
{
	size_t i, junit = 0, w = 6;

	printf("report: %s/summary.html\nwrote:", r->dir);
	for (i = 0; written && written[i]; i++) {
		const char *slash = strrchr(written[i], '/');
		if (slash && !strcmp(slash, "/junit.xml"))
			junit++;
		else
			printf(" %s", written[i]);
	}
	printf(" and %zu junit.xml\n", junit);
	if (r->queue)
		print_queue(r);
	for (i = 0; i < r->nbranches; i++)
		if (strlen(r->branches[i].name) > w)
			w = strlen(r->branches[i].name);
	for (i = 0; i < r->nbranches; i++)
		printf("%-*s  %s\n", (int)w, r->branches[i].name,
		       kb_verdict_name(r->branches[i].verdict));
	for (i = 0; notes && notes[i]; i++)
		fprintf(stderr, "note: %s\n", notes[i]);
}

static json_t *strv_json(char **v)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; v && v[i]; i++)
		json_array_append_new(list, json_string(v[i]));
	return list;
}

static void print_json(const struct kb_report *r, char **written, char **notes, int rc)
{
	json_t *branches = json_array(), *doc;
	size_t i;

	for (i = 0; i < r->nbranches; i++)
		json_array_append_new(branches, json_pack("{s:s, s:s}", "name", r->branches[i].name,
							  "verdict", kb_verdict_name(r->branches[i].verdict)));
	doc = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:i}", "dir", r->dir, "run", r->run,
			"fix", r->fix, "written", strv_json(written), "branches", branches,
			"notes", strv_json(notes), "exit", rc);
	json_dumpf(doc, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(doc);
}

/* RUN_DIR, else <reports>/latest with its link resolved. */
static int run_dir(char **out, const struct report_cli *o)
{
	struct kb_buf latest = KB_BUF_INIT;

	if (o->rundir)
		return (*out = strdup(o->rundir)) ? 0 : kb_error_oom();
	if (kb_buf_printf(&latest, "%s/latest", o->reports) < 0)
		return kb_error_oom();
	if (!(*out = realpath(latest.ptr, NULL)))	/* missing: loading says so */
		*out = kb_buf_detach(&latest);
	kb_buf_release(&latest);
	return 0;
}

static int load(struct kb_report **r, char ***notes, const struct report_cli *o)
{
	struct kb_report_merge_opts m = { o->merge, o->nmerge, o->output, o->reports };
	char *dir = NULL;
	int err;

	if (o->nmerge)
		return kb_report_merge(r, notes, &m);
	if ((err = run_dir(&dir, o)) < 0)
		return kb_error_set(err, "out of memory");
	err = kb_report_load(r, dir);
	free(dir);
	return err;
}

static int run(const struct report_cli *o)
{
	struct kb_report_opts opts = { o->url };
	struct kb_report *r = NULL;
	char **written = NULL, **notes = NULL;
	int rc = EXIT_USAGE;

	if (load(&r, &notes, o) < 0 || kb_report_write(r, &opts, &written) < 0) {
		cli_error_last();
		goto done;
	}
	rc = exit_code(r);
	if (o->json)
		print_json(r, written, notes, rc);
	else
		print_text(r, written, notes);
done:
	kb_report_strv_free(written);
	kb_report_strv_free(notes);
	kb_report_free(r);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_cli o = { .reports = "reports" };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	free(o.merge);
	return rc;
}
