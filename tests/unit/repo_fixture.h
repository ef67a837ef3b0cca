/*
 * Test helper: a bare git repository in a sandbox (sandbox.h), and trees
 * made from the era fixture directories (tests/fixtures/eras/<era>/tree)
 * through an in-memory index. Tests run from the top of the project.
 */
#ifndef KB_REPO_FIXTURE_H
#define KB_REPO_FIXTURE_H

#include <dirent.h>
#include <ftw.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "sandbox.h"

struct repo_fixture {
	struct sandbox sb;
	const char *dir;		/* sb.dir: the bare repository */
	git_repository *repo;
};

static inline void repo_fixture_init(struct repo_fixture *f)
{
	assert_int_equal(sandbox_init(&f->sb), 0);
	f->dir = f->sb.dir;
	assert_int_equal(git_repository_init(&f->repo, f->dir, 1), 0);
}

static inline void repo_fixture_release(struct repo_fixture *f)
{
	git_repository_free(f->repo);
	sandbox_release(&f->sb);
}

static inline void add_dir(git_repository *repo, git_index *index, const char *root,
			   const char *rel)
{
	char path[8192], sub[2048];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_non_null(d = opendir(path));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", root, sub);
		assert_int_equal(stat(path, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			add_dir(repo, index, root, sub);
		} else {
			git_index_entry e;
			char *data;
			size_t len;
			assert_int_equal(kb_read_file(&data, &len, path), 0);
			memset(&e, 0, sizeof(e));
			e.path = sub;
			e.mode = GIT_FILEMODE_BLOB;
			assert_int_equal(git_blob_create_from_buffer(&e.id, repo, data, len), 0);
			assert_int_equal(git_index_add(index, &e), 0);
			free(data);
		}
	}
	closedir(d);
}

/* The tree of fixture era `era` written into f->repo. */
static inline git_tree *era_tree(struct repo_fixture *f, const char *era)
{
	char root[512];
	git_index *index;
	git_tree *tree;
	git_oid id;

	snprintf(root, sizeof(root), "tests/fixtures/eras/%s/tree", era);
	assert_int_equal(git_index_new(&index), 0);
	add_dir(f->repo, index, root, "");
	assert_int_equal(git_index_write_tree_to(&id, index, f->repo), 0);
	git_index_free(index);
	assert_int_equal(git_tree_lookup(&tree, f->repo, &id), 0);
	return tree;
}

#endif
