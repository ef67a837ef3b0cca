/*
 * Trees (import.h, kbackport import --trees): each top-level directory of
 * a tarball or of a directory is one tree, committed on its own branch by
 * the shared importer (importer.h) once every source is read and checked.
 */
#include "import/import.h"
#include "import/importer.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void tree_release(struct kb_import_tree *t)
{
	free(t->name);
	free(t->branch);
}

void kb_import_trees_free(struct kb_import_tree *trees, size_t n)
{
	size_t i;

	for (i = 0; trees && i < n; i++)
		tree_release(&trees[i]);
	free(trees);
}

int kb_trees_branch(char **out, const char *prefix, const char *name)
{
	static const char linux_[] = "linux-";
	struct kb_buf b = KB_BUF_INIT;

	*out = NULL;
	if (!strncmp(name, linux_, sizeof(linux_) - 1) && name[sizeof(linux_) - 1])
		name += sizeof(linux_) - 1;
	if (kb_buf_printf(&b, "%s%s", prefix, name) < 0)
		return kb_error_oom();
	*out = kb_buf_detach(&b);
	return *out ? 0 : kb_error_oom();
}

int kb_trees_path_check(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return 0;	/* a missing path is that source's error, when read */
	return kb_error_set(KB_EINVALID, "'%s' is %s, not a tarball or a directory", path,
			    importer_kind(st.st_mode));
}

/* Each subdirectory of `dir` is a tree: its files go in as "<name>/...". */
static int read_trees_dir(struct importer *im, const char *dir)
{
	struct kb_buf sub = KB_BUF_INIT;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int err = 0;

	importer_tick(im);	/* the clock starts */
	if (!(dp = opendir(dir)))
		return kb_error_set(KB_ENOTFOUND, "cannot read directory '%s': %s", dir,
				    strerror(errno));
	while (!err && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		kb_buf_clear(&sub);
		if (kb_buf_printf(&sub, "%s/%s", dir, d->d_name) < 0)
			err = kb_error_oom();
		else if (stat(sub.ptr, &st) == 0 && S_ISDIR(st.st_mode))
			err = importer_read_dir(im, sub.ptr, d->d_name);
	}
	closedir(dp);
	kb_buf_release(&sub);
	if (!err && im->n == 0)
		err = kb_error_set(KB_EINVALID, "'%s' holds no tree (a directory with files)", dir);
	return err;
}

/* One top-level directory of a source: entries [from, to) of the source. */
struct tree_group {
	size_t from, to;
	char *name;		/* "linux-2.6.32" */
	char *branch;		/* "eras/2.6.32" */
};

/* One --trees PATH, read and checked alone; nothing of it written yet. */
struct trees_source {
	char *path;
	const char *base;	/* the path's last component, in commit messages */
	bool ok;		/* read without error */
	struct import_entry *entries;	/* sorted */
	size_t n;
	struct tree_group *groups;
	size_t ngroups, agroups;
};

struct kb_trees {
	git_repository *repo;
	char *prefix;
	struct trees_source *sources;
	size_t n, alloc;
};

int kb_trees_new(struct kb_trees **out, git_repository *repo, const char *prefix)
{
	struct kb_trees *set;

	*out = NULL;
	if (!(set = calloc(1, sizeof(*set))) || !(set->prefix = kb_strdup(prefix))) {
		free(set);
		return kb_error_oom();
	}
	set->repo = repo;
	*out = set;
	return 0;
}

static void source_release(struct trees_source *src)
{
	size_t i;

	import_entries_free(src->entries, src->n);
	for (i = 0; i < src->ngroups; i++) {
		free(src->groups[i].name);
		free(src->groups[i].branch);
	}
	free(src->groups);
	free(src->path);
}

void kb_trees_free(struct kb_trees *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->n; i++)
		source_release(&set->sources[i]);
	free(set->sources);
	free(set->prefix);
	free(set);
}

/* "dir/" and "a/b/dir" name dir. */
static const char *base_name(const char *path)
{
	const char *base = strrchr(path, '/');

	while (base && !base[1] && base > path)
		for (base--; base > path && *base != '/'; base--)
			;
	return base && base[1] ? base + 1 : path;
}

