/*
 * kbackport test: boot each built lane with the shared test set, read the
 * KTAP, and give every lane and branch its verdict (lib/verdict.h).
 */
#include "build.h"
#include "buf.h"
#include "cases.h"
#include "cli.h"
#include "error.h"
#include "fsutil.h"
#include "distro.h"
#include "lanes.h"
#include "repo.h"
#include "test.h"
#include "testrun.h"
#include "verdict.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
"usage: kbackport test [--config FILE] [--fix DIR]... [--branch NAME]...\n"
"                      [--workdir DIR] [--cases FILE] [--accel tcg|auto]\n"
"                      [--timeout SECONDS] [--guest PROGRAM] [--json]\n"
"\n"
"Boot every built lane of each branch in QEMU with the shared test set: the\n"
"KUnit suite kbackport build put into the kernel runs at boot, then the\n"
"capability suite (tests/qemu/guest.c) runs as /init of an initramfs that\n"
"holds the lane's modules. Both print KTAP on the serial console; kbackport\n"
"parses it and decides, from what tests/cases.yaml says each case proves:\n"
"\n"
"  lane    fixed       every case passed\n"
"          vulnerable  only cases that detect the fix failed\n"
"          regression  another case failed\n"
"          error       no verdict: not built, the boot hung or panicked, a\n"
"                      suite is missing or its KTAP is broken\n"
"  branch  verified    the pre-fix (or as-is) lane is vulnerable and the\n"
"                      backport lane fixed: the bug was seen, then gone\n"
"          fixed       fixed, but the bug was never seen failing here\n"
"          vulnerable, regression, error, skipped: as for lanes\n"
"\n"
"A branch with `kernel: PACKAGE` boots that Debian kernel package as shipped\n"
"(fetched with apt-get), with the capability suite only. Nothing is loaded,\n"
"and no capability is changed, on this machine: all of it happens in the\n"
"guest. Logs go to <workdir>/test/<fix>/<branch>/<lane>/.\n"
"\n"
"  -c, --config FILE     branches file (default: ./branches.yaml)\n"
"  -f, --fix DIR         a fix directory, or a directory of fixes; repeatable\n"
"                        (default: every fix under backports/ beside the config)\n"
"  -b, --branch NAME     only this branch; repeatable (default: all)\n"
"  -w, --workdir DIR     where kbackport build worked (default: work/ beside\n"
"                        the config)\n"
"      --fragment FILE   \\ as given to kbackport build, to find its builds\n"
"      --overlay DIR     |\n"
"      --no-overlay      /\n"
"      --cases FILE      what each test case proves (default: tests/cases.yaml\n"
"                        beside the config)\n"
"      --accel tcg|auto  tcg (default): QEMU's emulator; auto: KVM when a probe\n"
"                        boot proves it works, else tcg\n"
"  -t, --timeout SECS    per boot, then it is a hang (default: 120)\n"
"      --guest PROGRAM   boot this static program as /init instead of the\n"
"                        capability suite (to test kbackport itself)\n"
"      --json            one JSON document\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0 when every branch is verified, fixed or skipped; 1 when one\n"
"is vulnerable, regressed or in error; 2 for usage.\n";

struct test_cli {
	struct cli_target t;
	const char *fragment;
	const char *overlay;
	bool no_overlay;
	const char *cases;
	const char *guest;
	bool accel_auto;
	unsigned timeout;
	bool json;
};

/* One lane of one branch for one fix. */
struct lane_row {
	const char *fix;
	enum kb_lane_kind kind;
	char *ref;
	char commit[GIT_OID_HEXSZ + 1];
	char *outdir;
	struct kb_lane_test t;	/* booted, run, verdict */
};

struct branch_row {
	const struct kb_branch *branch;
	struct lane_row *lanes;
	size_t nlanes;
	enum kb_verdict verdict;
	char *note;		/* "the tests did not detect ..." */
	char *error;		/* why the branch could not be tested at all */
};

