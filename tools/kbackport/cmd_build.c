/* kbackport build: every lane of every selected branch, one result each. */
#include "build.h"
#include "buf.h"
#include "cli.h"
#include "error.h"
#include "fsutil.h"
#include "lanes.h"
#include "repo.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
"usage: kbackport build [--config FILE] [--fix DIR]... [--branch NAME]...\n"
"                       [--workdir DIR] [--fragment FILE]\n"
"                       [--overlay DIR | --no-overlay] [--jobs N] [--json]\n"
"\n"
"Build the kernel of each lane of each branch: the branch as it is (or its\n"
"pre-fix state) and its backport commit when kbackport apply made one. Trees\n"
"are written under the work directory, never into the repository's working\n"
"tree; each lane is built out of tree from tinyconfig plus the config\n"
"fragment, and its modules installed into the build's staging/ directory.\n"
"Lanes with the same tree share a build, a lane close to a built one starts\n"
"from a copy of it, and a lane already built is not built again.\n"
"\n"
"Every lane is built with kbackport's KUnit suite: the overlay directory's\n"
"files become net/kbackport_kunit/ of the tree and net/Makefile builds them,\n"
"in memory only. The trees this makes are kept in the work directory's odb/,\n"
"never in the repository.\n"
"\n"
"  -c, --config FILE   branches file (default: ./branches.yaml)\n"
"  -f, --fix DIR       a fix directory, or a directory of fixes; repeatable\n"
"                      (default: every fix under backports/ beside the config)\n"
"  -b, --branch NAME   only this branch; repeatable (default: all)\n"
"  -w, --workdir DIR   sources and builds (default: work/ beside the config)\n"
"      --fragment FILE config fragment for branches without `config:`\n"
"                      (default: tests/kernel/kbackport.config beside the\n"
"                      config, else kbackport's own)\n"
"      --overlay DIR   the KUnit suite to build in (default: tests/kunit beside\n"
"                      the config, else kbackport's own; left out, with a\n"
"                      warning, when missing)\n"
"      --no-overlay    build each lane's tree as it is\n"
"  -j, --jobs N        make -jN (default: the number of CPUs)\n"
"      --json          one JSON document\n"
"  -h, --help          this text\n"
"\n"
"Statuses: pass, fail, cached, skipped (build: false).\n"
"Exit status: 0 when no lane failed, 1 otherwise, 2 for usage.\n";

struct build_cli {
	struct cli_target t;
	const char *fragment;
	const char *overlay;
	bool no_overlay;
	unsigned jobs;
	bool json;
};

/* One row of the report. */
struct row {
	const char *branch;
	const char *fix;	/* NULL when the branch has no lane */
	const char *lane;	/* "as-is", "pre-fix", "backport", or "-" */
	char *ref;
	char commit[GIT_OID_HEXSZ + 1];
	struct kb_build_result result;
};

static int parse_options(struct build_cli *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_TARGET_OPTIONS,
		{ "workdir", required_argument, NULL, 'w' },
		{ "fragment", required_argument, NULL, 'F' },
		{ "overlay", required_argument, NULL, 'O' },
		{ "no-overlay", no_argument, NULL, 'N' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:f:b:w:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': case 'f': case 'b': case 'w':
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
		case 'h': cli_help(usage); return -1;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
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
	const struct kb_build_result *r = &w->result;

	return json_pack("{s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:s, s:f, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "branch", w->branch,
			 "fix", cli_json_str(w->fix),
			 "lane", w->lane,
			 "ref", cli_json_str(w->ref),
			 "commit", cli_json_str(w->commit),
			 "tree", oid_json(&r->tree),
			 "built_tree", oid_json(&r->built_tree),
			 "status", kb_build_status_name(r->status),
			 "seconds", r->seconds,
			 "rebuilt", (json_int_t)r->rebuilt,
			 "build_dir", cli_json_str(r->build_dir),
			 "staging_dir", cli_json_str(r->staging_dir),
			 "image", cli_json_str(r->image),
			 "log", cli_json_str(r->log),
			 "reason", cli_json_str(r->reason),
			 "missing_options", cli_json_lines(r->missing_options ? r->missing_options : ""),
			 "shared_with", cli_json_str(r->shared_with));
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
	const struct kb_build_result *r = &w->result;

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
		const struct kb_build_result *r = &rows[i].result;
		printf("%-*s  %-8s  %-7s  %7.1f  %7zu  %s\n", (int)w, rows[i].branch,
		       rows[i].lane, kb_build_status_name(r->status), r->seconds,
		       r->rebuilt, r->build_dir ? r->build_dir : "-");
	}
	for (i = 0; i < n; i++)
		print_notes(&rows[i]);
}

/* ---- building ---- */

struct rows {
	struct row *v;
	size_t n;
};

static struct row *new_row(struct rows *rows, const struct kb_branch *branch,
			   const char *fix, const char *lane)
{
	struct row *v = realloc(rows->v, (rows->n + 1) * sizeof(*v)), *w;

	if (!v)
		return NULL;
	rows->v = v;
	w = memset(&v[rows->n++], 0, sizeof(*w));
	w->branch = branch->name;
	w->fix = fix;
	w->lane = lane;
	return w;
}

/* One row for the whole branch: skipped, or it could not be looked at. */
static int branch_row(struct rows *rows, const struct kb_branch *branch, const char *lane,
		      enum kb_build_status status, const char *reason)
{
	struct row *w = new_row(rows, branch, NULL, lane);

