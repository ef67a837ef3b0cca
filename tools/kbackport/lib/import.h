/*
 * Debian's kernel source packages (linux-source-6.1, linux-source-6.12)
 * imported into a local git repository, one commit per package version,
 * on stable/<series>.y. Tarballs are read with libarchive and written with
 * libgit2: no unpacked tree, no git CLI, and every file is imported
 * whatever Debian's top-level .gitignore says.
 */
#ifndef KB_IMPORT_H
#define KB_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "progress.h"

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
 * files, executables and symlinks are kept. When a commit with the same
 * title is already in the branch's first-parent history, nothing is
 * read or written.
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
 * Import every top-level directory of `path` (a tarball, read with
 * libarchive, or a directory whose subdirectories are the trees; names
 * starting with '.' and .git directories are left out) as one commit on
 * its own branch (kb_trees_branch()), titled with the directory's name,
 * on top of the branch's tip. When the tip already has that tree, nothing
 * is written. *out (n entries, sorted by name) is filled as far as the
 * import went, also on error; free it with kb_import_trees_free().
 */
int kb_import_trees(struct kb_import_tree **out, size_t *n, git_repository *repo,
		    const char *path, const char *prefix, const struct kb_import_opts *opts);
void kb_import_trees_free(struct kb_import_tree *trees, size_t n);

#endif
