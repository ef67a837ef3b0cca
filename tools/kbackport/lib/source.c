#include "source.h"
#include "buf.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

struct cached_file {
	char *path;
	char *data;		/* NULL: the tree has no such file */
	size_t len;
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
	if (!(src = calloc(1, sizeof(*src))))
		return kb_error_set(KB_ENOMEM, "out of memory");
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

int kb_source_entry(git_oid *id, git_filemode_t *mode, struct kb_source *src,
		    const char *path)
{
	git_tree_entry *entry = NULL;
	int err;

	if ((err = git_tree_entry_bypath(&entry, src->tree, path)) < 0) {
		if (err == GIT_ENOTFOUND)
			return kb_error_set(KB_ENOTFOUND, "no file '%s' in the tree", path);
		return kb_error_git(err, "cannot look up '%s'", path);
	}
	git_oid_cpy(id, git_tree_entry_id(entry));
	*mode = git_tree_entry_filemode(entry);
	git_tree_entry_free(entry);
	return 0;
}

static int load_blob(struct cached_file *file, struct kb_source *src)
{
	git_filemode_t mode;
	git_blob *blob = NULL;
	git_oid id;
	int err;

	if ((err = kb_source_entry(&id, &mode, src, file->path)) < 0)
		return err;
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return kb_error_set(KB_EINVALID, "'%s' is not a regular file (mode %06o)",
				    file->path, (unsigned)mode);
	if ((err = git_blob_lookup(&blob, src->repo, &id)) < 0)
		return kb_error_git(err, "cannot read '%s'", file->path);
	file->len = (size_t)git_blob_rawsize(blob);
	if ((file->data = malloc(file->len + 1)) == NULL) {
		git_blob_free(blob);
		return kb_error_set(KB_ENOMEM, "out of memory");
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

int kb_source_read(const char **buf, size_t *len, struct kb_source *src,
		   const char *path)
{
	struct cached_file *file = find_cached(src, path);

	if (!file) {
		if (src->nfiles == src->alloc) {
			size_t n = src->alloc ? src->alloc * 2 : 16;
			struct cached_file *v = realloc(src->files, n * sizeof(*v));
			if (!v)
				return kb_error_set(KB_ENOMEM, "out of memory");
			src->files = v;
			src->alloc = n;
		}
		file = &src->files[src->nfiles];
		memset(file, 0, sizeof(*file));
		if (!(file->path = kb_strdup(path)))
			return KB_ENOMEM;
		src->nfiles++;
		if ((file->err = load_blob(file, src)) < 0 &&
		    !(file->errmsg = kb_strdup(kb_error_last())))
			return KB_ENOMEM;
	}
	if (file->err < 0)
		return kb_error_set(file->err, "%s", file->errmsg);
	*buf = file->data;
	if (len)
		*len = file->len;
	return 0;
}
