/*
 * kbackport test: boot each built lane with the shared test set, read the
 * KTAP, and give every lane and branch its verdict (lib/boot/verdict.h). The
 * loop is the pipeline's (lib/pipeline.h) with builds looked up only.
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
#include <unistd.h>

static const struct cli_opt options[] = {
	CLI_OPTS_TARGET,
	{ 'w', true, "workdir", required_argument, "DIR",
	  "where kbackport build worked (default: work/ beside\n"
	  "the config)" },
	{ 'F', false, "fragment", required_argument, "FILE",
	  "\\ as given to kbackport build, to find its builds" },
	{ 'O', false, "overlay", required_argument, "DIR",
	  "|" },
	{ 'N', false, "no-overlay", no_argument, NULL,
	  "/" },
	{ 'C', false, "cases", required_argument, "FILE",
	  "these cases for every fix, instead of the fixes' own" },
	{ 'A', false, "accel", required_argument, "tcg|auto",
	  "tcg (default): QEMU's emulator; auto: KVM when a probe\n"
	  "boot proves it works, else tcg" },
	{ 't', true, "timeout", required_argument, "SECS",
	  "per boot, then it is a hang (default: 120)" },
	{ 'G', false, "guest", required_argument, "PROGRAM",
	  "boot this static program as /init instead of the\n"
	  "capability suite (to test kbackport itself)" },
	{ 'J', false, "json", no_argument, NULL,
	  "one JSON document" },
	{ 'q', true, "quiet", no_argument, NULL,
	  "no progress lines while a boot runs" },
	CLI_OPT_COLOR_ENTRY("verdicts"),
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport test [--config FILE] [--fix DIR]... [--branch NAME]...\n"
	"                      [--workdir DIR] [--cases FILE] [--accel tcg|auto]\n"
	"                      [--timeout SECONDS] [--guest PROGRAM] [--json]\n"
	"                      [--quiet]\n"
	"\n"
	"Boot every built lane of each branch in QEMU with the tests of the fixes\n"
	"(each fix's tests/, or its fix.yaml `tests:` directory: cases.yaml, the\n"
	"KUnit suites kbackport build put into the kernel, and the guest's cases):\n"
	"the KUnit suites run at boot, then the guest program (data/guest/guest.c)\n"
	"runs the guest cases as /init of an initramfs that holds the lane's\n"
	"modules. Both print KTAP on the serial console; kbackport parses it and\n"
	"decides, from what each case proves and which fixes it detects:\n"
	"\n"
	"  lane    fixed       every case passed, and a case that ran detects the fix\n"
	"          untested    every case passed, but no case detects the fix: the\n"
	"                      kernel booted, nothing tested the fix\n"
	"          vulnerable  only cases that detect the fix failed\n"
	"          regression  a case that detects no fix failed (a failed case that\n"
	"                      detects only other fixes is named, and judges nothing)\n"
	"          error       no verdict: not built, the boot hung or panicked, a\n"
	"                      suite is missing or its KTAP is broken\n"
	"          (on a kernel without CONFIG_KUNIT=y, before 5.5, the KUnit suites\n"
	"          are not-applicable and the others decide; none left is error)\n"
	"  branch  verified    the pre-fix (or as-is) lane is vulnerable and the\n"
	"                      backport lane fixed: the bug was seen, then gone\n"
	"          fixed       fixed, but the bug was never seen failing here\n"
	"          untested, vulnerable, regression, error, skipped: as for lanes\n"
	"\n"
	"A branch with `kernel: PACKAGE` boots that Debian kernel package as shipped\n"
	"(fetched with apt-get), with the guest's cases only: its vmlinux,\n"
	"extracted from the bzImage once and cached under <workdir>/pvh/, through\n"
	"PVH, or the bzImage when the kernel has no PVH entry or\n"
	"KBACKPORT_DISTRO_BOOT=bzimage is set. Nothing is loaded,\n"
	"and no capability is changed, on this machine: all of it happens in the\n"
	"guest. Logs go to <workdir>/test/<fix>/<branch>/<lane>/.\n"
	"The lanes are kbackport build's: a pre-fix or backport ref not built on\n"
	"the lane below it is no lane, and a note on stderr names it.\n"
	"\n",
	.opts = options,
	.column = 24,
	.tail =
	"\n"
	"While a lane boots, a progress line on stderr every 30 seconds\n"
	"(KBACKPORT_PROGRESS_INTERVAL=SECONDS to change it):\n"
	"  progress: 6.1.y backport: boot 1m00s\n"
	"\n"
	"Exit status: 0 when every branch is verified, fixed or skipped; 1 when one\n"
	"is untested, vulnerable, regressed or in error; 2 for usage.\n",
};

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
	bool quiet;
};

static int parse_options(struct test_cli *o, int argc, char **argv)
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
		case 'q': o->quiet = true; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	return cli_no_arguments(argc, argv);
}

/* ---- progress ---- */

