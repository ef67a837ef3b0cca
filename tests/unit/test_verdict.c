/*
 * Verdicts: lanes from KTAP and tests/cases.yaml-style declarations, and
 * branches from their lanes. The KTAP here is written by hand in the shape
 * the kernel and the guest print (real console logs are checked end to end
 * in tests/e2e).
 */
#include "unit.h"

#include <stdio.h>

#include "boot/cases.h"
#include "util/error.h"
#include "boot/ktap.h"
#include "boot/verdict.h"

#define FIX "CVE-2011-1019"

static const char cases_yaml[] =
	"suites:\n"
	"  k:\n"
	"    runs: kunit\n"
	"    cases:\n"
	"      detect_a: {proves: \"A\", detects: [" FIX "]}\n"
	"      detect_b: {proves: \"B\", detects: [" FIX "]}\n"
	"      plain: {proves: \"P\"}\n"
	"  g:\n"
	"    runs: guest\n"
	"    cases:\n"
	"      attack: {proves: \"the attack fails\", detects: [" FIX "], expect: nothing-new}\n"
	"      works: {proves: \"loading still works\", expect: loaded sit}\n";

/* One result line: "ok", "not ok" or "skip" for case `n` called `name`. */
static int result(char *buf, size_t size, const char *r, int n, const char *name)
{
	if (!strcmp(r, "skip"))
		return snprintf(buf, size, "    ok %d %s # SKIP not here\n", n, name);
	return snprintf(buf, size, "    %s %d %s\n", r, n, name);
}

/* A log with suite k (results ra rb rp) and suite g (results gx gw), each
 * ending as KUnit does: "not ok" when a case failed; a NULL first result
 * leaves out the whole suite. */
static char *log_of(const char *ra, const char *rb, const char *rp, const char *gx,
		    const char *gw)
{
	static char buf[2048];
	int n = 0;

#define PUT(...) (n += snprintf(buf + n, sizeof(buf) - (size_t)n, __VA_ARGS__))
#define RES(r, i, name) (n += result(buf + n, sizeof(buf) - (size_t)n, r, i, name))
	buf[0] = '\0';
	if (ra) {
		PUT("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: k\n    1..3\n");
		RES(ra, 1, "detect_a");
		RES(rb, 2, "detect_b");
		RES(rp, 3, "plain");
		PUT("%s 1 k\n", strcmp(ra, "not ok") && strcmp(rb, "not ok") &&
				 strcmp(rp, "not ok") ? "ok" : "not ok");
	}
	if (gx) {
		PUT("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: g\n    1..2\n");
		RES(gx, 1, "attack");
		RES(gw, 2, "works");
		PUT("%s 1 g\n", strcmp(gx, "not ok") && strcmp(gw, "not ok") ? "ok" : "not ok");
	}
#undef PUT
#undef RES
	return buf;
}

static struct kb_cases *load_cases(void)
{
	struct kb_cases *cases = NULL;

	assert_int_equal(kb_cases_parse(&cases, cases_yaml, strlen(cases_yaml), "cases.yaml"), 0);
	return cases;
}

/* The verdict of `log`, with its reason in *reason (static, "" when none). */
static enum kb_verdict lane(const char *log, bool with_kunit, const char *problem,
			    const char **reason)
{
	static char why[1024];
	struct kb_cases *cases = load_cases();
	struct kb_ktap_result ktap;
	struct kb_lane_verdict v;
	enum kb_verdict out;

	assert_int_equal(kb_ktap_parse(&ktap, log, strlen(log)), 0);
	assert_int_equal(kb_lane_verdict(&v, cases, &ktap, with_kunit, FIX, problem), 0);
	snprintf(why, sizeof(why), "%s", v.reason ? v.reason : "");
	if (reason)
		*reason = why;
	out = v.verdict;
	kb_lane_verdict_release(&v);
	kb_ktap_result_release(&ktap);
	kb_cases_free(cases);
	return out;
}

