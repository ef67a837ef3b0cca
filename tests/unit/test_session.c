/*
 * What a command works on (session.h): the config found upward from the
 * current directory (or named, or by $KBACKPORT_CONFIG), a fix id made its
 * directory under backports/, and the branches selected with exact errors,
 * hints and notes; and all of it as one session (kb_session_open()):
 * opened with the build paths and the lock, its errors in the commands'
 * order with what was opened released once, a zeroed one released.
 */
#include "unit.h"

#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "util/error.h"
#include "sandbox.h"
#include "fix_fixture.h"
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

/* ---- the session ---- */

/*
 * top/branches.yaml with two fixes under top/backports/ (one in a family
 * folder), and kbackport's data files under share/ (none beside the config).
 */
static void make_tree(struct state *s)
{
	write_file(&s->sb, "top/branches.yaml", branches_yaml);
	make_fix(&s->sb, "top/backports/CVE-2011-1019", "CVE-2011-1019");
	make_fix(&s->sb, "top/backports/family/member-one", "member-one");
	write_file(&s->sb, "top/q.series", "backports/CVE-2011-1019\nbackports/family/member-one\n");
	write_file(&s->sb, "share/data/kernel/kbackport.config", "CONFIG_NET=y\n");
	write_file(&s->sb, "share/data/kernel/compat/rules", "");
	write_file(&s->sb, "share/data/guest/guest.c", "int main(void) { return 0; }\n");
}

static void test_session_open(void **state)
{
	struct state *s = *state;
	struct kb_session session, second;
	struct kb_session_opts opts = { 0 };
	const char *fixes[] = { "CVE-2011-1019" }, *names[] = { "6.1.y", "debian-6.1" };
	char config[512], path[512], share[512];
	struct stat st;

	make_tree(s);
	opts.config = at(s, "top/branches.yaml", config);
	opts.fixes = fixes;
	opts.nfixes = 1;
	opts.branches = names;
	opts.nbranches = 2;
	opts.build = opts.guest = opts.lock = true;
	opts.datadir = at(s, "share", share);
	assert_int_equal(kb_session_open(&session, &opts), 0);

	assert_string_equal(session.config->path, config);
	assert_int_equal(session.nfix_dirs, 1);
	assert_string_equal(session.fix_dirs[0], at(s, "top/backports/CVE-2011-1019", path));
	assert_int_equal(session.nbranches, 1);
	assert_string_equal(session.branches[0]->name, "6.1.y");
	assert_null(session.branches[1]);
	assert_string_equal(session.notes, "note: branch 'debian-6.1' is the kernel package "
			    "'linux-image-amd64', booted as shipped: nothing to do here\n");
	assert_int_equal(session.nfixes, 1);
	assert_string_equal(session.fixes[0]->id, "CVE-2011-1019");

	/* the build paths: each default, beside the config or kbackport's own */
	assert_string_equal(session.workdir, at(s, "top/work", path));
	assert_string_equal(session.fragment, at(s, "share/data/kernel/kbackport.config", path));
	assert_string_equal(session.compat.ptr, at(s, "share/data/kernel/compat/rules", path));
	assert_string_equal(session.guest.ptr, at(s, "share/data/guest/guest.c", path));
	assert_null(session.tests.cases);	/* the fix has no tests */
	assert_int_equal(session.noverlays, 0);

	/* locked: a second session on the work directory is refused, its error said */
	assert_true(session.locked);
	assert_int_equal(stat(at(s, "top/work/kbackport.lock", path), &st), 0);
	assert_int_equal(kb_session_open(&second, &opts), KB_EEXISTS);
	assert_non_null(strstr(kb_error_last(), "is in use by another kbackport (pid "));
	assert_false(second.locked);
	assert_int_equal(second.nfixes, 1);	/* what it opened, released below */
	kb_session_release(&second);

	kb_session_release(&session);
	assert_null(session.config);
	assert_false(session.locked);
	kb_session_release(&session);	/* once released, nothing left to release */

	/* the lock went with it */
	assert_int_equal(kb_session_open(&second, &opts), 0);
	kb_session_release(&second);
}