	if (!w)
		return KB_ENOMEM;
	w->result.status = status;
	return (w->result.reason = kb_strdup(reason)) ? 0 : KB_ENOMEM;
}

/* One line, redrawn in place: cut to the terminal's width so it never wraps. */
static void show_progress(const char *line, void *payload)
{
	const struct row *w = payload;
	struct winsize ws;
	int width = 80;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		width = ws.ws_col;
	width -= (int)(strlen(w->branch) + strlen(w->lane) + 4);
	fprintf(stderr, "\r\033[K%s %s: %.*s", w->branch, w->lane, width > 10 ? width : 10, line);
	fflush(stderr);
}

static int build_lane(struct rows *rows, git_repository *repo, const struct kb_branch *branch,
		      const char *fix, const struct kb_lane *lane, struct kb_build_opts *opts)
{
	struct row *w = new_row(rows, branch, fix, kb_lane_kind_name(lane->kind));
	int err;

	if (!w || !(w->ref = kb_strdup(lane->ref)))
		return KB_ENOMEM;
	git_oid_tostr(w->commit, sizeof(w->commit), &lane->commit);
	opts->payload = w;
	err = kb_build_lane(&w->result, repo, branch, lane, opts);
	if (opts->progress)
		fputs("\r\033[K", stderr);
	return err;
}

/* The lanes of `branch` for each fix; the as-is lane is built once. */
static int build_branch(struct rows *rows, const struct kb_branch *branch,
			struct kb_fix **fixes, size_t nfixes, struct kb_build_opts *opts)
{
	git_repository *repo = NULL;
	git_commit *tip = NULL;
	struct kb_lane *lanes = NULL;
	size_t nlanes = 0, f, l, before = rows->n;
	int err = 0;

	if (!branch->build)
		return branch_row(rows, branch, kb_lane_kind_name(KB_LANE_AS_IS),
				  KB_BUILD_SKIPPED, branch->build_skip_reason ?
				  branch->build_skip_reason : "build: false");
	if (kb_branch_open(&repo, &tip, branch) < 0)
		return branch_row(rows, branch, "-", KB_BUILD_FAIL, kb_error_last());
	for (f = 0; f < nfixes && !err; f++) {
		if ((err = kb_branch_lanes(&lanes, &nlanes, repo, branch, fixes[f]->id)) < 0) {
			err = branch_row(rows, branch, "-", KB_BUILD_FAIL, kb_error_last());
			break;
		}
		for (l = 0; l < nlanes && !err; l++)
			if (f == 0 || lanes[l].kind != KB_LANE_AS_IS)
				err = build_lane(rows, repo, branch, fixes[f]->id, &lanes[l], opts);
		kb_lanes_free(lanes, nlanes);
	}
	if (!err && rows->n == before)
		err = branch_row(rows, branch, "-", KB_BUILD_SKIPPED, "no lane to build");
	git_commit_free(tip);
	git_repository_free(repo);
	return err;
}

static int exit_code(const struct rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (rows->v[i].result.status == KB_BUILD_FAIL)
			return EXIT_ATTENTION;
	return EXIT_OK;
}

static int run(struct build_cli *o)
{
	const struct kb_branch **branches = NULL;
	struct kb_config *config = NULL;
	struct kb_fix **fixes = NULL;
	struct cli_build_paths paths = { KB_BUF_INIT, KB_BUF_INIT, KB_BUF_INIT };
	int lock_fd = -1;
	struct kb_build_opts opts;
	struct rows rows = { NULL, 0 };
	size_t nbranches = 0, nfixes = 0, b;
	int rc = EXIT_USAGE, err = 0;

	if (kb_config_load(&config, o->t.config) < 0 ||
	    cli_select(&branches, &nbranches, config, &o->t.branches) < 0 ||
	    cli_load_fixes(&fixes, &nfixes, o->t.fixes, o->t.nfixes, config) < 0 ||
	    cli_build_paths(&paths, config, &o->t.workdir, &o->fragment, &o->overlay,
			    o->no_overlay) < 0 || kb_lock_dir(&lock_fd, o->t.workdir) < 0) {
		cli_error_last();
		goto done;
	}
	kb_build_opts_init(&opts);
	opts.workdir = o->t.workdir;
	opts.fragment = o->fragment;
	opts.overlay = o->overlay;
	opts.jobs = o->jobs;
	if (isatty(STDERR_FILENO))
		opts.progress = show_progress;
	for (b = 0; b < nbranches && !err; b++)
		err = build_branch(&rows, branches[b], fixes, nfixes, &opts);
	if (err < 0) {
		cli_error_last();
		rc = EXIT_ATTENTION;
		goto done;
	}
	if (o->json)
		print_json(rows.v, rows.n);
	else
		print_matrix(rows.v, rows.n);
	rc = exit_code(&rows);
done:
	for (b = 0; b < rows.n; b++) {
		free(rows.v[b].ref);
		kb_build_result_release(&rows.v[b].result);
	}
	free(rows.v);
	cli_build_paths_release(&paths);
	if (lock_fd >= 0)
		close(lock_fd);
	free(branches);
	kb_fix_free_all(fixes, nfixes);
	kb_config_free(config);
	return rc;
}

int cmd_build(int argc, char **argv)
{
	struct build_cli o = { .t.config = "branches.yaml" };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	cli_target_release(&o.t);
	return rc;
}