/* One group per run of sorted entries with the same top directory, and its branch. */
static int group_trees(struct trees_source *src, const char *prefix)
{
	struct tree_group *g;
	size_t from, to, top;
	int err;

	for (from = 0; from < src->n; from = to) {
		top = strcspn(src->entries[from].path, "/") + 1;
		for (to = from + 1; to < src->n && !strncmp(src->entries[to].path,
							    src->entries[from].path, top); to++)
			;
		if ((err = KB_ARRAY_GROW(src->groups, src->agroups, src->ngroups + 1)) < 0)
			return err;
		g = &src->groups[src->ngroups++];
		memset(g, 0, sizeof(*g));
		g->from = from;
		g->to = to;
		if (!(g->name = kb_strndup(src->entries[from].path, top - 1)) ||
		    kb_trees_branch(&g->branch, prefix, g->name) < 0)
			return kb_error_oom();
	}
	return 0;
}

/* Every branch name is one git takes. */
static int check_names(const struct trees_source *src)
{
	struct kb_buf refname = KB_BUF_INIT;
	size_t i;
	int err = 0;

	for (i = 0; i < src->ngroups && !err; i++) {
		if ((err = importer_refname(&refname, src->groups[i].branch)) < 0)
			break;
		if (!git_reference_is_valid_name(refname.ptr))
			err = kb_error_set(KB_EINVALID, "'%s' (from '%s/') is not a valid branch name",
					   src->groups[i].branch, src->groups[i].name);
	}
	kb_buf_release(&refname);
	return err;
}