static int parse_options(struct test_cli *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_TARGET_OPTIONS,
		{ "workdir", required_argument, NULL, 'w' },
		{ "fragment", required_argument, NULL, 'F' },
		{ "overlay", required_argument, NULL, 'O' },
		{ "no-overlay", no_argument, NULL, 'N' },
		{ "cases", required_argument, NULL, 'C' },
		{ "accel", required_argument, NULL, 'A' },
		{ "timeout", required_argument, NULL, 't' },
		{ "guest", required_argument, NULL, 'G' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:f:b:w:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': case 'f': case 'b': case 'w':
			if (cli_target_option(&o->t, c, optarg))
				return EXIT_USAGE;
			break;
		case 'F': o->fragment = optarg; break;
		case 'O': o->overlay = optarg; o->no_overlay = false; break;
		case 'N': o->overlay = NULL; o->no_overlay = true; break;
		case 'C': o->cases = optarg; break;
		case 'A':
			if (cli_parse_accel(&o->accel_auto, optarg))
				return EXIT_USAGE;
			break;
		case 't':
			if (cli_parse_number(&o->timeout, optarg, "--timeout", "seconds", 3600))
				return EXIT_USAGE;
			break;
		case 'G': o->guest = optarg; break;
		case 'J': o->json = true; break;
		case 'h': cli_help(usage); return -1;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	return cli_no_arguments(argc, argv);
}

/* ---- booting ---- */

static struct lane_row *new_lane(struct branch_row *b, const char *fix, enum kb_lane_kind kind)
{
	struct lane_row *v = realloc(b->lanes, (b->nlanes + 1) * sizeof(*v));

	if (!v)
		return NULL;
	b->lanes = v;
	v = memset(&v[b->nlanes++], 0, sizeof(*v));
	v->fix = fix;
	v->kind = kind;
	return v;
}

static int lane_outdir(struct lane_row *l, const struct kb_tester *t, const char *branch)
{
	struct kb_buf dir = KB_BUF_INIT;

	if (kb_buf_printf(&dir, "%s/test/%s/%s/%s", t->opts.workdir, l->fix, branch,
			  kb_lane_kind_name(l->kind)) < 0)
		return KB_ENOMEM;
	l->outdir = kb_buf_detach(&dir);
	return 0;
}

/* Boot `target` for lane `l`, then its verdict; a failed boot is a verdict. */
static int boot_lane(struct lane_row *l, struct kb_tester *t, struct kb_test_target *target,
		     bool with_kunit)
{
	target->outdir = l->outdir;
	fprintf(stderr, "booting %s ...\n", l->outdir);
	return kb_tester_lane(&l->t, t, target, with_kunit, l->fix);
}

static int test_built_lane(struct branch_row *b, struct kb_tester *t,
			   const struct kb_build_opts *build, git_repository *repo,
			   const char *fix, const struct kb_lane *lane)
{
	struct lane_row *l = new_lane(b, fix, lane->kind);
	struct kb_build_result built;
	struct kb_test_target target;
	int err;

	if (!l || !(l->ref = kb_strdup(lane->ref)) || lane_outdir(l, t, b->branch->name) < 0)
		return KB_ENOMEM;
	git_oid_tostr(l->commit, sizeof(l->commit), &lane->commit);
	if ((err = kb_build_lane(&built, repo, b->branch, lane, build)) < 0)
		return err;
	if (built.status != KB_BUILD_CACHED) {
		err = kb_lane_test_error(&l->t, built.reason ? built.reason : "not built: run kbackport build");
	} else {
		memset(&target, 0, sizeof(target));
		target.image = built.image;
		target.modules_root = built.staging_dir;
		err = boot_lane(l, t, &target, true);
	}
	kb_build_result_release(&built);
	return err;
}

static int test_git_branch(struct branch_row *b, struct kb_tester *t,
			   const struct kb_build_opts *build, struct kb_fix **fixes,
			   size_t nfixes)
{
	git_repository *repo = NULL;
	git_commit *tip = NULL;
	struct kb_lane *lanes = NULL;
	size_t nlanes = 0, f, i;
	int err = 0;

	if (!b->branch->build) {
		b->verdict = KB_VERDICT_SKIPPED;
		return (b->note = kb_strdup(b->branch->build_skip_reason ?
					    b->branch->build_skip_reason : "build: false")) ? 0 : KB_ENOMEM;
	}
	if (kb_branch_open(&repo, &tip, b->branch) < 0)
		return (b->error = kb_strdup(kb_error_last())) ? 0 : KB_ENOMEM;
	for (f = 0; f < nfixes && !err; f++) {
		if (kb_branch_lanes(&lanes, &nlanes, repo, b->branch, fixes[f]->id) < 0) {
			err = (b->error = kb_strdup(kb_error_last())) ? 0 : KB_ENOMEM;
			break;
		}
		for (i = 0; i < nlanes && !err; i++)
			err = test_built_lane(b, t, build, repo, fixes[f]->id, &lanes[i]);
		kb_lanes_free(lanes, nlanes);
	}
	git_commit_free(tip);
	git_repository_free(repo);
	return err;
}

/* A distribution kernel: fetched, booted as shipped, capability suite only. */
static int test_distro_branch(struct branch_row *b, struct kb_tester *t, struct kb_fix **fixes,
			      size_t nfixes)
{
	struct kb_distro_kernel kernel;
	struct kb_test_target target;
	struct kb_buf downloads = KB_BUF_INIT;
	struct lane_row *l;
	size_t f;
	int err;

	memset(&kernel, 0, sizeof(kernel));
	if ((err = kb_buf_printf(&downloads, "%s/downloads", t->opts.workdir)) < 0)
		return err;
	fprintf(stderr, "fetching %s ...\n", b->branch->kernel);
	if (kb_distro_kernel_fetch(&kernel, b->branch->kernel, downloads.ptr) < 0) {
		err = (b->error = kb_strdup(kb_error_last())) ? 0 : KB_ENOMEM;
		goto done;
	}
	for (f = 0; f < nfixes && !err; f++) {
		if (!(l = new_lane(b, fixes[f]->id, KB_LANE_AS_IS)) ||
		    lane_outdir(l, t, b->branch->name) < 0 ||
		    !(l->ref = kb_strdup(b->branch->kernel))) {
			err = KB_ENOMEM;
			break;
		}
		snprintf(l->commit, sizeof(l->commit), "%s", kernel.version);
		memset(&target, 0, sizeof(target));
		target.image = kernel.image;
		target.modules_root = kernel.modules_root;
		target.modules = (const char *const *)t->distro_modules;
		err = boot_lane(l, t, &target, false);
	}
done:
	kb_distro_kernel_release(&kernel);
	kb_buf_release(&downloads);
	return err;
}

static int decide_branch(struct branch_row *b, struct kb_fix **fixes, size_t nfixes)
{
	struct kb_lane_outcome out[8];
	enum kb_verdict v;
	char *note = NULL;
	size_t f, i, n;
	int err;

	if (b->error) {
		b->verdict = KB_VERDICT_ERROR;
		return 0;
	}
	if (!b->nlanes)
		return 0;	/* skipped, set with its note */
	b->verdict = KB_VERDICT_SKIPPED;
	for (f = 0; f < nfixes; f++) {
		for (i = n = 0; i < b->nlanes && n < 8; i++)
			if (!strcmp(b->lanes[i].fix, fixes[f]->id) ||
			    b->lanes[i].kind == KB_LANE_AS_IS) {
				out[n].kind = b->lanes[i].kind;
				out[n++].verdict = b->lanes[i].t.verdict.verdict;
			}
		if ((err = kb_branch_verdict(&v, &note, out, n, fixes[f]->id)) < 0)
			return err;
		b->verdict = f ? kb_verdict_worse(b->verdict, v) : v;
		if (note) {
			free(b->note);
			b->note = note;
		}
	}
	return 0;
}

/* ---- output ---- */

static const char *suite_counts(char *buf, size_t size, const struct lane_row *l,
				const char *suite)
{
	const struct kb_ktap_suite *s = l->t.booted ? kb_ktap_find_suite(&l->t.run.ktap, suite) : NULL;

	if (!s)
		snprintf(buf, size, "-");
	else if (s->status == KB_KTAP_ERROR)
		snprintf(buf, size, "broken");
	else
		snprintf(buf, size, "%zu/%zu", s->pass + s->skip, s->ncases);
	return buf;
}

static void print_text(const struct branch_row *rows, size_t n, const struct kb_tester *t)
{
	char a[32], c[32];
	size_t i, j, w = 6;

	for (i = 0; i < n; i++)
		if (strlen(rows[i].branch->name) > w)
			w = strlen(rows[i].branch->name);
	printf("%-*s  %-8s  %-10s  %7s  %-6s  %-6s  %s\n", (int)w, "BRANCH", "LANE", "VERDICT",
	       "SECONDS", "KUNIT", "CAPS", "CONSOLE");
	for (i = 0; i < n; i++)
		for (j = 0; j < rows[i].nlanes; j++) {
			const struct lane_row *l = &rows[i].lanes[j];
			printf("%-*s  %-8s  %-10s  %7.1f  %-6s  %-6s  %s\n", (int)w,
			       rows[i].branch->name, kb_lane_kind_name(l->kind),
			       kb_verdict_name(l->t.verdict.verdict), l->t.run.boot.seconds,
			       suite_counts(a, sizeof(a), l, "kbackport_dev_load"),
			       suite_counts(c, sizeof(c), l, "kbackport_caps"),
			       l->t.booted ? l->t.run.log : "-");
		}
	printf("\n");
	for (i = 0; i < n; i++) {
		printf("%s: %s\n", rows[i].branch->name, kb_verdict_name(rows[i].verdict));
		if (rows[i].error)
			cli_print_indented(rows[i].error, "  ");
		if (rows[i].note)
			printf("  %s%s\n", rows[i].verdict == KB_VERDICT_SKIPPED ? "" : "WARNING: ",
			       rows[i].note);
		for (j = 0; j < rows[i].nlanes; j++) {
			const struct lane_row *l = &rows[i].lanes[j];
			if (!l->t.verdict.reason)
				continue;
			printf("  %s (%s):\n", kb_lane_kind_name(l->kind),
			       kb_verdict_name(l->t.verdict.verdict));
			cli_print_indented(l->t.verdict.reason, "    ");
		}
	}
	if (t->accel_note)
		printf("\nnote: %s\n", t->accel_note);
}

static json_t *suites_json(const struct lane_row *l)
{
	json_t *obj = json_object();
	size_t i;

	for (i = 0; l->t.booted && i < l->t.run.ktap.nsuites; i++) {
		const struct kb_ktap_suite *s = &l->t.run.ktap.suites[i];
		json_object_set_new(obj, s->name,
				    json_pack("{s:s, s:I, s:I, s:I, s:o}",
					      "status", kb_ktap_status_name(s->status),
					      "pass", (json_int_t)s->pass, "fail", (json_int_t)s->fail,
					      "skip", (json_int_t)s->skip, "error", cli_json_str(s->error)));
	}
	return obj;
}

static json_t *lane_json(const struct lane_row *l)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:s, s:o, s:f, s:o, s:o, s:o}",
			 "fix", l->fix, "kind", kb_lane_kind_name(l->kind),
			 "ref", cli_json_str(l->ref), "commit", cli_json_str(l->commit),
			 "verdict", kb_verdict_name(l->t.verdict.verdict),
			 "reason", cli_json_lines(l->t.verdict.reason),
			 "seconds", l->t.run.boot.seconds,
			 "boot", l->t.booted ? json_string(kb_boot_end_name(l->t.run.boot.end)) : json_null(),
			 "console", cli_json_str(l->t.booted ? l->t.run.log : NULL),
			 "suites", suites_json(l));
}

