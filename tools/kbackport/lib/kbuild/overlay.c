#include "kbuild/overlay.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/dir.h"
#include "util/error.h"

#include <errno.h>
#include <git2/sys/odb_backend.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Above the repository's packs (2) and loose objects (1): writes go here. */
#define OVERLAY_ODB_PRIORITY 10

int kb_overlay_repo_open(git_repository **out, git_repository *repo,
			 const char *objects_dir)
{
	const char *path = git_repository_path(repo);
	git_odb_backend *loose = NULL;
	git_odb *odb = NULL;
	int err;

	*out = NULL;
	if ((err = git_repository_open_ext(out, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
					   NULL)) < 0) {
		err = kb_error_git(err, "cannot open repository '%s'", path);
		goto done;
	}
	if ((err = git_odb_backend_loose(&loose, objects_dir, -1, 0, 0, 0)) < 0 ||
	    (err = git_repository_odb(&odb, *out)) < 0 ||
	    (err = git_odb_add_backend(odb, loose, OVERLAY_ODB_PRIORITY)) < 0) {
		err = kb_error_git(err, "cannot use object directory '%s'", objects_dir);
		goto done;
	}
	loose = NULL;	/* the odb owns it now */
done:
	if (loose)
		loose->free(loose);
	git_odb_free(odb);
	if (err < 0) {
		git_repository_free(*out);
		*out = NULL;
	}
	return err;
}

/* ---- the changes, as git_tree_create_updated() takes them ---- */

struct updates {
	git_tree_update *v;
	size_t n, alloc;
};

static void updates_release(struct updates *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		free((char *)u->v[i].path);
	free(u->v);
}

/* A new entry at `path` (copied): the blob of `data` written to `repo`. */
static int add_blob(struct updates *u, git_repository *repo, const char *path,
		    git_filemode_t mode, const char *data, size_t len)
{
	git_tree_update *up;
	int err;

	if ((err = KB_ARRAY_GROW(u->v, u->alloc, u->n + 1)) < 0)
		return err;
	up = memset(&u->v[u->n], 0, sizeof(*up));
	if ((err = git_blob_create_from_buffer(&up->id, repo, data, len)) < 0)
		return kb_error_git(err, "cannot write '%s'", path);
	up->action = GIT_TREE_UPDATE_UPSERT;
	up->filemode = mode;
	up->path = kb_strdup(path);
	KB_ERROR_CHECK_ALLOC(up->path);
	u->n++;
	return 0;
}

