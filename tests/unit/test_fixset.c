/*
 * The fixes a command works on (kb_fix_set_load): the default set under
 * backports/ beside the config, --fix paths in order (a fix directory, a
 * directory of fixes, a patch file), one id given twice, and a variant of
 * branches.yaml for a fix that is none: exact errors, nothing returned.
 */
#include "unit.h"

#include <stdio.h>

#include "config.h"
#include "util/error.h"
#include "fixset.h"
#include "sandbox.h"
#include "fix_fixture.h"

struct state {
	struct sandbox sb;
	struct kb_config *config;
};

static int setup(void **state)
{
	struct state *s = calloc(1, sizeof(*s));

	if (!s || sandbox_init(&s->sb) < 0) {
		free(s);
		return -1;
	}
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct state *s = *state;

	kb_config_free(s->config);
	sandbox_release(&s->sb);
	free(s);
	return 0;
}

/* `rel` under the sandbox, in `buf` (512 bytes) */
static const char *at(struct state *s, const char *rel, char *buf)
{
	assert_true((size_t)snprintf(buf, 512, "%s/%s", s->sb.dir, rel) < 512);
	return buf;
}

static void load_config(struct state *s, const char *yaml)
{
	char path[512];

	write_file(&s->sb, "branches.yaml", yaml);
	assert_int_equal(kb_config_load(&s->config, at(s, "branches.yaml", path)), 0);
}

/* The ids kb_fix_set_load() gives for `dirs`, space-separated, in `out`. */
static int ids(char *out, size_t size, struct state *s, const char *const *dirs, size_t ndirs)
{
	struct kb_fix **fixes = NULL;
	size_t n = 0, i, at = 0;
	int err = kb_fix_set_load(&fixes, &n, dirs, ndirs, s->config);

	out[0] = '\0';
	if (err < 0) {
		assert_null(fixes);
		assert_int_equal(n, 0);
		return err;
	}
	assert_null(fixes[n]);
	for (i = 0; i < n; i++)
		at += (size_t)snprintf(out + at, size - at, "%s%s", i ? " " : "", fixes[i]->id);
	kb_fix_free_all(fixes, n);
	return 0;
}

static void test_default_and_given(void **state)
{
	struct state *s = *state;
	char got[256], d1[512], d2[512], p[512];
	const char *dirs[3];

	make_fix(&s->sb, "backports/CVE-2011-0001", "CVE-2011-0001");
	make_fix(&s->sb, "backports/CVE-2011-0002", "CVE-2011-0002");
	make_fix(&s->sb, "elsewhere/family/one", "one");
	make_fix(&s->sb, "elsewhere/family/two", "two");
	write_file(&s->sb, "one-off.patch", patch_text);
	load_config(s, "repo: r\nbranches:\n  - {name: a, ref: a}\n");

	assert_int_equal(ids(got, sizeof(got), s, NULL, 0), 0);
	assert_string_equal(got, "CVE-2011-0001 CVE-2011-0002");

	/* a fix directory, a directory of fixes, a patch file: in that order */
	dirs[0] = at(s, "backports/CVE-2011-0002", d1);
	dirs[1] = at(s, "elsewhere/family", d2);
	dirs[2] = at(s, "one-off.patch", p);
	assert_int_equal(ids(got, sizeof(got), s, dirs, 3), 0);
	assert_string_equal(got, "CVE-2011-0002 one two net-a-fix");
}

static void test_one_id_twice(void **state)
{
	struct state *s = *state;
	char got[256], d1[512], d2[512], want[1200];
	const char *dirs[2];

	make_fix(&s->sb, "backports/CVE-2011-0001", "CVE-2011-0001");
	make_fix(&s->sb, "copy/CVE-2011-0001", "CVE-2011-0001");
	load_config(s, "repo: r\nbranches:\n  - {name: a, ref: a}\n");
	dirs[0] = at(s, "backports/CVE-2011-0001", d1);
	dirs[1] = at(s, "copy/CVE-2011-0001", d2);
	assert_int_equal(ids(got, sizeof(got), s, dirs, 2), KB_EINVALID);
	snprintf(want, sizeof(want), "fix 'CVE-2011-0001' is given twice: '%s' and '%s'", d1, d2);
	assert_string_equal(kb_error_last(), want);
}

static void test_variant_for_no_fix(void **state)
{
	struct state *s = *state;
	char got[256], want[1200], d1[512], yaml[512];
	const char *dirs[1];

	make_fix(&s->sb, "backports/CVE-2011-0001", "CVE-2011-0001");
	make_fix(&s->sb, "backports/CVE-2011-0002", "CVE-2011-0002");
	load_config(s, "repo: r\nbranches:\n  - name: a\n    ref: a\n"
		       "    variant: {CVE-2011-0009: x}\n");
	assert_int_equal(ids(got, sizeof(got), s, NULL, 0), KB_EINVALID);
	snprintf(want, sizeof(want), "%s:5:15: variant for unknown fix 'CVE-2011-0009' "
		 "(fixes here: CVE-2011-0001, CVE-2011-0002)", at(s, "branches.yaml", yaml));
	assert_string_equal(kb_error_last(), want);
	kb_config_free(s->config);
	s->config = NULL;

	/* a fix beside the one given, or under backports/, is known */
	load_config(s, "repo: r\nbranches:\n  - name: a\n    ref: a\n"
		       "    variant: {CVE-2011-0002: x}\n");
	dirs[0] = at(s, "backports/CVE-2011-0001", d1);
	assert_int_equal(ids(got, sizeof(got), s, dirs, 1), 0);
	assert_string_equal(got, "CVE-2011-0001");
}

static void test_missing_dir(void **state)
{
	struct state *s = *state;
	char got[256], d1[512];
	const char *dirs[1];

	load_config(s, "repo: r\nbranches:\n  - {name: a, ref: a}\n");
	dirs[0] = at(s, "nowhere", d1);
	assert_true(ids(got, sizeof(got), s, dirs, 1) < 0);
	assert_non_null(strstr(kb_error_last(), "nowhere"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_and_given, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_id_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_variant_for_no_fix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_dir, setup, teardown),
	};
	return sandbox_run_group_tests(tests, NULL, NULL);
}
