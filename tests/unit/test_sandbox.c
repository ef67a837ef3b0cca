/*
 * The unit-test sandbox itself: a passing program's directories are
 * removed, those of a program with a failing or crashing test are kept and
 * named. The tests that fail run in a child (this program again, with the
 * test's name as argument), whose output the parent reads.
 */
#include "unit.h"

#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

static const char *self;

/* ---- the child's tests, each says its directory on stdout ---- */

static void say_dir(struct sandbox *sb)
{
	write_file(sb, "sub/file", "content\n");
	printf("dir %s\n", sb->dir);
	fflush(stdout);
}

static void child_passes(void **state)
{
	say_dir(*state);
}

static void child_fails(void **state)
{
	say_dir(*state);
	assert_int_equal(1, 2);
}

static void child_crashes(void **state)
{
	say_dir(*state);
	raise(SIGSEGV);
}

static int run_child(const char *name)
{
	struct CMUnitTest test = cmocka_unit_test_setup_teardown(child_passes, sandbox_setup,
								   sandbox_teardown);

	if (!strcmp(name, "fails"))
		test.test_func = child_fails;
	else if (!strcmp(name, "crashes"))
		test.test_func = child_crashes;
	return sandbox_finish(_cmocka_run_group_tests(name, &test, 1, NULL, NULL));
}

/* ---- the parent ---- */

/*
 * Run this program on the child test `name`: the directory its test used,
 * and the program's directory it said it kept ("" when none).
 */
static void child_dir(char *dir, char *kept, size_t size, const char *name)
{
	char cmd[1024], line[600];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", self, name);
	assert_non_null(p = popen(cmd, "r"));
	dir[0] = kept[0] = '\0';
	while (fgets(line, sizeof(line), p))
		if (!strncmp(line, "dir ", 4))
			snprintf(dir, size, "%.*s", (int)strcspn(line + 4, "\n"), line + 4);
		else if (!strncmp(line, "# kept ", 7))
			snprintf(kept, size, "%.*s", (int)strcspn(line + 7, "\n"), line + 7);
	pclose(p);
	assert_true(dir[0] != '\0');
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void expect_kept(const char *name)
{
	char dir[600], kept[600], file[700];

	child_dir(dir, kept, sizeof(dir), name);
	snprintf(file, sizeof(file), "%s/sub/file", dir);
	assert_true(is_dir(dir));
	assert_true(access(file, R_OK) == 0);
	/* the directory named is the one that holds the test's */
	assert_true(kept[0] != '\0');
	assert_true(!strncmp(dir, kept, strlen(kept)) && dir[strlen(kept)] == '/');
	nftw(kept, sandbox_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_passed_test_dir_removed(void **state)
{
	char dir[600], kept[600];

	(void)state;
	child_dir(dir, kept, sizeof(dir), "passes");
	assert_false(is_dir(dir));
	assert_string_equal(kept, "");
}

static void test_failed_test_dir_kept(void **state)
{
	(void)state;
	expect_kept("fails");
}

static void test_crashed_test_dir_kept(void **state)
{
	(void)state;
	expect_kept("crashes");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passed_test_dir_removed),
		cmocka_unit_test(test_failed_test_dir_kept),
		cmocka_unit_test(test_crashed_test_dir_kept),
	};

	self = argv[0];
	if (argc > 1)
		return run_child(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
