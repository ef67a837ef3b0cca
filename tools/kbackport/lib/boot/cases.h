/*
 * tests/cases.yaml -> struct kb_cases: the shared test suites, where each
 * runs, and what each case proves (see that file for the verdict rules).
 * A guest suite's cases are data the guest program runs (data/guest/guest.c
 * says what each step and expectation means): kb_cases_guest_text() writes
 * them in the guest's own file format.
 */
#ifndef KB_CASES_H
#define KB_CASES_H

#include <stdbool.h>
#include <stddef.h>

enum kb_suite_runs {
	KB_RUNS_KUNIT,		/* built into kernels kbackport builds */
	KB_RUNS_GUEST,		/* the initramfs's /init: every lane */
};

struct kb_case {
	char *name;
	char *proves;
	char **detects;		/* fix ids whose absence this case catches */
	size_t ndetects;
	char **steps;		/* a guest case's steps ("caps net_admin", ...) */
	size_t nsteps;
	char *expect;		/* a guest case's expectation ("errno EPERM") */
};

struct kb_suite_decl {
	char *name;
	enum kb_suite_runs runs;
	struct kb_case *cases;
	size_t ncases;
	char **modules;		/* NULL-terminated; what its guest must load */
	size_t nmodules;
	char **probe;		/* a guest suite's probe modules, in order */
	size_t nprobe;
};

struct kb_cases {
	char *path;
	struct kb_suite_decl *suites;
	size_t nsuites;
};

/* Read and validate; errors are "path:line:col: message". */
int kb_cases_load(struct kb_cases **out, const char *path);
/*
 * The suites of every file of `paths`, in order, as one set (path: the
 * first file's). A suite name in two files is an error naming both.
 */
int kb_cases_load_many(struct kb_cases **out, const char *const *paths, size_t n);
int kb_cases_parse(struct kb_cases **out, const char *buf, size_t len, const char *path);
void kb_cases_free(struct kb_cases *cases);

const struct kb_suite_decl *kb_cases_suite(const struct kb_cases *cases, const char *name);
const struct kb_case *kb_suite_case(const struct kb_suite_decl *suite, const char *name);
/* `c` is meant to fail on a kernel that lacks fix `fix_id`. */
bool kb_case_detects(const struct kb_case *c, const char *fix_id);
/* ... any of the fixes `fix_ids` (a queue). */
bool kb_case_detects_any(const struct kb_case *c, const char *const *fix_ids, size_t n);
/* Some case of `cases` detects fix `fix_id`: its tests can see it missing. */
bool kb_cases_detect(const struct kb_cases *cases, const char *fix_id);

/*
 * The guest suites of `cases` as the guest program reads them (its
 * /kbackport/cases, see data/guest/guest.c): "suite", "probe", then per
 * case "case", its steps, "expect" and "end", a line each (a first
 * comment line only, when `cases` has no guest suite). *out is malloc'ed.
 */
int kb_cases_guest_text(char **out, const struct kb_cases *cases);

/* "kunit", "guest". */
const char *kb_suite_runs_name(enum kb_suite_runs runs);

#endif
