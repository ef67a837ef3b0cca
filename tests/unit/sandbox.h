/*
 * Test helper: a temporary directory for each test, in the program's own
 * under $TMPDIR (default /tmp), files written into it by relative path (their directories made).
 * All of a program's sandboxes are removed at its end when every test
 * passed; when one failed or crashed they are kept and their directory is
 * printed ("# kept DIR"), as git's test-lib keeps the trash directory. A
 * program whose tests use sandboxes ends with sandbox_run_group_tests().
 */
#ifndef KB_SANDBOX_H
#define KB_SANDBOX_H

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct sandbox {
	char *dir;			/* malloc'ed, NULL once released */
	char path[512];		/* scratch for sb_path() */
};

/*
 * Every sandbox of the program lives in one directory of its own,
 * $TMPDIR/kbackport-unit.XXXXXX, made at the first sandbox_init(). Which
 * test failed is cmocka's business (its public API says how many did, not
 * which), so the directory is the program's, as git's trash directory is
 * the script's: sandbox_run_group_tests() runs the tests, then removes it
 * when every test passed, or keeps it and names it ("# kept DIR") when one
 * failed or crashed (cmocka counts a crash as a failure). A sandbox is
 * left in place by its teardown for that reason.
 */
static char *sandbox_parent;		/* malloc'ed, NULL until the first sandbox */

static inline int sandbox_rm_entry(const char *path, const struct stat *st, int flag,
				   struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The program's result: its directory removed (0) or kept and said. */
static inline int sandbox_finish(int failed)
{
	if (!sandbox_parent)
		return failed;
	if (failed)
		fprintf(stderr, "# kept %s\n", sandbox_parent);
	else
		nftw(sandbox_parent, sandbox_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(sandbox_parent);
	sandbox_parent = NULL;
	return failed;
}

/* cmocka_run_group_tests() for a program whose tests use sandboxes. */
#define sandbox_run_group_tests(tests, setup, teardown) \
	sandbox_finish(cmocka_run_group_tests(tests, setup, teardown))
#define sandbox_run_group_tests_name(name, tests, setup, teardown) \
	sandbox_finish(cmocka_run_group_tests_name(name, tests, setup, teardown))

static inline const char *sb_path(struct sandbox *sb, const char *rel)
{
	snprintf(sb->path, sizeof(sb->path), "%s/%s", sb->dir, rel);
	return sb->path;
}

static inline void write_file(struct sandbox *sb, const char *rel, const char *text)
{
	char dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", sb_path(sb, rel));
	for (slash = strchr(dir + strlen(sb->dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	assert_non_null(f = fopen(dir, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Whether `dir` holds a file with ".tmp" in its name: a write left behind. */
static inline bool has_temporary(const char *dir)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		found |= strstr(de->d_name, ".tmp") != NULL;
	if (d)
		closedir(d);
	return found;
}

/* Make sb->dir, a new empty directory in the program's; -1 on failure. */
static inline int sandbox_init(struct sandbox *sb)
{
	const char *tmp = getenv("TMPDIR");

	sb->dir = NULL;
	if (!sandbox_parent) {
		if (!tmp || !*tmp)
			tmp = "/tmp";
		if (asprintf(&sandbox_parent, "%s/kbackport-unit.XXXXXX", tmp) < 0) {
			sandbox_parent = NULL;
			return -1;
		}
		if (!mkdtemp(sandbox_parent)) {
			free(sandbox_parent);
			sandbox_parent = NULL;
			return -1;
		}
	}
	if (asprintf(&sb->dir, "%s/t.XXXXXX", sandbox_parent) < 0) {
		sb->dir = NULL;
		return -1;
	}
	if (!mkdtemp(sb->dir)) {
		free(sb->dir);
		sb->dir = NULL;
		return -1;
	}
	return 0;
}

/* Done with sb: its directory stays until sandbox_finish(). */
static inline void sandbox_release(struct sandbox *sb)
{
	free(sb->dir);
	sb->dir = NULL;
}

/* A new empty sandbox; NULL when it cannot be made. */
static inline struct sandbox *sandbox_new(void)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));

	if (sb && sandbox_init(sb) < 0) {
		free(sb);
		return NULL;
	}
	return sb;
}

static inline void sandbox_free(struct sandbox *sb)
{
	if (!sb)
		return;
	sandbox_release(sb);
	free(sb);
}

/* cmocka setup and teardown for tests whose *state is a struct sandbox. */
static inline int sandbox_setup(void **state)
{
	return (*state = sandbox_new()) ? 0 : -1;
}

static inline int sandbox_teardown(void **state)
{
	sandbox_free(*state);
	return 0;
}

#endif
