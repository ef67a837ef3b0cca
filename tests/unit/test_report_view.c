/*
 * The view of a report that summary.md and summary.html format
 * (report/report_view.h): the matrix's rows and cells on the fixture run
 * directory tests/fixtures/reports/run-main/, a branch without lanes (its
 * one bare row, its files linked with %-encoded URLs), the lanes that need
 * a look, and a queue's matrix and the fixes it did not apply.
 */
#include "unit.h"

#include <stdio.h>

#include "util/error.h"
#include "report/report.h"
#include "report/report_view.h"
#include "sandbox.h"

static struct kb_report *load(const char *dir)
{
	struct kb_report *r = NULL;

	if (kb_report_load(&r, dir) < 0)
		fail_msg("%s", kb_error_last());
	return r;
}

static void assert_cell(const struct report_view_cell *c, const char *word, const char *text,
			bool baseline)
{
	if (word)
		assert_string_equal(c->word, word);
	else
		assert_null(c->word);
	assert_string_equal(c->text, text);
	assert_int_equal(c->baseline, baseline);
}

/* 6.1.y: as-is, pre-fix, backport; vendor-reworked: conflict, one lane;
 * debian-6.1: a distribution kernel; 4.19.y: as-is failed to build. */
static void rows_of_the_fixture(void **state)
{
	struct kb_report *r = load("tests/fixtures/reports/run-main");
	const struct report_view_row *row;
	struct report_view v;

	(void)state;
	assert_int_equal(report_view_init(&v, r), 0);
	assert_int_equal(v.nrows, 7);
	assert_int_equal(v.branches[0].row, 0);
	assert_int_equal(v.branches[0].nrows, 3);
	assert_int_equal(v.branches[3].row, 5);
	assert_int_equal(v.branches[3].nrows, 2);
	assert_true(v.rows[0].first);
	assert_false(v.rows[1].first);
	assert_true(v.rows[3].first);
	assert_ptr_equal(v.rows[4].branch, &v.branches[2]);

	assert_cell(&v.branches[0].verdict, "verified", "verified", false);
	assert_cell(&v.branches[0].apply, "already-applied", "already-applied (3.9)", false);
	assert_null(v.branches[0].mail.name);
	row = &v.rows[1];	/* 6.1.y pre-fix */
	assert_string_equal(row->kind, "pre-fix");
	assert_ptr_equal(row->lane, &r->branches[0].lanes[1]);
	assert_cell(&row->build, "pass", "pass", false);
	assert_cell(&row->test, "vulnerable", "vulnerable (baseline)", true);
	assert_string_equal(row->counts, "kbackport_dev_load 1/3, kbackport_caps 1/2");
	assert_string_equal(row->boot, "");
	assert_false(row->needs_look);	/* the detecting cases failed, as they should */
	assert_int_equal(row->nlinks, 5);
	assert_string_equal(row->links[0].name, "apply.json");
	assert_string_equal(row->links[0].url, "6.1.y/pre-fix/apply.json");

	/* the conflict: its mail, and a lane that needs a look */
	assert_cell(&v.branches[1].apply, "conflict", "conflict", false);
	assert_string_equal(v.branches[1].mail.name, "FAILED-vendor-reworked.txt");
	assert_string_equal(v.branches[1].mail.url, "FAILED-vendor-reworked.txt");
	assert_true(v.rows[3].needs_look);

	row = &v.rows[4];	/* debian-6.1: nothing applied, booted as built */
	assert_cell(&v.branches[2].apply, "none", "-", false);
	assert_string_equal(row->counts, "kbackport_caps 1/2 (1 skipped)");
	assert_string_equal(row->boot, ", booted as PVH vmlinux");
	assert_false(row->needs_look);

	row = &v.rows[5];	/* 4.19.y as-is: the build failed */
	assert_cell(&row->build, "fail", "fail", false);
	assert_cell(&row->test, "error", "error", false);
	assert_null(row->counts);
	assert_true(row->needs_look);

	assert_int_equal(v.nattention, 2);
	assert_string_equal(v.attention[0]->name, "vendor-reworked");
	assert_string_equal(v.attention[1]->name, "4.19.y");
	assert_int_equal(v.nskipped, 0);
	assert_null(v.queued);
	report_view_release(&v);
	kb_report_free(r);
}

/* A branch without lanes: one row of "-" with its own files; a fixed lane
 * with a case that failed unexpectedly needs a look. */