/* A queue: its series the fixes under test, its name checked for each branch's ref. */
static void test_session_queue(void **state)
{
	struct state *s = *state;
	struct kb_session session;
	struct kb_session_opts opts = { 0 };
	char config[512], share[512], series[512];

	make_tree(s);
	opts.config = at(s, "top/branches.yaml", config);
	opts.queue = at(s, "top/q.series", series);
	opts.build = true;
	opts.workdir = "elsewhere";
	opts.fragment = "given.config";
	opts.no_overlay = true;
	opts.datadir = at(s, "share", share);
	assert_int_equal(kb_session_open(&session, &opts), 0);
	assert_int_equal(session.nbranches, 2);
	assert_null(session.notes);
	assert_int_equal(session.nfixes, 0);
	assert_int_equal(session.series.nfixes, 2);
	assert_string_equal(session.queue_name, "q");
	assert_string_equal(session.workdir, "elsewhere");
	assert_string_equal(session.fragment, "given.config");
	assert_false(session.locked);
	kb_session_release(&session);

	opts.queue_name = "two words";
	assert_int_equal(kb_session_open(&session, &opts), KB_EINVALID);
	assert_non_null(strstr(kb_error_last(), "two words"));
	assert_int_equal(session.series.nfixes, 2);
	assert_null(session.workdir);	/* no build paths after the error */
	kb_session_release(&session);
}

/* Errors: the first step's wins, what was opened before it is released once. */
static void test_session_errors(void **state)
{
	struct state *s = *state;
	struct kb_session session;
	struct kb_session_opts opts = { 0 };
	const char *typo[] = { "CVE-2011-1091" }, *none[] = { "9.9.y" },
		   *two[] = { "CVE-2011-1019", "member-one" };
	char config[512], path[512], want[1200];

	make_tree(s);
	opts.config = at(s, "top/branches.yaml", config);
	opts.fixes = typo;
	opts.nfixes = 1;
	assert_int_equal(kb_session_open(&session, &opts), KB_ENOTFOUND);
	snprintf(want, sizeof(want), "no fix 'CVE-2011-1091': no such directory, nor a fix id "
		 "under '%s'\nhint: did you mean 'CVE-2011-1019'?", at(s, "top/backports", path));
	assert_string_equal(kb_error_last(), want);
	assert_non_null(session.config);	/* half-opened */
	assert_null(session.branches);
	kb_session_release(&session);
	assert_null(session.config);

	/* the config is looked at before the fixes and the branches */
	opts.config = at(s, "top/nothing.yaml", config);
	opts.branches = none;
	opts.nbranches = 1;
	assert_true(kb_session_open(&session, &opts) < 0);
	assert_non_null(strstr(kb_error_last(), "nothing.yaml"));
	assert_null(strstr(kb_error_last(), "no fix"));
	assert_null(session.config);
	kb_session_release(&session);

	/* the fix ids before the branches */
	opts.config = at(s, "top/branches.yaml", config);
	assert_int_equal(kb_session_open(&session, &opts), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "no fix 'CVE-2011-1091'"));
	kb_session_release(&session);
	opts.nfixes = 0;
	assert_int_equal(kb_session_open(&session, &opts), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "no branch '9.9.y' in '"));
	kb_session_release(&session);

	/* a run's one fix: two named are an error */
	opts.nbranches = 0;
	opts.fixes = two;
	opts.nfixes = 2;
	opts.one_fix = true;
	assert_int_equal(kb_session_open(&session, &opts), KB_EINVALID);
	assert_string_equal(kb_error_last(), "2 fixes found: a run is about one fix, "
			    "name it with --fix DIR");
	kb_session_release(&session);

	/* the build paths: a data file missing from both places */
	opts.one_fix = false;
	opts.build = opts.lock = true;
	opts.datadir = at(s, "no-share", path);
	assert_int_equal(kb_session_open(&session, &opts), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "missing data file '"));
	assert_non_null(strstr(kb_error_last(), "the common config fragment"));
	assert_int_equal(session.nfixes, 2);
	assert_false(session.locked);
	kb_session_release(&session);
	assert_int_equal(access(at(s, "top/work/kbackport.lock", path), F_OK), -1);
}

/* A zeroed session holds nothing: released (twice), it closes no fd 0. */
static void test_session_zeroed(void **state)
{
	struct kb_session session;
	int before = fcntl(0, F_GETFD);

	(void)state;
	memset(&session, 0, sizeof(session));
	kb_session_release(&session);
	kb_session_release(&session);
	assert_int_equal(fcntl(0, F_GETFD), before);
	assert_int_equal(kb_session_lock(&session), KB_EINVALID);
}

/* libgit2 checks queue refs: its per-thread error state goes at its shutdown */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config_found_upward, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_branches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_errors, setup, teardown),
		cmocka_unit_test(test_session_zeroed),
	};
	return sandbox_run_group_tests(tests, group_setup, group_teardown);
}
