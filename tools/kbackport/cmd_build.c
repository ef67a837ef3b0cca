/*
 * kbackport build: every lane of every selected branch, one result each.
 * The loop is the pipeline's (lib/pipeline.h) with building switched on.
 */
#include "util/interrupt.h"
#include "cli.h"
#include "util/error.h"
#include "pipeline.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const struct cli_opt options[] = {
	CLI_OPTS_TARGET,
	{ 'w', true, "workdir", required_argument, "DIR",
	  "sources and builds (default: work/ beside the config)" },
	{ 'F', false, "fragment", required_argument, "FILE",
	  "the common config fragment, for branches without\n"
	  "`config:` (default: data/kernel/kbackport.config beside\n"
	  "the config, else kbackport's own)" },
	{ 'O', false, "overlay", required_argument, "DIR",
	  "this one KUnit suite instead of the fixes'" },
	{ 'N', false, "no-overlay", no_argument, NULL,
	  "build each lane's tree as it is, without KUnit suites" },
	{ 'j', true, "jobs", required_argument, "N",
	  "make -jN (default: $KBACKPORT_JOBS, else the number of CPUs)" },
	{ 'J', false, "json", no_argument, NULL,
	  "one JSON document" },
	{ 'q', true, "quiet", no_argument, NULL,
	  "no progress lines while a build runs" },
	CLI_OPT_COLOR_ENTRY("statuses"),
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport build [--config FILE] [--fix DIR]... [--branch NAME]...\n"
	"                       [--workdir DIR] [--fragment FILE]\n"
	"                       [--overlay DIR | --no-overlay] [--jobs N] [--json]\n"
	"                       [--quiet]\n"
	"\n"
	"Build the kernel of each lane of each branch: the branch as it is (or its\n"
	"pre-fix state) and its backport commit when kbackport apply made one. Trees\n"
	"are written under the work directory, never into the repository's working\n"
	"tree; each lane is built out of tree from tinyconfig plus the config\n"
	"fragment, and its modules installed into the build's staging/ directory.\n"
	"Lanes with the same tree share a build, a lane close to a built one starts\n"
	"from a copy of it, and a lane already built is not built again. A pre-fix\n"
	"or backport ref not built on the lane below it (left by an apply before\n"
	"the branch moved on) is no lane: a note on stderr names it.\n"
	"\n"
	"An x86 lane's bzImage must carry the lane's own compressed kernel\n"
	"(arch/x86/boot/compressed/vmlinux.bin.*), checked after make and whenever\n"
	"a kept build would be taken: another build's (a stale piggy.o) is made\n"
	"again without ccache, and the lane fails if it is still there, so that no\n"
	"lane boots another's kernel. The log says what was checked.\n"
	"\n"
	"Each lane is built with the KUnit suites of the fixes' tests (a fix's\n"
	"tests/kunit/, or its fix.yaml `tests:` directory's): each becomes a directory\n"
	"of net/kbackport_kunit/ of the tree and net/Makefile builds them, in memory\n"
	"only. The trees this makes are kept in the work directory's odb/, never in\n"
	"the repository. The config is tinyconfig, the common fragment, then the\n"
	"kernel.config of every fix's tests of the collection (the --fix directories\n"
	"and backports/, family folders too), each only where the tree knows every\n"
	"option it names (the log says which it left out): one config per branch\n"
	"serves every fix, so one as-is build does.\n"
	"\n"
	"A tree today's compiler cannot build as it is (2.6.x) gets, the same way,\n"
	"the build adjustments of data/kernel/compat/rules (beside the config, else\n"
	"kbackport's own) whose conditions its contents meet; the lane's log starts\n"
	"with the rules applied. A file of kbackport's own data that is missing (the\n"
	"rules, the fragment) is an error naming it.\n"
	"\n",
	.opts = options,
	.column = 22,
	.tail =
	"\n"
	"While a lane builds, a progress line on stderr every 30 seconds\n"
	"(KBACKPORT_PROGRESS_INTERVAL=SECONDS to change it): the lane, the time\n"
	"spent and the objects compiled, out of the count of the branch's last\n"
	"build from scratch when this one starts from scratch too, else out of ?:\n"
	"  progress: 6.1.y as-is: build 2m30s, 5231/9000 objects\n"
	"\n"
	"Statuses: pass, fail, cached, skipped (build: false).\n"
	"Exit status: 0 when no lane failed, 1 otherwise, 2 for usage.\n",
};

struct build_cli {
	struct cli_target t;
	const char *fragment;
	const char *overlay;
	bool no_overlay;
	unsigned jobs;
	bool json;
	bool quiet;
};