static void print_json(const struct branch_row *rows, size_t n, const struct kb_tester *t)
{
	json_t *doc = json_pack("{s:s, s:o, s:[]}", "accel", kb_accel_name(t->opts.accel),
				"accel_note", cli_json_str(t->accel_note), "branches");
	json_t *list = json_object_get(doc, "branches");
	size_t i, j;

	for (i = 0; i < n; i++) {
		json_t *lanes = json_array();
		for (j = 0; j < rows[i].nlanes; j++)
			json_array_append_new(lanes, lane_json(&rows[i].lanes[j]));
		json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:o, s:o}",
						      "name", rows[i].branch->name,
						      "verdict", kb_verdict_name(rows[i].verdict),
						      "note", cli_json_str(rows[i].note),
						      "error", cli_json_str(rows[i].error),
						      "lanes", lanes));
	}
	json_dumpf(doc, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(doc);
}

/* ---- the run ---- */

static int exit_code(const struct branch_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].verdict != KB_VERDICT_VERIFIED && rows[i].verdict != KB_VERDICT_FIXED &&
		    rows[i].verdict != KB_VERDICT_SKIPPED)
			return EXIT_ATTENTION;
	return EXIT_OK;
}

struct paths {
	struct cli_build_paths build;
	struct kb_buf cases, guest;
};

