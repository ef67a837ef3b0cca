#include "import.h"
#include "child.h"
#include "buf.h"
#include "commit.h"
#include "error.h"
#include "fsutil.h"
#include "run.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the package ---- */

int kb_debsrc_branch(char **out, const char *package)
{
	static const char prefix[] = "linux-source-";
	struct kb_buf name = KB_BUF_INIT;

	*out = NULL;
	if (strncmp(package, prefix, sizeof(prefix) - 1) || !package[sizeof(prefix) - 1] ||
	    strspn(package + sizeof(prefix) - 1, "0123456789.") !=
		    strlen(package + sizeof(prefix) - 1))
		return kb_error_set(KB_EINVALID, "'%s' is not a kernel source package (linux-source-X.Y)",
				    package);
	if (kb_buf_printf(&name, "stable/%s.y", package + sizeof(prefix) - 1) < 0)
		return KB_ENOMEM;
	*out = kb_buf_detach(&name);
	return 0;
}

static int installed_version(char **out, const char *package)
{
	const char *argv[] = { "dpkg-query", "-W", "-f=${db:Status-Status} ${Version}",
			       package, NULL };
	char *line = NULL;
	int rc;

	*out = NULL;
	if ((rc = kb_run_capture(&line, argv)) < 0)
		return rc;
	if (rc == 0 && !strncmp(line, "installed ", 10))
		*out = kb_strdup(line + 10);
	free(line);
	return 0;
}

static int apt(const char *const argv[], const char *cwd, const char *log,
	       const char *what, const struct kb_ticker *ticker, const char *step)
{
	char *tail;
	int rc = kb_run_ticked(argv, cwd, log, ticker, step);

	if (rc == 0 || rc < 0)
		return rc;
	tail = kb_file_tail(log, 5);
	rc = kb_error_set(KB_ERROR, "%s failed (exit %d); the end of '%s':\n%s", what, rc,
			  log, tail ? tail : "");
	free(tail);
	return rc;
}

static int install(const char *package, const char *log, const struct kb_ticker *ticker)
{
	const char *argv[] = { "apt-get", "-o", "DPkg::Lock::Timeout=300", "install",
			       "-y", "-q", "--no-install-recommends", package, NULL };

	setenv("DEBIAN_FRONTEND", "noninteractive", 1);
	return apt(argv, NULL, log, "apt-get install", ticker, "install");
}

/* apt-get download PACKAGE=VERSION, then unpack the .deb in `dir`. */
static int download(char **tarball, const char *package, const char *version,
		    const char *dir, const char *log, const struct kb_ticker *ticker)
{
	struct kb_buf spec = KB_BUF_INIT, deb = KB_BUF_INIT, unpacked = KB_BUF_INIT,
		      tar = KB_BUF_INIT;
	const char *series = package + strlen("linux-source-");
	int err;

	kb_buf_printf(&spec, "%s=%s", package, version);
	kb_buf_printf(&deb, "%s/%s_%s_all.deb", dir, package, version);
	kb_buf_printf(&unpacked, "%s/%s_%s", dir, package, version);
	kb_buf_printf(&tar, "%s/usr/src/linux-source-%s.tar.xz", unpacked.ptr, series);
	{
		const char *get[] = { "apt-get", "-q", "download", spec.ptr, NULL };
		const char *unpack[] = { "dpkg-deb", "-x", deb.ptr, unpacked.ptr, NULL };
		struct stat st;

		if (stat(tar.ptr, &st) == 0)
			err = 0;
		else if ((err = apt(get, dir, log, "apt-get download", ticker, "download")) == 0)
			err = apt(unpack, NULL, log, "dpkg-deb -x", ticker, "unpack");
	}
	if (!err)
		*tarball = kb_buf_detach(&tar);
	kb_buf_release(&spec);
	kb_buf_release(&deb);
	kb_buf_release(&unpacked);
	kb_buf_release(&tar);
	return err;
}

