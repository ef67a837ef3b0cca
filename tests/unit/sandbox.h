/*
 * Test helper: a temporary directory for each test, under $TMPDIR (default
 * /tmp), files written into it by relative path (their directories made).
 * Removed whole afterwards when the test passed; a failed or crashed test
 * keeps it and its path is printed ("# kept DIR"), as git's test-lib keeps
 * the trash directory. Include it from one source file per test program: it
 * defines cmocka's _fail() and signal() (see below).
 */
#ifndef KB_SANDBOX_H
#define KB_SANDBOX_H

#include <dirent.h>
#include <dlfcn.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
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
 * Set by a failed cmocka assertion or a crash; looked at by
 * sandbox_release(), cleared by sandbox_init().
 */
static volatile sig_atomic_t sandbox_test_failed;

/*
 * Every cmocka assertion that fails ends in _fail(), also from inside
 * libcmocka (through its PLT), so this definition sees each failure, notes
 * it, and hands over to cmocka's own. Nothing else tells a teardown that
 * its test failed.
 */
void _fail(const char *const file, const int line)
{
	void (*cmocka_fail)(const char *, int);

	sandbox_test_failed = true;
	*(void **)&cmocka_fail = dlsym(RTLD_NEXT, "_fail");
	if (cmocka_fail)
		cmocka_fail(file, line);
	abort();
}

typedef void (*sandbox_handler)(int);

/* cmocka's handler of each signal it catches, run by sandbox_on_signal(). */
static sandbox_handler sandbox_cmocka_handler[NSIG];

static void sandbox_on_signal(int sig)
{
	sandbox_test_failed = true;
	sandbox_cmocka_handler[sig](sig);
}

/*
 * cmocka catches a crashing test (SIGSEGV, SIGABRT...) with handlers that
 * it sets with signal() around each test, and then runs the teardown as
 * after a pass. Its calls come here: sandbox_on_signal() goes in front of
 * its handler, so that sandbox_release() knows the test did not pass.
 */
sandbox_handler signal(int sig, sandbox_handler handler)
{
	sandbox_handler (*libc_signal)(int, sandbox_handler);

	*(void **)&libc_signal = dlsym(RTLD_NEXT, "signal");
	if (handler != SIG_DFL && handler != SIG_IGN && handler != SIG_ERR &&
	    handler != sandbox_on_signal && sig > 0 && sig < NSIG) {
		sandbox_cmocka_handler[sig] = handler;
		handler = sandbox_on_signal;
	}
	return libc_signal ? libc_signal(sig, handler) : SIG_ERR;
}

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

static inline int sandbox_rm_entry(const char *path, const struct stat *st, int flag,
				   struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Make sb->dir, a new empty directory under $TMPDIR or /tmp; -1 on failure. */
static inline int sandbox_init(struct sandbox *sb)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (asprintf(&sb->dir, "%s/kbackport-unit.XXXXXX", tmp) < 0) {
		sb->dir = NULL;
		return -1;
	}
	if (!mkdtemp(sb->dir)) {
		free(sb->dir);
		sb->dir = NULL;
		return -1;
	}
	sandbox_test_failed = false;
	return 0;
}

/* Remove sb->dir, or keep it and say so when the test failed. */
static inline void sandbox_release(struct sandbox *sb)
{
	if (!sb->dir)
		return;
	if (sandbox_test_failed)
		fprintf(stderr, "# kept %s\n", sb->dir);
	else
		nftw(sb->dir, sandbox_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
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
