/* KB_ARRAY_GROW(): room by doubling, nothing done while it fits, a failure
 * leaves the array as it was. */
#include "unit.h"

#include <stdint.h>
#include <stdio.h>

#include "util/array.h"
#include "util/error.h"

struct pair {
	int a;
	double b;
};

static void test_grows_by_doubling(void **state)
{
	struct pair *v = NULL;
	size_t n = 0, alloc = 0;
	void *before;

	(void)state;
	assert_int_equal(KB_ARRAY_GROW(v, alloc, 1), 0);
	assert_non_null(v);
	assert_int_equal(alloc, 8);
	for (n = 0; n < 8; n++)
		v[n].a = (int)n;
	before = v;
	/* it fits: nothing moves */
	assert_int_equal(KB_ARRAY_GROW(v, alloc, 8), 0);
	assert_ptr_equal(v, before);
	assert_int_equal(KB_ARRAY_GROW(v, alloc, 9), 0);
	assert_int_equal(alloc, 16);
	/* a jump: doubled until it fits */
	assert_int_equal(KB_ARRAY_GROW(v, alloc, 100), 0);
	assert_int_equal(alloc, 128);
	for (n = 0; n < 8; n++)
		assert_int_equal(v[n].a, (int)n);
	v[127].b = 1.5;
	free(v);
}

static void test_one_at_a_time(void **state)
{
	char **v = NULL;
	size_t n = 0, alloc = 0, i;
	char *s;

	(void)state;
	for (i = 0; i < 1000; i++) {
		assert_int_equal(KB_ARRAY_GROW(v, alloc, n + 1), 0);
		s = malloc(16);
		assert_non_null(s);
		snprintf(s, 16, "%zu", i);
		v[n++] = s;
	}
	assert_int_equal(alloc, 1024);
	assert_string_equal(v[999], "999");
	while (n)
		free(v[--n]);
	free(v);
}

static void test_overflow(void **state)
{
	int *v = NULL;
	size_t alloc = 0;

	(void)state;
	assert_int_equal(KB_ARRAY_GROW(v, alloc, 4), 0);
	v[3] = 7;
	/* too many to count: out of memory, the array kept */
	assert_int_equal(KB_ARRAY_GROW(v, alloc, SIZE_MAX / 2), KB_ENOMEM);
	assert_string_equal(kb_error_last(), "out of memory");
	assert_int_equal(alloc, 8);
	assert_int_equal(v[3], 7);
	free(v);
	kb_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_by_doubling),
		cmocka_unit_test(test_one_at_a_time),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
