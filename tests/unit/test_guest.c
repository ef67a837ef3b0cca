/* The guest program's compile-once cache, with the real compiler. */
#include "unit.h"

#include <libgen.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "util/error.h"
#include "boot/guest.h"
#include "sandbox.h"

static int setup(void **state)
{
	return (*state = sandbox_new()) ? 0 : -1;
}

static int teardown(void **state)
{
	sandbox_free(*state);
	return 0;
}

static void test_guest_program_cached(void **state)
{
	struct sandbox *sb = *state;
	char *path = NULL, *again = NULL, source[512];
	struct stat st1, st2;

	write_file(sb, "guest.c", "int main(void) { return 0; }\n");
	snprintf(source, sizeof(source), "%s/guest.c", sb->dir);
	assert_int_equal(kb_guest_program(&path, source, sb->dir), 0);
	assert_non_null(strstr(path, "/guest/"));
	assert_int_equal(strlen(strrchr(path, '/')), strlen("/kbackport-guest"));
	assert_int_equal(access(path, X_OK), 0);
	assert_int_equal(stat(path, &st1), 0);
	assert_int_equal(kb_guest_program(&again, source, sb->dir), 0);
	assert_string_equal(path, again);
	assert_int_equal(stat(again, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);	/* reused, not rebuilt */
	free(again);

	/* another source, another key */
	write_file(sb, "guest.c", "int main(void) { return 1; }\n");
	assert_int_equal(kb_guest_program(&again, source, sb->dir), 0);
	assert_string_not_equal(path, again);
	assert_false(has_temporary(strrchr(again, '/') ? dirname(again) : again));
	free(path);
	free(again);
}

static void test_guest_program_error(void **state)
{
	struct sandbox *sb = *state;
	char *path = (char *)"sentinel", source[512];

	write_file(sb, "guest.c", "int main(void) { return no_such_symbol; }\n");
	snprintf(source, sizeof(source), "%s/guest.c", sb->dir);
	assert_true(kb_guest_program(&path, source, sb->dir) < 0);
	assert_null(path);
	assert_non_null(strstr(kb_error_last(), "cannot compile"));
	assert_non_null(strstr(kb_error_last(), "no_such_symbol"));
}

static int group_setup(void **state)
{
	(void)state;
	return git_libgit2_init() < 0 ? -1 : 0;
}

static int group_teardown(void **state)
{
	(void)state;
	git_libgit2_shutdown();
	return 0;
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SANDBOXED(test_guest_program_cached),
		SANDBOXED(test_guest_program_error),
	};

	return sandbox_run_group_tests(tests, group_setup, group_teardown);
}
