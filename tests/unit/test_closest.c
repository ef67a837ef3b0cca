/*
 * Did you mean ...? (kb_closest): the closest word when one is close
 * enough, by edit distance with a swap of two letters as one edit and a
 * prefix as one; nothing when none is; empty words and NULL candidates.
 */
#include "unit.h"

#include "util/closest.h"

static const char *const keys[] = { "repo", "mail", "branches" };
static const char *const opts[] = { "--branch", "--config", "--fix", "--dry-run", "--json" };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_close_words(void **state)
{
	(void)state;
	assert_string_equal(kb_closest("brnaches", keys, N(keys)), "branches");	/* a swap */
	assert_string_equal(kb_closest("branch", keys, N(keys)), "branches");	/* a prefix */
	assert_string_equal(kb_closest("rep", keys, N(keys)), "repo");
	assert_string_equal(kb_closest("mial", keys, N(keys)), "mail");
	assert_string_equal(kb_closest("--brnach", opts, N(opts)), "--branch");
	assert_string_equal(kb_closest("--confg", opts, N(opts)), "--config");
	assert_string_equal(kb_closest("--dryrun", opts, N(opts)), "--dry-run");
}

static void test_nothing_close(void **state)
{
	(void)state;
	assert_null(kb_closest("frobnicate", keys, N(keys)));
	assert_null(kb_closest("zzz", keys, N(keys)));
	/* short words allow one edit only */
	assert_null(kb_closest("rpx", keys, N(keys)));
	assert_null(kb_closest("rxpxq", keys, N(keys)));
	assert_null(kb_closest("", keys, N(keys)));
	assert_null(kb_closest("repo", keys, 0));
}

static void test_null_candidates(void **state)
{
	const char *const some[] = { NULL, "variant", NULL };

	(void)state;
	assert_string_equal(kb_closest("varaint", some, N(some)), "variant");
	assert_null(kb_closest("x", some, N(some)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_close_words),
		cmocka_unit_test(test_nothing_close),
		cmocka_unit_test(test_null_candidates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
