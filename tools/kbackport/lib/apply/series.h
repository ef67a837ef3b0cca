/*
 * A queue of fixes in a series file, as quilt's `series`: one entry a
 * line, a fix directory or a patch file, relative to the file's folder;
 * '#' starts a comment; blank lines are skipped.
 */
#ifndef KB_SERIES_H
#define KB_SERIES_H

#include <stddef.h>

struct kb_fix;

struct kb_series {
	char *name;		/* the file's name without its extension */
	struct kb_fix **fixes;	/* in the file's order */
	size_t nfixes;
};

/*
 * Load the series at `path`: a directory entry is loaded as a fix
 * (kb_fix_load), a file entry is a patch made a fix without variants
 * (kb_fix_draft_new). Errors (KB_EINVALID, "path:line: ..."): a missing
 * entry, a fix that does not load, two entries with one fix id, a name
 * that cannot be part of a ref, an empty series.
 */
int kb_series_load(struct kb_series *out, const char *path);

void kb_series_release(struct kb_series *series);

/*
 * A patch or mbox file as a one-off fix without variants, as `fix new
 * --dry-run` would make it (kb_fix_draft_new()); nothing is written.
 */
int kb_fix_load_patch(struct kb_fix **out, const char *path);

#endif