static void test_fixed(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(lane(log_of("ok", "ok", "ok", "ok", "ok"), true, NULL, &why),
			 KB_VERDICT_FIXED);
	assert_string_equal(why, "");
	/* a skip is not a failure */
	assert_int_equal(lane(log_of("ok", "ok", "skip", "ok", "ok"), true, NULL, NULL),
			 KB_VERDICT_FIXED);
}

static void test_vulnerable(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(lane(log_of("not ok", "not ok", "ok", "not ok", "ok"), true, NULL, &why),
			 KB_VERDICT_VULNERABLE);
	assert_string_equal(why, "k.detect_a failed (detects " FIX "): A\n"
				 "k.detect_b failed (detects " FIX "): B\n"
				 "g.attack failed (detects " FIX "): the attack fails");
}

static void test_regression(void **state)
{
	const char *why;

	(void)state;
	/* a case that detects nothing failed: regression, even beside detecting ones */
	assert_int_equal(lane(log_of("not ok", "ok", "ok", "ok", "not ok"), true, NULL, &why),
			 KB_VERDICT_REGRESSION);
	assert_string_equal(why, "g.works failed: loading still works\n"
				 "k.detect_a failed (detects " FIX "): A");
}

static void test_errors(void **state)
{
	const char *why;

	(void)state;
	/* the boot's own problem wins, whatever the KTAP says */
	assert_int_equal(lane(log_of("ok", "ok", "ok", "ok", "ok"), true, "the guest hung", &why),
			 KB_VERDICT_ERROR);
	assert_string_equal(why, "the guest hung");
	/* the KUnit suite is missing from a kernel that should have it */
	assert_int_equal(lane(log_of(NULL, NULL, NULL, "ok", "ok"), true, NULL, &why),
			 KB_VERDICT_ERROR);
	assert_string_equal(why, "suite 'k': no KTAP on the console");
	/* ...but not from one kbackport did not build */
	assert_int_equal(lane(log_of(NULL, NULL, NULL, "ok", "ok"), false, NULL, NULL),
			 KB_VERDICT_FIXED);
	/* nothing at all */
	assert_int_equal(lane("", false, NULL, &why), KB_VERDICT_ERROR);
	assert_string_equal(why, "suite 'g': no KTAP on the console");
}

static void test_undeclared_and_missing_cases(void **state)
{
	const char *log = "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: g\n"
			  "    1..2\n    ok 1 attack\n    ok 2 surprise\nok 1 g\n";
	const char *why;

	(void)state;
	assert_int_equal(lane(log, false, NULL, &why), KB_VERDICT_ERROR);
	assert_string_equal(why, "g.works: declared, but did not run\n"
				 "g.surprise: ran, but is not declared in the cases file");
}

static void test_truncated(void **state)
{
	const char *log = "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: g\n"
			  "    1..2\n    ok 1 attack\n"
			  "Kernel panic - not syncing: Attempted to kill init!\n";

	(void)state;
	assert_int_equal(lane(log, false, NULL, NULL), KB_VERDICT_ERROR);
}

/* A kernel without KUnit (before 5.5): the verdict rests on the guest
 * suite, the KUnit suite is named not-applicable; with nothing that can
 * run there is no verdict. */
