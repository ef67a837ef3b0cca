/*
 * The last error (error.h): a message set with its code returned, libgit2's
 * message appended, a prefix added going up, and out of memory said one
 * way (kb_error_oom, KB_ERROR_CHECK_ALLOC) without allocating.
 */
#include "unit.h"

#include "util/error.h"

static void test_set_and_prefix(void **state)
{
	(void)state;
	kb_error_clear();
	assert_string_equal(kb_error_last(), "unknown error");
	assert_int_equal(kb_error_set(KB_EINVALID, "bad %s", "input"), KB_EINVALID);
	assert_string_equal(kb_error_last(), "bad input");
	assert_int_equal(kb_error_prefix(KB_EINVALID, "fix '%s'", "x"), KB_EINVALID);
	assert_string_equal(kb_error_last(), "fix 'x': bad input");
}

static int copy_of(char **out, const char *s)
{
	*out = s ? strdup(s) : NULL;
	KB_ERROR_CHECK_ALLOC(*out);
	return 0;
}

static void test_out_of_memory(void **state)
{
	char *p = NULL;

	(void)state;
	kb_error_set(KB_ERROR, "an earlier error");
	assert_int_equal(kb_error_oom(), KB_ENOMEM);
	assert_string_equal(kb_error_last(), "out of memory");

	kb_error_clear();
	assert_int_equal(copy_of(&p, "text"), 0);
	assert_string_equal(p, "text");
	assert_string_equal(kb_error_last(), "unknown error");
	free(p);
	/* a NULL pointer returns KB_ENOMEM from the caller, said */
	assert_int_equal(copy_of(&p, NULL), KB_ENOMEM);
	assert_null(p);
	assert_string_equal(kb_error_last(), "out of memory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_and_prefix),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
