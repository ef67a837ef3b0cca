/* Variant choice and detection (detect.c) on the era fixture trees. */
#include "unit.h"
#include "repo_fixture.h"

#include "apply/detect.h"
#include "util/error.h"

struct state {
	struct repo_fixture f;
	struct kb_fix *fix;
};

static int setup(void **st)
{
	struct state *s = calloc(1, sizeof(*s));

	git_libgit2_init();
	repo_fixture_init(&s->f);
	if (kb_fix_load(&s->fix, "backports/CVE-2011-1019") < 0)
		fail_msg("%s", kb_error_last());
	*st = s;
	return 0;
}

static int teardown(void **st)
{
	struct state *s = *st;

	kb_fix_free(s->fix);
	repo_fixture_release(&s->f);
	free(s);
	git_libgit2_shutdown();
	return 0;
}

/* The names of the variants whose conditions hold, space-separated. */
static void fitting(char *out, size_t size, struct state *s, const char *era)
{
	git_tree *tree = era_tree(&s->f, era);
	struct kb_source *src;
	size_t i;
	bool fits;

	out[0] = '\0';
	assert_int_equal(kb_source_new(&src, s->f.repo, tree), 0);
	for (i = 0; i < s->fix->nvariants; i++) {
		assert_int_equal(kb_variant_fits(&fits, NULL, src, &s->fix->variants[i]), 0);
		if (fits)
			snprintf(out + strlen(out), size - strlen(out), "%s%s",
				 *out ? " " : "", s->fix->variants[i].name);
	}
	kb_source_free(src);
	git_tree_free(tree);
}

static void test_each_era_fits_exactly_one_variant(void **st)
{
	static const char *const cases[][2] = {
		{ "2.6.31", "2.6.32" },	/* not affected, but shaped like 2.6.32 */
		{ "2.6.32", "2.6.32" },
		{ "2.6.35", "2.6.33" },
		{ "2.6.37", "upstream" },
		/* both hold: the first that applies wins, 3.9 (as 4.19 has it) */
		{ "4.19", "3.9 3.9-pr_warn" },
		{ "vendor-conflict", "" },
	};
	char names[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fitting(names, sizeof(names), *st, cases[i][0]);
		assert_string_equal(names, cases[i][1]);
	}
}

static void test_first_failed_condition(void **st)
{
	struct state *s = *st;
	git_tree *tree = era_tree(&s->f, "2.6.32");
	const struct kb_cond *failed;
	struct kb_source *src;
	char *text;
	bool fits;

	assert_int_equal(kb_source_new(&src, s->f.repo, tree), 0);
	assert_int_equal(kb_variant_fits(&fits, &failed, src, kb_fix_variant(s->fix, "upstream")), 0);
	assert_false(fits);
	text = kb_cond_describe(failed);
	assert_string_equal(text, "net/core/dev.c contains 'dev = dev_get_by_name_rcu(net, name);'");
	free(text);
	assert_int_equal(kb_variant_fits(&fits, &failed, src, kb_fix_variant(s->fix, "2.6.32")), 0);
	assert_true(fits);
	assert_null(failed);
	text = kb_cond_describe(&kb_fix_variant(s->fix, "2.6.32")->when[0]);
	assert_string_equal(text, "net/core/dev.c contains 'read_lock(&dev_base_lock);\\ndev = __dev_get_by_name(net, name);'");
	free(text);
	kb_source_free(src);
	git_tree_free(tree);
}

static void detect(struct state *s, const char *era, const char **applied,
		   const char **vulnerable)
{
	git_tree *tree = era_tree(&s->f, era);
	const struct kb_variant *v;
	struct kb_source *src;

	assert_int_equal(kb_source_new(&src, s->f.repo, tree), 0);
	assert_int_equal(kb_detect_applied(&v, src, s->fix), 0);
	*applied = v ? v->name : NULL;
	assert_int_equal(kb_detect_vulnerable(vulnerable, src, s->fix), 0);
	kb_source_free(src);
	git_tree_free(tree);
}

