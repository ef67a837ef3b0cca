#include "kbuild/source.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

struct cached_file {
	char *path;
	char *data;		/* NULL: the tree has no such file */
	size_t len;
	git_filemode_t mode;	/* a regular file's, an executable's or a symlink's */
	int err;		/* what the lookup returned */
	char *errmsg;		/* its message, replayed on later reads */
};

struct kb_source {
	git_repository *repo;
	git_tree *tree;
	struct cached_file *files;
	size_t nfiles, alloc;
};

int kb_source_new(struct kb_source **out, git_repository *repo, git_tree *tree)
{
	struct kb_source *src;

	*out = NULL;
	src = calloc(1, sizeof(*src));
	KB_ERROR_CHECK_ALLOC(src);
	src->repo = repo;
	src->tree = tree;
	*out = src;
	return 0;
}

void kb_source_free(struct kb_source *src)
{
	size_t i;

	if (!src)
		return;
	for (i = 0; i < src->nfiles; i++) {
		free(src->files[i].path);
		free(src->files[i].data);
		free(src->files[i].errmsg);
	}
	free(src->files);
	free(src);
}

git_repository *kb_source_repo(const struct kb_source *src)
{
	return src->repo;
}

git_tree *kb_source_tree(const struct kb_source *src)
{
	return src->tree;
}

/* A tree or blob the tree names but the object store cannot give. */
static int unreadable(int git_err, const char *path, size_t len, const char *kind,
		      const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), id);
	kb_error_git(git_err, "cannot read '%.*s' (%s %s)", (int)len, path, kind, hex);
	return KB_ERROR;
}

/*
 * Walked one directory at a time (not git_tree_entry_bypath(), whose
 * GIT_ENOTFOUND is also "a tree object is missing"): a path the tree does
 * not have is KB_ENOTFOUND, a tree on the way that cannot be read is
 * KB_ERROR, so that a lost object is never taken for a missing file.
 */
int kb_source_entry(git_oid *id, git_filemode_t *mode, struct kb_source *src,
		    const char *path)
{
	const git_tree *tree = src->tree;
	const git_tree_entry *entry;
	git_tree *sub = NULL, *next;
	const char *p = path;
	char *name = NULL;
	size_t len;
	int err = 0;

	for (;;) {
		len = strcspn(p, "/");
		free(name);
		if (!(name = kb_strndup(p, len))) {
			err = kb_error_oom();
			break;
		}
		if (!len || !(entry = git_tree_entry_byname(tree, name)) ||
		    (p[len] && git_tree_entry_type(entry) != GIT_OBJECT_TREE)) {
			err = kb_error_set(KB_ENOTFOUND, "no file '%s' in the tree", path);
			break;
		}
		if (!p[len]) {
			git_oid_cpy(id, git_tree_entry_id(entry));
			*mode = git_tree_entry_filemode(entry);
			break;
		}
		if ((err = git_tree_lookup(&next, src->repo, git_tree_entry_id(entry))) < 0) {
			err = unreadable(err, path, (size_t)(p + len - path), "tree",
					 git_tree_entry_id(entry));
			break;
		}
		git_tree_free(sub);
		tree = sub = next;
		p += len + 1;
	}
	free(name);
	git_tree_free(sub);
	return err;
}

static int load_blob(struct cached_file *file, struct kb_source *src)
{
	git_filemode_t mode;
	git_blob *blob = NULL;
	git_oid id;
	int err;

	if ((err = kb_source_entry(&id, &mode, src, file->path)) < 0)
		return err;
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
	    mode != GIT_FILEMODE_LINK)
		return kb_error_set(KB_EINVALID, "'%s' is not a regular file (mode %06o)",
				    file->path, (unsigned)mode);
	file->mode = mode;
	if ((err = git_blob_lookup(&blob, src->repo, &id)) < 0)
		return unreadable(err, file->path, strlen(file->path), "blob", &id);
	file->len = (size_t)git_blob_rawsize(blob);
	if ((file->data = malloc(file->len + 1)) == NULL) {
		git_blob_free(blob);
		return kb_error_oom();
	}
	memcpy(file->data, git_blob_rawcontent(blob), file->len);
	file->data[file->len] = '\0';
	git_blob_free(blob);
	return 0;
}

static struct cached_file *find_cached(struct kb_source *src, const char *path)
{
	size_t i;

	for (i = 0; i < src->nfiles; i++)
		if (!strcmp(src->files[i].path, path))
			return &src->files[i];
	return NULL;
}

/* The cached entry of `path`, loaded on first use. */
static int cached(struct cached_file **out, struct kb_source *src, const char *path)
{
	struct cached_file *file = find_cached(src, path);

	if (!file) {
		int err;

		if ((err = KB_ARRAY_GROW(src->files, src->alloc, src->nfiles + 1)) < 0)
			return err;
		file = &src->files[src->nfiles];
		memset(file, 0, sizeof(*file));
		file->path = kb_strdup(path);
		KB_ERROR_CHECK_ALLOC(file->path);
		src->nfiles++;
		if ((file->err = load_blob(file, src)) < 0 &&
		    !(file->errmsg = kb_strdup(kb_error_last())))
			return kb_error_oom();
	}
	if (file->err < 0)
		return kb_error_set(file->err, "%s", file->errmsg);
	*out = file;
	return 0;
}

int kb_source_read(const char **buf, size_t *len, struct kb_source *src,
		   const char *path)
{
	git_filemode_t mode;
	int err;

	if ((err = kb_source_read_any(buf, len, &mode, src, path)) < 0)
		return err;
	if (mode == GIT_FILEMODE_LINK)
		return kb_error_set(KB_EINVALID, "'%s' is not a regular file (mode %06o)",
				    path, (unsigned)mode);
	return 0;
}

int kb_source_read_any(const char **buf, size_t *len, git_filemode_t *mode,
		       struct kb_source *src, const char *path)
{
	struct cached_file *file = NULL;
	int err;

	if ((err = cached(&file, src, path)) < 0)
		return err;
	*buf = file->data;
	if (len)
		*len = file->len;
	*mode = file->mode;
	return 0;
}
