/*
 * A fix's variant against a git tree, in memory: for each file the variant
 * touches, is its change already in (the reverse fits), can it be applied,
 * or neither? Hunks are placed by locate.c (offset, fuzz, whitespace,
 * anchors). A file the variant's own hunks do not fit may take another
 * variant's hunks for the same file; a file whose hunks do not place falls
 * back to a 3-way merge through git_merge_file() when the patch's preimage
 * blob is in the object store. Then new blobs and a new tree.
 */
#ifndef KB_APPLY_H
#define KB_APPLY_H

#include <stdbool.h>
#include <git2.h>

#include "fix.h"
#include "apply/locate.h"
#include "apply/patch.h"
#include "kbuild/source.h"

struct kb_file_result {
	const struct kb_file_patch *fp;	/* the variant's own, borrowed */
	const struct kb_file_patch *used; /* the hunks that decided: fp, or
					   * another variant's for this file */
	const char *from;		/* that other variant's name, or NULL */
	enum kb_file_state state;
	unsigned cost;			/* fuzz, anchors, whitespace: kb_file_decide() */
	struct kb_hunk_result *hunks;	/* used->nhunks entries */
	bool merged;			/* APPLIES by the 3-way fallback */
	char *error;			/* file-level failure (missing file,
					 * not a regular file, unreadable), or NULL */
	char *moved;			/* the patch's file is at this path of the
					 * tree (it moved: one file of its name
					 * there that the hunks fit), or NULL */
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
	struct kb_apply_output *outputs;	/* APPLIES files: the new contents */
	size_t noutputs, aoutputs;	/* aoutputs, aundo: how many are allocated */
	struct kb_apply_output *undo;	/* PRESENT files: the change undone */
	size_t nundo, aundo;
	/*
	 * APPLIES: every file applies; PRESENT: every file has the change;
	 * PARTIAL: each file is in, applies or is partial, and not all alike;
	 * FAILED: some file fits neither way (or is ambiguous).
	 */
	enum kb_file_state state;
	bool ok;			/* state == KB_FILE_APPLIES */
};

/*
 * Look at `variant` of `fix` on the tree of `src`. Returns 0 with the
 * verdict in out->state (per-file and per-hunk details in out->files), or a
 * negative code for failures that are not about the patch fitting (out of
 * memory). Always release with kb_apply_release(), also on error.
 */
int kb_apply_variant(struct kb_apply *out, struct kb_source *src,
		     const struct kb_fix *fix, const struct kb_variant *variant,
		     const struct kb_locate_opts *opts);

/* The same for a bare patch and its reverse: no other variant to borrow from. */
int kb_apply_patch(struct kb_apply *out, struct kb_source *src,
		   const struct kb_patch *patch, const struct kb_patch *reverse,
		   const struct kb_locate_opts *opts);

/*
 * Write the outputs (or with `undo`, the undo outputs) as blobs and `base`
 * updated with them as a new tree.
 */
int kb_apply_write_tree(git_oid *tree_id, git_repository *repo, git_tree *base,
			const struct kb_apply *apply, bool undo);

void kb_apply_release(struct kb_apply *apply);

/*
 * One line per notable event for people: hunks placed with an offset,
 * fuzz, whitespace tolerance or an anchor, hunks borrowed from another
 * variant, hunks already in, merged, ambiguous or failed:
 * "hunk 1 of 'net/core/dev.c' applied at line 31 (offset -995)".
 * `failures_only` keeps what stopped the variant. Returns a malloc'ed
 * string (lines end with '\n'; "" when nothing to say).
 */
char *kb_apply_describe(const struct kb_apply *apply, bool failures_only);

/*
 * For an applied variant: what people must check before they trust it, on
 * one line, or "" (malloc'ed). Today that is a hunk whose fuzz dropped a
 * context line that stands at its place in a changed form (the first one
 * named, the others counted): the tree may lack a change the fix builds on,
 * and the result, as git apply -3's or GNU patch's, may be wrong code.
 */
char *kb_apply_warning(const struct kb_apply *apply);

/* "applies", "already in", "partly in", "ambiguous", "does not apply". */
const char *kb_file_state_name(enum kb_file_state state);

#endif
