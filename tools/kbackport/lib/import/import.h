/*
 * Debian's kernel source packages (linux-source-6.1, linux-source-6.12)
 * imported into a local git repository, one commit per package version,
 * on stable/<series>.y. Tarballs are read with libarchive and written with
 * libgit2: no unpacked tree, no git CLI, and every file is imported
 * whatever Debian's top-level .gitignore says. Trees (--trees, kb_trees_*)
 * are imported the same way, one branch per top-level directory.
 *
 * The packages are import/debian.c's, the trees import/trees.c's, both
 * over the shared importer of import/importer.c.
 */
#ifndef KB_IMPORT_H
#define KB_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "util/progress.h"

struct kb_debsrc {
	char *package;		/* "linux-source-6.1" */
	char *version;		/* "6.1.192-3" */
	char *series;		/* "6.1" */
	char *tarball;		/* path of linux-source-6.1.tar.xz */
};

/*
 * Make `package` at `version` (NULL: the archive's current one) available
 * as a tarball. The installed package is used when its version matches
 * (it is installed with apt-get when missing and no version is asked);
 * another version is fetched with `apt-get download PACKAGE=VERSION` into
 * `downloads` and unpacked there. Program output goes to
 * <downloads>/apt.log; on failure the message carries its tail. While
 * apt-get or dpkg-deb runs, `ticker` (may be NULL) ticks with the step
 * "install", "download" or "unpack".
 */
int kb_debsrc_fetch(struct kb_debsrc *out, const char *package,
		    const char *version, const char *downloads,
		    const struct kb_ticker *ticker);
void kb_debsrc_release(struct kb_debsrc *src);

/* "stable/6.1.y" for linux-source-6.1 (malloc'ed), or KB_EINVALID. */
int kb_debsrc_branch(char **out, const char *package);

struct kb_import_opts {
	/* called every few thousand files with the count so far */
	void (*progress)(size_t files, void *payload);
	void *payload;
	/* ticks of step "import" counting "files", between two files read */
	struct kb_ticker ticker;
};

struct kb_import_result {
	git_oid commit;
	bool created;		/* false: this title was already on the branch */
	size_t files;		/* files in the imported tree (0 when not created) */
};

/*
 * Import `tarball` as a commit titled `title` on refs/heads/<branch> of
 * `repo`, on top of the branch's tip. The first path component of every
 * entry is dropped ("linux-source-6.1/Makefile" -> "Makefile"); regular
 * files, executables and symlinks are kept; the tarball is refused as
 * kb_trees_read() refuses a source (a FIFO member, two members with one
 * path, ...). When a commit with the same title is already in the
 * branch's first-parent history, nothing is read or written.
 */
int kb_import_tarball(struct kb_import_result *out, git_repository *repo,
		      const char *branch, const char *tarball, const char *title,
		      const char *body, const struct kb_import_opts *opts);

/* One top-level directory of a tarball or directory of trees, imported. */
struct kb_import_tree {
	char *name;		/* "linux-2.6.32": the top-level directory */
	char *branch;		/* "eras/2.6.32" */
	git_oid commit;		/* the branch's tip afterwards */
	bool created;		/* false: the tip already had this tree */
	size_t files;
};

/*
 * The branch of top-level directory `name`: `prefix` and the name without
 * a leading "linux-" ("eras/" + "linux-2.6.32" -> "eras/2.6.32"),
 * malloc'ed.
 */
int kb_trees_branch(char **out, const char *prefix, const char *name);

/*
 * The trees of every --trees PATH of one run (struct kb_trees): each PATH
 * is a tarball, read with libarchive, or a directory whose subdirectories
 * are the trees (names starting with '.' and .git directories are left
 * out); every top-level directory is one tree, to be one commit on its own
 * branch (kb_trees_branch()), titled with the directory's name, on top of
 * the branch's tip. All sources are read and checked before any branch
 * is written: kb_trees_read() each, kb_trees_check() each, then
 * kb_trees_commit() each source that passed both.
 */
struct kb_trees;

int kb_trees_new(struct kb_trees **out, git_repository *repo, const char *prefix);
void kb_trees_free(struct kb_trees *set);

/*
 * KB_EINVALID when `path` is there but neither a regular file nor a
 * directory (a FIFO, a device, a socket): "'<path>' is a FIFO, not a
 * tarball or a directory". Never opens it.
 */
int kb_trees_path_check(const char *path);

/*
 * Read source number set->n (the calls so far): its blobs are written,
 * no ref. Refused, and nothing of it will be committed: a member that is
 * a FIFO, a device or a socket; two members with one path; a path that is
 * a file (or a symlink) and a directory; a member whose data is not its
 * size (a sparse member's holes are read as zeros); a branch name git
 * does not take; anything unreadable or damaged.
 */
int kb_trees_read(struct kb_trees *set, const char *path, const struct kb_import_opts *opts);

/*
 * Source `i` (read without error) against every source read: refused
 * when one of its trees makes the same branch as another tree of any
 * source ("linux-1.0/" and "1.0/" both make "eras/1.0"), or when a branch
 * is in the way of one of its branches (eras/1.0 of eras/1.0/x).
 */
int kb_trees_check(const struct kb_trees *set, size_t i);

/*
 * Commit each tree of source `i` on its branch; when the tip already has
 * that tree, nothing is written. *out (n entries, sorted by name) is
 * filled as far as the import went, also on error; free it with
 * kb_import_trees_free().
 */
int kb_trees_commit(struct kb_import_tree **out, size_t *n, struct kb_trees *set, size_t i);
void kb_import_trees_free(struct kb_import_tree *trees, size_t n);

#endif
