/*
 * kbackport run: apply -> build -> test -> report for every selected branch,
 * one run directory under reports/ with results.json and everything a
 * person or a CI system reads (see docs/reports.md).
 */
#include "util/interrupt.h"
#include "cli.h"
#include "util/error.h"
#include "pipeline.h"
#include "run_dir.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct cli_opt options[] = {
	{ 'c', true, "config", required_argument, "FILE",
	  "branches file (default: $KBACKPORT_CONFIG, else the\n"
	  "nearest branches.yaml from here upward)" },
	{ 'f', true, "fix", required_argument, "DIR|ID",
	  "the fix directory, its id, or a patch or mbox file\n"
	  "(a one-off fix) (default: the one fix under\n"
	  "backports/ beside the config)" },
	{ 'Q', false, "queue", required_argument, "FILE",
	  "a series file (as for kbackport apply --queue): its\n"
	  "fixes applied in order, each on top of the previous,\n"
	  "to refs/heads/backport/queue/<name>/<branch>; the\n"
	  "backport lane is that queue's tip and must be fixed\n"
	  "for every fix of the queue the cases detect. The\n"
	  "report lists each fix's status per branch first.\n"
	  "Not with --fix" },
	{ 'N', false, "name", required_argument, "NAME",
	  "the queue's name in its refs and work paths\n"
	  "(default: FILE's name without its extension)" },
	{ 'b', true, "branch", required_argument, "NAME",
	  "only this branch; repeatable (default: all)" },
	{ 'w', true, "workdir", required_argument, "DIR",
	  "sources, builds and boots (default: work/ beside\n"
	  "the config)" },
	{ 'r', true, "reports", required_argument, "DIR",
	  "where run directories go (default: reports/ beside\n"
	  "the config)" },
	{ 'j', true, "jobs", required_argument, "N",
	  "make -jN (default: $KBACKPORT_JOBS, else the number of CPUs)" },
	{ 'A', false, "accel", required_argument, "tcg|auto",
	  "as for kbackport test (default: tcg)" },
	{ 't', true, "timeout", required_argument, "SECS",
	  "per boot (default: 120)" },
	{ 'q', true, "quiet", no_argument, NULL,
	  "no progress lines while a build or boot runs" },
	{ 'H', false, "no-history", no_argument, NULL,
	  "apply by the content alone, as kbackport apply\n"
	  "--no-history (the history index is kept in\n"
	  "<workdir>/history/)" },
	{ 'R', false, "reapply", no_argument, NULL,
	  "apply a fix the branch's history reverted, as\n"
	  "kbackport apply --reapply" },
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport run [--config FILE] [--fix DIR | --queue FILE [--name NAME]]\n"
	"                     [--branch NAME]...\n"
	"                     [--workdir DIR] [--reports DIR] [--jobs N]\n"
	"                     [--accel tcg|auto] [--timeout SECONDS] [--quiet]\n"
	"                     [--no-history] [--reapply]\n"
	"\n"
	"The whole pipeline for one fix (or a queue of fixes), every selected branch\n"
	"of branches.yaml: apply (the backport commit, and the pre-fix lane where\n"
	"asked for), build each lane's kernel, test it in QEMU, then write a\n"
	"report. Stages whose inputs did not change are not redone: a backport\n"
	"already made is reused, a lane already built is cached, a boot of the same\n"
	"kernel and initramfs is read again from its log.\n"
	"\n"
	"The report goes to <reports>/<run-id>/ (older runs are kept, <reports>/latest\n"
	"points at the newest): results.json, summary.md, summary.html, kcidb.json,\n"
	"FAILED-<branch>.txt for a branch the fix does not apply to (the FAILED mail:\n"
	"recipients and the tree's name from the branch's `mail:`, the patch tried in\n"
	"mail form; no --mails here, the run directory has them), and per lane\n"
	"<branch>/<lane>/ with apply.json, backport.patch (pre-fix.patch for the\n"
	"pre-fix lane), build.log, console.log, one .ktap per suite and junit.xml.\n"
	"\n",
	.opts = options,
	.column = 24,
	.tail =
	"\n"
	"One kbackport at a time works in a work directory: a second one started\n"
	"meanwhile refuses, naming the first one's pid. ^C or a kill stops the make\n"
	"or QEMU running; the next run picks up cleanly (half-done builds, boots and\n"
	"reports are never trusted).\n"
	"\n"
	"While a build or a boot runs, a progress line comes every 30 seconds\n"
	"(KBACKPORT_PROGRESS_INTERVAL=SECONDS to change it), so that a CI log with\n"
	"no terminal shows the step is alive:\n"
	"  progress: 6.1.y as-is: build 2m30s, 5231/9000 objects\n"
	"\n"
	"Each lane is tested with the fix's own tests (kbackport test --help): a\n"
	"fix no case detects is `untested`, never fixed or verified.\n"
	"\n"
	"Branch verdicts: verified, fixed, untested, not-affected, vulnerable,\n"
	"conflict, regression, error, skipped. Exit status: 0 when every branch is\n"
	"verified, fixed, not-affected or skipped; 1 when one is untested,\n"
	"vulnerable, in conflict, regressed or in error; 2 for usage.\n",
};