static void test_kunit_not_applicable(void **state)
{
	static const char kunit_only[] =
		"suites:\n  k:\n    runs: kunit\n    cases:\n"
		"      detect_a: {proves: \"A\", detects: [" FIX "]}\n";
	struct kb_cases *cases = load_cases(), *only = NULL;
	const char *log = log_of(NULL, NULL, NULL, "not ok", "ok");
	struct kb_ktap_result ktap;
	struct kb_lane_verdict v;

	(void)state;
	assert_int_equal(kb_ktap_parse(&ktap, log, strlen(log)), 0);
	assert_int_equal(kb_lane_verdict(&v, cases, &ktap, false, FIX, NULL), 0);
	assert_int_equal(v.verdict, KB_VERDICT_VULNERABLE);
	assert_int_equal(kb_lane_verdict_not_applicable(&v, cases, "no KUnit"), 0);
	assert_int_equal(v.verdict, KB_VERDICT_VULNERABLE);
	assert_string_equal(v.reason, "k: not-applicable (no KUnit)\n"
				      "g.attack failed (detects " FIX "): the attack fails");
	kb_lane_verdict_release(&v);
	/* a fixed lane gets the note alone */
	kb_ktap_result_release(&ktap);
	log = log_of(NULL, NULL, NULL, "ok", "ok");
	assert_int_equal(kb_ktap_parse(&ktap, log, strlen(log)), 0);
	assert_int_equal(kb_lane_verdict(&v, cases, &ktap, false, FIX, NULL), 0);
	assert_int_equal(kb_lane_verdict_not_applicable(&v, cases, "no KUnit"), 0);
	assert_int_equal(v.verdict, KB_VERDICT_FIXED);
	assert_string_equal(v.reason, "k: not-applicable (no KUnit)");
	kb_lane_verdict_release(&v);
	/* every suite needs KUnit: nothing ran, no verdict */
	assert_int_equal(kb_cases_parse(&only, kunit_only, strlen(kunit_only), "cases.yaml"), 0);
	assert_int_equal(kb_lane_verdict(&v, only, &ktap, false, FIX, NULL), 0);
	assert_int_equal(v.verdict, KB_VERDICT_ERROR);
	assert_string_equal(v.reason, "no suite of the cases file can run on this kernel "
				      "(every one needs KUnit)");
	kb_lane_verdict_release(&v);
	kb_ktap_result_release(&ktap);
	kb_cases_free(only);
	kb_cases_free(cases);
}

/* ---- branches ---- */

static enum kb_verdict branch(const struct kb_lane_outcome *lanes, size_t n, char **note)
{
	enum kb_verdict v;

	assert_int_equal(kb_branch_verdict(&v, note, lanes, n, FIX), 0);
	return v;
}

/*
 * A queue (run --queue): one lane judged for several fixes. Here suite k's
 * detect_a is made to detect a second fix, the queue's, and `plain` none.
 */
static const char queue_cases_yaml[] =
	"suites:\n"
	"  k:\n"
	"    runs: kunit\n"
	"    cases:\n"
	"      detect_a: {proves: \"A\", detects: [CVE-2011-4001]}\n"
	"      detect_b: {proves: \"B\", detects: [" FIX "]}\n"
	"      plain: {proves: \"P\"}\n";

static enum kb_verdict queue_lane(const char *log, const char *const *fixes, size_t n,
				  char *why, size_t size)
{
	struct kb_cases *cases = NULL;
	struct kb_ktap_result ktap;
	struct kb_lane_verdict v;
	enum kb_verdict out;

	assert_int_equal(kb_cases_parse(&cases, queue_cases_yaml, strlen(queue_cases_yaml),
					"cases.yaml"), 0);
	assert_int_equal(kb_ktap_parse(&ktap, log, strlen(log)), 0);
	assert_int_equal(kb_lane_verdict_any(&v, cases, &ktap, true, fixes, n, NULL), 0);
	snprintf(why, size, "%s", v.reason ? v.reason : "");
	out = v.verdict;
	kb_lane_verdict_release(&v);
	kb_ktap_result_release(&ktap);
	kb_cases_free(cases);
	return out;
}

