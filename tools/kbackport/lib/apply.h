/*
 * A patch applied to a git tree in memory: blobs in, new file contents out,
 * then a new tree. Hunks are placed by locate.c (offset, fuzz, whitespace);
 * a file whose hunks do not place falls back to a 3-way merge through
 * git_merge_file() when the patch's preimage blob is in the object store.
 */
#ifndef KB_APPLY_H
#define KB_APPLY_H

#include <stdbool.h>
#include <git2.h>

#include "locate.h"
#include "patch.h"
#include "source.h"

struct kb_file_result {
	const struct kb_file_patch *fp;	/* borrowed from the patch */
	struct kb_hunk_result *hunks;	/* fp->nhunks entries */
	bool ok;			/* the file's change was computed */
	bool merged;			/* by the 3-way fallback */
	char *error;			/* file-level failure (missing file,
					 * not a regular file), or NULL */
};

struct kb_apply_output {
	char *path;
	char *data;			/* NULL when the file is deleted */
	size_t len;
	git_filemode_t mode;
};

struct kb_apply {
	const struct kb_patch *patch;	/* borrowed */
	struct kb_file_result *files;	/* patch->nfiles entries */
	struct kb_apply_output *outputs;	/* only when ok */
	size_t noutputs;
	bool ok;			/* every file applied */
};

/*
 * Apply `patch` to the tree of `src`. Returns 0 with out->ok telling
 * whether everything applied (per-file and per-hunk details in out->files),
 * or a negative code for failures that are not about the patch fitting
 * (out of memory, unreadable objects). Always release with
 * kb_apply_release(), also on error.
 */
int kb_apply_patch(struct kb_apply *out, struct kb_source *src,
		   const struct kb_patch *patch, const struct kb_locate_opts *opts);

/* Write the outputs as blobs and `base` updated with them as a new tree. */
int kb_apply_write_tree(git_oid *tree_id, git_repository *repo, git_tree *base,
			const struct kb_apply *apply);

void kb_apply_release(struct kb_apply *apply);

/*
 * One line per notable event for people: hunks placed with an offset,
 * fuzz or whitespace tolerance, already present, merged, or failed:
 * "hunk 1 of 'net/core/dev.c' applied at line 31 (offset -995)".
 * `failures_only` keeps just the failures. Returns a malloc'ed string
 * (lines end with '\n'; "" when nothing to say).
 */
char *kb_apply_describe(const struct kb_apply *apply, bool failures_only);

#endif
