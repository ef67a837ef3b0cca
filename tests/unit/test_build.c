/*
 * The build stage's pure parts: the fragment check and skipped lanes. The
 * orchestration (checkout, cache, copies, make) runs on a fake kernel tree in
 * tests/integration/t_build.sh, and on a real kernel in `make bench`.
 */
#include "unit.h"

#include "build.h"

static const char fragment[] =
	"# the test fragment\n"
	"CONFIG_64BIT=y\n"
	"\n"
	"CONFIG_XFS_FS=m\n"
	"CONFIG_CMDLINE=\"console=ttyS0\"\n"
	"# CONFIG_WERROR is not set\n"
	"CONFIG_KUNIT=y   \n";

static void test_all_survived(void **state)
{
	const char config[] =
		"CONFIG_64BIT=y\n"
		"CONFIG_XFS_FS=m\n"
		"CONFIG_XFS_FS_EXTRA=y\n"
		"CONFIG_CMDLINE=\"console=ttyS0\"\n"
		"CONFIG_KUNIT=y\n";
	char *missing = (char *)"sentinel";

	(void)state;
	assert_int_equal(kb_build_check_config(&missing, fragment, config), 0);
	assert_null(missing);
}

static void test_dropped_and_changed(void **state)
{
	const char config[] =
		"CONFIG_64BIT=y\n"
		"CONFIG_XFS_FS_EXTRA=m\n"	/* a prefix is not the option */
		"# CONFIG_KUNIT is not set\n"
		"CONFIG_CMDLINE=\"\"\n"
		"CONFIG_WERROR=y\n";
	char *missing = NULL;

	(void)state;
	assert_int_equal(kb_build_check_config(&missing, fragment, config), 0);
	assert_string_equal(missing,
			    "CONFIG_XFS_FS=m (got: not set)\n"
			    "CONFIG_CMDLINE=\"console=ttyS0\" (got: \"\")\n"
			    "CONFIG_WERROR is not set (got: y)\n"
			    "CONFIG_KUNIT=y (got: not set)");
	free(missing);
}

static void test_skipped_with_reason(void **state)
{
	struct kb_branch branch = { .name = (char *)"2.6.32.y", .arch = (char *)"x86_64",
				    .build = false,
				    .build_skip_reason = (char *)"2.6.x trees do not build with gcc 12" };
	struct kb_build_opts opts;
	struct kb_build_result r;

	(void)state;
	kb_build_opts_init(&opts);
	assert_int_equal(kb_build_lane(&r, NULL, &branch, NULL, &opts), 0);
	assert_int_equal(r.status, KB_BUILD_SKIPPED);
	assert_string_equal(kb_build_status_name(r.status), "skipped");
	assert_string_equal(r.reason, "2.6.x trees do not build with gcc 12");
	assert_null(r.build_dir);
	kb_build_result_release(&r);

	branch.build_skip_reason = NULL;
	assert_int_equal(kb_build_lane(&r, NULL, &branch, NULL, &opts), 0);
	assert_string_equal(r.reason, "build: false");
	kb_build_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_survived),
		cmocka_unit_test(test_dropped_and_changed),
		cmocka_unit_test(test_skipped_with_reason),
	};
	return cmocka_run_group_tests_name("build", tests, NULL, NULL);
}
