/* cases.yaml loading (a fix's tests/cases.yaml), and the real file's declarations. */
#include "unit.h"

#include "boot/cases.h"
#include "util/error.h"

static struct kb_cases *parse_ok(const char *text)
{
	struct kb_cases *cases = NULL;

	assert_int_equal(kb_cases_parse(&cases, text, strlen(text), "cases.yaml"), 0);
	assert_non_null(cases);
	return cases;
}

static void expect_error(const char *text, const char *message)
{
	struct kb_cases *cases = (void *)1;

	kb_error_clear();
	assert_int_equal(kb_cases_parse(&cases, text, strlen(text), "cases.yaml"), KB_EINVALID);
	assert_null(cases);
	assert_string_equal(kb_error_last(), message);
}

static void test_parse(void **state)
{
	struct kb_cases *cases;
	const struct kb_suite_decl *s;
	const struct kb_case *c;

	(void)state;
	cases = parse_ok("suites:\n"
			 "  one:\n"
			 "    runs: kunit\n"
			 "    cases:\n"
			 "      a: {proves: \"A\", detects: [CVE-1, CVE-2]}\n"
			 "      b: {proves: \"B\"}\n"
			 "  two:\n"
			 "    cases:\n"
			 "      c: {proves: \"C\", steps: [userns, caps net_admin, ifflags @probe],\n"
			 "          expect: nothing-new}\n"
			 "      d: {proves: \"D\", steps: [link-add t0 vxlan id=1, userns, move t0,\n"
			 "          link-change t0 vxlan ttl=9], expect: errno EPERM}\n"
			 "    runs: guest\n"
			 "    probe: [xfs, crc7]\n"
			 "    modules: [xfs, sit]\n");
	assert_int_equal(cases->nsuites, 2);
	s = kb_cases_suite(cases, "one");
	assert_non_null(s);
	assert_int_equal(s->runs, KB_RUNS_KUNIT);
	assert_int_equal(s->ncases, 2);
	assert_null(s->modules);
	c = kb_suite_case(s, "a");
	assert_string_equal(c->proves, "A");
	assert_true(kb_case_detects(c, "CVE-2"));
	assert_false(kb_case_detects(c, "CVE-3"));
	assert_false(kb_case_detects(kb_suite_case(s, "b"), "CVE-1"));
	s = kb_cases_suite(cases, "two");
	assert_int_equal(s->runs, KB_RUNS_GUEST);
	assert_int_equal(s->nmodules, 2);
	assert_string_equal(s->modules[1], "sit");
	assert_null(s->modules[2]);
	assert_null(kb_suite_case(s, "a"));
	assert_null(kb_cases_suite(cases, "three"));
	c = kb_suite_case(s, "d");
	assert_int_equal(c->nsteps, 4);
	assert_string_equal(c->steps[3], "link-change t0 vxlan ttl=9");
	assert_string_equal(c->expect, "errno EPERM");
	assert_int_equal(s->nprobe, 2);
	kb_cases_free(cases);
}