/* One row of the report: a lane, or a branch with no lane to build. */
struct row {
	const char *branch;
	const char *fix;	/* NULL when the branch has no lane */
	const char *lane;	/* "as-is", "pre-fix", "backport", or "-" */
	const char *ref;
	const char *commit;
	const struct kb_build_result *result;
};

static int parse_options(struct build_cli *o, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'c': case 'f': case 'b': case 'w': case CLI_OPT_COLOR:
			if (cli_target_option(&o->t, c, optarg))
				return EXIT_USAGE;
			break;
		case 'F': o->fragment = optarg; break;
		case 'O': o->overlay = optarg; o->no_overlay = false; break;
		case 'N': o->overlay = NULL; o->no_overlay = true; break;
		case 'j':
			if (cli_parse_number(&o->jobs, optarg, "--jobs", "a number", 1024))
				return EXIT_USAGE;
			break;
		case 'J': o->json = true; break;
		case 'q': o->quiet = true; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	if (cli_jobs_default(&o->jobs))
		return EXIT_USAGE;
	return cli_no_arguments(argc, argv);
}

/* ---- output: one emitter per format, from the same rows ---- */

static json_t *oid_json(const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];

	if (git_oid_is_zero(id))
		return json_null();
	return json_string(git_oid_tostr(hex, sizeof(hex), id));
}

static json_t *row_json(const struct row *w)
{
	const struct kb_build_result *r = w->result;

	return json_pack("{s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:s, s:f, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "branch", w->branch,
			 "fix", kb_json_str(w->fix),
			 "lane", w->lane,
			 "ref", kb_json_str(w->ref),
			 "commit", kb_json_str(w->commit),
			 "tree", oid_json(&r->tree),
			 "built_tree", oid_json(&r->built_tree),
			 "status", kb_build_status_name(r->status),
			 "seconds", r->seconds,
			 "rebuilt", (json_int_t)r->rebuilt,
			 "build_dir", kb_json_str(r->build_dir),
			 "staging_dir", kb_json_str(r->staging_dir),
			 "image", kb_json_str(r->image),
			 "log", kb_json_str(r->log),
			 "reason", kb_json_str(r->reason),
			 "missing_options", kb_json_lines(r->missing_options ? r->missing_options : ""),
			 "shared_with", kb_json_str(r->shared_with));
}

static void print_json(const struct row *rows, size_t n)
{
	json_t *list = json_array(), *doc;
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(list, row_json(&rows[i]));
	doc = json_pack("{s:o}", "builds", list);
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(doc);
}

static void print_notes(const struct row *w)
{
	const struct kb_build_result *r = w->result;

	if (!r->reason && !r->missing_options && !r->shared_with)
		return;
	printf("\n%s %s: %s\n", w->branch, w->lane, kb_build_status_name(r->status));
	if (r->shared_with)
		printf("  %s the build of %s\n",
		       r->status == KB_BUILD_CACHED ? "reused" : "started from a copy of",
		       r->shared_with);
	if (r->missing_options) {
		printf("  warning: options of the fragment that olddefconfig dropped:\n");
		cli_print_indented(r->missing_options, "    ");
	}
	cli_print_indented(r->reason, "  ");
}

static void print_matrix(const struct row *rows, size_t n)
{
	size_t i, w = 6;

	for (i = 0; i < n; i++)
		if (strlen(rows[i].branch) > w)
			w = strlen(rows[i].branch);
	printf("%-*s  %-8s  %-7s  %7s  %7s  %s\n", (int)w, "BRANCH", "LANE", "STATUS",
	       "SECONDS", "REBUILT", "BUILD");
	for (i = 0; i < n; i++) {
		const struct kb_build_result *r = rows[i].result;
		printf("%-*s  %-8s  ", (int)w, rows[i].branch, rows[i].lane);
		cli_put_word(kb_build_status_name(r->status), 7);
		printf("  %7.1f  %7zu  %s\n", r->seconds, r->rebuilt, r->build_dir ? r->build_dir : "-");
	}
	for (i = 0; i < n; i++)
		print_notes(&rows[i]);
}

/* ---- building ---- */

/*
 * Progress lines at an interval; on a terminal (`live`), one line redrawn
 * in place besides: cut to the terminal's width so it never wraps.
 */
