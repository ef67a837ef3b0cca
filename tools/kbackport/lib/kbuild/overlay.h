/*
 * The overlay: files a lane's test kernel is built with but no branch holds.
 *
 * The KUnit suites of the fixes a lane is tested for (each fix's
 * tests/kunit/, see fixtests.h) go into every lane's tree, in memory, each
 * as its own directory under net/kbackport_kunit/, which gets a Kbuild
 * naming them, and net/Makefile gets one more line:
 *
 *   obj-$(CONFIG_KUNIT) += kbackport_kunit/
 *
 * The objects this makes (the files, the new Makefile, the trees above them)
 * are written to a store of their own, a loose-object directory under the
 * work directory, never into the repository: the overlaid tree is found
 * again by id in later runs, and the user's .git/objects gets nothing.
 */
#ifndef KB_OVERLAY_H
#define KB_OVERLAY_H

#include <git2.h>

/* Where the overlay goes in the tree, and the Makefile that builds it. */
#define KB_OVERLAY_PATH "net/kbackport_kunit"
#define KB_OVERLAY_MAKEFILE "net/Makefile"
#define KB_OVERLAY_LINE "obj-$(CONFIG_KUNIT)\t\t+= kbackport_kunit/\n"

/*
 * A second handle on `repo`'s repository whose object database also reads
 * `objects_dir` (a loose-object directory, created when missing) and writes
 * new objects only there. `repo` itself is not changed.
 */
int kb_overlay_repo_open(git_repository **out, git_repository *repo,
			 const char *objects_dir);

/* One suite's directory, and the name of its directory in the tree. */
struct kb_overlay_dir {
	const char *name;	/* [A-Za-z0-9_]: a make target */
	const char *path;
};

/*
 * The id of `tree` with the regular files of each directory of `dirs` (not
 * their subdirectories; names starting with '.' are skipped) under
 * KB_OVERLAY_PATH/<name>/, a KB_OVERLAY_PATH/Kbuild building each
 * (obj-y += <name>/), and KB_OVERLAY_LINE appended to KB_OVERLAY_MAKEFILE.
 * The objects are written to `repo`: a handle from kb_overlay_repo_open().
 * Fails when `tree` has no KB_OVERLAY_MAKEFILE or already has
 * KB_OVERLAY_PATH, when a directory holds no file or a subdirectory, or
 * when two have one name.
 */
int kb_overlay_tree(git_oid *out, git_repository *repo, const git_oid *tree,
		    const struct kb_overlay_dir *dirs, size_t n);

#endif
