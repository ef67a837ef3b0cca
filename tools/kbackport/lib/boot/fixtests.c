#include "boot/fixtests.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *path_join(const char *a, const char *b)
{
	struct kb_buf p = KB_BUF_INIT;

	return kb_buf_printf(&p, "%s/%s", a, b) < 0 ? NULL : kb_buf_detach(&p);
}

/* A directory of `fix`'s tests seen before (by real path): its index, or -1. */
static int seen(char *const *dirs, size_t n, const char *dir)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(dirs[i], dir))
			return (int)i;
	return -1;
}

/* The real paths of the test directories of `fixes`, each once, in fix order. */
static int test_dirs(char ***out, size_t *nout, const struct kb_fix *const *fixes, size_t n,
		     size_t **first)
{
	char real[PATH_MAX];
	size_t i;

	*out = NULL;
	*nout = 0;
	if (!(*out = calloc(n + 1, sizeof(char *))) || !(*first = calloc(n + 1, sizeof(size_t))))
		return kb_error_oom();
	for (i = 0; i < n; i++) {
		if (!fixes[i]->tests_dir)
			continue;
		if (!realpath(fixes[i]->tests_dir, real))
			return kb_error_set(KB_ERROR, "cannot read the tests of %s, '%s': %s",
					    fixes[i]->id, fixes[i]->tests_dir, strerror(errno));
		if (seen(*out, *nout, real) >= 0)
			continue;
		(*first)[*nout] = i;
		KB_ERROR_CHECK_ALLOC((*out)[(*nout)++] = kb_strdup(real));
	}
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "CVE-2011-1019" -> "CVE_2011_1019": a make target. */
static char *target_name(const char *id)
{
	char *name = kb_strdup(id), *p;

	for (p = name; p && *p; p++)
		if (!isalnum((unsigned char)*p))
			*p = '_';
	return name;
}

static int load_kunit(struct kb_fix_tests *t, const struct kb_fix *const *fixes,
		      const size_t *first)
{
	struct kb_buf path = KB_BUF_INIT;
	size_t i;
	int err = 0;

	t->kunit = calloc(t->ndirs + 1, sizeof(*t->kunit));
	KB_ERROR_CHECK_ALLOC(t->kunit);
	for (i = 0; i < t->ndirs && !err; i++) {
		kb_buf_clear(&path);
		if ((err = kb_buf_printf(&path, "%s/kunit", t->dirs[i])) < 0 || !is_dir(path.ptr))
			continue;
		t->kunit[t->nkunit].name = target_name(fixes[first[i]]->id);
		t->kunit[t->nkunit].path = kb_buf_detach(&path);
		if (!t->kunit[t->nkunit].name || !t->kunit[t->nkunit++].path)
			err = kb_error_oom();
	}
	kb_buf_release(&path);
	return err;
}

static int load_cases(struct kb_fix_tests *t)
{
	char **paths;
	size_t i;
	int err = 0;

	if (!t->ndirs)
		return 0;
	paths = calloc(t->ndirs, sizeof(*paths));
	KB_ERROR_CHECK_ALLOC(paths);
	for (i = 0; i < t->ndirs && !err; i++)
		if (!(paths[i] = path_join(t->dirs[i], "cases.yaml")))
			err = kb_error_oom();
	if (!err)
		err = kb_cases_load_many(&t->cases, (const char *const *)paths, t->ndirs);
	for (i = 0; i < t->ndirs; i++)
		free(paths[i]);
	free(paths);
	return err;
}

int kb_fix_tests_load(struct kb_fix_tests *out, const struct kb_fix *const *fixes, size_t n)
{
	size_t *first = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = test_dirs(&out->dirs, &out->ndirs, fixes, n, &first)) == 0 &&
	    (err = load_cases(out)) == 0)
		err = load_kunit(out, fixes, first);
	free(first);
	if (err < 0)
		kb_fix_tests_release(out);
	return err;
}

void kb_fix_tests_release(struct kb_fix_tests *t)
{
	size_t i;

	kb_cases_free(t->cases);
	for (i = 0; i < t->ndirs; i++)
		free(t->dirs[i]);
	free(t->dirs);
	for (i = 0; i < t->nkunit; i++) {
		free((char *)t->kunit[i].name);
		free((char *)t->kunit[i].path);
	}
	free(t->kunit);
	memset(t, 0, sizeof(*t));
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The kernel.config paths found so far. */
struct configs {
	char **v;
	size_t n, alloc;
};

/* `fix`'s kernel.config (by real path) into `paths`, unless there already. */
static int add_config(struct configs *paths, const struct kb_fix *fix)
{
	char real[PATH_MAX], *path;
	int err;

	if (!fix->tests_dir || !(path = path_join(fix->tests_dir, "kernel.config")))
		return fix->tests_dir ? kb_error_oom() : 0;
	if (!realpath(path, real) || seen(paths->v, paths->n, real) >= 0) {
		free(path);
		return 0;
	}
	free(path);
	if ((err = KB_ARRAY_GROW(paths->v, paths->alloc, paths->n + 1)) < 0)
		return err;
	if (!(paths->v[paths->n] = kb_strdup(real)))
		return kb_error_oom();
	paths->n++;
	return 0;
}

/* The kernel.config of each fix found under `root`. */
static int root_configs(struct configs *paths, const char *root)
{
	char **dirs = NULL;
	size_t ndirs = 0, i;
	struct kb_fix *fix;
	int err;

	if ((err = kb_fix_find_dirs(&dirs, &ndirs, root)) < 0)
		return err;
	for (i = 0; i < ndirs && !err; i++) {
		if ((err = kb_fix_load(&fix, dirs[i])) == 0)
			err = add_config(paths, fix);
		kb_fix_free(fix);
	}
	for (i = 0; i < ndirs; i++)
		free(dirs[i]);
	free(dirs);
	return err;
}

int kb_fix_tests_configs(char ***out, size_t *n, const char *const *roots, size_t nroots,
			 const struct kb_fix *const *fixes, size_t nfixes)
{
	struct configs all = { 0 };
	size_t i;
	int err = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < nroots && !err; i++)
		err = root_configs(&all, roots[i]);
	for (i = 0; i < nfixes && !err; i++)
		err = add_config(&all, fixes[i]);
	if (err < 0) {
		kb_fix_tests_configs_free(all.v, all.n);
		return err;
	}
	if (all.n)
		qsort(all.v, all.n, sizeof(*all.v), compare_paths);
	*out = all.v;
	*n = all.n;
	return err;
}

void kb_fix_tests_configs_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
