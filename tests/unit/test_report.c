/*
 * The report writers on the fixture run directory tests/fixtures/reports/
 * run-main/ (a verified branch with three lanes, a conflicting branch, a
 * distribution kernel with one as-is lane, a branch with a failed build and
 * a lane in error): summary.md, each junit.xml and FAILED-*.txt against
 * golden files in tests/fixtures/reports/expected/run-main/ (reviewed by
 * eye; KB_UPDATE_GOLDEN=1 rewrites them), kcidb.json field by field, and
 * results.json that is wrong in each way the loader must name.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/error.h"
#include "report/kcidb.h"
#include "report/report.h"
#include "sandbox.h"

#define RUN "tests/fixtures/reports/run-main"
#define GOLDEN "tests/fixtures/reports/expected/run-main/"

static struct kb_report *load_main(void)
{
	struct kb_report *r = NULL;

	if (kb_report_load(&r, RUN) < 0)
		fail_msg("%s", kb_error_last());
	return r;
}

static const struct kb_report_branch *branch(const struct kb_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nbranches; i++)
		if (!strcmp(r->branches[i].name, name))
			return &r->branches[i];
	fail_msg("no branch '%s'", name);
	return NULL;
}

/* `text` must be the file `rel` under GOLDEN; a diff command when not. */
static void assert_golden(const char *rel, const char *text)
{
	char path[512], *want = NULL;
	FILE *f;

	snprintf(path, sizeof(path), GOLDEN "%s", rel);
	if (getenv("KB_UPDATE_GOLDEN")) {
		char dir[512], *slash;
		snprintf(dir, sizeof(dir), "%s", path);
		for (slash = strchr(dir, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			mkdir(dir, 0755);
			*slash = '/';
		}
		assert_non_null(f = fopen(path, "w"));
		fputs(text, f);
		fclose(f);
	}
	if (kb_read_file(&want, NULL, path) < 0)
		fail_msg("%s", kb_error_last());
	if (strcmp(want, text)) {
		f = fopen("build/report-actual.txt", "w");
		if (f) {
			fputs(text, f);
			fclose(f);
		}
		free(want);
		fail_msg("'%s' differs: diff -u %s build/report-actual.txt", rel, path);
	}
	free(want);
}

/* ---- the model ---- */

static void loads_the_fixture(void **state)
{
	struct kb_report *r = load_main();
	const struct kb_report_branch *b;

	(void)state;
	assert_string_equal(r->run, "20261203T074500Z-6f2a");
	assert_string_equal(r->fix, "CVE-2011-1019");
	assert_int_equal(r->nbranches, 4);
	b = branch(r, "6.1.y");
	assert_int_equal(b->nlanes, 3);
	assert_false(b->lanes[0].baseline);	/* as-is, with a pre-fix lane there */
	assert_true(b->lanes[1].baseline);	/* pre-fix */
	assert_false(b->lanes[2].baseline);
	assert_null(b->lanes[0].boot_image);	/* a lane kbackport built */
	assert_string_equal(branch(r, "debian-6.1")->lanes[0].boot_image, "pvh-vmlinux");
	assert_null(branch(r, "debian-6.1")->lanes[0].boot_note);
	assert_int_equal(b->lanes[1].nsuites, 2);
	assert_string_equal(b->lanes[1].suites[0].name, "kbackport_dev_load");
	assert_int_equal(b->lanes[1].suites[0].fail, 2);
	assert_true(b->lanes[1].suites[0].cases[0].detects);
	assert_int_equal(b->lanes[2].nfiles, 6);	/* junit.xml is not listed */
	assert_string_equal(b->lanes[2].files[1], "backport.patch");
	b = branch(r, "vendor-reworked");
	assert_true(b->apply.present);
	assert_int_equal(b->apply.status, KB_STATUS_CONFLICT);
	assert_int_equal(b->apply.nnotes, 2);
	assert_int_equal(b->apply.nreproduce, 7);
	assert_null(b->apply.reproduce[7]);
	b = branch(r, "4.19.y");
	assert_true(b->lanes[0].baseline);	/* as-is before a backport lane */
	assert_true(b->lanes[0].build_seconds > 94.9);
	assert_true(b->lanes[0].test_seconds < 0);	/* not there */
	assert_false(kb_report_verdict_ok(b->verdict));
	assert_true(kb_report_verdict_ok(KB_VERDICT_NOT_AFFECTED));
	assert_false(b->lanes[0].apply.present);	/* an as-is lane: no apply stage */
	assert_true(b->lanes[0].has_build);
	kb_report_free(r);
}

/* ---- golden files ---- */

static void markdown_as_reviewed(void **state)
{
	struct kb_report *r = load_main();
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	assert_int_equal(kb_report_markdown(&out, r), 0);
	assert_golden("summary.md", out.ptr);
	kb_buf_release(&out);
	kb_report_free(r);
}

static void junit_as_reviewed(void **state)
{
	struct kb_report *r = load_main();
	struct kb_buf out = KB_BUF_INIT, name = KB_BUF_INIT;
	size_t i, j, n = 0;

	(void)state;
	for (i = 0; i < r->nbranches; i++)
		for (j = 0; j < r->branches[i].nlanes; j++, n++) {
			kb_buf_clear(&out);
			kb_buf_clear(&name);
			assert_int_equal(kb_report_junit(&out, r, &r->branches[i], &r->branches[i].lanes[j]), 0);
			kb_buf_printf(&name, "%s/junit.xml", r->branches[i].lanes[j].dir);
			assert_golden(name.ptr, out.ptr);
		}
	assert_int_equal(n, 7);
	kb_buf_release(&out);
	kb_buf_release(&name);
	kb_report_free(r);
}

static void failed_mail_as_reviewed(void **state)
{
	struct kb_report *r = load_main();
	struct kb_buf out = KB_BUF_INIT, name = KB_BUF_INIT;

	(void)state;
	assert_int_equal(kb_report_failed_name(&name, branch(r, "vendor-reworked")), 0);
	assert_string_equal(name.ptr, "FAILED-vendor-reworked.txt");
	assert_int_equal(kb_report_failed_mail(&out, r, branch(r, "vendor-reworked")), 0);
	assert_golden(name.ptr, out.ptr);
	kb_buf_release(&out);
	kb_buf_release(&name);
	kb_report_free(r);
}

/* ---- KCIDB ---- */

static json_t *find_id(json_t *list, const char *id)
{
	json_t *item;
	size_t i;

	json_array_foreach(list, i, item)
		if (!strcmp(json_string_value(json_object_get(item, "id")), id))
			return item;
	fail_msg("no object '%s'", id);
	return NULL;
}

static const char *field(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

#define ID "kbackport:20261203T074500Z-6f2a:"
/* sha256("3c0f8ddb...2f0d\n"): the patchset of the one variant patch */
#define PATCHSET_3_9 "1041cb25c242fda419f8e2e1ef1005c1d3275f7e8060aacc402f6204700c8d46"

static void kcidb_checkouts(void **state)
{
	struct kb_report *r = load_main();
	json_t *doc = NULL, *c, *list;

	(void)state;
	assert_int_equal(kb_kcidb_report(&doc, r, NULL), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "version"), "major")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "version"), "minor")), 0);
	assert_int_equal(json_object_size(doc), 4);
	list = json_object_get(doc, "checkouts");
	assert_int_equal(json_array_size(list), 8);	/* 7 lanes and a failed backport */

	c = find_id(list, ID "6.1.y:backport");
	assert_string_equal(field(c, "origin"), "kbackport");
	assert_string_equal(field(c, "tree_name"), "6.1.y");
	assert_string_equal(field(c, "git_repository_branch"), "backport/CVE-2011-1019/6.1.y");
	/* the backport sits on the pre-fix commit, with the variant's patch */
	assert_string_equal(field(c, "git_commit_hash"), "5d2b4c8a1e9f07b3c6d1a2e4f5b6c7d8e9f0a1b2");
	assert_string_equal(field(c, "patchset_hash"), PATCHSET_3_9);
	assert_true(json_is_true(json_object_get(c, "valid")));
	assert_null(json_object_get(c, "git_repository_url"));	/* a local path */
	assert_string_equal(field(json_object_get(c, "misc"), "repository"), "/srv/linux");
	assert_string_equal(field(json_object_get(c, "misc"), "backport_patch"),
			    "6.1.y/backport/backport.patch");

	c = find_id(list, ID "6.1.y:as-is");
	assert_string_equal(field(c, "git_commit_hash"), "01a27c0e5743b1ce5769e150b393ee7617ccc3ef");
	assert_string_equal(field(c, "patchset_hash"), "");

	c = find_id(list, ID "vendor-reworked:backport");
	assert_true(json_is_false(json_object_get(c, "valid")));
	assert_string_equal(field(c, "git_commit_hash"), "c0ffee0123456789abcdef0123456789abcdef01");
	assert_string_equal(field(c, "log_url"), "vendor-reworked/as-is/conflict.txt");
	assert_non_null(strstr(field(c, "log_excerpt"), "hunk 1 of 'net/core/dev.c' does not apply"));

	c = find_id(list, ID "4.19.y:backport");
	assert_string_equal(field(c, "git_repository_url"),
			    "https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git");
	assert_string_equal(field(c, "git_commit_hash"), "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d");

	c = find_id(list, ID "debian-6.1:as-is");	/* a package: no git field */
	assert_null(json_object_get(c, "git_commit_hash"));
	assert_null(json_object_get(c, "git_repository_branch"));
	assert_string_equal(field(json_object_get(c, "misc"), "version"), "6.1.119-1");
	json_decref(doc);
	kb_report_free(r);
}