/* The guest's file: its suites only, a line a word list, in order. */
static void test_guest_text(void **state)
{
	struct kb_cases *cases;
	char *text = (char *)1;

	(void)state;
	cases = parse_ok("suites:\n"
			 "  k: {runs: kunit, cases: {a: {proves: A}}}\n"
			 "  g:\n"
			 "    runs: guest\n"
			 "    probe: [xfs, crc7]\n"
			 "    cases:\n"
			 "      c: {proves: C, steps: [caps net_admin, ifflags @probe], expect: not-loaded @probe}\n"
			 "      d: {proves: D, expect: nothing-new}\n");
	assert_int_equal(kb_cases_guest_text(&text, cases), 0);
	assert_string_equal(text, "# kbackport guest cases\n"
				  "suite g\n"
				  "probe xfs crc7\n"
				  "case c\ncaps net_admin\nifflags @probe\nexpect not-loaded @probe\nend\n"
				  "case d\nexpect nothing-new\nend\n");
	free(text);
	kb_cases_free(cases);
	cases = parse_ok("suites:\n  k: {runs: kunit, cases: {a: {proves: A}}}\n");
	assert_int_equal(kb_cases_guest_text(&text, cases), 0);
	assert_string_equal(text, "# kbackport guest cases\n");
	free(text);
	kb_cases_free(cases);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("suites:\n  one:\n    cases:\n      a: {proves: x}\n",
		     "cases.yaml:3:5: suite 'one' does not say where it 'runs' (kunit or guest)");
	expect_error("suites:\n  one:\n    runs: vm\n    cases:\n      a: {proves: x}\n",
		     "cases.yaml:3:11: 'runs' is 'kunit' or 'guest', not 'vm'");
	expect_error("suites:\n  one:\n    runs: guest\n    cases:\n      a: {detects: [X]}\n",
		     "cases.yaml:5:10: case 'a' does not say what it 'proves'");
	expect_error("suites:\n  one:\n    runs: guest\n    cases:\n      a: {proves: x, detects: X}\n",
		     "cases.yaml:5:31: 'detects' must be a list of fix ids, not a string");
	expect_error("suites:\n  one:\n    runs: guest\n    cases:\n"
		     "      a: {proves: x}\n      a: {proves: y}\n",
		     "cases.yaml:6:7: duplicate key 'a' (first at line 5)");
	expect_error("suites:\n  one:\n    runs: guest\n",
		     "cases.yaml:3:5: suite 'one' has no 'cases'");
	expect_error("suite: {}\n",
		     "cases.yaml:1:1: unknown key 'suite' in cases file (expected suites)\n"
		     "hint: did you mean 'suites'?");
	/* guest cases are data the guest runs: what it cannot run is refused here */
	expect_error("suites:\n  one:\n    runs: guest\n    cases:\n      a: {proves: x}\n",
		     "cases.yaml:5:10: guest case 'a' does not say what it should 'expect'");
	expect_error("suites:\n  one:\n    cases:\n      a: {proves: x, steps: [caps all], expect: nothing-new}\n"
		     "    runs: kunit\n",
		     "cases.yaml:4:10: KUnit case 'a': 'steps' and 'expect' are for guest cases "
		     "(a KUnit case is C in the suite's source)");
	expect_error("suites:\n  one:\n    runs: guest\n    cases:\n"
		     "      a: {proves: x, steps: [reboot now], expect: nothing-new}\n",
		     "cases.yaml:5:30: step 'reboot now': no such step");
	expect_error("suites:\n  one:\n    runs: guest\n    cases:\n"
		     "      a: {proves: x, steps: [caps], expect: nothing-new}\n",
		     "cases.yaml:5:30: step 'caps': 'caps' takes 1 to 1 words, not 0");
	expect_error("suites:\n  one:\n    runs: guest\n    cases:\n"
		     "      a: {proves: x, steps: [userns], expect: loaded}\n",
		     "cases.yaml:5:47: expectation 'loaded': 'loaded' takes 1 to 1 words, not 0");
	expect_error("suites:\n  one:\n    runs: guest\n    cases:\n"
		     "      a: {proves: x, steps: [\"caps\\tall\"], expect: nothing-new}\n",
		     "cases.yaml:5:30: step 'caps\tall': only printable words, separated by spaces");
}

/* The project's own declarations: both suites, what detects the CVE. */
static void test_project_cases(void **state)
{
	struct kb_cases *cases = NULL;
	const struct kb_suite_decl *kunit, *caps;
	size_t i, detecting = 0;

	(void)state;
	assert_int_equal(kb_cases_load(&cases, "backports/CVE-2011-1019/tests/cases.yaml"), 0);
	kunit = kb_cases_suite(cases, "kbackport_dev_load");
	caps = kb_cases_suite(cases, "kbackport_caps");
	assert_non_null(kunit);
	assert_non_null(caps);
	assert_int_equal(kunit->runs, KB_RUNS_KUNIT);
	assert_int_equal(caps->runs, KB_RUNS_GUEST);
	assert_int_equal(kunit->ncases, 6);
	assert_int_equal(caps->ncases, 6);
	for (i = 0; i < kunit->ncases; i++)
		detecting += kb_case_detects(&kunit->cases[i], "CVE-2011-1019");
	assert_int_equal(detecting, 3);
	assert_true(kb_case_detects(kb_suite_case(caps, "net_admin_ifflags_module_not_loaded"),
				    "CVE-2011-1019"));
	assert_false(kb_case_detects(kb_suite_case(caps, "all_caps_ifflags_module_loads_it"),
				     "CVE-2011-1019"));
	kb_cases_free(cases);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_guest_text),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_project_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
