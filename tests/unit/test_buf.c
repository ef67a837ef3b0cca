/*
 * The byte buffer (util/buf.h): appends, and the failed state an append
 * that cannot allocate leaves, as libgit2's git_str: later appends add
 * nothing and return the error, kb_buf_check() says it once at the end,
 * detach gives NULL, release frees and starts again.
 */
#include "unit.h"

#include "util/buf.h"
#include "util/error.h"

#include <stdint.h>

/*
 * The failure: an allocation too large to make, 2^62 bytes once doubled
 * (valgrind calls 2^63 and more a negative size). ASan reports one as an
 * error unless told to let malloc return NULL, as the C library does.
 */
#define TOO_BIG (SIZE_MAX / 8)

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static void test_appends(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	char *s;

	(void)state;
	assert_null(b.ptr);
	assert_int_equal(kb_buf_puts(&b, "abc"), 0);
	assert_int_equal(kb_buf_putc(&b, '-'), 0);
	assert_int_equal(kb_buf_put(&b, "xyz", 2), 0);
	assert_int_equal(kb_buf_printf(&b, " %d %s", 42, "end"), 0);
	assert_string_equal(b.ptr, "abc-xy 42 end");
	assert_int_equal(b.size, 13);
	assert_false(kb_buf_oom(&b));
	assert_int_equal(kb_buf_check(&b), 0);

	kb_buf_clear(&b);
	assert_string_equal(b.ptr, "");
	assert_int_equal(b.size, 0);
	assert_int_equal(kb_buf_puts(&b, "again"), 0);
	s = kb_buf_detach(&b);
	assert_string_equal(s, "again");
	assert_null(b.ptr);
	free(s);

	/* an empty buffer detaches as "" */
	s = kb_buf_detach(&b);
	assert_string_equal(s, "");
	free(s);
	kb_buf_release(&b);
}

static void test_growing(void **state)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < 10000; i++)
		kb_buf_putc(&b, (char)('a' + i % 26));
	assert_int_equal(kb_buf_check(&b), 0);
	assert_int_equal(b.size, 10000);
	assert_true(b.asize > b.size);
	assert_int_equal(b.ptr[26], 'a');
	assert_int_equal(b.ptr[10000], '\0');
	kb_buf_release(&b);
}

static void assert_failed(struct kb_buf *b)
{
	assert_true(kb_buf_oom(b));
	assert_non_null(b->ptr);
	assert_string_equal(b->ptr, "");
	assert_int_equal(b->size, 0);
}

static void test_failed_is_sticky(void **state)
{
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_buf_puts(&b, "some text");
	kb_error_clear();
	assert_int_equal(kb_buf_grow(&b, TOO_BIG), KB_ENOMEM);
	assert_string_equal(kb_error_last(), "out of memory");
	assert_failed(&b);

	/* later appends add nothing and return the error */
	kb_error_set(KB_ERROR, "an unrelated error");
	assert_int_equal(kb_buf_puts(&b, "more"), KB_ENOMEM);
	assert_string_equal(kb_error_last(), "out of memory");
	assert_int_equal(kb_buf_putc(&b, 'x'), KB_ENOMEM);
	assert_int_equal(kb_buf_put(&b, "yz", 2), KB_ENOMEM);
	assert_int_equal(kb_buf_printf(&b, "%d", 7), KB_ENOMEM);
	assert_int_equal(kb_buf_grow(&b, 1), KB_ENOMEM);
	assert_failed(&b);

	/* clearing keeps it failed; the one check says so */
	kb_buf_clear(&b);
	assert_failed(&b);
	kb_error_set(KB_ERROR, "an unrelated error");
	assert_int_equal(kb_buf_check(&b), KB_ENOMEM);
	assert_string_equal(kb_error_last(), "out of memory");

	/* detach gives nothing and leaves it failed */
	kb_error_clear();
	assert_null(kb_buf_detach(&b));
	assert_string_equal(kb_error_last(), "out of memory");
	assert_failed(&b);

	/* release frees and starts again */
	kb_buf_release(&b);
	assert_null(b.ptr);
	assert_false(kb_buf_oom(&b));
	assert_int_equal(kb_buf_puts(&b, "fresh"), 0);
	assert_string_equal(b.ptr, "fresh");
	kb_buf_release(&b);
}

/* A length whose size would wrap around fails, it does not write past. */
static void test_overflow(void **state)
{
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	kb_buf_puts(&b, "abc");
	assert_int_equal(kb_buf_grow(&b, SIZE_MAX - 2), KB_ENOMEM);
	assert_failed(&b);
	kb_buf_release(&b);

	/* failing before anything was allocated */
	assert_int_equal(kb_buf_grow(&b, SIZE_MAX), KB_ENOMEM);
	assert_failed(&b);
	assert_int_equal(kb_buf_check(&b), KB_ENOMEM);
	kb_buf_release(&b);
	assert_null(b.ptr);
}

/* The writer's pattern: append unchecked, check once. */
static int write_lines(struct kb_buf *out, size_t huge)
{
	kb_buf_puts(out, "first\n");
	kb_buf_grow(out, huge);
	kb_buf_printf(out, "%s\n", "second");
	return kb_buf_check(out);
}

static void test_check_once(void **state)
{
	struct kb_buf b = KB_BUF_INIT;

	(void)state;
	assert_int_equal(write_lines(&b, 0), 0);
	assert_string_equal(b.ptr, "first\nsecond\n");
	kb_buf_release(&b);
	assert_int_equal(write_lines(&b, TOO_BIG), KB_ENOMEM);
	assert_failed(&b);
	kb_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_growing),
		cmocka_unit_test(test_failed_is_sticky),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_check_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