static void test_detection(void **st)
{
	const char *applied, *vulnerable;

	detect(*st, "2.6.31", &applied, &vulnerable);
	assert_null(applied);
	assert_null(vulnerable);
	detect(*st, "2.6.32", &applied, &vulnerable);
	assert_null(applied);
	assert_string_equal(vulnerable, "net/core/dev.c");
	detect(*st, "4.19", &applied, &vulnerable);
	assert_null(applied);
	assert_string_equal(vulnerable, "net/core/dev_ioctl.c");
	/* whitespace drift, a missing blank line, the macro elsewhere */
	detect(*st, "vendor-fixed", &applied, &vulnerable);
	assert_string_equal(applied, "2.6.32");
	assert_null(vulnerable);
	detect(*st, "vendor-conflict", &applied, &vulnerable);
	assert_null(applied);
	assert_string_equal(vulnerable, "net/core/dev.c");
}

static void test_expected_trees_count_as_applied(void **st)
{
	/* each era's expected result, overlaid on its tree, is "already in" */
	static const char *const cases[][2] = {
		{ "2.6.32", "2.6.32" }, { "2.6.35", "2.6.33" },
		{ "2.6.37", "upstream" }, { "4.19", "3.9" },
	};
	struct state *s = *st;
	char root[256], exp[256];
	const struct kb_variant *v;
	struct kb_source *src;
	git_index *index;
	git_tree *tree;
	git_oid id;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(root, sizeof(root), "tests/fixtures/eras/%s/tree", cases[i][0]);
		snprintf(exp, sizeof(exp), "tests/fixtures/eras/%s/expected", cases[i][0]);
		assert_int_equal(git_index_new(&index), 0);
		add_dir(s->f.repo, index, root, "");
		add_dir(s->f.repo, index, exp, "");
		assert_int_equal(git_index_write_tree_to(&id, index, s->f.repo), 0);
		git_index_free(index);
		assert_int_equal(git_tree_lookup(&tree, s->f.repo, &id), 0);
		assert_int_equal(kb_source_new(&src, s->f.repo, tree), 0);
		assert_int_equal(kb_detect_applied(&v, src, s->fix), 0);
		if (!v)
			fail_msg("%s: no variant found", cases[i][0]);
		assert_string_equal(v->name, cases[i][1]);
		kb_source_free(src);
		git_tree_free(tree);
	}
}

static void test_source_errors(void **st)
{
	struct state *s = *st;
	git_tree *tree = era_tree(&s->f, "2.6.32");
	struct kb_source *src;
	const char *buf;
	size_t len;

	assert_int_equal(kb_source_new(&src, s->f.repo, tree), 0);
	assert_int_equal(kb_source_read(&buf, &len, src, "no/such/file.c"), KB_ENOTFOUND);
	assert_string_equal(kb_error_last(), "no file 'no/such/file.c' in the tree");
	/* a second read replays the same answer from the cache */
	kb_error_clear();
	assert_int_equal(kb_source_read(&buf, &len, src, "no/such/file.c"), KB_ENOTFOUND);
	assert_string_equal(kb_error_last(), "no file 'no/such/file.c' in the tree");
	assert_int_equal(kb_source_read(&buf, &len, src, "net"), KB_EINVALID);
	assert_string_equal(kb_error_last(), "'net' is not a regular file (mode 040000)");
	assert_int_equal(kb_source_read(&buf, &len, src, "Makefile"), 0);
	assert_int_equal(strncmp(buf, "VERSION = 2\n", 12), 0);
	kb_source_free(src);
	git_tree_free(tree);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_each_era_fits_exactly_one_variant, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_failed_condition, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expected_trees_count_as_applied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_source_errors, setup, teardown),
	};
	return sandbox_run_group_tests_name("detect", tests, NULL, NULL);
}
