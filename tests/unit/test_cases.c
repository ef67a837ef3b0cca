/* tests/cases.yaml loading, and the real file's declarations. */
#include "unit.h"

#include "cases.h"
#include "error.h"

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
			 "    runs: guest\n"
			 "    modules: [xfs, sit]\n"
			 "    cases:\n"
			 "      c: {proves: \"C\"}\n");
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
		     "cases.yaml:1:1: unknown key 'suite' in cases file (expected suites)");
}

/* The project's own declarations: both suites, what detects the CVE. */
static void test_project_cases(void **state)
{
	struct kb_cases *cases = NULL;
	const struct kb_suite_decl *kunit, *caps;
	size_t i, detecting = 0;

	(void)state;
	assert_int_equal(kb_cases_load(&cases, "tests/cases.yaml"), 0);
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
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_project_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