static void bare_row_and_look(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r;
	struct report_view v;
	const struct report_view_row *row;

	write_file(t, "results.json", "{\"schema\": 1, \"run\": \"r\", \"fix\": \"F\", \"branches\": ["
		   "{\"name\": \"a b\", \"verdict\": \"not-affected\", \"apply\": {\"status\": "
		   "\"not-affected\"}}, {\"name\": \"c\", \"verdict\": \"fixed\", \"lanes\": "
		   "[{\"kind\": \"backport\", \"verdict\": \"fixed\", \"build\": \"cached\", \"suites\": "
		   "{\"s\": {\"status\": \"fail\", \"pass\": 1, \"fail\": 1, \"cases\": [{\"name\": \"x\", "
		   "\"status\": \"pass\"}, {\"name\": \"y\", \"status\": \"fail\", \"detects\": true}]}}}]}]}");
	write_file(t, "a b/why #1.txt", "not affected\n");
	r = load(t->dir);
	assert_int_equal(report_view_init(&v, r), 0);
	assert_int_equal(v.nrows, 2);
	row = &v.rows[0];
	assert_true(row->first);
	assert_null(row->lane);
	assert_string_equal(row->kind, "-");
	assert_cell(&row->build, NULL, "-", false);
	assert_cell(&row->test, NULL, "-", false);
	assert_null(row->counts);
	assert_string_equal(row->boot, "");
	assert_ptr_equal(row->links, v.branches[0].files);
	assert_int_equal(row->nlinks, 1);
	assert_string_equal(row->links[0].name, "why #1.txt");
	assert_string_equal(row->links[0].url, "a%20b/why%20%231.txt");
	assert_cell(&v.branches[0].apply, "not-affected", "not-affected", false);

	/* a detecting case failing on a lane that is no baseline */
	assert_true(v.rows[1].needs_look);
	assert_cell(&v.rows[1].test, "fixed", "fixed", false);
	assert_string_equal(v.rows[1].counts, "s 1/2");
	assert_int_equal(v.nattention, 0);
	report_view_release(&v);
	kb_report_free(r);
}

/* A queue's run: each fix's cell on each branch, and why it was not applied. */
static void queue_matrix(void **state)
{
	struct sandbox *t = *state;
	struct kb_report *r;
	struct report_view v;

	write_file(t, "results.json", "{\"schema\": 1, \"run\": \"r\", \"fix\": \"queue/q\", "
		   "\"queue\": {\"name\": \"q\", \"fixes\": [{\"id\": \"f1\"}, {\"id\": \"f2\"}]}, "
		   "\"branches\": [{\"name\": \"a\", \"verdict\": \"conflict\", \"queue\": "
		   "{\"ref\": \"refs/heads/backport/queue/q/a\", \"results\": [{\"fix\": \"f1\", "
		   "\"status\": \"applied\", \"variant\": \"patch\"}, {\"fix\": \"f2\", \"status\": "
		   "\"partial\", \"detail\": \"hunk 2 fails\", \"mail\": \"a/FAILED f2.txt\"}]}}, "
		   "{\"name\": \"b\", \"verdict\": \"error\", \"queue\": {\"error\": \"no repo\", "
		   "\"results\": []}}, {\"name\": \"distro\", \"verdict\": \"skipped\"}]}");
	r = load(t->dir);
	assert_int_equal(report_view_init(&v, r), 0);
	assert_cell(report_view_queued(&v, 0, 0), "applied", "applied (patch)", false);
	assert_cell(report_view_queued(&v, 1, 0), "partial", "partial", false);
	assert_cell(report_view_queued(&v, 0, 1), "error", "error", false);
	assert_cell(report_view_queued(&v, 1, 2), "none", "skipped", false);
	assert_int_equal(v.nrows, 3);	/* a bare row each */

	assert_int_equal(v.nskipped, 5);	/* all but f1 on a */
	assert_string_equal(v.skipped[0].branch, "a");
	assert_string_equal(v.skipped[0].fix, "f2");
	assert_string_equal(v.skipped[0].why, "partial, skipped: hunk 2 fails");
	assert_string_equal(v.skipped[0].mail, "a/FAILED%20f2.txt");
	assert_string_equal(v.skipped[1].fix, "f1");
	assert_string_equal(v.skipped[1].why, "error, skipped: the queue did not run: no repo");
	assert_null(v.skipped[1].mail);
	assert_string_equal(v.skipped[4].branch, "distro");
	assert_string_equal(v.skipped[4].why, "skipped: nothing is applied to a distribution kernel");
	assert_int_equal(v.nattention, 2);
	report_view_release(&v);
	kb_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_of_the_fixture),
		cmocka_unit_test_setup_teardown(bare_row_and_look, sandbox_setup, sandbox_teardown),
		cmocka_unit_test_setup_teardown(queue_matrix, sandbox_setup, sandbox_teardown),
	};

	return sandbox_run_group_tests_name("report view", tests, NULL, NULL);
}