int kb_debsrc_fetch(struct kb_debsrc *out, const char *package,
		    const char *version, const char *downloads,
		    const struct kb_ticker *ticker)
{
	struct kb_buf log = KB_BUF_INIT, tar = KB_BUF_INIT;
	char *installed = NULL, *branch = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = kb_debsrc_branch(&branch, package)) < 0)
		return err;
	free(branch);
	if ((err = kb_mkdir_p(downloads)) < 0)
		return err;
	kb_buf_printf(&log, "%s/apt.log", downloads);
	if ((err = installed_version(&installed, package)) < 0)
		goto done;
	if (!installed && !version) {
		if ((err = install(package, log.ptr, ticker)) < 0 ||
		    (err = installed_version(&installed, package)) < 0)
			goto done;
		if (!installed) {
			err = kb_error_set(KB_ERROR, "'%s' is still not installed after apt-get install", package);
			goto done;
		}
	}
	out->package = kb_strdup(package);
	out->series = kb_strdup(package + strlen("linux-source-"));
	if (installed && (!version || !strcmp(version, installed))) {
		out->version = installed;
		installed = NULL;
		kb_buf_printf(&tar, "/usr/src/%s.tar.xz", package);
		out->tarball = kb_buf_detach(&tar);
	} else {
		out->version = kb_strdup(version);
		err = download(&out->tarball, package, version, downloads, log.ptr, ticker);
	}
done:
	free(installed);
	kb_buf_release(&log);
	kb_buf_release(&tar);
	if (err < 0)
		kb_debsrc_release(out);
	return err;
}

void kb_debsrc_release(struct kb_debsrc *src)
{
	free(src->package);
	free(src->version);
	free(src->series);
	free(src->tarball);
	memset(src, 0, sizeof(*src));
}

/* ---- the tarball ---- */

struct entry {
	char *path;
	git_oid id;
	git_filemode_t mode;
};