static void kcidb_builds_and_tests(void **state)
{
	struct kb_report *r = load_main();
	json_t *doc = NULL, *b, *t, *builds, *tests;

	(void)state;
	assert_int_equal(kb_kcidb_report(&doc, r, NULL), 0);
	builds = json_object_get(doc, "builds");
	tests = json_object_get(doc, "tests");
	assert_int_equal(json_array_size(builds), 6);	/* not the lane never built */
	assert_int_equal(json_array_size(tests), 19);	/* 18 cases, one lane without any */

	b = find_id(builds, ID "4.19.y:as-is");
	assert_string_equal(field(b, "checkout_id"), ID "4.19.y:as-is");
	assert_string_equal(field(b, "architecture"), "x86_64");
	assert_string_equal(field(b, "config_name"), "tinyconfig+kbackport.config");
	assert_true(json_is_false(json_object_get(b, "valid")));
	assert_string_equal(field(b, "log_url"), "4.19.y/as-is/build.log");
	assert_non_null(strstr(field(b, "log_excerpt"), "Error 2"));
	b = find_id(builds, ID "6.1.y:as-is");
	assert_true(json_is_true(json_object_get(b, "valid")));
	assert_true(json_is_true(json_object_get(json_object_get(b, "misc"), "cached")));
	b = find_id(builds, ID "debian-6.1:as-is");
	assert_true(json_is_true(json_object_get(json_object_get(b, "misc"), "prebuilt")));
	assert_null(json_object_get(b, "config_name"));

	t = find_id(tests, ID "6.1.y:pre-fix:kbackport_caps.net_admin_ifflags_xfs_not_loaded");
	assert_string_equal(field(t, "build_id"), ID "6.1.y:pre-fix");
	assert_string_equal(field(t, "path"), "kbackport_caps.net_admin_ifflags_xfs_not_loaded");
	assert_string_equal(field(t, "status"), "FAIL");
	assert_true(json_is_true(json_object_get(t, "waived")));	/* expected there */
	assert_string_equal(field(t, "log_url"), "6.1.y/pre-fix/kbackport_caps.ktap");
	t = find_id(tests, ID "6.1.y:pre-fix:kbackport_caps.net_admin_ifflags_sit0_loads_sit");
	assert_string_equal(field(t, "status"), "PASS");
	assert_null(json_object_get(t, "waived"));
	t = find_id(tests, ID "debian-6.1:as-is:kbackport_caps.net_admin_ifflags_sit0_loads_sit");
	assert_string_equal(field(t, "status"), "SKIP");
	assert_string_equal(field(t, "log_excerpt"), "sit is built in: nothing to load");
	t = find_id(tests, ID "4.19.y:backport:kbackport_dev_load.net_admin_only_requests_netdev_name");
	assert_string_equal(field(t, "status"), "ERROR");
	assert_null(json_object_get(t, "waived"));
	json_decref(doc);
	kb_report_free(r);
}