static int default_paths(struct test_cli *o, struct paths *p, const struct kb_config *config)
{
	int err;

	if ((err = cli_build_paths(&p->build, config, &o->t.workdir, &o->fragment, &o->overlay,
				   o->no_overlay)) < 0)
		return err;
	if (!o->cases && (err = cli_data_path(&p->cases, config, "tests/cases.yaml")) == 0)
		o->cases = p->cases.ptr;
	return err < 0 ? err : cli_data_path(&p->guest, config, "tests/qemu/guest.c");
}

static void rows_free(struct branch_row *rows, size_t n)
{
	size_t i, j;

	for (i = 0; rows && i < n; i++) {
		for (j = 0; j < rows[i].nlanes; j++) {
			kb_lane_test_release(&rows[i].lanes[j].t);
			free(rows[i].lanes[j].ref);
			free(rows[i].lanes[j].outdir);
		}
		free(rows[i].lanes);
		free(rows[i].note);
		free(rows[i].error);
	}
	free(rows);
}

static int test_all(struct branch_row *rows, const struct kb_branch **branches, size_t n,
		    struct kb_tester *t, const struct kb_build_opts *build, struct kb_fix **fixes,
		    size_t nfixes)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		rows[i].branch = branches[i];
		err = branches[i]->kernel ? test_distro_branch(&rows[i], t, fixes, nfixes)
					  : test_git_branch(&rows[i], t, build, fixes, nfixes);
		if (!err)
			err = decide_branch(&rows[i], fixes, nfixes);
	}
	return err;
}