static void test_queue_lane(void **state)
{
	const char *both[] = { FIX, "CVE-2011-4001" }, *one[] = { FIX };
	char why[512];

	(void)state;
	/* both fixes' cases fail: the tree lacks the queue, nothing else broke */
	assert_int_equal(queue_lane(log_of("not ok", "not ok", "ok", NULL, NULL), both, 2, why,
				    sizeof(why)), KB_VERDICT_VULNERABLE);
	assert_string_equal(why, "k.detect_a failed (detects CVE-2011-4001): A\n"
				 "k.detect_b failed (detects " FIX "): B");
	/* for one fix alone, the other's failing case is said, and judges nothing */
	assert_int_equal(queue_lane(log_of("not ok", "not ok", "ok", NULL, NULL), one, 1, why,
				    sizeof(why)), KB_VERDICT_VULNERABLE);
	assert_string_equal(why, "k.detect_b failed (detects " FIX "): B\n"
				 "k.detect_a failed (detects CVE-2011-4001, not under test): A");
	assert_int_equal(queue_lane(log_of("not ok", "ok", "ok", NULL, NULL), one, 1, why,
				    sizeof(why)), KB_VERDICT_FIXED);
	assert_string_equal(why, "k.detect_a failed (detects CVE-2011-4001, not under test): A");
	/* the queue's tip: fixed only when every fix's cases pass */
	assert_int_equal(queue_lane(log_of("ok", "ok", "ok", NULL, NULL), both, 2, why, sizeof(why)),
			 KB_VERDICT_FIXED);
	assert_int_equal(queue_lane(log_of("not ok", "ok", "ok", NULL, NULL), both, 2, why,
				    sizeof(why)), KB_VERDICT_VULNERABLE);
	assert_string_equal(why, "k.detect_a failed (detects CVE-2011-4001): A");
	/* a case that detects no fix at all: a regression, whatever is under test */
	assert_int_equal(queue_lane(log_of("ok", "ok", "not ok", NULL, NULL), both, 2, why,
				    sizeof(why)), KB_VERDICT_REGRESSION);
	assert_string_equal(why, "k.plain failed: P");
}

/* A fix no case detects: the lane booted and passed, yet nothing tested it. */
static void test_untested(void **state)
{
	const char *other[] = { "CVE-2099-0001" }, *two[] = { "CVE-2099-0001", FIX };
	char why[512];

	(void)state;
	assert_int_equal(queue_lane(log_of("ok", "ok", "ok", NULL, NULL), other, 1, why,
				    sizeof(why)), KB_VERDICT_UNTESTED);
	assert_string_equal(why, "no case detects CVE-2099-0001: the kernel booted and every "
				 "case passed, but nothing tested the fix");
	/* other fixes' failing cases do not make it tested, nor regressed */
	assert_int_equal(queue_lane(log_of("not ok", "ok", "ok", NULL, NULL), other, 1, why,
				    sizeof(why)), KB_VERDICT_UNTESTED);
	assert_string_equal(why, "no case detects CVE-2099-0001: the kernel booted and every "
				 "case passed, but nothing tested the fix\n"
				 "k.detect_a failed (detects CVE-2011-4001, not under test): A");
	/* ...but a case that detects nothing still regresses */
	assert_int_equal(queue_lane(log_of("ok", "ok", "not ok", NULL, NULL), other, 1, why,
				    sizeof(why)), KB_VERDICT_REGRESSION);
	/* one fix of several detected: the lane is tested */
	assert_int_equal(queue_lane(log_of("ok", "ok", "ok", NULL, NULL), two, 2, why,
				    sizeof(why)), KB_VERDICT_FIXED);
	assert_string_equal(kb_verdict_name(KB_VERDICT_UNTESTED), "untested");
}

