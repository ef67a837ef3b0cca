/*
 * Test helper: a temporary directory for each test, files written into it
 * by relative path (their directories made), removed whole afterwards.
 */
#ifndef KB_SANDBOX_H
#define KB_SANDBOX_H

#include <dirent.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct sandbox {
	char dir[64];
	char path[512];		/* scratch for sb_path() */
};

static inline const char *sb_path(struct sandbox *sb, const char *rel)
{
	snprintf(sb->path, sizeof(sb->path), "%s/%s", sb->dir, rel);
	return sb->path;
}

static inline void write_file(struct sandbox *sb, const char *rel, const char *text)
{
	char dir[512], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", sb_path(sb, rel));
	for (slash = strchr(dir + strlen(sb->dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	assert_non_null(f = fopen(dir, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Whether `dir` holds a file with ".tmp" in its name: a write left behind. */
static inline bool has_temporary(const char *dir)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		found |= strstr(de->d_name, ".tmp") != NULL;
	if (d)
		closedir(d);
	return found;
}

static inline int sandbox_rm_entry(const char *path, const struct stat *st, int flag,
				   struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A new empty sandbox under /tmp; NULL when it cannot be made. */
static inline struct sandbox *sandbox_new(void)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));

	if (!sb)
		return NULL;
	strcpy(sb->dir, "/tmp/kbackport-unit.XXXXXX");
	if (!mkdtemp(sb->dir)) {
		free(sb);
		return NULL;
	}
	return sb;
}

static inline void sandbox_free(struct sandbox *sb)
{
	nftw(sb->dir, sandbox_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(sb);
}

#endif
