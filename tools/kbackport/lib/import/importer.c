/*
 * The shared importer (importer.h): a tarball or a directory of files
 * read into blobs and entries, the entries checked and made a tree, the
 * tree committed on a branch.
 */
#include "import/importer.h"
#include "util/array.h"
#include "apply/commit.h"
#include "util/buf.h"
#include "util/interrupt.h"
#include "util/error.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void import_entries_free(struct import_entry *entries, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(entries[i].path);
	free(entries);
}

void importer_release(struct importer *im)
{
	size_t i;

	if (im->archive)
		archive_read_free(im->archive);
	if (im->fd >= 0)
		close(im->fd);
	import_entries_free(im->entries, im->n);
	for (i = 0; i < im->ndirs; i++)
		free(im->dirs[i]);
	free(im->dirs);
	kb_buf_release(&im->data);
}

/* ---- progress ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The files so far. */
void importer_tick(struct importer *im)
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

/* ---- members: blobs written, entries kept ---- */

const char *importer_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown type";
}

/* Devices, FIFOs and sockets are no source: refused, never opened or skipped. */
static int not_source(const struct importer *im, const char *path, mode_t mode)
{
	return kb_error_set(KB_EINVALID, "'%s': '%s' is %s, not a file, a directory or a symlink",
			    im->source, path, importer_kind(mode));
}

static int add_entry(struct importer *im, const char *path, const git_oid *id,
		     git_filemode_t mode)
{
	struct import_entry *e;
	int err;

	if ((err = KB_ARRAY_GROW(im->entries, im->alloc, im->n + 1)) < 0)
		return err;
	e = &im->entries[im->n];
	git_oid_cpy(&e->id, id);
	e->mode = mode;
	e->path = kb_strdup(path);
	KB_ERROR_CHECK_ALLOC(e->path);
	im->n++;
	if (im->opts && im->opts->progress && im->n % 5000 == 0)
		im->opts->progress(im->n, im->opts->payload);
	importer_tick(im);
	return 0;
}

/* A directory member ("net/core/"): no entry, but no file may have its path. */
static int add_dir(struct importer *im, const char *path)
{
	size_t len = strlen(path);
	int err;

	while (len > 0 && path[len - 1] == '/')
		len--;
	if ((err = KB_ARRAY_GROW(im->dirs, im->adirs, im->ndirs + 1)) < 0)
		return err;
	im->dirs[im->ndirs] = kb_strndup(path, len);
	KB_ERROR_CHECK_ALLOC(im->dirs[im->ndirs]);
	im->ndirs++;
	return 0;
}

static int add_symlink(struct importer *im, const char *path, const char *target, size_t len)
{
	git_oid id;
	int err;

	if ((err = git_blob_create_from_buffer(&id, im->repo, target, len)) < 0)
		return kb_error_git(err, "cannot write symlink '%s'", path);
	return add_entry(im, path, &id, GIT_FILEMODE_LINK);
}

/* im->data as the blob of `path`, executable or not. */
static int add_data(struct importer *im, const char *path, bool executable)
{
	git_oid id;
	int err;

	if ((err = git_blob_create_from_buffer(&id, im->repo, im->data.ptr ? im->data.ptr : "",
					       im->data.size)) < 0)
		return kb_error_git(err, "cannot write '%s'", path);
	return add_entry(im, path, &id, executable ? GIT_FILEMODE_BLOB_EXECUTABLE :
						     GIT_FILEMODE_BLOB);
}

/* ---- a tarball ---- */

/* "linux-source-6.1/net/core/dev.c" -> "net/core/dev.c"; NULL for the top. */
static const char *strip_top(const char *path)
{
	const char *slash = strchr(path, '/');

	if (!slash || !slash[1])
		return NULL;
	return slash + 1;
}

/* Zeros up to `size` bytes: the holes of a sparse member. */
static int pad(struct kb_buf *buf, size_t size)
{
	static const char zeros[4096];
	size_t n;

	while (buf->size < size) {
		n = size - buf->size < sizeof(zeros) ? size - buf->size : sizeof(zeros);
		if (kb_buf_put(buf, zeros, n) < 0)
			return kb_error_oom();
	}
	return 0;
}

/*
 * The member's bytes, exactly its size: the blocks of a sparse member at
 * their offsets and its holes as zeros (archive_read_data() would leave a
 * hole at the end out). Data that is not the member's size is refused.
 */