static void show(const struct kb_pipeline_event *ev, void *payload)
{
	(void)payload;
	if (ev->kind == KB_EVENT_FETCHING)
		fprintf(stderr, "fetching %s ...\n", ev->text);
	else if (ev->kind == KB_EVENT_PASSED_OVER)
		fprintf(stderr, "note: %s: %s\n", ev->branch->branch->name, ev->text);
	else if (ev->kind == KB_EVENT_BOOTING)
		fprintf(stderr, "booting %s ...\n", ev->text);
	else if (ev->kind == KB_EVENT_TESTED && ev->lane->boot_image != KB_BOOT_IMAGE_BUILT)
		fprintf(stderr, "%s %s: %s (booted as %s)\n", ev->branch->branch->name,
			kb_lane_kind_name(ev->lane->kind),
			kb_verdict_name(ev->lane->test.verdict.verdict),
			kb_boot_image_text(ev->lane->boot_image));
	else if (ev->kind == KB_EVENT_TICK)
		cli_print_tick(ev->branch->branch->name,
			       ev->lane ? kb_lane_kind_name(ev->lane->kind) : NULL, ev->tick);
}

/* ---- output ---- */

static const char *suite_counts(char *buf, size_t size, const struct kb_lane_run *l,
				const char *suite)
{
	const struct kb_ktap_suite *s = l->test.booted ?
		kb_ktap_find_suite(&l->test.run.ktap, suite) : NULL;

	if (!s)
		snprintf(buf, size, "-");
	else if (s->status == KB_KTAP_ERROR)
		snprintf(buf, size, "broken");
	else
		snprintf(buf, size, "%zu/%zu", s->pass + s->skip, s->ncases);
	return buf;
}

/* One column per suite of tests/cases.yaml, headed by where it runs. */
static void print_lanes(const struct kb_branch_run *rows, size_t n, const struct kb_cases *cases)
{
	char cell[32], head[32];
	size_t i, j, k, w = 6;

	for (i = 0; i < n; i++)
		if (strlen(rows[i].branch->name) > w)
			w = strlen(rows[i].branch->name);
	printf("%-*s  %-8s  %-10s  %7s", (int)w, "BRANCH", "LANE", "VERDICT", "SECONDS");
	for (k = 0; k < cases->nsuites; k++) {
		const char *runs = kb_suite_runs_name(cases->suites[k].runs);
		for (j = 0; runs[j] && j < sizeof(head) - 1; j++)
			head[j] = (char)(runs[j] >= 'a' && runs[j] <= 'z' ? runs[j] - 'a' + 'A' : runs[j]);
		head[j] = '\0';
		printf("  %-6s", head);
	}
	printf("  CONSOLE\n");
	for (i = 0; i < n; i++)
		for (j = 0; j < rows[i].nlanes; j++) {
			const struct kb_lane_run *l = &rows[i].lanes[j];
			printf("%-*s  %-8s  ", (int)w, rows[i].branch->name, kb_lane_kind_name(l->kind));
			cli_put_word(kb_verdict_name(l->test.verdict.verdict), 10);
			printf("  %7.1f", l->test.run.boot.seconds);
			for (k = 0; k < cases->nsuites; k++)
				printf("  %-6s", suite_counts(cell, sizeof(cell), l, cases->suites[k].name));
			printf("  %s\n", l->test.booted ? l->test.run.log : "-");
		}
}

static void print_text(const struct kb_branch_run *rows, size_t n, const struct kb_tester *t)
{
	size_t i, j;

	print_lanes(rows, n, t->cases);
	printf("\n");
	for (i = 0; i < n; i++) {
		printf("%s: ", rows[i].branch->name);
		cli_put_word(kb_verdict_name(rows[i].verdict), 0);
		putchar('\n');
		if (rows[i].error)
			cli_print_indented(rows[i].error, "  ");
		if (rows[i].note)
			printf("  %s%s\n", rows[i].verdict == KB_VERDICT_SKIPPED ? "" : "WARNING: ",
			       rows[i].note);
		for (j = 0; j < rows[i].nlanes; j++) {
			const struct kb_lane_run *l = &rows[i].lanes[j];
			if (!l->test.verdict.reason)
				continue;
			printf("  %s (%s):\n", kb_lane_kind_name(l->kind),
			       kb_verdict_name(l->test.verdict.verdict));
			cli_print_indented(l->test.verdict.reason, "    ");
		}
	}
	if (t->accel_note)
		printf("\nnote: %s\n", t->accel_note);
}

static json_t *suites_json(const struct kb_lane_run *l)
{
	json_t *obj = json_object();
	size_t i;

	for (i = 0; l->test.booted && i < l->test.run.ktap.nsuites; i++) {
		const struct kb_ktap_suite *s = &l->test.run.ktap.suites[i];
		json_object_set_new(obj, s->name,
				    json_pack("{s:s, s:I, s:I, s:I, s:o}",
					      "status", kb_ktap_status_name(s->status),
					      "pass", (json_int_t)s->pass, "fail", (json_int_t)s->fail,
					      "skip", (json_int_t)s->skip, "error", kb_json_str(s->error)));
	}
	return obj;
}

