/*
 * The tests a fix brings: its test directory (fix.yaml `tests:`, else the
 * fix's own tests/), which several fixes may share:
 *
 *   <tests>/cases.yaml     its suites and cases: what each proves, which
 *                          fixes it detects, and a guest case's steps
 *                          (cases.h; the guest runs them, data/guest/guest.c)
 *   <tests>/kernel.config  config lines its cases need in the test kernel,
 *                          merged after the common fragment
 *   <tests>/kunit/         a KUnit suite (Kbuild and sources), built into a
 *                          lane's kernel when the lane is tested for the fix
 *
 * A lane tested for some fixes (one, or a queue's) carries the KUnit suites
 * and runs the cases of their test directories, each directory once. Its
 * kernel's config is the common fragment and the kernel.config of every
 * fix that can be tested there (kb_fix_tests_fragment): the same for every
 * fix, so that one as-is build of a branch serves them all.
 */
#ifndef KB_FIXTESTS_H
#define KB_FIXTESTS_H

#include <stddef.h>

#include "boot/cases.h"
#include "fix.h"
#include "kbuild/overlay.h"

struct kb_fix_tests {
	struct kb_cases *cases;	/* every suite of the directories; NULL: no fix has tests */
	char **dirs;		/* the test directories, each once, in fix order */
	size_t ndirs;
	struct kb_overlay_dir *kunit;	/* their kunit/ directories */
	size_t nkunit;
};

/*
 * The tests of `fixes`: their directories (each once, by real path), their
 * cases as one set (a suite defined in two directories is an error), their
 * KUnit suites named after the first fix of each directory.
 */
int kb_fix_tests_load(struct kb_fix_tests *out, const struct kb_fix *const *fixes, size_t n);
void kb_fix_tests_release(struct kb_fix_tests *t);

/*
 * The kernel.config of every fix's tests that the test kernels carry: those
 * of the fixes found under `roots` (each a fix directory or a folder of
 * fixes and families of fixes, searched down to fix directories) and of
 * `fixes`, each file once, sorted by path, into *out (malloc'ed paths). The
 * same for every fix of a collection, so that one kernel config of a branch
 * serves them all (a build leaves out a file whose options its tree does
 * not know: kconfig.h).
 */
int kb_fix_tests_configs(char ***out, size_t *n, const char *const *roots, size_t nroots,
			 const struct kb_fix *const *fixes, size_t nfixes);
void kb_fix_tests_configs_free(char **paths, size_t n);

#endif
