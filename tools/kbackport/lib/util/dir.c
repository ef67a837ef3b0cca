#include "util/dir.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool skip(const char *name, unsigned flags)
{
	if (name[0] != '.')
		return false;
	return (flags & KB_DIR_NO_HIDDEN) || !name[1] || (name[1] == '.' && !name[2]);
}

/* An error for `path` with errno kept for the caller. */
static int cannot_read(const char *path)
{
	int e = errno;
	int err = kb_error_set(e == ENOENT ? KB_ENOTFOUND : KB_ERROR, "cannot read '%s': %s",
			       path, strerror(e));

	errno = e;
	return err;
}

static int read_entries(struct kb_dir *out, DIR *d, const char *path, unsigned flags)
{
	size_t alloc = 0;
	struct dirent *de;
	int err;

	for (errno = 0; (de = readdir(d)); errno = 0) {
		if (skip(de->d_name, flags))
			continue;
		if ((err = KB_ARRAY_GROW(out->names, alloc, out->n + 1)) < 0)
			return err;
		if (!(out->names[out->n] = kb_strdup(de->d_name)))
			return kb_error_oom();
		out->n++;
	}
	return errno ? cannot_read(path) : 0;
}

int kb_dir_read(struct kb_dir *out, const char *path, unsigned flags)
{
	DIR *d;
	int err, e;

	out->names = NULL;
	out->n = 0;
	if (!(d = opendir(path))) {
		if ((flags & KB_DIR_UNREADABLE_OK) || (errno == ENOENT && (flags & KB_DIR_MISSING_OK)))
			return 0;
		return cannot_read(path);
	}
	err = read_entries(out, d, path, flags);
	e = errno;
	closedir(d);
	errno = e;
	if (!err && out->n > 1)
		qsort(out->names, out->n, sizeof(*out->names), cmp_name);
	return err;
}

void kb_dir_release(struct kb_dir *dir)
{
	while (dir->n)
		free(dir->names[--dir->n]);
	free(dir->names);
	dir->names = NULL;
}
