/*
 * Files of one git tree, read from the object store on demand (no
 * checkout) and cached by path for the life of the source.
 */
#ifndef KB_SOURCE_H
#define KB_SOURCE_H

#include <stddef.h>
#include <git2.h>

struct kb_source;

/* `tree` is borrowed and must outlive the source. */
int kb_source_new(struct kb_source **out, git_repository *repo, git_tree *tree);
void kb_source_free(struct kb_source *src);

/*
 * The contents of `path` (NUL-terminated, owned by the source). Returns
 * KB_ENOTFOUND (with a message) only when the tree has no such file,
 * KB_EINVALID when the path is not a regular file (directory, symlink,
 * submodule), and KB_ERROR when the tree names it but its blob, or a tree
 * on the way, cannot be read (a lost object, a partial clone): the message
 * names the path and the object id. A read error is never "missing".
 */
int kb_source_read(const char **buf, size_t *len, struct kb_source *src,
		   const char *path);

/*
 * The same for a regular file, an executable or a symlink (whose contents
 * are its target), with its mode in *mode.
 */
int kb_source_read_any(const char **buf, size_t *len, git_filemode_t *mode,
		       struct kb_source *src, const char *path);

/* The blob id of `path` and its file mode; KB_ENOTFOUND when the tree has
 * no such path, KB_ERROR when a tree on the way cannot be read. */
int kb_source_entry(git_oid *id, git_filemode_t *mode, struct kb_source *src,
		    const char *path);

git_repository *kb_source_repo(const struct kb_source *src);
git_tree *kb_source_tree(const struct kb_source *src);

#endif
