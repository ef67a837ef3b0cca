/*
 * kb_dir_read(): a directory's entries once, sorted, without "." and "..";
 * hidden names left out on request; a missing or unreadable directory an
 * error or nothing, as the caller asks.
 */
#include "unit.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dir.h"
#include "util/error.h"
#include "sandbox.h"

static void test_sorted_without_dots(void **state)
{
	struct sandbox *sb = *state;
	struct kb_dir d = KB_DIR_INIT;

	write_file(sb, "d/zeta", "z");
	write_file(sb, "d/alpha", "a");
	write_file(sb, "d/.hidden", "h");
	write_file(sb, "d/mid/inner", "a directory is an entry");
	write_file(sb, "d/Beta", "capitals sort first (strcmp)");

	assert_int_equal(kb_dir_read(&d, sb_path(sb, "d"), 0), 0);
	assert_int_equal(d.n, 5);
	assert_string_equal(d.names[0], ".hidden");
	assert_string_equal(d.names[1], "Beta");
	assert_string_equal(d.names[2], "alpha");
	assert_string_equal(d.names[3], "mid");
	assert_string_equal(d.names[4], "zeta");
	kb_dir_release(&d);
	assert_null(d.names);
	assert_int_equal(d.n, 0);

	assert_int_equal(kb_dir_read(&d, sb_path(sb, "d"), KB_DIR_NO_HIDDEN), 0);
	assert_int_equal(d.n, 4);
	assert_string_equal(d.names[0], "Beta");
	kb_dir_release(&d);
}

static void test_empty(void **state)
{
	struct sandbox *sb = *state;
	struct kb_dir d = KB_DIR_INIT;

	assert_int_equal(mkdir(sb_path(sb, "empty"), 0755), 0);
	assert_int_equal(kb_dir_read(&d, sb_path(sb, "empty"), 0), 0);
	assert_int_equal(d.n, 0);
	kb_dir_release(&d);
}

static void test_many(void **state)
{
	struct sandbox *sb = *state;
	struct kb_dir d = KB_DIR_INIT;
	char name[32];
	int i;

	/* more than one growth of the list */
	for (i = 99; i >= 0; i--) {
		snprintf(name, sizeof(name), "many/f%03d", i);
		write_file(sb, name, "");
	}
	assert_int_equal(kb_dir_read(&d, sb_path(sb, "many"), 0), 0);
	assert_int_equal(d.n, 100);
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "f%03d", i);
		assert_string_equal(d.names[i], name);
	}
	kb_dir_release(&d);
}

static void test_missing(void **state)
{
	struct sandbox *sb = *state;
	struct kb_dir d = KB_DIR_INIT;
	char want[700];

	assert_int_equal(kb_dir_read(&d, sb_path(sb, "none"), 0), KB_ENOTFOUND);
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof(want), "cannot read '%s': No such file or directory",
		 sb_path(sb, "none"));
	assert_string_equal(kb_error_last(), want);
	assert_int_equal(d.n, 0);
	kb_dir_release(&d);

	kb_error_clear();
	assert_int_equal(kb_dir_read(&d, sb_path(sb, "none"), KB_DIR_MISSING_OK), 0);
	assert_int_equal(d.n, 0);
	assert_null(d.names);
	assert_int_equal(kb_dir_read(&d, sb_path(sb, "none"), KB_DIR_UNREADABLE_OK), 0);
	assert_int_equal(d.n, 0);
	kb_dir_release(&d);
}

static void test_not_a_directory(void **state)
{
	struct sandbox *sb = *state;
	struct kb_dir d = KB_DIR_INIT;
	char want[700];

	write_file(sb, "file", "not a directory");
	/* missing is only ENOENT: a file in the way stays an error */
	assert_int_equal(kb_dir_read(&d, sb_path(sb, "file"), KB_DIR_MISSING_OK), KB_ERROR);
	assert_int_equal(errno, ENOTDIR);
	snprintf(want, sizeof(want), "cannot read '%s': Not a directory", sb_path(sb, "file"));
	assert_string_equal(kb_error_last(), want);
	kb_dir_release(&d);

	assert_int_equal(kb_dir_read(&d, sb_path(sb, "file"), KB_DIR_UNREADABLE_OK), 0);
	assert_int_equal(d.n, 0);
	kb_dir_release(&d);
}

static int setup(void **state)
{
	return (*state = sandbox_new()) ? 0 : -1;
}

static int teardown(void **state)
{
	sandbox_free(*state);
	kb_error_clear();
	return 0;
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SANDBOXED(test_sorted_without_dots),
		SANDBOXED(test_empty),
		SANDBOXED(test_many),
		SANDBOXED(test_missing),
		SANDBOXED(test_not_a_directory),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
