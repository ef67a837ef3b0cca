/*
 * kbackport ci-matrix: the fan-out of branches.yaml for a CI system, one
 * job per branch running `kbackport run --branch NAME`, then one job that
 * merges their reports. One model (a JSON list of jobs), three views.
 */
#include "util/buf.h"
#include "cli.h"
#include "config.h"
#include "util/error.h"
#include "util/shell.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt options[] = {
	{ 'c', true, "config", required_argument, "FILE",
	  "branches file (default: $KBACKPORT_CONFIG, else the\n"
	  "nearest branches.yaml from here upward); when given,\n"
	  "each job's kbackport run is given it too" },
	{ 'b', true, "branch", required_argument, "NAME",
	  "only this branch; repeatable (default: all)" },
	{ 'F', false, "format", required_argument, "FORMAT",
	  "json (default): a list, one object per job:\n"
	  "  {\"branch\", \"kernel\" (the package, or null),\n"
	  "   \"run\" (the job's command), \"artifact\" (its name)}\n"
	  "github: a strategy.matrix on one line,\n"
	  "  {\"include\":[{\"branch\":...,\"artifact\":...},...]}:\n"
	  "  echo \"matrix=$(kbackport ci-matrix --format github)\"\n"
	  "  >> \"$GITHUB_OUTPUT\", then in the fanned-out job\n"
	  "  matrix: ${{ fromJSON(needs.<job>.outputs.matrix) }}\n"
	  "gitlab: a child pipeline for trigger: include:\n"
	  "  artifact:, a `backport:NAME` job per branch (each\n"
	  "  runs $KBACKPORT_PREPARE first when set) and a\n"
	  "  `report` job needing them all" },
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport ci-matrix [--config FILE] [--branch NAME]...\n"
	"                           [--format json|github|gitlab]\n"
	"\n"
	"Print the fan-out of branches.yaml for a CI system: one job per branch,\n"
	"distribution kernel branches (`kernel:`) included. Each job runs\n"
	"`kbackport run --branch NAME` (apply, build and test that branch alone; a\n"
	"`kernel:` branch boots its package as shipped) and keeps reports/ as an\n"
	"artifact; a last job merges them all with `kbackport report --merge` and\n"
	"fails when a branch needs attention. ci/github-actions.yml and\n"
	"ci/gitlab-ci.yml show both systems wired to it.\n"
	"\n",
	.opts = options,
	.column = 24,
	.tail =
	"\n"
	"An artifact is named reports-NAME, with any of \" : < > | * ? \\ / % in NAME\n"
	"percent-encoded (artifact names may not hold them).\n"
	"\n"
	"Exit status: 0; 1 when the output cannot be written; 2 for usage, an\n"
	"unknown branch or an unreadable branches file.\n",
};

enum ci_format { CI_JSON, CI_GITHUB, CI_GITLAB };

struct ci_cli {
	const char *config;
	bool config_given;
	struct cli_branches branches;
	enum ci_format format;
};

/* GitLab refuses a job whose `needs:` lists more (its default limit). */
#define GITLAB_MAX_NEEDS 50

static int parse_format(enum ci_format *out, const char *arg)
{
	if (!strcmp(arg, "json"))
		*out = CI_JSON;
	else if (!strcmp(arg, "github"))
		*out = CI_GITHUB;
	else if (!strcmp(arg, "gitlab"))
		*out = CI_GITLAB;
	else {
		cli_error("--format is 'json', 'github' or 'gitlab', not '%s'", arg);
		return EXIT_USAGE;
	}
	return 0;
}

static int parse_options(struct ci_cli *o, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; o->config_given = true; break;
		case 'b':
			if (cli_branches_add(&o->branches, optarg) < 0)
				return EXIT_USAGE;
			break;
		case 'F':
			if (parse_format(&o->format, optarg))
				return EXIT_USAGE;
			break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	return cli_no_arguments(argc, argv);
}

/* ---- the model: one JSON object per job ---- */

/* Git allows " < > | % in a ref component; artifact names do not. */
static int artifact_name(struct kb_buf *out, const char *branch)
{
	const char *p;

	kb_buf_puts(out, "reports-");
	for (p = branch; *p; p++)
		if (strchr("\":<>|*?\\/%\r\n", *p))
			kb_buf_printf(out, "%%%02X", (unsigned char)*p);
		else
			kb_buf_putc(out, *p);
	return kb_buf_check(out);
}