static void kcidb_base_url(void **state)
{
	struct kb_report *r = load_main();
	json_t *doc = NULL;

	(void)state;
	assert_int_equal(kb_kcidb_report(&doc, r, "https://ci.example.org/runs/r1/"), 0);
	assert_string_equal(field(find_id(json_object_get(doc, "builds"), ID "4.19.y:as-is"), "log_url"),
			    "https://ci.example.org/runs/r1/4.19.y/as-is/build.log");
	json_decref(doc);
	kb_report_free(r);
}

static void sha256(void **state)
{
	const char *const two[] = { "a", "b" };
	char hex[65];

	(void)state;
	kb_kcidb_sha256_hex(hex, "abc", 3);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	kb_kcidb_sha256_hex(hex, "", 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	kb_kcidb_sha256_hex(hex, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	kb_kcidb_patchset_hash(hex, two, 2);	/* printf 'a\nb\n' | sha256sum */
	assert_string_equal(hex, "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2");
}

/* ---- wrong input ---- */

static int tmp_setup(void **state)
{
	return sandbox_setup(state);
}

static int tmp_teardown(void **state)
{
	return sandbox_teardown(state);
}

/* results.json holding `json`; the load's error code, its message in *msg. */
static int load_text(struct sandbox *t, const char *json, const char **msg)
{
	struct kb_report *r = NULL;
	char path[128];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/results.json", t->dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(json, f);
	fclose(f);
	err = kb_report_load(&r, t->dir);
	kb_report_free(r);
	*msg = kb_error_last();
	return err;
}

#define TOP "{\"schema\": 1, \"run\": \"r1\", \"fix\": \"F\", \"branches\": "

static void names_what_is_wrong(void **state)
{
	static const struct {
		const char *json, *message;
	} cases[] = {
		{ "{\"schema\": 1,", "line 1, column 13: " },
		{ "[]", "not a JSON object" },
		{ "{\"run\": \"r\"}", "'schema' is missing" },
		{ "{\"schema\": 2, \"run\": \"r\", \"fix\": \"F\", \"branches\": []}",
		  "schema 2, this kbackport reads schema 1" },
		{ "{\"schema\": 1, \"fix\": \"F\", \"branches\": []}", "'run' is missing" },
		{ TOP "{}}", "'branches' is not a list" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fine\"}]}",
		  "branches[0]: 'verdict' is 'fine', not one of verified, fixed, not-affected, "
		  "vulnerable, conflict, regression, error, skipped" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"lanes\": [{\"kind\": \"as-is\", "
		  "\"verdict\": \"fixed\", \"dir\": \"../elsewhere\"}]}]}",
		  "branches[0].lanes[0]: 'dir' is '../elsewhere': not a relative path inside the run "
		  "directory" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"lanes\": [{\"kind\": \"as-is\", "
		  "\"verdict\": \"fixed\", \"suites\": {\"s\": {\"status\": \"pass\", \"pass\": -1}}}]}]}",
		  "branches[0].lanes[0].suites.s: 'pass' is not a count" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"lanes\": [{\"kind\": \"as-is\", "
		  "\"verdict\": \"fixed\", \"suites\": {\"s\": {\"status\": \"pass\", \"cases\": "
		  "[{\"name\": \"c\", \"status\": \"ok\"}]}}}]}]}",
		  "branches[0].lanes[0].suites.s.cases[0]: 'status' is 'ok', not one of pass, fail, "
		  "skip, error" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"apply\": {\"status\": \"conflict\", "
		  "\"notes\": [1]}}]}", "branches[0].apply: notes[0] is not a string" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\"}, {\"name\": \"b\", \"verdict\": "
		  "\"fixed\"}]}", "branch 'b' is there twice" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"lanes\": [{\"kind\": \"as-is\", "
		  "\"verdict\": \"fixed\", \"boot_image\": \"efi\"}]}]}",
		  "branches[0].lanes[0]: 'boot_image' is 'efi', not one of pvh-vmlinux, bzimage" },
		{ TOP "[{\"name\": \"/b\", \"verdict\": \"fixed\"}]}",
		  "branches[0]: 'name' is '/b': not usable as a directory name" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"queue\": {\"results\": {}}}]}",
		  "branches[0].queue: 'results' is not a list" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"queue\": {\"results\": "
		  "[{\"fix\": \"f\", \"status\": \"applied\", \"mail\": \"../m\"}]}}]}",
		  "branches[0].queue.results[0]: 'mail' is '../m': not a path in the run directory" },
		{ TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"queue\": {\"results\": "
		  "[{\"fix\": \"f\", \"status\": \"skipped\"}]}}]}",
		  "branches[0].queue.results[0]: 'status' is 'skipped', not one of applied, " },
		{ "{\"schema\": 1, \"run\": \"r\", \"fix\": \"queue/q\", \"queue\": {\"name\": \"q\", "
		  "\"fixes\": [{}]}, \"branches\": []}", "queue.fixes[0]: 'id' is missing" },
	};
	struct sandbox *t = *state;
	char want[512];
	const char *msg;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(load_text(t, cases[i].json, &msg), KB_EINVALID);
		snprintf(want, sizeof(want), "'%s/results.json': %s", t->dir, cases[i].message);
		if (strncmp(msg, want, strlen(want)))
			fail_msg("case %zu: '%s', not '%s'", i, msg, want);
	}
}

/*
 * Suite counts near INT64_MAX made the "pass/total" cell overflow (UBSan);
 * the loader bounds them. A lane with counts at the bound still loads and
 * its summary is written.
 */
static void counts_are_bounded(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r = NULL;
	struct kb_buf md = KB_BUF_INIT;
	char want[512];
	const char *msg;

	assert_int_equal(load_text(t, TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"lanes\": "
				   "[{\"kind\": \"as-is\", \"verdict\": \"fixed\", \"suites\": {\"s\": "
				   "{\"status\": \"pass\", \"pass\": 9223372036854775807, \"fail\": 1, "
				   "\"skip\": 1}}}]}]}", &msg), KB_EINVALID);
	snprintf(want, sizeof(want), "'%s/results.json': branches[0].lanes[0].suites.s: 'pass' is "
		 "9223372036854775807, more than 1000000000 cases", t->dir);
	assert_string_equal(msg, want);
	assert_int_equal(load_text(t, TOP "[{\"name\": \"b\", \"verdict\": \"fixed\", \"lanes\": "
				   "[{\"kind\": \"as-is\", \"verdict\": \"fixed\", \"suites\": {\"s\": "
				   "{\"status\": \"pass\", \"pass\": 1000000000, \"fail\": 1000000000, "
				   "\"skip\": 1000000000}}}]}]}", &msg), 0);
	assert_int_equal(kb_report_load(&r, t->dir), 0);
	assert_int_equal(kb_report_markdown(&md, r), 0);
	assert_non_null(strstr(md.ptr, "s 1000000000/3000000000 (1000000000 skipped)"));
	kb_buf_release(&md);
	kb_report_free(r);
}

static void missing_results(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r = NULL;
	char want[128];

	assert_int_equal(kb_report_load(&r, t->dir), KB_ENOTFOUND);
	assert_null(r);
	snprintf(want, sizeof(want), "cannot read '%s/results.json': No such file or directory", t->dir);
	assert_string_equal(kb_error_last(), want);
}

/* The defaults: a lane without "dir" is <branch>/<kind>; notes as a string. */
static void defaults(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r = NULL;
	const char *msg;

	assert_int_equal(load_text(t, TOP "[{\"name\": \"b\", \"verdict\": \"conflict\", \"apply\": "
				   "{\"status\": \"conflict\", \"notes\": \"one\\ntwo\"}, \"lanes\": "
				   "[{\"kind\": \"pre-fix\", \"verdict\": \"vulnerable\"}]}]}", &msg), 0);
	assert_int_equal(kb_report_load(&r, t->dir), 0);
	assert_string_equal(r->branches[0].lanes[0].dir, "b/pre-fix");
	assert_int_equal(r->branches[0].apply.nnotes, 1);
	assert_string_equal(r->branches[0].apply.notes[0], "one\ntwo");
	assert_true(r->branches[0].lanes[0].baseline);
	assert_null(r->upstream);
	kb_report_free(r);
}

/* A queue's run: a branch whose queue failed, one with nothing applied to it. */
static void queue_cells(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r = NULL;
	struct kb_buf out = KB_BUF_INIT;
	const char *msg;

	assert_int_equal(load_text(t, "{\"schema\": 1, \"run\": \"r\", \"fix\": \"queue/q\", "
				   "\"queue\": {\"name\": \"q\", \"fixes\": [{\"id\": \"f1\"}, {\"id\": \"f2\"}]}, "
				   "\"branches\": [{\"name\": \"a\", \"verdict\": \"conflict\", \"queue\": "
				   "{\"ref\": \"refs/heads/backport/queue/q/a\", \"results\": [{\"fix\": \"f1\", "
				   "\"status\": \"applied\", \"variant\": \"patch\"}, {\"fix\": \"f2\", \"status\": "
				   "\"partial\", \"detail\": \"hunk 2 *fails*\", \"mail\": \"a/FAILED-f2.txt\"}]}}, "
				   "{\"name\": \"b\", \"verdict\": \"error\", \"queue\": {\"error\": \"no repo\", "
				   "\"results\": []}}, {\"name\": \"distro\", \"verdict\": \"skipped\"}]}", &msg), 0);
	assert_int_equal(kb_report_load(&r, t->dir), 0);
	assert_string_equal(r->queue, "q");
	assert_int_equal(r->nqueue_fixes, 2);
	assert_string_equal(r->branches[0].queue.fixes[1].mail, "a/FAILED-f2.txt");
	assert_int_equal(kb_report_markdown(&out, r), 0);
	assert_non_null(strstr(out.ptr, "| 1 | `f1` | applied (patch) | error | skipped |\n"
				      "| 2 | `f2` | partial | error | skipped |\n"));
	assert_non_null(strstr(out.ptr, "- `a` `f2`: partial, skipped: hunk 2 \\*fails\\* "
				      "([FAILED mail](a/FAILED-f2.txt))\n"
				      "- `b` `f1`: error, skipped: the queue did not run: no repo\n"));
	assert_non_null(strstr(out.ptr, "- `distro` `f2`: skipped: nothing is applied to a "
				      "distribution kernel\n\n## Lanes\n"));
	kb_buf_clear(&out);
	assert_int_equal(kb_report_html(&out, r), 0);
	assert_non_null(strstr(out.ptr, "<td><span class=\"st st-partial\">partial</span></td>"
				      "<td><span class=\"st st-error\">error</span></td>"
				      "<td><span class=\"st st-none\">skipped</span></td></tr>"));
	kb_buf_release(&out);
	kb_report_free(r);
}

/* ---- escaping ---- */

static void escapes_everything(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r = NULL;
	struct kb_buf out = KB_BUF_INIT;
	const char *msg;

	/* a name with markup, a diag with a control character, invalid UTF-8
	 * can't come through JSON (jansson refuses it) */
	assert_int_equal(load_text(t, TOP "[{\"name\": \"a<b>&'c\\\"|`x`\", \"verdict\": \"error\", "
				   "\"note\": \"*bold* _it_ [l](u) <i>\", \"lanes\": [{\"kind\": \"as-is\", "
				   "\"verdict\": \"error\", \"build\": \"pass\", \"suites\": {\"s\": "
				   "{\"status\": \"error\", \"cases\": [{\"name\": \"c]]>\", \"status\": "
				   "\"error\", \"diag\": \"bad \\u0007 bell\"}]}}}]}]}", &msg), 0);
	assert_int_equal(kb_report_load(&r, t->dir), 0);

	assert_int_equal(kb_report_junit(&out, r, &r->branches[0], &r->branches[0].lanes[0]), 0);
	assert_non_null(strstr(out.ptr, "classname=\"a&lt;b&gt;&amp;&#39;c&quot;|`x`.as-is.s\" "
				      "name=\"c]]&gt;\""));
	assert_non_null(strstr(out.ptr, "message=\"bad \xef\xbf\xbd bell\""));
	assert_null(strchr(out.ptr, '\a'));

	kb_buf_clear(&out);
	assert_int_equal(kb_report_html(&out, r), 0);
	assert_non_null(strstr(out.ptr, "<code>a&lt;b&gt;&amp;&#39;c&quot;|`x`</code>"));
	assert_non_null(strstr(out.ptr, "data-branch=\"a&lt;b&gt;&amp;&#39;c&quot;|`x`\""));
	assert_non_null(strstr(out.ptr, "note: *bold* _it_ [l](u) &lt;i&gt;"));
	assert_null(strstr(out.ptr, "<i>"));

	kb_buf_clear(&out);
	assert_int_equal(kb_report_markdown(&out, r), 0);
	assert_non_null(strstr(out.ptr, "| `` a<b>&'c\"\\|`x` `` | **error** |"));
	assert_non_null(strstr(out.ptr, "- note: \\*bold\\* \\_it\\_ \\[l\\](u) \\<i\\>"));
	kb_buf_release(&out);
	kb_report_free(r);
}

static void mail_headers_encoded(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r = NULL;
	struct kb_buf out = KB_BUF_INIT, name = KB_BUF_INIT;
	const char *msg;

	assert_int_equal(load_text(t, "{\"schema\": 1, \"run\": \"r1\", \"fix\": \"F\", "
				   "\"author\": \"J\xc3\xb6rg R\xc3\xb6\xc3\x9f <jr@example.org>\", "
				   "\"subject\": \"net: caf\xc3\xa9\", \"branches\": [{\"name\": \"v/1 x\", "
				   "\"verdict\": \"conflict\", \"apply\": {\"status\": \"conflict\"}}]}", &msg), 0);
	assert_int_equal(kb_report_load(&r, t->dir), 0);
	assert_int_equal(kb_report_failed_name(&name, &r->branches[0]), 0);
	assert_string_equal(name.ptr, "FAILED-v-1-x.txt");
	assert_int_equal(kb_report_failed_mail(&out, r, &r->branches[0]), 0);
	/* base64 of the UTF-8 name and subject; the address stays readable */
	assert_non_null(strstr(out.ptr, "To: =?UTF-8?B?SsO2cmcgUsO2w58=?= <jr@example.org>\n"));
	assert_non_null(strstr(out.ptr, "Subject: =?UTF-8?B?RkFJTEVEOiBwYXRjaCAibmV0OiBjYWbDqSIgZmFp"
				      "bGVkIHRvIGFwcGx5IHRv?=\n =?UTF-8?B?IHYvMSB4IHRyZWU=?=\n"));
	/* no "mail" recorded and not a stable branch's name: no stable list */
	assert_null(strstr(out.ptr, "stable"));
	assert_non_null(strstr(out.ptr, "kbackport tried each variant of F on the branch\nv/1 x, and "
				      "none applies.\n"));
	kb_buf_release(&out);
	kb_buf_release(&name);
	kb_report_free(r);
}

/* A recorded "mail": its recipients, tree and patch, exactly; a stable name's defaults. */
static void mail_recorded_and_stable_default(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r = NULL;
	struct kb_buf out = KB_BUF_INIT;
	const char *msg;

	assert_int_equal(load_text(t, "{\"schema\": 1, \"run\": \"r1\", \"fix\": \"F\", \"upstream\": \"" 
				   "0123456789012345678901234567890123456789\", \"subject\": \"s: t\", "
				   "\"author\": \"A <a@x>\", \"branches\": [{\"name\": \"acme\", \"verdict\": "
				   "\"conflict\", \"ref\": \"r\", \"apply\": {\"status\": \"conflict\", "
				   "\"detail\": \"d\", \"reproduce\": [\"git x\"]}, \"mail\": {\"to\": "
				   "\"K <k@acme>\", \"cc\": [\"l@acme\", \"M <m@acme>\"], \"tree\": "
				   "\"ACME 5.10\", \"send_to\": \"b@acme\", \"stable\": false, \"patch\": "
				   "\"From 0123 Mon Sep 17 00:00:00 2001\\nP\\n\"}}, {\"name\": \"linux-6.1.y\", "
				   "\"verdict\": \"conflict\", \"apply\": {\"status\": \"partial\"}}]}", &msg), 0);
	assert_int_equal(kb_report_load(&r, t->dir), 0);
	assert_int_equal(kb_report_failed_mail(&out, r, &r->branches[0]), 0);
	assert_string_equal(out.ptr,
		"To: K <k@acme>\n"
		"Cc: l@acme,\n"
		"    M <m@acme>\n"
		"Subject: FAILED: patch \"s: t\" failed to apply to ACME 5.10 tree\n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=UTF-8\n"
		"Content-Transfer-Encoding: 8bit\n"
		"\n"
		"The patch below does not apply to the ACME 5.10 tree.\n"
		"If someone wants it applied there, then please email the backport,\n"
		"including the original git commit id, to <b@acme>.\n"
		"\n"
		"kbackport tried each variant of F on the branch\n"
		"r:\n"
		"\n"
		"  d\n"
		"\n"
		"To reproduce the conflict and resolve it by hand, you may use the following commands:\n"
		"\n"
		"  git x\n"
		"\n"
		"The logs are in acme/ of the run r1.\n"
		"\n"
		"------------------ original commit in Linus's tree ------------------\n"
		"\n"
		"From 0123 Mon Sep 17 00:00:00 2001\n"
		"P\n");
	kb_buf_clear(&out);
	assert_int_equal(kb_report_failed_mail(&out, r, &r->branches[1]), 0);
	assert_non_null(strstr(out.ptr, "To: A <a@x>\nCc: stable@vger.kernel.org\nSubject: FAILED: "
				      "patch \"s: t\" failed to apply to 6.1-stable tree\n"));
	assert_non_null(strstr(out.ptr, "The patch below does not apply to the 6.1-stable tree.\n"
				      "If someone wants it applied there, or to any other stable or longterm\n"
				      "tree, then please email the backport, including the original git commit\n"
				      "id to <stable@vger.kernel.org>.\n\n"));
	kb_buf_release(&out);
	kb_report_free(r);
	r = NULL;
	/* a header forged through results.json is refused */
	assert_int_equal(load_text(t, "{\"schema\": 1, \"run\": \"r1\", \"fix\": \"F\", \"branches\": [{\"name\": \"a\", "
				   "\"verdict\": \"conflict\", \"mail\": {\"tree\": \"t\\nBcc: x\"}}]}",
				   &msg), KB_EINVALID);
	assert_int_equal(kb_report_load(&r, t->dir), KB_EINVALID);
	assert_non_null(strstr(kb_error_last(), "'tree' holds a control character"));
}

/* One failing hunk: named once, by the detail line; two: listed below it. */
static void mail_one_hunk_named_once(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r = NULL;
	struct kb_buf out = KB_BUF_INIT;
	const char *msg;

	assert_int_equal(load_text(t, "{\"schema\": 1, \"run\": \"r1\", \"fix\": \"F\", "
				   "\"branches\": [{\"name\": \"b\", \"verdict\": \"conflict\", "
				   "\"apply\": {\"status\": \"conflict\", \"detail\": \"no variant fits: "
				   "hunk 1 of 'f.c' does not apply\", \"notes\": [\"hunk 1 of 'f.c' does not "
				   "apply\"]}}, {\"name\": \"c\", \"verdict\": \"conflict\", \"apply\": "
				   "{\"status\": \"conflict\", \"detail\": \"no variant fits: hunk 1 of 'f.c' "
				   "does not apply\", \"notes\": [\"hunk 1 of 'f.c' does not apply\", "
				   "\"hunk 2 of 'f.c' does not apply\"]}}]}", &msg), 0);
	assert_int_equal(kb_report_load(&r, t->dir), 0);
	assert_int_equal(kb_report_failed_mail(&out, r, &r->branches[0]), 0);
	assert_non_null(strstr(out.ptr, "on the branch\nb:\n\n  no variant fits: hunk 1 of 'f.c' does "
				      "not apply\n\n"));
	assert_null(strstr(out.ptr, "The hunks that do not apply"));
	kb_buf_clear(&out);
	assert_int_equal(kb_report_failed_mail(&out, r, &r->branches[1]), 0);
	assert_non_null(strstr(out.ptr, "The hunks that do not apply:\n\n  hunk 1 of 'f.c' does not "
				      "apply\n  hunk 2 of 'f.c' does not apply\n"));
	kb_buf_release(&out);
	kb_report_free(r);
}

/* Each status word, one table per enum: named and parsed back, unknown refused. */
static void status_words_round_trip(void **state)
{
	enum kb_verdict v;
	enum kb_status st;
	enum kb_build_status bs;
	enum kb_ktap_status ks;
	int i;

	(void)state;
	for (i = KB_VERDICT_FIXED; i <= KB_VERDICT_NOT_AFFECTED; i++) {
		assert_true(kb_verdict_parse(&v, kb_verdict_name((enum kb_verdict)i)));
		assert_int_equal(v, i);
	}
	for (i = KB_STATUS_APPLIED; i <= KB_STATUS_REVERSE_APPLIED; i++) {
		assert_true(kb_status_parse(&st, kb_status_name((enum kb_status)i)));
		assert_int_equal(st, i);
	}
	for (i = KB_BUILD_PASS; i <= KB_BUILD_SKIPPED; i++) {
		assert_true(kb_build_status_parse(&bs, kb_build_status_name((enum kb_build_status)i)));
		assert_int_equal(bs, i);
	}
	for (i = KB_KTAP_PASS; i <= KB_KTAP_ERROR; i++) {
		assert_true(kb_ktap_status_parse(&ks, kb_ktap_status_name((enum kb_ktap_status)i)));
		assert_int_equal(ks, i);
	}
	assert_string_equal(kb_status_name(KB_STATUS_REVERSE_APPLIED), "reverse-applied");
	assert_false(kb_verdict_parse(&v, "fine"));
	assert_false(kb_status_parse(&st, "Applied"));
	assert_false(kb_build_status_parse(&bs, ""));
	assert_false(kb_ktap_status_parse(&ks, "ok"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loads_the_fixture),
		cmocka_unit_test(status_words_round_trip),
		cmocka_unit_test(markdown_as_reviewed),
		cmocka_unit_test(junit_as_reviewed),
		cmocka_unit_test(failed_mail_as_reviewed),
		cmocka_unit_test_setup_teardown(mail_one_hunk_named_once, tmp_setup, tmp_teardown),
		cmocka_unit_test(kcidb_checkouts),
		cmocka_unit_test(kcidb_builds_and_tests),
		cmocka_unit_test(kcidb_base_url),
		cmocka_unit_test(sha256),
		cmocka_unit_test_setup_teardown(names_what_is_wrong, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(counts_are_bounded, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(missing_results, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(queue_cells, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(defaults, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(escapes_everything, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(mail_headers_encoded, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(mail_recorded_and_stable_default, tmp_setup, tmp_teardown),
	};

	return sandbox_run_group_tests_name("report", tests, NULL, NULL);
}
