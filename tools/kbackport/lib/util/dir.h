/*
 * A directory's entries, read once (opendir, readdir, closedir) and sorted
 * by name, so what callers do with them does not depend on the file system's
 * order.
 */
#ifndef KB_DIR_H
#define KB_DIR_H

#include <stddef.h>

struct kb_dir {
	char **names;	/* sorted by strcmp(), no "." or ".." */
	size_t n;
};

#define KB_DIR_INIT { NULL, 0 }

enum kb_dir_flags {
	KB_DIR_NO_HIDDEN = 1 << 0,	/* leave out every name starting with '.' */
	KB_DIR_MISSING_OK = 1 << 1,	/* a missing directory: no entries, no error */
	KB_DIR_UNREADABLE_OK = 1 << 2,	/* one that cannot be opened at all (missing,
					 * not a directory, no permission): the same */
};

/*
 * The entries of the directory `path` into `out` (filled from empty; release
 * it with kb_dir_release() whatever the result). A directory that cannot be
 * read is KB_ENOTFOUND when it is missing, else KB_ERROR, with "cannot read
 * '<path>': <strerror>"; errno is left as the failed call set it, for a
 * caller that says it its own way. `flags`: enum kb_dir_flags.
 */
int kb_dir_read(struct kb_dir *out, const char *path, unsigned flags);

void kb_dir_release(struct kb_dir *dir);

#endif