static int read_data(struct importer *im, struct archive_entry *ae, const char *path)
{
	la_int64_t size = archive_entry_size_is_set(ae) ? archive_entry_size(ae) : -1, offset;
	const void *block;
	size_t len;
	int rc = ARCHIVE_OK, err = 0;

	kb_buf_clear(&im->data);
	while (!err && (rc = archive_read_data_block(im->archive, &block, &len, &offset)) ==
			       ARCHIVE_OK) {
		if (offset < (la_int64_t)im->data.size ||
		    (size >= 0 && (offset > size || (la_int64_t)len > size - offset)))
			err = kb_error_set(KB_EINVALID, "'%s': '%s': %zu bytes at byte %lld, "
					   "outside its %lld bytes", im->source, path, len,
					   (long long)offset, (long long)size);
		else if (pad(&im->data, (size_t)offset) < 0 || kb_buf_put(&im->data, block, len) < 0)
			err = kb_error_oom();
	}
	if (err)
		return err;
	if (rc != ARCHIVE_EOF)
		return kb_error_set(KB_EINVALID, "cannot read '%s' from the tarball: %s", path,
				    archive_error_string(im->archive));
	if (size >= 0 && archive_entry_sparse_count(ae) > 0 && pad(&im->data, (size_t)size) < 0)
		return kb_error_oom();
	if (size >= 0 && (la_int64_t)im->data.size != size)
		return kb_error_set(KB_EINVALID, "cannot read '%s' from the tarball: %zu bytes "
				    "of %lld", path, im->data.size, (long long)size);
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

static int read_member(struct importer *im, struct archive_entry *ae)
{
	const char *name = archive_entry_pathname(ae), *path;
	mode_t type = archive_entry_filetype(ae);
	const char *link;
	int err;

	if (im->keep_top)
		name = skip_dot(name);
	if (!(path = strip_top(name)))
		return 0;
	if (im->keep_top)
		path = name;
	if ((link = archive_entry_hardlink(ae)))
		return add_hardlink(im, path, im->keep_top ? skip_dot(link) : link);
	switch (type) {
	case AE_IFLNK:
		if (!(link = archive_entry_symlink(ae)))
			return kb_error_set(KB_EINVALID, "symlink '%s' has no target", path);
		return add_symlink(im, path, link, strlen(link));
	case AE_IFDIR:
		return add_dir(im, path);
	case AE_IFREG:
		if ((err = read_data(im, ae, path)) < 0)
			return err;
		return add_data(im, path, archive_entry_perm(ae) & 0111);
	default:
		return not_source(im, path, type);
	}
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

/* The tarball opened for libarchive: a FIFO or a device is never waited on. */
static int open_tarball(struct importer *im, const char *tarball)
{
	struct stat st;

	if ((im->fd = open(tarball, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return kb_error_set(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR, "cannot read '%s': %s",
				    tarball, strerror(errno));
	if (fstat(im->fd, &st) < 0)
		return kb_error_set(KB_ERROR, "cannot read '%s': %s", tarball, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return kb_error_set(KB_EINVALID, "'%s' is %s, not a tarball", tarball,
				    S_ISDIR(st.st_mode) ? "a directory" : importer_kind(st.st_mode));
	if (fcntl(im->fd, F_SETFL, fcntl(im->fd, F_GETFL) & ~O_NONBLOCK) < 0)
		return kb_error_set(KB_ERROR, "cannot read '%s': %s", tarball, strerror(errno));
	im->archive = archive_read_new();
	KB_ERROR_CHECK_ALLOC(im->archive);
	archive_read_support_filter_all(im->archive);
	archive_read_support_format_tar(im->archive);
	if (archive_read_open_fd(im->archive, im->fd, 1 << 20) != ARCHIVE_OK)
		return kb_error_set(KB_ENOTFOUND, "cannot open '%s': %s", tarball,
				    archive_error_string(im->archive));
	return 0;
}

int importer_read_tarball(struct importer *im, const char *tarball)
{
	struct kb_buf last = KB_BUF_INIT;
	struct archive_entry *ae;
	const char *name;
	int rc, err;

	importer_tick(im);	/* the clock starts */
	if ((err = open_tarball(im, tarball)) < 0)
		return err;
	while (!err && (rc = archive_read_next_header(im->archive, &ae)) != ARCHIVE_EOF) {
		/* ARCHIVE_WARN: the header was read (a charset, an unknown
		 * extension); anything else but OK: it was not */
		if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
			err = damaged(im, tarball, last.ptr);
		else if (!(name = archive_entry_pathname(ae)))
			err = kb_error_set(KB_EINVALID, "'%s': the member at byte %lld has no name",
					   tarball, (long long)archive_read_header_position(im->archive));
		else if ((err = read_member(im, ae)) == 0) {
			kb_buf_clear(&last);
			err = kb_buf_puts(&last, name);
		}
	}
	if (!err && im->n == 0)
		err = kb_error_set(KB_EINVALID, "'%s' holds no files", tarball);
	kb_buf_release(&last);
	return err;
}

/* ---- a directory ---- */

/* A regular file read through a descriptor, so that a swap for a FIFO cannot block. */
static int add_disk_data(struct importer *im, const char *file, const char *path)
{
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int fd, err = 0;

	if ((fd = open(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return kb_error_set(KB_ERROR, "cannot read '%s': %s", file, strerror(errno));
	kb_buf_clear(&im->data);
	if (fstat(fd, &st) < 0)
		err = kb_error_set(KB_ERROR, "cannot read '%s': %s", file, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err = not_source(im, path, st.st_mode);
	while (!err && (n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno != EINTR)
			err = kb_error_set(KB_ERROR, "cannot read '%s': %s", file, strerror(errno));
		else if (n > 0 && kb_buf_put(&im->data, chunk, (size_t)n) < 0)
			err = kb_error_oom();
	}
	close(fd);
	return err ? err : add_data(im, path, st.st_mode & 0111);
}

static int add_disk_file(struct importer *im, const char *file, const char *path,
			 const struct stat *st)
{
	char target[4096];
	ssize_t n;

	if (S_ISLNK(st->st_mode)) {
		if ((n = readlink(file, target, sizeof(target) - 1)) < 0)
			return kb_error_set(KB_ERROR, "cannot read symlink '%s': %s", file,
					    strerror(errno));
		return add_symlink(im, path, target, (size_t)n);
	}
	if (!S_ISREG(st->st_mode))
		return not_source(im, path, st->st_mode);
	return add_disk_data(im, file, path);
}

int importer_read_dir(struct importer *im, const char *dir, const char *path)
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
			err = kb_error_oom();
		else if (lstat(file.ptr, &st) < 0)
			err = kb_error_set(KB_ERROR, "cannot stat '%s': %s", file.ptr,
					   strerror(errno));
		else if (S_ISDIR(st.st_mode))
			err = importer_read_dir(im, file.ptr, sub.ptr);
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

/* ---- one path for one member ---- */

static int cmp_entry(const void *a, const void *b)
{
	const struct import_entry *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The path of element i of an array of `stride`-byte elements starting with one. */
static const char *path_at(const void *paths, size_t stride, size_t i)
{
	return *(char *const *)((const char *)paths + i * stride);
}

/*
 * The first of the sorted `paths` below directory `dir` ("dir/..."), or
 * exactly `dir` when `self`; NULL when there is none.
 */
static const char *first_in(const char *dir, bool self, const void *paths, size_t stride,
			    size_t n)
{
	size_t lo = 0, hi = n, mid, len = strlen(dir);
	const char *p;
	int c;

	while (lo < hi) {	/* the first path not before "dir/" ("dir" when self) */
		mid = lo + (hi - lo) / 2;
		p = path_at(paths, stride, mid);
		if (!(c = strncmp(p, dir, len)))
			c = self ? (p[len] ? 1 : 0) : (unsigned char)p[len] - '/';
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return NULL;
	p = path_at(paths, stride, lo);
	if (strncmp(p, dir, len) || p[len] != (self ? '\0' : '/'))
		return NULL;
	return p;
}

int importer_check_paths(struct importer *im)
{
	const char *below, *what;
	size_t i;

	if (im->n)
		qsort(im->entries, im->n, sizeof(*im->entries), cmp_entry);
	if (im->ndirs)
		qsort(im->dirs, im->ndirs, sizeof(*im->dirs), cmp_str);
	for (i = 0; i < im->n; i++) {
		const struct import_entry *e = &im->entries[i];

		if (i > 0 && !strcmp(e[-1].path, e->path))
			return kb_error_set(KB_EINVALID, "'%s': '%s' is in it twice", im->source,
					    e->path);
		what = e->mode == GIT_FILEMODE_LINK ? "a symlink" : "a file";
		if (first_in(e->path, true, im->dirs, sizeof(*im->dirs), im->ndirs))
			return kb_error_set(KB_EINVALID, "'%s': '%s' is both %s and a directory "
					    "('%s/')", im->source, e->path, what, e->path);
		if ((below = first_in(e->path, false, im->entries, sizeof(*e), im->n)) ||
		    (below = first_in(e->path, false, im->dirs, sizeof(*im->dirs), im->ndirs)))
			return kb_error_set(KB_EINVALID, "'%s': '%s' is both %s and a directory "
					    "('%s')", im->source, e->path, what, below);
	}
	return 0;
}

/* ---- the tree and its commit ---- */

/* Sorted: each index insertion is an append. */
int importer_write_tree(git_oid *tree, git_repository *repo,
			const struct import_entry *entries, size_t from, size_t to,
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
		ie.path = entries[i].path + skip;
		ie.mode = entries[i].mode;
		git_oid_cpy(&ie.id, &entries[i].id);
		if ((err = git_index_add(index, &ie)) < 0)
			err = kb_error_git(err, "cannot add '%s'", ie.path);
	}
	if (!err && (err = git_index_write_tree_to(tree, index, repo)) < 0)
		err = kb_error_git(err, "cannot write the tree");
	git_index_free(index);
	return err;
}

int importer_refname(struct kb_buf *out, const char *branch)
{
	kb_buf_clear(out);
	if (kb_buf_printf(out, "refs/heads/%s", branch) < 0)
		return kb_error_oom();
	return 0;
}

int importer_tip(git_commit **out, git_repository *repo, const char *refname)
{
	git_oid tip;
	int err;

	*out = NULL;
	if (git_reference_name_to_id(&tip, repo, refname) < 0)
		return 0;	/* a new branch */
	if ((err = git_commit_lookup(out, repo, &tip)) < 0)
		return kb_error_git(err, "cannot read '%s'", refname);
	return 0;
}

int importer_commit(git_oid *out, git_repository *repo, const char *refname,
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
		if (err == 0)
			kb_work_ref_written();
		kb_signals_release(&saved);
		if (err == 0)
			kb_committer_written(sig);
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