/* KB_OVERLAY_MAKEFILE of `tree`, with the line that builds the overlay. */
static int add_makefile(struct updates *u, git_repository *repo, git_tree *tree,
			const char *hex)
{
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	struct kb_buf text = KB_BUF_INIT;
	int err;

	if (git_tree_entry_bypath(&entry, tree, KB_OVERLAY_MAKEFILE) < 0 ||
	    git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
		err = kb_error_set(KB_ENOTFOUND, "tree %s has no '%s' to build the overlay",
				   hex, KB_OVERLAY_MAKEFILE);
		goto done;
	}
	if ((err = git_blob_lookup(&blob, repo, git_tree_entry_id(entry))) < 0) {
		err = kb_error_git(err, "cannot read '%s' of tree %s", KB_OVERLAY_MAKEFILE, hex);
		goto done;
	}
	kb_buf_put(&text, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	if (text.size && text.ptr[text.size - 1] != '\n')	/* 0 once failed */
		kb_buf_putc(&text, '\n');
	kb_buf_puts(&text, KB_OVERLAY_LINE);
	if ((err = kb_buf_check(&text)) < 0)
		goto done;
	err = add_blob(u, repo, KB_OVERLAY_MAKEFILE, git_tree_entry_filemode(entry),
		       text.ptr, text.size);
done:
	kb_buf_release(&text);
	git_blob_free(blob);
	git_tree_entry_free(entry);
	return err;
}

/* File `name` of overlay directory `d`, under KB_OVERLAY_PATH/<d->name>. */
static int add_file(struct updates *u, git_repository *repo, const struct kb_overlay_dir *d,
		    const char *name)
{
	const char *dir = d->path;
	struct kb_buf path = KB_BUF_INIT, dest = KB_BUF_INIT;
	char *data = NULL;
	struct stat st;
	size_t len;
	int err;

	if ((err = kb_buf_printf(&path, "%s/%s", dir, name)) < 0 ||
	    (err = kb_buf_printf(&dest, "%s/%s/%s", KB_OVERLAY_PATH, d->name, name)) < 0)
		goto done;
	if (stat(path.ptr, &st) < 0)
		err = kb_error_set(KB_ERROR, "cannot read '%s': %s", path.ptr, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err = kb_error_set(KB_EINVALID, "overlay '%s': '%s' is not a regular file",
				   dir, name);
	else if ((err = kb_read_file(&data, &len, path.ptr)) == 0)
		err = add_blob(u, repo, dest.ptr, (st.st_mode & 0111) ?
			       GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB, data, len);
done:
	free(data);
	kb_buf_release(&path);
	kb_buf_release(&dest);
	return err;
}

static int add_dir(struct updates *u, git_repository *repo, const struct kb_overlay_dir *od)
{
	struct kb_dir ents = KB_DIR_INIT;
	size_t before = u->n, i;
	int err;

	if ((err = kb_dir_read(&ents, od->path, KB_DIR_NO_HIDDEN)) < 0 && err != KB_ENOMEM)
		err = kb_error_set(err, "cannot read overlay directory '%s': %s", od->path,
				   strerror(errno));
	for (i = 0; !err && i < ents.n; i++)
		err = add_file(u, repo, od, ents.names[i]);
	kb_dir_release(&ents);
	if (!err && u->n == before)
		err = kb_error_set(KB_EINVALID, "overlay directory '%s' has no file", od->path);
	return err;
}

/* KB_OVERLAY_PATH/Kbuild: one line a directory, each name once and a make target. */
static int add_kbuild(struct updates *u, git_repository *repo, const struct kb_overlay_dir *dirs,
		      size_t n)
{
	struct kb_buf text = KB_BUF_INIT, path = KB_BUF_INIT;
	size_t i, j;
	int err = kb_buf_puts(&text, "# SPDX-License-Identifier: GPL-2.0\n"
				     "# kbackport: the KUnit suites of the fixes under test\n");

	for (i = 0; i < n && !err; i++) {
		if (!dirs[i].name[0] || dirs[i].name[strspn(dirs[i].name,
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")])
			err = kb_error_set(KB_EINVALID, "overlay name '%s': letters, digits and '_' "
					   "only", dirs[i].name);
		for (j = 0; j < i && !err; j++)
			if (!strcmp(dirs[i].name, dirs[j].name))
				err = kb_error_set(KB_EINVALID, "overlays '%s' and '%s' have one name "
						   "'%s'", dirs[j].path, dirs[i].path, dirs[i].name);
		if (!err)
			err = kb_buf_printf(&text, "obj-y += %s/\n", dirs[i].name);
	}
	if (!err && (err = kb_buf_printf(&path, "%s/Kbuild", KB_OVERLAY_PATH)) == 0)
		err = add_blob(u, repo, path.ptr, GIT_FILEMODE_BLOB, text.ptr, text.size);
	kb_buf_release(&text);
	kb_buf_release(&path);
	return err;
}

int kb_overlay_tree(git_oid *out, git_repository *repo, const git_oid *tree_id,
		    const struct kb_overlay_dir *dirs, size_t n)
{
	struct updates u = { NULL, 0, 0 };
	git_tree_entry *there = NULL;
	git_tree *tree = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	size_t i;
	int err;

	git_oid_tostr(hex, sizeof(hex), tree_id);
	if ((err = git_tree_lookup(&tree, repo, tree_id)) < 0) {
		err = kb_error_git(err, "tree %s not found", hex);
		goto done;
	}
	if (git_tree_entry_bypath(&there, tree, KB_OVERLAY_PATH) == 0) {
		err = kb_error_set(KB_EEXISTS, "tree %s already has '%s': the overlay would "
				   "mix with it", hex, KB_OVERLAY_PATH);
		goto done;
	}
	if ((err = add_makefile(&u, repo, tree, hex)) < 0 ||
	    (err = add_kbuild(&u, repo, dirs, n)) < 0)
		goto done;
	for (i = 0; i < n && !err; i++)
		err = add_dir(&u, repo, &dirs[i]);
	if (!err && (err = git_tree_create_updated(out, repo, tree, u.n, u.v)) < 0)
		err = kb_error_git(err, "cannot write tree %s with the overlay", hex);
done:
	updates_release(&u);
	git_tree_entry_free(there);
	git_tree_free(tree);
	return err;
}