static void show_progress(const struct kb_pipeline_event *ev, void *payload)
{
	const char *branch = ev->branch->branch->name;
	const char *lane = ev->lane ? kb_lane_kind_name(ev->lane->kind) : "-";
	const bool *live = payload;
	struct winsize ws;
	int width = 80;

	if (ev->kind == KB_EVENT_TICK)
		cli_print_tick(branch, lane, ev->tick);
	if (ev->kind == KB_EVENT_PASSED_OVER)
		fprintf(stderr, "%snote: %s: %s\n", *live ? "\r\033[K" : "", branch, ev->text);
	if (!*live)
		return;
	if (ev->kind == KB_EVENT_BUILT) {
		fputs("\r\033[K", stderr);
		return;
	}
	if (ev->kind != KB_EVENT_BUILD_LINE)
		return;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		width = ws.ws_col;
	width -= (int)(strlen(branch) + strlen(lane) + 4);
	fprintf(stderr, "\r\033[K%s %s: %.*s", branch, lane, width > 10 ? width : 10, ev->text);
	fflush(stderr);
}

/*
 * The rows of the built branches: a lane each; a branch with none (not
 * built, or it could not be opened) as one row of `alone`, which holds
 * that row's status and reason.
 */
static int make_rows(struct row **out, size_t *n, const struct kb_branch_run *runs, size_t nruns,
		     struct kb_build_result *alone)
{
	struct row *rows;
	size_t i, j, k = 0, total = 0;

	for (i = 0; i < nruns; i++)
		total += runs[i].nlanes + 1;
	rows = calloc(total + 1, sizeof(*rows));
	KB_ERROR_CHECK_ALLOC(rows);
	for (i = 0; i < nruns; i++) {
		const struct kb_branch_run *b = &runs[i];
		for (j = 0; j < b->nlanes; j++)
			rows[k++] = (struct row){ b->branch->name, b->lanes[j].fix,
				kb_lane_kind_name(b->lanes[j].kind), b->lanes[j].ref,
				b->lanes[j].commit, &b->lanes[j].build };
		if (!b->error && b->nlanes)
			continue;
		alone[i].status = b->error ? KB_BUILD_FAIL : KB_BUILD_SKIPPED;
		alone[i].reason = b->error ? b->error : b->note ? b->note : (char *)"no lane to build";
		rows[k++] = (struct row){ b->branch->name, NULL, !b->error && b->note ?
			kb_lane_kind_name(KB_LANE_AS_IS) : "-", NULL, NULL, &alone[i] };
	}
	*out = rows;
	*n = k;
	return 0;
}

static int exit_code(const struct row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].result->status == KB_BUILD_FAIL)
			return EXIT_ATTENTION;
	return EXIT_OK;
}

static int run(struct build_cli *o)
{
	struct kb_session s = { 0 };
	struct kb_session_opts so;
	struct kb_branch_run *runs = NULL;
	struct kb_build_result *alone = NULL;
	struct row *rows = NULL;
	struct kb_pipeline p;
	size_t nrows = 0, b;
	int rc = EXIT_USAGE, err = 0;
	bool live = isatty(STDERR_FILENO) && !o->quiet;

	kb_pipeline_init(&p);
	if (cli_progress_interval(&p.tick_interval, o->quiet))
		goto done;
	cli_session_opts(&so, &o->t);
	so.build = so.lock = true;
	so.fragment = o->fragment;
	so.overlay = o->overlay;
	so.no_overlay = o->no_overlay;
	if (cli_session_open(&s, &so) < 0)
		goto done;
	if (!(runs = calloc(s.nbranches + 1, sizeof(*runs))) ||
	    !(alone = calloc(s.nbranches + 1, sizeof(*alone)))) {
		cli_error("out of memory");
		goto done;
	}
	p.fixes = (const struct kb_fix *const *)s.fixes;
	p.nfixes = s.nfixes;
	p.build = true;
	kb_session_build_opts(&p.build_opts, &s);
	p.build_opts.jobs = o->jobs;
	p.event = show_progress;
	p.payload = &live;
	cli_interruptible("branches", (long)s.nbranches, false,
			  "finished builds are kept, a half-done one is resumed");
	for (b = 0; b < s.nbranches && !err; b++, kb_work_step())
		err = kb_pipeline_branch(&runs[b], &p, s.branches[b]);
	if (err < 0 || make_rows(&rows, &nrows, runs, s.nbranches, alone) < 0) {
		cli_error_last();
		rc = EXIT_ATTENTION;
		goto done;
	}
	if (o->json)
		print_json(rows, nrows);
	else
		print_matrix(rows, nrows);
	rc = exit_code(rows, nrows);
done:
	free(rows);
	free(alone);
	for (b = 0; runs && b < s.nbranches; b++)
		kb_branch_run_release(&runs[b]);
	free(runs);
	kb_session_release(&s);
	return rc;
}

int cmd_build(int argc, char **argv)
{
	struct build_cli o = { .t.config = NULL };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	cli_target_release(&o.t);
	return rc;
}