int kb_trees_read(struct kb_trees *set, const char *path, const struct kb_import_opts *opts)
{
	struct importer im = IMPORTER_INIT(set->repo, opts, path, true);
	struct trees_source *src;
	struct stat st;
	int err;

	if ((err = KB_ARRAY_GROW(set->sources, set->alloc, set->n + 1)) < 0)
		return err;
	src = &set->sources[set->n++];
	memset(src, 0, sizeof(*src));
	src->path = kb_strdup(path);
	KB_ERROR_CHECK_ALLOC(src->path);
	src->base = base_name(src->path);
	if (stat(path, &st) < 0)
		err = kb_error_set(KB_ENOTFOUND, "cannot read '%s': %s", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		err = read_trees_dir(&im, path);
	else
		err = importer_read_tarball(&im, path);
	if (!err && (err = importer_check_paths(&im)) == 0) {
		src->entries = im.entries;
		src->n = im.n;
		im.entries = NULL;
		im.n = 0;
		if ((err = group_trees(src, set->prefix)) == 0 && (err = check_names(src)) == 0)
			src->ok = true;
	}
	importer_release(&im);
	return err;
}

/* Two trees for one branch, named in the order they were given. */
static int clash(const struct kb_trees *set, size_t i, size_t g, size_t j, size_t h)
{
	const struct trees_source *a = &set->sources[i < j ? i : j];
	const struct trees_source *b = &set->sources[i < j ? j : i];
	const struct tree_group *x = &set->sources[i].groups[g];
	const struct tree_group *y = &set->sources[j].groups[h];

	if (i == j)
		return kb_error_set(KB_EINVALID, "'%s': '%s/' and '%s/' both make branch '%s'",
				    a->path, (g < h ? x : y)->name, (g < h ? y : x)->name, x->branch);
	return kb_error_set(KB_EINVALID, "'%s/' of '%s' and '%s/' of '%s' both make branch '%s'",
			    (i < j ? x : y)->name, a->path, (i < j ? y : x)->name, b->path,
			    x->branch);
}

/* A branch named like a directory of `refname`'s, or below it, is in its way. */
static int ref_in_the_way(git_repository *repo, const char *refname, const char *name)
{
	git_reference_iterator *it = NULL;
	struct kb_buf glob = KB_BUF_INIT;
	const char *slash, *below = NULL;
	git_reference *ref = NULL;
	int err = 0;

	for (slash = refname + strlen("refs/heads/"); !err && (slash = strchr(slash, '/'));
	     slash++) {
		kb_buf_clear(&glob);
		if (kb_buf_put(&glob, refname, (size_t)(slash - refname)) < 0)
			err = kb_error_oom();
		else if (git_reference_lookup(&ref, repo, glob.ptr) == 0)
			err = kb_error_set(KB_EEXISTS, "branch '%s' (from '%s/') cannot be made: "
					   "branch '%s' is in its way", refname + 11, name,
					   glob.ptr + 11);
		git_reference_free(ref);
		ref = NULL;
	}
	kb_buf_clear(&glob);
	if (!err && kb_buf_printf(&glob, "%s/*", refname) < 0)
		err = kb_error_oom();
	if (!err && git_reference_iterator_glob_new(&it, repo, glob.ptr) == 0 &&
	    git_reference_next_name(&below, it) == 0)
		err = kb_error_set(KB_EEXISTS, "branch '%s' (from '%s/') cannot be made: "
				   "branch '%s' is in its way", refname + 11, name, below + 11);
	git_reference_iterator_free(it);
	kb_buf_release(&glob);
	return err;
}

int kb_trees_check(const struct kb_trees *set, size_t i)
{
	const struct trees_source *src = &set->sources[i];
	struct kb_buf refname = KB_BUF_INIT;
	size_t g, j, h;
	int err = 0;

	if (!src->ok)
		return 0;
	for (g = 0; g < src->ngroups && !err; g++) {
		for (j = 0; j < set->n && !err; j++)
			for (h = 0; set->sources[j].ok && h < set->sources[j].ngroups && !err; h++)
				if ((j != i || h != g) &&
				    !strcmp(src->groups[g].branch, set->sources[j].groups[h].branch))
					err = clash(set, i, g, j, h);
		if (!err && (err = importer_refname(&refname, src->groups[g].branch)) == 0)
			err = ref_in_the_way(set->repo, refname.ptr, src->groups[g].name);
	}
	kb_buf_release(&refname);
	return err;
}

/* The tree's commit on its branch: none when the tip already has this tree. */
static int commit_one(struct kb_import_tree *t, git_repository *repo, const git_oid *tree,
		      const char *source)
{
	struct kb_buf refname = KB_BUF_INIT, message = KB_BUF_INIT;
	git_commit *parent = NULL;
	int err;

	if ((err = importer_refname(&refname, t->branch)) < 0 ||
	    (err = importer_tip(&parent, repo, refname.ptr)) < 0)
		goto done;
	if (parent && git_oid_equal(git_commit_tree_id(parent), tree)) {
		git_oid_cpy(&t->commit, git_commit_id(parent));
		goto done;
	}
	if (kb_buf_printf(&message, "%s\n\nThe tree '%s/' of %s, imported by kbackport import "
			  "--trees\n(every file of the tree).\n", t->name, t->name, source) < 0) {
		err = kb_error_oom();
		goto done;
	}
	if ((err = importer_commit(&t->commit, repo, refname.ptr, tree, parent, message.ptr)) == 0)
		t->created = true;
done:
	git_commit_free(parent);
	kb_buf_release(&refname);
	kb_buf_release(&message);
	return err;
}

int kb_trees_commit(struct kb_import_tree **out, size_t *nout, struct kb_trees *set, size_t i)
{
	const struct trees_source *src = &set->sources[i];
	struct kb_import_tree *trees;
	const struct tree_group *g;
	git_oid tree;
	size_t k, j;
	int err = 0;

	*out = NULL;
	*nout = 0;
	if (!src->ok || !src->ngroups)
		return 0;
	trees = calloc(src->ngroups, sizeof(*trees));
	KB_ERROR_CHECK_ALLOC(trees);
	for (k = 0; k < src->ngroups; k++) {
		g = &src->groups[k];
		trees[k].files = g->to - g->from;
		if (!(trees[k].name = kb_strdup(g->name)) || !(trees[k].branch = kb_strdup(g->branch)))
			err = kb_error_oom();
	}
	for (k = 0; k < src->ngroups && !err; k++) {
		g = &src->groups[k];
		if ((err = importer_write_tree(&tree, set->repo, src->entries, g->from, g->to,
					       strlen(g->name) + 1)) == 0)
			err = commit_one(&trees[k], set->repo, &tree, src->base);
	}
	if (err == KB_ENOMEM)
		k = 0;
	for (j = k; j < src->ngroups; j++)	/* not reached: not in *out */
		tree_release(&trees[j]);
	if (!k) {
		free(trees);
		trees = NULL;
	}
	*out = trees;
	*nout = k;
	return err;
}