static void test_branch_verdicts(void **state)
{
	const struct kb_lane_outcome verified[] = {
		{ KB_LANE_AS_IS, KB_VERDICT_FIXED }, { KB_LANE_PRE_FIX, KB_VERDICT_VULNERABLE },
		{ KB_LANE_BACKPORT, KB_VERDICT_FIXED },
	};
	const struct kb_lane_outcome unfixed_branch[] = {	/* no pre-fix lane: as-is is the baseline */
		{ KB_LANE_AS_IS, KB_VERDICT_VULNERABLE }, { KB_LANE_BACKPORT, KB_VERDICT_FIXED },
	};
	const struct kb_lane_outcome undetected[] = {
		{ KB_LANE_AS_IS, KB_VERDICT_FIXED }, { KB_LANE_PRE_FIX, KB_VERDICT_FIXED },
		{ KB_LANE_BACKPORT, KB_VERDICT_FIXED },
	};
	const struct kb_lane_outcome only_as_is[] = { { KB_LANE_AS_IS, KB_VERDICT_FIXED } };
	const struct kb_lane_outcome still_vulnerable[] = {
		{ KB_LANE_AS_IS, KB_VERDICT_VULNERABLE }, { KB_LANE_BACKPORT, KB_VERDICT_VULNERABLE },
	};
	const struct kb_lane_outcome shipped_vulnerable[] = {
		{ KB_LANE_AS_IS, KB_VERDICT_VULNERABLE }, { KB_LANE_PRE_FIX, KB_VERDICT_VULNERABLE },
		{ KB_LANE_BACKPORT, KB_VERDICT_FIXED },
	};
	const struct kb_lane_outcome with_error[] = {
		{ KB_LANE_AS_IS, KB_VERDICT_FIXED }, { KB_LANE_PRE_FIX, KB_VERDICT_ERROR },
		{ KB_LANE_BACKPORT, KB_VERDICT_FIXED },
	};
	const struct kb_lane_outcome with_regression[] = {
		{ KB_LANE_AS_IS, KB_VERDICT_VULNERABLE }, { KB_LANE_BACKPORT, KB_VERDICT_REGRESSION },
	};
	const struct kb_lane_outcome untested[] = {
		{ KB_LANE_AS_IS, KB_VERDICT_UNTESTED }, { KB_LANE_PRE_FIX, KB_VERDICT_UNTESTED },
		{ KB_LANE_BACKPORT, KB_VERDICT_UNTESTED },
	};
	char *note = (char *)1;

	(void)state;
	assert_int_equal(branch(verified, 3, &note), KB_VERDICT_VERIFIED);
	assert_null(note);
	assert_int_equal(branch(unfixed_branch, 2, &note), KB_VERDICT_VERIFIED);
	assert_int_equal(branch(undetected, 3, &note), KB_VERDICT_FIXED);
	assert_string_equal(note, "the tests did not detect " FIX " on the pre-fix lane: "
				  "it passed every case, so this backport is not verified");
	free(note);
	assert_int_equal(branch(only_as_is, 1, &note), KB_VERDICT_FIXED);
	assert_null(note);
	assert_int_equal(branch(still_vulnerable, 2, &note), KB_VERDICT_VULNERABLE);
	assert_int_equal(branch(shipped_vulnerable, 3, &note), KB_VERDICT_VULNERABLE);
	assert_int_equal(branch(with_error, 3, &note), KB_VERDICT_ERROR);
	assert_int_equal(branch(with_regression, 2, &note), KB_VERDICT_REGRESSION);
	assert_int_equal(branch(NULL, 0, &note), KB_VERDICT_SKIPPED);
	/* nothing tested the fix: never fixed nor verified */
	assert_int_equal(branch(untested, 3, &note), KB_VERDICT_UNTESTED);
	assert_null(note);
	assert_int_equal(kb_verdict_worse(KB_VERDICT_FIXED, KB_VERDICT_UNTESTED), KB_VERDICT_UNTESTED);
	assert_int_equal(kb_verdict_worse(KB_VERDICT_UNTESTED, KB_VERDICT_VULNERABLE),
			 KB_VERDICT_VULNERABLE);
	assert_int_equal(kb_verdict_worse(KB_VERDICT_VERIFIED, KB_VERDICT_FIXED), KB_VERDICT_FIXED);
	assert_int_equal(kb_verdict_worse(KB_VERDICT_ERROR, KB_VERDICT_VULNERABLE), KB_VERDICT_ERROR);
	assert_string_equal(kb_verdict_name(KB_VERDICT_VERIFIED), "verified");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_vulnerable),
		cmocka_unit_test(test_regression),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_undeclared_and_missing_cases),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_kunit_not_applicable),
		cmocka_unit_test(test_queue_lane),
		cmocka_unit_test(test_untested),
		cmocka_unit_test(test_branch_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