static json_t *lane_json(const struct kb_lane_run *l)
{
	const struct kb_lane_test *t = &l->test;
	json_t *o;

	o = json_pack("{s:s, s:s, s:o, s:o, s:s, s:o, s:f, s:o, s:o, s:o}",
			 "fix", l->fix, "kind", kb_lane_kind_name(l->kind),
			 "ref", kb_json_str(l->ref), "commit", kb_json_str(l->commit),
			 "verdict", kb_verdict_name(t->verdict.verdict),
			 "reason", kb_json_lines(t->verdict.reason),
			 "seconds", t->run.boot.seconds,
			 "boot", t->booted ? json_string(kb_boot_end_name(t->run.boot.end)) : json_null(),
			 "console", kb_json_str(t->booted ? t->run.log : NULL),
			 "suites", suites_json(l));
	json_object_set_new(o, "boot_image", kb_json_str(kb_boot_image_name(l->boot_image)));
	json_object_set_new(o, "boot_note", kb_json_str(l->boot_note));
	json_object_set_new(o, "initramfs_reused", json_boolean(t->booted && t->run.initrd_reused));
	return o;
}

static void print_json(const struct kb_branch_run *rows, size_t n, const struct kb_tester *t)
{
	json_t *doc = json_pack("{s:s, s:o, s:[]}", "accel", kb_accel_name(t->opts.accel),
				"accel_note", kb_json_str(t->accel_note), "branches");
	json_t *list = json_object_get(doc, "branches");
	size_t i, j;

	for (i = 0; i < n; i++) {
		json_t *lanes = json_array();
		for (j = 0; j < rows[i].nlanes; j++)
			json_array_append_new(lanes, lane_json(&rows[i].lanes[j]));
		json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:o, s:o}",
						      "name", rows[i].branch->name,
						      "verdict", kb_verdict_name(rows[i].verdict),
						      "note", kb_json_str(rows[i].note),
						      "error", kb_json_str(rows[i].error),
						      "lanes", lanes));
	}
	json_dumpf(doc, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(doc);
}

/* ---- the run ---- */

static int setup(struct kb_pipeline *p, struct kb_tester *t, const struct test_cli *o,
		 struct kb_session *s)
{
	struct kb_cases *cases = NULL;
	struct kb_test_opts opts;
	int err;

	kb_test_opts_init(&opts);
	opts.workdir = s->workdir;
	opts.guest_source = s->guest.ptr;
	opts.guest_program = o->guest;
	opts.timeout = o->timeout;
	p->tester = t;
	p->kunit = s->noverlays > 0;
	kb_session_build_opts(&p->build_opts, s);
	p->event = show;
	/* the fixes' own cases, unless --cases names a file for all of them */
	if (o->cases && (err = kb_cases_load(&cases, o->cases)) < 0)
		return err;
	if (!o->cases) {
		cases = s->tests.cases;
		s->tests.cases = NULL;
	}
	return kb_tester_init(t, &opts, cases, o->accel_auto);
}

static int run(struct test_cli *o)
{
	struct kb_session s = { 0 };
	struct kb_session_opts so;
	struct kb_branch_run *rows = NULL;
	struct kb_pipeline p;
	struct kb_tester t;
	size_t i;
	int rc = EXIT_USAGE, err = 0;

	memset(&t, 0, sizeof(t));
	kb_pipeline_init(&p);
	if (cli_progress_interval(&p.tick_interval, o->quiet))
		goto done;
	cli_session_opts(&so, &o->t);
	so.with_kernels = true;
	so.build = so.guest = so.lock = true;
	so.fragment = o->fragment;
	so.overlay = o->overlay;
	so.no_overlay = o->no_overlay;
	if (cli_session_open(&s, &so) < 0)
		goto done;
	if (setup(&p, &t, o, &s) < 0) {
		cli_error_last();
		goto done;
	}
	if (!(rows = calloc(s.nbranches + 1, sizeof(*rows)))) {
		cli_error("out of memory");
		goto done;
	}
	p.fixes = (const struct kb_fix *const *)s.fixes;
	p.nfixes = s.nfixes;
	rc = EXIT_OK;
	cli_interruptible("branches", (long)s.nbranches, false, "finished boots are kept");
	for (i = 0; i < s.nbranches && !err; i++, kb_work_step())
		if ((err = kb_pipeline_branch(&rows[i], &p, s.branches[i])) == 0 &&
		    !kb_verdict_ok(rows[i].verdict))
			rc = EXIT_ATTENTION;
	if (err < 0) {
		cli_error_last();
		rc = EXIT_ATTENTION;
		goto done;
	}
	if (o->json)
		print_json(rows, s.nbranches, &t);
	else
		print_text(rows, s.nbranches, &t);
done:
	for (i = 0; rows && i < s.nbranches; i++)
		kb_branch_run_release(&rows[i]);
	free(rows);
	kb_tester_release(&t);
	kb_session_release(&s);
	return rc;
}

int cmd_test(int argc, char **argv)
{
	struct test_cli o = { .t.config = NULL };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	cli_target_release(&o.t);
	return rc;
}