struct run_cli {
	struct cli_target t;
	const char *queue;
	const char *queue_name;	/* --name, else the series file's */
	const char *reports;
	unsigned jobs;
	bool accel_auto;
	unsigned timeout;
	bool quiet;
	bool no_history;
	bool reapply;
};

/* What the progress lines need. */
struct progress {
	struct timespec start;
	bool tty;
	bool quiet;
};

static int parse_options(struct run_cli *o, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'c': case 'f': case 'b': case 'w':
			if (cli_target_option(&o->t, c, optarg))
				return EXIT_USAGE;
			break;
		case 'r': o->reports = optarg; break;
		case 'j':
			if (cli_parse_number(&o->jobs, optarg, "--jobs", "a number", 1024))
				return EXIT_USAGE;
			break;
		case 'A':
			if (cli_parse_accel(&o->accel_auto, optarg))
				return EXIT_USAGE;
			break;
		case 't':
			if (cli_parse_number(&o->timeout, optarg, "--timeout", "seconds", 3600))
				return EXIT_USAGE;
			break;
		case 'q': o->quiet = true; break;
		case 'Q': o->queue = optarg; break;
		case 'N': o->queue_name = optarg; break;
		case 'H': o->no_history = true; break;
		case 'R': o->reapply = true; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	if (cli_jobs_default(&o->jobs))
		return EXIT_USAGE;
	if (o->queue && o->t.nfixes) {
		cli_error("--queue names the fixes: no --fix with it");
		return EXIT_USAGE;
	}
	if (o->queue_name && !o->queue) {
		cli_error("--name goes with --queue");
		return EXIT_USAGE;
	}
	return cli_no_arguments(argc, argv);
}

/* ---- progress: one line per finished step, a live line while building ---- */

static double elapsed(const struct progress *pr)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - pr->start.tv_sec) +
	       (double)(now.tv_nsec - pr->start.tv_nsec) / 1e9;
}