/* What a job runs: "kbackport run [--config FILE] --branch NAME". */
static int run_command(struct kb_buf *out, const char *config, const char *branch)
{
	kb_buf_puts(out, "kbackport run ");
	if (config) {
		kb_buf_puts(out, "--config ");
		kb_sh_quote(out, config);
		kb_buf_putc(out, ' ');
	}
	kb_buf_puts(out, "--branch ");
	kb_sh_quote(out, branch);
	return kb_buf_check(out);
}

static json_t *job_json(const struct kb_branch *b, const char *config)
{
	struct kb_buf run = KB_BUF_INIT, artifact = KB_BUF_INIT;
	json_t *job = NULL;

	if (run_command(&run, config, b->name) == 0 && artifact_name(&artifact, b->name) == 0)
		job = json_pack("{s:s, s:o, s:s, s:s}", "branch", b->name,
				"kernel", b->kernel ? json_string(b->kernel) : json_null(),
				"run", run.ptr, "artifact", artifact.ptr);
	kb_buf_release(&run);
	kb_buf_release(&artifact);
	return job;
}

static int jobs_json(json_t **out, const struct kb_branch **branches, size_t n,
		     const char *config)
{
	json_t *jobs = json_array();
	size_t i;

	for (i = 0; jobs && i < n; i++)
		if (json_array_append_new(jobs, job_json(branches[i], config)) < 0) {
			json_decref(jobs);
			jobs = NULL;
		}
	*out = jobs;
	return jobs ? 0 : kb_error_set(KB_ENOMEM, "out of memory (or a name is not UTF-8)");
}

static const char *job_str(const json_t *job, const char *key)
{
	return json_string_value(json_object_get(job, key));
}

/* ---- the views ---- */

static int put_json(struct kb_buf *out, const json_t *doc, size_t flags)
{
	char *s = json_dumps(doc, flags | JSON_ENCODE_ANY);

	KB_ERROR_CHECK_ALLOC(s);
	kb_buf_puts(out, s);
	kb_buf_putc(out, '\n');
	free(s);
	return kb_buf_check(out);
}