struct importer {
	git_repository *repo;
	struct archive *archive;
	struct entry *entries;
	size_t n, alloc;
	struct kb_buf data;		/* one file's contents, reused */
	const struct kb_import_opts *opts;
	bool keep_top;			/* trees: "linux-2.6.32/Makefile" kept whole */
	double start, next;		/* the ticker's clock (kb_ticker_due()) */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A tick of step "import" when one is due: the files so far. */
static void import_tick(struct importer *im)
{
	const struct kb_ticker *t = im->opts ? &im->opts->ticker : NULL;
	struct kb_tick k = { .step = "import", .counted = true, .unit = "files" };

	if (!t || !t->tick || t->interval <= 0)
		return;
	if (im->start <= 0)
		im->start = now();
	k.seconds = now() - im->start;
	k.done = im->n;
	if (kb_ticker_due(t, &im->next, k.seconds))
		t->tick(&k, t->payload);
}

/* "linux-source-6.1/net/core/dev.c" -> "net/core/dev.c"; NULL for the top. */
static const char *strip_top(const char *path)
{
	const char *slash = strchr(path, '/');

	if (!slash || !slash[1])
		return NULL;
	return slash + 1;
}

static int add_entry(struct importer *im, const char *path, const git_oid *id,
		     git_filemode_t mode)
{
	struct entry *e;

	if (im->n == im->alloc) {
		size_t n = im->alloc ? im->alloc * 2 : 4096;
		if (!(e = realloc(im->entries, n * sizeof(*e))))
			return kb_error_set(KB_ENOMEM, "out of memory");
		im->entries = e;
		im->alloc = n;
	}
	e = &im->entries[im->n];
	git_oid_cpy(&e->id, id);
	e->mode = mode;
	if (!(e->path = kb_strdup(path)))
		return KB_ENOMEM;
	im->n++;
	if (im->opts && im->opts->progress && im->n % 5000 == 0)
		im->opts->progress(im->n, im->opts->payload);
	import_tick(im);
	return 0;
}

static int read_data(struct importer *im, const char *path)
{
	char chunk[65536];
	la_ssize_t n;

	kb_buf_clear(&im->data);
	while ((n = archive_read_data(im->archive, chunk, sizeof(chunk))) > 0)
		if (kb_buf_put(&im->data, chunk, (size_t)n) < 0)
			return KB_ENOMEM;
	if (n < 0)
		return kb_error_set(KB_EINVALID, "cannot read '%s' from the tarball: %s", path,
				    archive_error_string(im->archive));
	return 0;
}

/* A hard link names an earlier entry: it gets the same blob. */
static int add_hardlink(struct importer *im, const char *path, const char *target)
{
	const char *t = im->keep_top ? target : strip_top(target);
	size_t i;

	for (i = im->n; t && i-- > 0;)
		if (!strcmp(im->entries[i].path, t))
			return add_entry(im, path, &im->entries[i].id, im->entries[i].mode);
	return kb_error_set(KB_EINVALID, "hard link '%s' to '%s': no such earlier entry",
			    path, target);
}

/* "./linux-2.6.32/Makefile" (tar -C dir .) -> "linux-2.6.32/Makefile" */
static const char *skip_dot(const char *path)
{
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	return path;
}

static int import_entry(struct importer *im, struct archive_entry *ae)
{
	const char *name = archive_entry_pathname(ae), *path;
	mode_t type = archive_entry_filetype(ae);
	git_filemode_t mode;
	const char *link;
	git_oid id;
	int err;

	if (im->keep_top)
		name = skip_dot(name);
	if (!(path = strip_top(name)))
		return 0;
	if (im->keep_top)
		path = name;
	if ((link = archive_entry_hardlink(ae)))
		return add_hardlink(im, path, im->keep_top ? skip_dot(link) : link);
	if (type == AE_IFLNK) {
		if (!(link = archive_entry_symlink(ae)))
			return kb_error_set(KB_EINVALID, "symlink '%s' has no target", path);
		if ((err = git_blob_create_from_buffer(&id, im->repo, link, strlen(link))) < 0)
			return kb_error_git(err, "cannot write symlink '%s'", path);
		return add_entry(im, path, &id, GIT_FILEMODE_LINK);
	}
	if (type != AE_IFREG)
		return 0;	/* directories are implied; devices and fifos are not source */
	if ((err = read_data(im, path)) < 0)
		return err;
	if ((err = git_blob_create_from_buffer(&id, im->repo, im->data.ptr ? im->data.ptr : "",
					       im->data.size)) < 0)
		return kb_error_git(err, "cannot write '%s'", path);
	mode = (archive_entry_perm(ae) & 0111) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	return add_entry(im, path, &id, mode);
}

/*
 * A header libarchive could not read (ARCHIVE_RETRY: a damaged header, it
 * would skip to the next one; ARCHIVE_FAILED, ARCHIVE_FATAL) has no name
 * to trust: the member is named by its place, after the last good one.
 */
static int damaged(struct importer *im, const char *tarball, const char *after)
{
	const char *why = archive_error_string(im->archive);

	return kb_error_set(KB_EINVALID, "'%s': damaged member at byte %lld%s%s%s: %s", tarball,
			    (long long)archive_read_header_position(im->archive),
			    after ? " (after '" : " (the first)", after ? after : "", after ? "')" : "",
			    why ? why : "unreadable header");
}

/* Every member, or the first error: no damaged member is skipped. */
static int read_tarball(struct importer *im, const char *tarball)
{
	struct kb_buf last = KB_BUF_INIT;
	struct archive_entry *ae;
	const char *name;
	int rc, err = 0;

	import_tick(im);	/* the clock starts */
	if (!(im->archive = archive_read_new()))
		return kb_error_set(KB_ENOMEM, "out of memory");
	archive_read_support_filter_all(im->archive);
	archive_read_support_format_tar(im->archive);
	if (archive_read_open_filename(im->archive, tarball, 1 << 20) != ARCHIVE_OK)
		return kb_error_set(KB_ENOTFOUND, "cannot open '%s': %s", tarball,
				    archive_error_string(im->archive));
	while (!err && (rc = archive_read_next_header(im->archive, &ae)) != ARCHIVE_EOF) {
		/* ARCHIVE_WARN: the header was read (a charset, an unknown
		 * extension); anything else but OK: it was not */
		if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
			err = damaged(im, tarball, last.ptr);
		else if (!(name = archive_entry_pathname(ae)))
			err = kb_error_set(KB_EINVALID, "'%s': the member at byte %lld has no name",
					   tarball, (long long)archive_read_header_position(im->archive));
		else if ((err = import_entry(im, ae)) == 0) {
			kb_buf_clear(&last);
			err = kb_buf_puts(&last, name);
		}
	}
	if (!err && im->n == 0)
		err = kb_error_set(KB_EINVALID, "'%s' holds no files", tarball);
	kb_buf_release(&last);
	return err;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/*
 * The tree of entries [from, to) of the sorted entries, each path without
 * its first `skip` bytes: sorted, each index insertion is an append.
 */
static int write_slice(git_oid *tree, struct importer *im, size_t from, size_t to,
		       size_t skip)
{
	git_index *index = NULL;
	git_index_entry ie;
	size_t i;
	int err;

	if ((err = git_index_new(&index)) < 0)
		return kb_error_git(err, "cannot create an index in memory");
	for (i = from; i < to && !err; i++) {
		memset(&ie, 0, sizeof(ie));
		ie.path = im->entries[i].path + skip;
		ie.mode = im->entries[i].mode;
		git_oid_cpy(&ie.id, &im->entries[i].id);
		if ((err = git_index_add(index, &ie)) < 0)
			err = kb_error_git(err, "cannot add '%s'", ie.path);
	}
	if (!err && (err = git_index_write_tree_to(tree, index, im->repo)) < 0)
		err = kb_error_git(err, "cannot write the tree");
	git_index_free(index);
	return err;
}

static int write_tree(git_oid *tree, struct importer *im)
{
	qsort(im->entries, im->n, sizeof(*im->entries), cmp_entry);
	return write_slice(tree, im, 0, im->n, 0);
}

/* The first-parent history of `tip` already has a commit titled `title`. */
static int find_title(git_oid *found, git_repository *repo, const git_oid *tip,
		      const char *title)
{
	git_commit *c = NULL, *parent;
	const char *summary;
	int hit = 0;

	if (git_commit_lookup(&c, repo, tip) < 0)
		return 0;
	while (c && !hit) {
		summary = git_commit_summary(c);
		if (summary && !strcmp(summary, title)) {
			git_oid_cpy(found, git_commit_id(c));
			hit = 1;
		}
		parent = NULL;
		if (git_commit_parentcount(c) > 0)
			git_commit_parent(&parent, c, 0);
		git_commit_free(c);
		c = parent;
	}
	git_commit_free(c);
	return hit;
}

static int commit_tree(git_oid *out, git_repository *repo, const char *refname,
		       const git_oid *tree_id, git_commit *parent, const char *message)
{
	const git_commit *parents[1] = { parent };
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	git_tree *tree = NULL;
	sigset_t saved;
	git_oid zero;
	int err;

	if ((err = kb_committer(&sig, repo)) < 0)
		return err;
	if ((err = git_tree_lookup(&tree, repo, tree_id)) < 0 ||
	    (err = git_commit_create(out, repo, NULL, sig, sig, NULL, message, tree,
				     parent ? 1 : 0, parents)) < 0)
		err = kb_error_git(err, "cannot write the import commit");
	else {
		/* a compare-and-swap under the ref's lock, for a new branch too
		 * (a zero old id: "must not exist"), so that of two imports at
		 * once one is refused and none replaced */
		memset(&zero, 0, sizeof(zero));
		kb_signals_hold(&saved);
		err = git_reference_create_matching(&ref, repo, refname, out, 1,
						    parent ? git_commit_id(parent) : &zero,
						    "kbackport import");
		kb_signals_release(&saved);
		if (err == GIT_EMODIFIED || err == GIT_ELOCKED)
			err = kb_error_git(err, "'%s' was changed by another writer meanwhile: "
					   "not overwritten (import again)", refname);
		else if (err < 0)
			err = kb_error_git(err, "cannot update '%s'", refname);
	}
	git_reference_free(ref);
	git_tree_free(tree);
	git_signature_free(sig);
	return err;
}

int kb_import_tarball(struct kb_import_result *out, git_repository *repo,
		      const char *branch, const char *tarball, const char *title,
		      const char *body, const struct kb_import_opts *opts)
{
	struct importer im = { .repo = repo, .opts = opts };
	struct kb_buf refname = KB_BUF_INIT, message = KB_BUF_INIT;
	git_commit *parent = NULL;
	git_oid tip, tree;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	kb_buf_printf(&refname, "refs/heads/%s", branch);
	kb_buf_printf(&message, "%s\n\n%s", title, body ? body : "");
	if (!refname.ptr || !message.ptr) {
		err = KB_ENOMEM;
		goto done;
	}
	if (git_reference_name_to_id(&tip, repo, refname.ptr) == 0) {
		if (find_title(&out->commit, repo, &tip, title)) {
			err = 0;
			goto done;
		}
		if ((err = git_commit_lookup(&parent, repo, &tip)) < 0) {
			err = kb_error_git(err, "cannot read '%s'", refname.ptr);
			goto done;
		}
	}
	if ((err = read_tarball(&im, tarball)) < 0 || (err = write_tree(&tree, &im)) < 0 ||
	    (err = commit_tree(&out->commit, repo, refname.ptr, &tree, parent, message.ptr)) < 0)
		goto done;
	out->created = true;
	out->files = im.n;
done:
	if (im.archive)
		archive_read_free(im.archive);
	for (i = 0; i < im.n; i++)
		free(im.entries[i].path);
	free(im.entries);
	kb_buf_release(&im.data);
	kb_buf_release(&refname);
	kb_buf_release(&message);
	git_commit_free(parent);
	return err;
}

/* ---- trees: a tarball or a directory of top-level trees ---- */

void kb_import_trees_free(struct kb_import_tree *trees, size_t n)
{
	size_t i;

	for (i = 0; trees && i < n; i++) {
		free(trees[i].name);
		free(trees[i].branch);
	}
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
		return KB_ENOMEM;
	*out = kb_buf_detach(&b);
	return *out ? 0 : KB_ENOMEM;
}

static int add_disk_file(struct importer *im, const char *file, const char *path,
			 const struct stat *st)
{
	char target[4096];
	ssize_t n;
	git_oid id;
	int err;

	if (S_ISLNK(st->st_mode)) {
		if ((n = readlink(file, target, sizeof(target) - 1)) < 0)
			return kb_error_set(KB_ERROR, "cannot read symlink '%s': %s", file,
					    strerror(errno));
		if ((err = git_blob_create_from_buffer(&id, im->repo, target, (size_t)n)) < 0)
			return kb_error_git(err, "cannot write symlink '%s'", path);
		return add_entry(im, path, &id, GIT_FILEMODE_LINK);
	}
	if (!S_ISREG(st->st_mode))
		return 0;	/* devices and fifos are not source */
	if ((err = git_blob_create_from_disk(&id, im->repo, file)) < 0)
		return kb_error_git(err, "cannot read '%s'", file);
	return add_entry(im, path, &id, (st->st_mode & 0111) ? GIT_FILEMODE_BLOB_EXECUTABLE :
							      GIT_FILEMODE_BLOB);
}

/* Every file below `dir`, as `path`/...; a .git directory is not source. */
static int read_dir(struct importer *im, const char *dir, const char *path)
{
	struct kb_buf file = KB_BUF_INIT, sub = KB_BUF_INIT;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int err = 0;

	if (!(dp = opendir(dir)))
		return kb_error_set(KB_ENOTFOUND, "cannot read directory '%s': %s", dir,
				    strerror(errno));
	while (!err && (errno = 0, d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    !strcmp(d->d_name, ".git"))
			continue;
		kb_buf_clear(&file);
		kb_buf_clear(&sub);
		if (kb_buf_printf(&file, "%s/%s", dir, d->d_name) < 0 ||
		    kb_buf_printf(&sub, "%s/%s", path, d->d_name) < 0)
			err = KB_ENOMEM;
		else if (lstat(file.ptr, &st) < 0)
			err = kb_error_set(KB_ERROR, "cannot stat '%s': %s", file.ptr,
					   strerror(errno));
		else if (S_ISDIR(st.st_mode))
			err = read_dir(im, file.ptr, sub.ptr);
		else
			err = add_disk_file(im, file.ptr, sub.ptr, &st);
	}
	if (!err && errno)
		err = kb_error_set(KB_ERROR, "cannot read directory '%s': %s", dir, strerror(errno));
	closedir(dp);
	kb_buf_release(&file);
	kb_buf_release(&sub);
	return err;
}

/* Each subdirectory of `dir` is a tree: its files go in as "<name>/...". */
static int read_trees_dir(struct importer *im, const char *dir)
{
	struct kb_buf sub = KB_BUF_INIT;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int err = 0;

	import_tick(im);	/* the clock starts */
	if (!(dp = opendir(dir)))
		return kb_error_set(KB_ENOTFOUND, "cannot read directory '%s': %s", dir,
				    strerror(errno));
	while (!err && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		kb_buf_clear(&sub);
		if (kb_buf_printf(&sub, "%s/%s", dir, d->d_name) < 0)
			err = KB_ENOMEM;
		else if (stat(sub.ptr, &st) == 0 && S_ISDIR(st.st_mode))
			err = read_dir(im, sub.ptr, d->d_name);
	}
	closedir(dp);
	kb_buf_release(&sub);
	if (!err && im->n == 0)
		err = kb_error_set(KB_EINVALID, "'%s' holds no tree (a directory with files)", dir);
	return err;
}

/* The tree's commit on its branch: none when the tip already has this tree. */
static int commit_one(struct kb_import_tree *t, git_repository *repo, const git_oid *tree,
		      const char *source)
{
	struct kb_buf refname = KB_BUF_INIT, message = KB_BUF_INIT;
	git_commit *parent = NULL;
	git_oid tip;
	int err = 0;

	if (kb_buf_printf(&refname, "refs/heads/%s", t->branch) < 0 ||
	    kb_buf_printf(&message, "%s\n\nThe tree '%s/' of %s, imported by kbackport import "
			  "--trees\n(every file of the tree).\n", t->name, t->name, source) < 0) {
		err = KB_ENOMEM;
		goto done;
	}
	if (!git_reference_is_valid_name(refname.ptr)) {
		err = kb_error_set(KB_EINVALID, "'%s' (from '%s/') is not a valid branch name",
				   t->branch, t->name);
		goto done;
	}
	if (git_reference_name_to_id(&tip, repo, refname.ptr) == 0) {
		if ((err = git_commit_lookup(&parent, repo, &tip)) < 0) {
			err = kb_error_git(err, "cannot read '%s'", refname.ptr);
			goto done;
		}
		if (git_oid_equal(git_commit_tree_id(parent), tree)) {
			git_oid_cpy(&t->commit, &tip);
			goto done;
		}
	}
	if ((err = commit_tree(&t->commit, repo, refname.ptr, tree, parent, message.ptr)) == 0)
		t->created = true;
done:
	git_commit_free(parent);
	kb_buf_release(&refname);
	kb_buf_release(&message);
	return err;
}

/* One tree per run of entries with the same top directory. */
static int commit_groups(struct kb_import_tree **out, size_t *nout, struct importer *im,
			 const char *prefix, const char *source)
{
	struct kb_import_tree *trees = NULL, *t;
	size_t from, to, top, n = 0;
	git_oid tree;
	int err = 0;

	qsort(im->entries, im->n, sizeof(*im->entries), cmp_entry);
	for (from = 0; from < im->n && !err; from = to) {
		top = strcspn(im->entries[from].path, "/") + 1;
		for (to = from + 1; to < im->n && !strncmp(im->entries[to].path,
							   im->entries[from].path, top); to++)
			;
		if (!(t = realloc(trees, (n + 1) * sizeof(*trees)))) {
			err = kb_error_set(KB_ENOMEM, "out of memory");
			break;
		}
		trees = t;
		t = &trees[n++];
		memset(t, 0, sizeof(*t));
		t->files = to - from;
		if (!(t->name = strndup(im->entries[from].path, top - 1)))
			err = KB_ENOMEM;
		else if ((err = kb_trees_branch(&t->branch, prefix, t->name)) == 0 &&
			 (err = write_slice(&tree, im, from, to, top)) == 0)
			err = commit_one(t, im->repo, &tree, source);
	}
	*out = trees;
	*nout = n;
	return err;
}

int kb_import_trees(struct kb_import_tree **out, size_t *n, git_repository *repo,
		    const char *path, const char *prefix, const struct kb_import_opts *opts)
{
	struct importer im = { .repo = repo, .opts = opts, .keep_top = true };
	const char *base = strrchr(path, '/');
	struct stat st;
	size_t i;
	int err;

	*out = NULL;
	*n = 0;
	while (base && !base[1] && base > path)	/* "dir/" names dir */
		for (base--; base > path && *base != '/'; base--)
			;
	base = base && base[1] ? base + 1 : path;
	if (stat(path, &st) < 0)
		err = kb_error_set(KB_ENOTFOUND, "cannot read '%s': %s", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		err = read_trees_dir(&im, path);
	else
		err = read_tarball(&im, path);
	if (!err)
		err = commit_groups(out, n, &im, prefix, base);
	if (im.archive)
		archive_read_free(im.archive);
	for (i = 0; i < im.n; i++)
		free(im.entries[i].path);
	free(im.entries);
	kb_buf_release(&im.data);
	return err;
}
