/*
 * What a command works on (session.h): the config found upward from the
 * current directory (or named, or by $KBACKPORT_CONFIG), a fix id made its
 * directory under backports/, and the branches selected with exact errors,
 * hints and notes.
 */
#include "unit.h"

#include <stdio.h>
#include <unistd.h>

#include "config.h"
#include "error.h"
#include "sandbox.h"
#include "session.h"

struct state {
	struct sandbox sb;
	char *cwd;
};

static int setup(void **state)
{
	struct state *s = calloc(1, sizeof(*s));

	if (!s || sandbox_init(&s->sb) < 0 || !(s->cwd = getcwd(NULL, 0))) {
		free(s);
		return -1;
	}
	unsetenv("KBACKPORT_CONFIG");
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct state *s = *state;

	if (chdir(s->cwd) < 0)
		return -1;
	free(s->cwd);
	unsetenv("KBACKPORT_CONFIG");
	sandbox_release(&s->sb);
	free(s);
	return 0;
}

static const char branches_yaml[] =
	"repo: r\n"
	"branches:\n"
	"  - {name: 2.6.32.y, ref: a}\n"
	"  - {name: 6.1.y, ref: b}\n"
	"  - {name: debian-6.1, kernel: linux-image-amd64}\n";

static const char *at(struct state *s, const char *rel, char *buf)
{
	assert_true((size_t)snprintf(buf, 512, "%s/%s", s->sb.dir, rel) < 512);
	return buf;
}

static void test_config_found_upward(void **state)
{
	struct state *s = *state;
	struct kb_config *config = NULL;
	char path[512], want[1200];

	write_file(&s->sb, "top/branches.yaml", branches_yaml);
	write_file(&s->sb, "top/sub/deeper/.keep", "");
	assert_int_equal(chdir(at(s, "top/sub/deeper", path)), 0);
	assert_int_equal(kb_config_find(&config, NULL), 0);
	assert_string_equal(config->path, at(s, "top/branches.yaml", path));
	kb_config_free(config);

	/* the current directory's keeps its plain name */
	assert_int_equal(chdir(at(s, "top", path)), 0);
	assert_int_equal(kb_config_find(&config, NULL), 0);
	assert_string_equal(config->path, "branches.yaml");
	kb_config_free(config);

	/* $KBACKPORT_CONFIG, then --config, win over the search */
	write_file(&s->sb, "other.yaml", branches_yaml);
	setenv("KBACKPORT_CONFIG", at(s, "other.yaml", path), 1);
	assert_int_equal(kb_config_find(&config, NULL), 0);
	assert_string_equal(config->path, path);
	kb_config_free(config);
	assert_int_equal(kb_config_find(&config, "branches.yaml"), 0);
	assert_string_equal(config->path, "branches.yaml");
	kb_config_free(config);
	unsetenv("KBACKPORT_CONFIG");

	/* none: where it looked, and how to name one */
	write_file(&s->sb, "empty/.keep", "");
	assert_int_equal(chdir(at(s, "empty", path)), 0);
	if (access("/branches.yaml", F_OK) == 0)
		skip();
	assert_int_equal(kb_config_find(&config, NULL), KB_ENOTFOUND);
	assert_null(config);
	snprintf(want, sizeof(want), "no branches.yaml in '%s' nor in any directory above it\n"
		 "hint: name one with --config FILE (or KBACKPORT_CONFIG=FILE)", path);
	assert_string_equal(kb_error_last(), want);
}

static void test_fix_ids(void **state)
{
	struct state *s = *state;
	struct kb_config *config = NULL;
	char path[512], want[1200], *dir = NULL;

	write_file(&s->sb, "top/branches.yaml", branches_yaml);
	write_file(&s->sb, "top/backports/CVE-2011-1019/fix.yaml", "id: CVE-2011-1019\n");
	write_file(&s->sb, "top/backports/family/member-one/fix.yaml", "id: member-one\n");
	write_file(&s->sb, "top/here/.keep", "");
	assert_int_equal(chdir(at(s, "top/here", path)), 0);
	assert_int_equal(kb_config_find(&config, NULL), 0);

	assert_int_equal(kb_fix_resolve(&dir, "CVE-2011-1019", config), 0);
	assert_string_equal(dir, at(s, "top/backports/CVE-2011-1019", path));
	free(dir);
	assert_int_equal(kb_fix_resolve(&dir, "member-one", config), 0);
	assert_string_equal(dir, at(s, "top/backports/family/member-one", path));
	free(dir);
	/* a path is a path: nothing resolved */
	assert_int_equal(kb_fix_resolve(&dir, "../backports/CVE-2011-1019", config), 0);
	assert_null(dir);
	/* an id found nowhere: the closest as a hint */
	assert_int_equal(kb_fix_resolve(&dir, "CVE-2011-1091", config), KB_ENOTFOUND);
	assert_null(dir);
	snprintf(want, sizeof(want), "no fix 'CVE-2011-1091': no such directory, nor a fix id "
		 "under '%s'\nhint: did you mean 'CVE-2011-1019'?", at(s, "top/backports", path));
	assert_string_equal(kb_error_last(), want);
	kb_config_free(config);
}

static void test_branches(void **state)
{
	struct state *s = *state;
	struct kb_config *config = NULL;
	const struct kb_branch **list = NULL;
	const char *one[] = { "6.1.y" }, *kernel[] = { "debian-6.1" }, *typo[] = { "6.1.z" },
		   *far[] = { "nothing-close" };
	char path[512], *notes = NULL;
	size_t n = 0;

	write_file(&s->sb, "branches.yaml", branches_yaml);
	assert_int_equal(kb_config_load(&config, at(s, "branches.yaml", path)), 0);

	assert_int_equal(kb_branches_select(&list, &n, &notes, config, NULL, 0, false), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0]->name, "2.6.32.y");
	assert_string_equal(list[1]->name, "6.1.y");
	assert_null(list[2]);
	assert_null(notes);
	free(list);

	assert_int_equal(kb_branches_select(&list, &n, &notes, config, NULL, 0, true), 0);
	assert_int_equal(n, 3);
	free(list);

	assert_int_equal(kb_branches_select(&list, &n, &notes, config, one, 1, false), 0);
	assert_int_equal(n, 1);
	assert_string_equal(list[0]->name, "6.1.y");
	free(list);

	/* a kernel branch named where it has nothing to do: a note, not an error */
	assert_int_equal(kb_branches_select(&list, &n, &notes, config, kernel, 1, false), 0);
	assert_int_equal(n, 0);
	assert_string_equal(notes, "note: branch 'debian-6.1' is the kernel package "
			    "'linux-image-amd64', booted as shipped: nothing to do here\n");
	free(notes);
	free(list);

	assert_int_equal(kb_branches_select(&list, &n, &notes, config, typo, 1, false), KB_ENOTFOUND);
	assert_null(list);
	assert_non_null(strstr(kb_error_last(), "no branch '6.1.z' in '"));
	assert_non_null(strstr(kb_error_last(), "\nhint: did you mean '6.1.y'?"));
	assert_int_equal(kb_branches_select(&list, &n, &notes, config, far, 1, false), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "\nhint: its branches: 2.6.32.y, 6.1.y, debian-6.1"));
	kb_config_free(config);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config_found_upward, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_branches, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