static int emit_github(struct kb_buf *out, const json_t *jobs)
{
	json_t *include = json_array(), *job;
	size_t i;
	int err;

	json_array_foreach(jobs, i, job)
		json_array_append_new(include, json_pack("{s:s, s:s}",
							 "branch", job_str(job, "branch"),
							 "artifact", job_str(job, "artifact")));
	job = json_pack("{s:o}", "include", include);
	err = put_json(out, job, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(job);
	return err;
}

/* A YAML double-quoted scalar: JSON's string escapes are YAML's too. */
static int put_yaml_str(struct kb_buf *out, const char *s)
{
	json_t *str = json_string(s);
	char *quoted = str ? json_dumps(str, JSON_ENCODE_ANY) : NULL;
	int err = quoted ? kb_buf_puts(out, quoted) : kb_error_oom();

	free(quoted);
	json_decref(str);
	return err;
}

static const char gitlab_head[] =
"# A GitLab child pipeline made by `kbackport ci-matrix --format gitlab`, to\n"
"# run with `trigger: include: - artifact:` (see ci/gitlab-ci.yml). One job\n"
"# per branch runs `kbackport run --branch NAME` (apply, build and test that\n"
"# branch; a `kernel:` branch boots its package as shipped) and keeps\n"
"# reports/ as an artifact, whatever the outcome. The report job merges them\n"
"# all and fails when a branch needs attention. A branch job fails for good\n"
"# only when kbackport does (exit 2): exit 1 is left to the report.\n"
"stages:\n"
"  - backport\n"
"  - report\n"
"\n"
"default:\n"
"  image: debian:12\n"
"  before_script:\n"
"    - apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make\n"
"    - make deps all\n"
"    - export PATH=\"$PWD/build:$PATH\"\n";

/* "backport:NAME", as a quoted YAML scalar. */
static int put_job_name(struct kb_buf *out, const char *branch)
{
	struct kb_buf name = KB_BUF_INIT;
	int err;

	if ((err = kb_buf_printf(&name, "backport:%s", branch)) == 0)
		err = put_yaml_str(out, name.ptr);
	kb_buf_release(&name);
	return err;
}

static int emit_gitlab_job(struct kb_buf *out, const json_t *job)
{
	bool kernel = !json_is_null(json_object_get(job, "kernel"));
	int err;

	/* the quoted scalars are JSON strings made apart from `out`: checked each */
	kb_buf_printf(out, "\n# %s\n", kernel ?
		      "a distribution kernel package, booted as shipped" :
		      "a git branch: the fix applied, built and tested");
	if ((err = put_job_name(out, job_str(job, "branch"))) < 0)
		return err;
	kb_buf_puts(out, ":\n  stage: backport\n  script:\n"
		    "    - 'if [ -n \"${KBACKPORT_PREPARE:-}\" ]; then sh -c \"$KBACKPORT_PREPARE\"; fi'\n"
		    "    - ");
	if ((err = put_yaml_str(out, job_str(job, "run"))) < 0)
		return err;
	kb_buf_puts(out, "\n  allow_failure:\n    exit_codes: [1]\n"
		    "  artifacts:\n    name: ");
	if ((err = put_yaml_str(out, job_str(job, "artifact"))) < 0)
		return err;
	/* every job's reports/latest would land on the same path in the report job */
	return kb_buf_puts(out, "\n    when: always\n    paths:\n      - reports/\n"
			   "    exclude:\n      - reports/latest\n      - reports/latest/**\n");
}

static int emit_gitlab_needs(struct kb_buf *out, const json_t *jobs)
{
	const json_t *job;
	size_t i;
	int err;

	if (json_array_size(jobs) > GITLAB_MAX_NEEDS)
		return kb_buf_printf(out, "  # more branch jobs than GitLab lets `needs:` list (%d):\n"
				     "  # the report stage waits for all of them and takes their artifacts\n",
				     GITLAB_MAX_NEEDS);
	kb_buf_puts(out, "  needs:\n");
	json_array_foreach(jobs, i, job) {
		kb_buf_puts(out, "    - ");
		/* its own buffer and JSON string may fail apart from `out` */
		if ((err = put_job_name(out, job_str(job, "branch"))) < 0)
			return err;
		kb_buf_putc(out, '\n');
	}
	return kb_buf_check(out);
}

static int emit_gitlab(struct kb_buf *out, const json_t *jobs)
{
	const json_t *job;
	size_t i;
	int err;

	kb_buf_puts(out, gitlab_head);
	json_array_foreach(jobs, i, job)
		if ((err = emit_gitlab_job(out, job)) < 0)
			return err;
	kb_buf_puts(out, "\n# every branch's run directory, merged into one report\n"
		    "report:\n  stage: report\n  when: always\n");
	if ((err = emit_gitlab_needs(out, jobs)) < 0)
		return err;
	return kb_buf_puts(out, "  script:\n"
			   "    - kbackport report --merge reports/*/ --output reports/merged\n"
			   "  artifacts:\n    name: kbackport-report\n    when: always\n"
			   "    paths:\n      - reports/merged/\n");
}

static int emit(struct kb_buf *out, const json_t *jobs, enum ci_format format)
{
	switch (format) {
	case CI_GITHUB: return emit_github(out, jobs);
	case CI_GITLAB: return emit_gitlab(out, jobs);
	default: return put_json(out, jobs, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	}
}

/* ---- the command ---- */

static int run(const struct ci_cli *o)
{
	const struct kb_branch **branches = NULL;
	struct kb_config *config = NULL;
	struct kb_buf out = KB_BUF_INIT;
	json_t *jobs = NULL;
	size_t n = 0;
	int rc = EXIT_USAGE;

	if (cli_config_load(&config, o->config) < 0 ||
	    cli_select_all(&branches, &n, config, &o->branches) < 0 ||
	    jobs_json(&jobs, branches, n, o->config_given ? o->config : NULL) < 0 ||
	    emit(&out, jobs, o->format) < 0) {
		cli_error_last();
		goto done;
	}
	fwrite(out.ptr, 1, out.size, stdout);	/* checked in main(), as every command's */
	rc = EXIT_OK;
done:
	kb_buf_release(&out);
	json_decref(jobs);
	free(branches);
	kb_config_free(config);
	return rc;
}

int cmd_ci_matrix(int argc, char **argv)
{
	struct ci_cli o = { .config = NULL, .format = CI_JSON };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	cli_branches_release(&o.branches);
	return rc;
}
