/*
 * The build stage's pure parts: the fragment check, skipped lanes, and a
 * lane whose overlay cannot be added (it fails before make). The
 * orchestration (checkout, cache, copies, make, the overlay's trees) runs on
 * a fake kernel tree in tests/integration/t_build.sh, and on a real kernel
 * in `make bench`.
 */
#include "unit.h"
#include "repo_fixture.h"

#include "kbuild/build.h"

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

/* A tree without net/Makefile: the lane fails, naming why, and nothing is built. */
static void test_overlay_that_does_not_fit(void **state)
{
	struct repo_fixture f;
	struct kb_branch branch = { .name = (char *)"6.1.y", .arch = (char *)"x86_64",
				    .build = true };
	struct kb_lane lane = { .kind = KB_LANE_AS_IS, .ref = (char *)"linux-6.1.y" };
	struct kb_build_opts opts;
	struct kb_build_result r;
	char workdir[128], frag_path[160];
	const struct kb_overlay_dir suite = { "CVE_2011_1019",
					      "backports/CVE-2011-1019/tests/kunit" };
	git_tree *tree;
	FILE *fp;

	(void)state;
	repo_fixture_init(&f);
	tree = era_tree(&f, "2.6.37");
	git_oid_cpy(&lane.tree, git_tree_id(tree));
	snprintf(workdir, sizeof(workdir), "%s/work", f.dir);
	snprintf(frag_path, sizeof(frag_path), "%s/frag.config", f.dir);
	assert_non_null(fp = fopen(frag_path, "w"));
	fputs("CONFIG_KUNIT=y\n", fp);
	fclose(fp);
	kb_build_opts_init(&opts);
	assert_null(opts.overlays);
	opts.workdir = workdir;
	opts.fragment = frag_path;
	opts.overlays = &suite;
	opts.noverlays = 1;

	assert_int_equal(kb_build_lane(&r, f.repo, &branch, &lane, &opts), 0);
	assert_int_equal(r.status, KB_BUILD_FAIL);
	assert_non_null(strstr(r.reason, "has no 'net/Makefile' to build the overlay"));
	assert_true(git_oid_equal(&r.tree, git_tree_id(tree)));
	assert_true(git_oid_is_zero(&r.built_tree));
	assert_null(r.build_dir);
	kb_build_result_release(&r);
	git_tree_free(tree);
	repo_fixture_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_survived),
		cmocka_unit_test(test_dropped_and_changed),
		cmocka_unit_test(test_skipped_with_reason),
		cmocka_unit_test(test_overlay_that_does_not_fit),
	};
	int rc;

	git_libgit2_init();
	rc = sandbox_run_group_tests_name("build", tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
