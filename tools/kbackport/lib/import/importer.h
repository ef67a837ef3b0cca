/*
 * The importer debian.c and trees.c share; not part of the library's
 * interface. A tarball (libarchive) or a directory of files is read into
 * entries whose blobs are written as they are read, checked (one path for
 * one member), made a tree, and committed on a branch by a compare-and-swap
 * of its ref. Every reader ticks the progress; importer_release() is the
 * one teardown.
 */
#ifndef KB_IMPORTER_H
#define KB_IMPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <git2.h>

#include "import/import.h"
#include "util/buf.h"

struct archive;

/* One file of a tree. */
struct import_entry {
	char *path;		/* first: entries are searched as paths (path_at()) */
	git_oid id;
	git_filemode_t mode;
};

struct importer {
	git_repository *repo;
	struct archive *archive;
	int fd;				/* the tarball's, or -1 */
	const char *source;		/* the tarball or directory, in messages */
	struct import_entry *entries;
	size_t n, alloc;
	char **dirs;			/* directory members, without their '/' */
	size_t ndirs, adirs;
	struct kb_buf data;		/* one file's contents, reused */
	const struct kb_import_opts *opts;
	bool keep_top;			/* trees: "linux-2.6.32/Makefile" kept whole */
	double start, next;		/* the ticker's clock (kb_ticker_due()) */
};

/* `src` names the tarball or directory in messages; `top`: keep_top. */
#define IMPORTER_INIT(r, o, src, top) { .repo = (r), .fd = -1, .source = (src), \
					.opts = (o), .keep_top = (top) }

/* Everything the importer holds: the archive, its descriptor, the entries. */
void importer_release(struct importer *im);

/* `n` entries and their paths (entries taken from an importer). */
void import_entries_free(struct import_entry *entries, size_t n);

/* A tick of step "import" when one is due; the first call starts the clock. */
void importer_tick(struct importer *im);

/* What a member that is not a file, a directory or a symlink is: "a FIFO". */
const char *importer_kind(mode_t mode);

/*
 * Every member of `tarball`, or the first error: no damaged member is
 * skipped, and a tarball without files is refused. Without keep_top, the
 * first path component is dropped ("linux-source-6.1/Makefile" ->
 * "Makefile"); with it, only leading "./" are.
 */
int importer_read_tarball(struct importer *im, const char *tarball);

/* Every file below `dir` as `path`/...; a .git directory is not source. */
int importer_read_dir(struct importer *im, const char *dir, const char *path);

/*
 * The entries sorted; refused when two members have one path or a path is
 * a file (or a symlink) and a directory: git could keep only one of them.
 */
int importer_check_paths(struct importer *im);

/*
 * The tree of entries [from, to) of the sorted `entries`, each path
 * without its first `skip` bytes.
 */
int importer_write_tree(git_oid *tree, git_repository *repo,
			const struct import_entry *entries, size_t from, size_t to,
			size_t skip);

/* "refs/heads/<branch>" in `out` (cleared first). */
int importer_refname(struct kb_buf *out, const char *branch);

/* The tip of `refname` in *out, NULL when there is no such branch yet. */
int importer_tip(git_commit **out, git_repository *repo, const char *refname);

/*
 * A commit of `tree` on top of `parent` (NULL: a new branch), and
 * `refname` moved to it only if it is still at `parent`: of two imports at
 * once one is refused, none replaced.
 */
int importer_commit(git_oid *out, git_repository *repo, const char *refname,
		    const git_oid *tree, git_commit *parent, const char *message);

#endif