static int setup(struct kb_tester *t, struct kb_build_opts *build, const struct test_cli *o,
		 const struct paths *p)
{
	struct kb_test_opts opts;

	kb_test_opts_init(&opts);
	opts.workdir = o->t.workdir;
	opts.guest_source = p->guest.ptr;
	opts.guest_program = o->guest;
	opts.timeout = o->timeout;
	kb_build_opts_init(build);
	build->workdir = o->t.workdir;
	build->fragment = o->fragment;
	build->overlay = o->overlay;
	build->lookup_only = true;
	return kb_tester_init(t, &opts, o->cases, o->accel_auto);
}

static int run(struct test_cli *o)
{
	const struct kb_branch **branches = NULL;
	struct kb_config *config = NULL;
	struct kb_fix **fixes = NULL;
	struct paths p = { { KB_BUF_INIT, KB_BUF_INIT, KB_BUF_INIT }, KB_BUF_INIT, KB_BUF_INIT };
	struct branch_row *rows = NULL;
	struct kb_tester t;
	struct kb_build_opts build;
	size_t nbranches = 0, nfixes = 0;
	int rc = EXIT_USAGE, lock_fd = -1;

	memset(&t, 0, sizeof(t));
	if (kb_config_load(&config, o->t.config) < 0 ||
	    cli_select_all(&branches, &nbranches, config, &o->t.branches) < 0 ||
	    cli_load_fixes(&fixes, &nfixes, o->t.fixes, o->t.nfixes, config) < 0 ||
	    default_paths(o, &p, config) < 0 || kb_lock_dir(&lock_fd, o->t.workdir) < 0 ||
	    setup(&t, &build, o, &p) < 0) {
		cli_error_last();
		goto done;
	}
	if (!(rows = calloc(nbranches + 1, sizeof(*rows)))) {
		cli_error("out of memory");
		goto done;
	}
	if (test_all(rows, branches, nbranches, &t, &build, fixes, nfixes) < 0) {
		cli_error_last();
		rc = EXIT_ATTENTION;
		goto done;
	}
	if (o->json)
		print_json(rows, nbranches, &t);
	else
		print_text(rows, nbranches, &t);
	rc = exit_code(rows, nbranches);
done:
	rows_free(rows, nbranches);
	kb_tester_release(&t);
	if (lock_fd >= 0)
		close(lock_fd);
	kb_fix_free_all(fixes, nfixes);
	free(branches);
	kb_config_free(config);
	cli_build_paths_release(&p.build);
	kb_buf_release(&p.cases);
	kb_buf_release(&p.guest);
	return rc;
}

int cmd_test(int argc, char **argv)
{
	struct test_cli o = { .t.config = "branches.yaml" };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	cli_target_release(&o.t);
	return rc;
}
