/*
 * kbackport's data table (lib/datafiles.c): every entry is in the source
 * tree, every file a build rule adds is listed beside the rules, and a
 * lookup takes the file beside the branches file, else the data
 * directory's, and names both when neither is there.
 */
#include "unit.h"

#include <stdio.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "kbuild/compat.h"
#include "datafiles.h"
#include "util/error.h"
#include "sandbox.h"

static bool listed(const char *path)
{
	size_t i;

	for (i = 0; i < KB_DATA_COUNT; i++)
		if (!strcmp(kb_data_files[i].path, path))
			return true;
	return false;
}

static void test_table_in_source_tree(void **state)
{
	char path[4096];
	struct stat st;
	size_t i, len;

	(void)state;
	for (i = 0; i < KB_DATA_COUNT; i++) {
		const char *p = kb_data_files[i].path;
		len = strlen(p);
		assert_non_null(kb_data_files[i].what);
		snprintf(path, sizeof(path), "%s/%.*s", KB_DATADIR, (int)(len - (p[len - 1] == '/')), p);
		if (stat(path, &st) < 0)
			fail_msg("'%s' of the table is not in the source tree", p);
		assert_int_equal(!!S_ISDIR(st.st_mode), p[len - 1] == '/');
	}
}

/* What `kb_compat_apply` reads besides the rules: each `add` FILE, beside them. */
static void test_table_has_what_the_rules_add(void **state)
{
	struct kb_compat *c = NULL;
	char rules[4096], added[512];
	size_t r, a, adds = 0;

	(void)state;
	snprintf(rules, sizeof(rules), "%s/%s", KB_DATADIR, kb_data_files[KB_DATA_COMPAT].path);
	assert_int_equal(kb_compat_load(&c, rules), 0);
	for (r = 0; r < c->n; r++)
		for (a = 0; a < c->rules[r].nactions; a++) {
			if (c->rules[r].actions[a].op != KB_COMPAT_ADD)
				continue;
			snprintf(added, sizeof(added), "data/kernel/compat/%s", c->rules[r].actions[a].arg[1]);
			if (!listed(added))
				fail_msg("rule '%s' adds '%s', which the data table does not list",
					 c->rules[r].name, added);
			adds++;
		}
	assert_true(adds > 0);
	kb_compat_free(c);
}

static void expect_path(struct sandbox *sb, enum kb_data_id id, const char *want_rel)
{
	struct kb_buf out = KB_BUF_INIT;
	char config[1024], data[1024];

	snprintf(config, sizeof(config), "%s", sb_path(sb, "config"));
	snprintf(data, sizeof(data), "%s", sb_path(sb, "data"));
	assert_int_equal(kb_data_path(&out, id, config, data), 0);
	assert_string_equal(out.ptr, sb_path(sb, want_rel));
	kb_buf_release(&out);
}

static void test_lookup(void **state)
{
	struct sandbox *sb = *state;
	struct kb_buf out = KB_BUF_INIT;
	char config[1024], data[1024], want[4096];

	write_file(sb, "config/data/guest/guest.c", "beside");
	write_file(sb, "data/data/guest/guest.c", "installed");
	write_file(sb, "data/data/kernel/compat/rules", "installed");
	write_file(sb, "data/backports/X/fix.yaml", "installed");
	write_file(sb, "config/backports", "a file, not the fixes' folder");
	expect_path(sb, KB_DATA_GUEST, "config/data/guest/guest.c");
	expect_path(sb, KB_DATA_COMPAT, "data/data/kernel/compat/rules");
	expect_path(sb, KB_DATA_FIXES, "data/backports");

	snprintf(config, sizeof(config), "%s", sb_path(sb, "config"));
	snprintf(data, sizeof(data), "%s", sb_path(sb, "data"));
	assert_int_equal(kb_data_path(&out, KB_DATA_FRAGMENT, config, data), KB_ENOTFOUND);
	snprintf(want, sizeof(want), "missing data file '%s/data/kernel/kbackport.config' (the common "
		 "config fragment; nor is there '%s/data/kernel/kbackport.config' beside the branches "
		 "file): make install puts it there, KBACKPORT_DATADIR says where it is", data, config);
	assert_string_equal(kb_error_last(), want);
	kb_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_in_source_tree),
		cmocka_unit_test(test_table_has_what_the_rules_add),
		cmocka_unit_test_setup_teardown(test_lookup, sandbox_setup, sandbox_teardown),
	};
	return sandbox_run_group_tests(tests, NULL, NULL);
}