static void step(const struct progress *pr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void step(const struct progress *pr, const char *fmt, ...)
{
	va_list ap;
	sigset_t saved;

	/*
	 * The line is written in pieces: an interruption said in the middle
	 * of it would end up after "[  0.1s] " on the same line, so the
	 * signals wait until the line is whole.
	 */
	kb_signals_hold(&saved);
	if (pr->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "[%6.1fs] ", elapsed(pr));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	kb_signals_release(&saved);
}

/* A queue on a branch: a line per fix, then where its tip is. */
static void show_queue(const struct progress *pr, const struct kb_branch_run *b)
{
	const char *name = b->branch->name;
	const struct kb_queue_pre_fix *pre = &b->queue.pre_fix;
	size_t f;

	if (pre->note)
		step(pr, "%s: %s", name, pre->note);
	if (pre->ref)
		step(pr, "%s: pre-fix %s at %.12s: %zu of %zu fixes reversed", name, pre->ref,
		     pre->commit, pre->nreversed, b->series->nfixes);
	for (f = 0; f < b->queue.nresults; f++) {
		const struct kb_result *r = &b->queue.results[f];
		step(pr, "%s: apply %zu %s: %s%s%s", name, f + 1, r->fix, kb_status_name(r->status),
		     r->detail ? ": " : "", r->detail ? r->detail : "");
	}
	if (b->queue.error)
		return;
	if (b->queue.commit[0])
		step(pr, "%s: queue %s at %.12s: %zu of %zu fixes applied", name, b->queue.ref,
		     b->queue.commit, kb_queue_applied(&b->queue), b->series->nfixes);
	else
		step(pr, "%s: queue: none of %zu fixes applied, no backport lane", name,
		     b->series->nfixes);
}

static void show(const struct kb_pipeline_event *ev, void *payload)
{
	const struct progress *pr = payload;
	const struct kb_branch_run *b = ev->branch;
	const struct kb_lane_run *l = ev->lane;
	const char *name = b->branch->name, *lane = l ? kb_lane_kind_name(l->kind) : "";

	switch (ev->kind) {
	case KB_EVENT_APPLIED:
		if (b->queued) {
			show_queue(pr, b);
			break;
		}
		step(pr, "%s: apply: %s%s%s", name, kb_status_name(b->apply.status),
		     b->apply.variant ? ", variant " : "", b->apply.variant ? b->apply.variant : "");
		break;
	case KB_EVENT_FETCHED:
		step(pr, "%s: kernel package %s", name, ev->text);
		break;
	case KB_EVENT_BUILD_LINE:
		if (!pr->tty || pr->quiet)
			break;
		fprintf(stderr, "\r\033[K[%6.1fs] %s %s: build: %.60s", elapsed(pr), name, lane,
			ev->text);
		fflush(stderr);
		break;
	case KB_EVENT_BUILT:
		step(pr, "%s %s: build: %s%s%s (%.1f s)", name, lane,
		     kb_build_status_name(l->build.status), l->build.shared_with ? ", from " : "",
		     l->build.shared_with ? l->build.shared_with : "", l->build.seconds);
		break;
	case KB_EVENT_TESTED:
		step(pr, "%s %s: test: %s (%.1f s%s)%s%s%s", name, lane,
		     kb_verdict_name(l->test.verdict.verdict), l->test.run.boot.seconds,
		     l->test.run.reused ? ", the same boot as before" : "",
		     l->boot_image ? " (booted as " : "",
		     l->boot_image ? kb_boot_image_text(l->boot_image) : "", l->boot_image ? ")" : "");
		break;
	case KB_EVENT_TICK:
		cli_print_tick(name, lane, ev->tick);
		break;
	case KB_EVENT_BRANCH_ERROR:
		step(pr, "%s: %s", name, ev->text);
		break;
	case KB_EVENT_DONE:
		step(pr, "%s: %s%s%s", name, kb_verdict_name(b->verdict), b->note ? ": " : "",
		     b->note ? b->note : "");
		break;
	default:
		break;
	}
}

/* ---- the run ---- */

/* The reports directory: --reports, else reports/ beside the config. */
static int reports_dir(struct kb_buf *buf, struct run_cli *o, const struct kb_config *config)
{
	int err = 0;

	if (!o->reports && (err = kb_buf_printf(buf, "%s/reports", config->dir)) == 0)
		o->reports = buf->ptr;
	return err;
}

/* The history index set, as for kbackport apply: <workdir>/history/. */
static int open_history(struct kb_pipeline *p, const struct run_cli *o, const char *workdir)
{
	struct kb_buf dir = KB_BUF_INIT;
	int err;

	if (o->no_history)
		return 0;
	if ((err = kb_buf_printf(&dir, "%s/history", workdir)) == 0)
		err = kb_history_new(&p->backport.history, dir.ptr);
	kb_buf_release(&dir);
	return err;
}

static int setup(struct kb_pipeline *p, struct kb_tester *tester, struct kb_run_dir *rd,
		 const struct run_cli *o, struct kb_session *s)
{
	struct kb_cases *cases = s->tests.cases;
	struct kb_test_opts topts;
	int err;

	p->apply = true;
	p->build = true;
	p->tester = tester;
	p->kunit = s->noverlays > 0;
	kb_session_build_opts(&p->build_opts, s);
	p->build_opts.jobs = o->jobs;
	kb_test_opts_init(&topts);
	topts.workdir = s->workdir;
	topts.guest_source = s->guest.ptr;
	topts.timeout = o->timeout;
	topts.reuse = true;
	/* a bad --reports is found before the work directory is touched */
	if ((err = kb_run_dir_create(rd, o->reports)) < 0)
		return err;
	if ((err = kb_session_lock(s)) == 0) {
		s->tests.cases = NULL;	/* the tester's now, even on failure */
		err = kb_tester_init(tester, &topts, cases, o->accel_auto);
	}
	if (err == 0)
		err = open_history(p, o, s->workdir);
	p->backport.reapply = o->reapply;
	if (err < 0)
		kb_run_dir_discard(rd);
	return err;
}

/* Every branch through the pipeline into the run directory. */
static int run_all(struct kb_pipeline *p, struct kb_run_dir *rd,
		   const struct kb_branch **branches, size_t n, int *rc)
{
	struct kb_branch_run b;
	size_t i;
	int err = 0;

	*rc = EXIT_OK;
	cli_interruptible("branches", (long)n, true, "finished builds and boots are kept");
	for (i = 0; i < n && !err; i++, kb_work_step()) {
		if ((err = kb_pipeline_branch(&b, p, branches[i])) == 0)
			err = kb_run_dir_add(rd, &b, p->tester->cases,
					     p->queue ? NULL : p->fixes[0]);
		if (err || !kb_verdict_ok(b.verdict))
			*rc = EXIT_ATTENTION;
		kb_branch_run_release(&b);
	}
	return err;
}

static int run(struct run_cli *o)
{
	struct kb_session s = { 0 };
	struct kb_session_opts so;
	struct kb_buf reports = KB_BUF_INIT;
	struct kb_pipeline p;
	struct kb_tester tester;
	struct kb_run_dir rd;
	struct progress pr;
	const struct kb_fix *fix = NULL;
	int rc = EXIT_USAGE;

	memset(&tester, 0, sizeof(tester));
	memset(&rd, 0, sizeof(rd));
	kb_pipeline_init(&p);
	clock_gettime(CLOCK_MONOTONIC, &pr.start);
	pr.tty = isatty(STDERR_FILENO);
	pr.quiet = o->quiet;
	if (cli_progress_interval(&p.tick_interval, o->quiet))
		goto done;
	cli_session_opts(&so, &o->t);
	so.with_kernels = true;
	so.queue = o->queue;
	so.queue_name = o->queue_name;
	so.one_fix = !o->queue;
	so.build = so.guest = true;	/* locked once the run directory is made */
	if (cli_session_open(&s, &so) < 0)
		goto done;
	if (reports_dir(&reports, o, s.config) < 0 || setup(&p, &tester, &rd, o, &s) < 0) {
		cli_error_last();
		goto done;
	}
	fix = o->queue ? NULL : s.fixes[0];
	p.fixes = &fix;
	p.nfixes = 1;
	if (o->queue) {
		p.queue = &s.series;
		p.queue_name = s.queue_name;
		p.fixes = NULL;
		p.nfixes = 0;
		if (p.backport.history)
			kb_history_expect(p.backport.history,
					  (const struct kb_fix *const *)s.series.fixes, s.series.nfixes);
	}
	p.event = show;
	p.payload = &pr;
	if (o->queue)
		step(&pr, "run %s: the queue %s (%zu fix%s) on %zu branch%s, report in %s", rd.id,
		     s.queue_name, s.series.nfixes, s.series.nfixes == 1 ? "" : "es", s.nbranches,
		     s.nbranches == 1 ? "" : "es", rd.dir);
	else
		step(&pr, "run %s: %s on %zu branch%s, report in %s", rd.id, fix->id, s.nbranches,
		     s.nbranches == 1 ? "" : "es", rd.dir);
	if (run_all(&p, &rd, s.branches, s.nbranches, &rc) < 0 ||
	    (o->queue ? kb_run_dir_finish_queue(&rd, &s.series, s.queue_name) :
	     kb_run_dir_finish(&rd, fix)) < 0) {
		cli_error_last();
		rc = EXIT_ATTENTION;
		goto done;
	}
	if (tester.accel_note)
		printf("note: %s\n", tester.accel_note);
	printf("report: %s/summary.html\n", rd.dir);
done:
	kb_run_dir_release(&rd);
	kb_tester_release(&tester);
	kb_history_free(p.backport.history);
	kb_session_release(&s);
	kb_buf_release(&reports);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli o = { .t.config = NULL };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	cli_target_release(&o.t);
	return rc;
}
