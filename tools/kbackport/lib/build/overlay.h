/*
 * The overlay: files a lane's test kernel is built with but no branch holds.
 *
 * kbackport's KUnit suite (tests/kunit/) goes into every lane's tree, in
 * memory, as net/kbackport_kunit/, and net/Makefile gets one more line:
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

/*
 * The id of `tree` with the regular files of directory `dir` (not its
 * subdirectories; names starting with '.' are skipped) under
 * KB_OVERLAY_PATH, and KB_OVERLAY_LINE appended to KB_OVERLAY_MAKEFILE.
 * The objects are written to `repo`: a handle from kb_overlay_repo_open().
 * Fails when `tree` has no KB_OVERLAY_MAKEFILE or already has
 * KB_OVERLAY_PATH, or when `dir` holds no file or a subdirectory.
 */
int kb_overlay_tree(git_oid *out, git_repository *repo, const git_oid *tree,
		    const char *dir);

#endif
