#include "import/import.h"
#include "util/child.h"
#include "util/buf.h"
#include "util/deb.h"
#include "apply/commit.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/run.h"

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
		return kb_error_oom();
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

/* apt-get download PACKAGE=VERSION, then unpack the .deb in `dir` (deb.h). */
static int download(char **tarball, const char *package, const char *version,
		    const char *dir, const char *log, const struct kb_ticker *ticker)
{
	struct kb_buf unpacked = KB_BUF_INIT, tar = KB_BUF_INIT;
	const char *series = package + strlen("linux-source-");
	char *deb = NULL;
	int err;

	if ((err = kb_buf_printf(&unpacked, "%s/%s_%s", dir, package, version)) < 0 ||
	    (err = kb_buf_printf(&tar, "%s/usr/src/linux-source-%s.tar.xz", unpacked.ptr, series)) < 0)
		goto done;
	if (!kb_path_exists(tar.ptr) &&
	    ((err = kb_deb_download(&deb, package, version, "all", dir, log, ticker)) < 0 ||
	     (err = kb_deb_unpack(deb, unpacked.ptr, log, ticker)) < 0))
		goto done;
	if (!kb_path_exists(tar.ptr))
		err = kb_error_set(KB_ENOTFOUND, "the package '%s' holds no '%s'", deb ? deb : package,
				   tar.ptr + unpacked.size + 1);
	else
		*tarball = kb_buf_detach(&tar);
done:
	free(deb);
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
	char *path;		/* first: entries are searched as paths (path_at()) */
	git_oid id;
	git_filemode_t mode;
};

struct importer {
	git_repository *repo;
	struct archive *archive;
	int fd;				/* the tarball's, or -1 */
	const char *source;		/* the tarball or directory, in messages */
	struct entry *entries;
	size_t n, alloc;
	char **dirs;			/* directory members, without their '/' */
	size_t ndirs, adirs;
	struct kb_buf data;		/* one file's contents, reused */
	const struct kb_import_opts *opts;
	bool keep_top;			/* trees: "linux-2.6.32/Makefile" kept whole */
	double start, next;		/* the ticker's clock (kb_ticker_due()) */
};

#define IMPORTER_INIT(r, o, src, top) { .repo = (r), .fd = -1, .source = (src), \
					.opts = (o), .keep_top = (top) }

static void importer_release(struct importer *im)
{
	size_t i;

	if (im->archive)
		archive_read_free(im->archive);
	if (im->fd >= 0)
		close(im->fd);
	for (i = 0; i < im->n; i++)
		free(im->entries[i].path);
	free(im->entries);
	for (i = 0; i < im->ndirs; i++)
		free(im->dirs[i]);
	free(im->dirs);
	kb_buf_release(&im->data);
}

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

/* What a member that is not a file, a directory or a symlink is. */
static const char *kind(mode_t mode)
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
			    im->source, path, kind(mode));
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
		e = realloc(im->entries, n * sizeof(*e));
		KB_ERROR_CHECK_ALLOC(e);
		im->entries = e;
		im->alloc = n;
	}
	e = &im->entries[im->n];
	git_oid_cpy(&e->id, id);
	e->mode = mode;
	e->path = kb_strdup(path);
	KB_ERROR_CHECK_ALLOC(e->path);
	im->n++;
	if (im->opts && im->opts->progress && im->n % 5000 == 0)
		im->opts->progress(im->n, im->opts->payload);
	import_tick(im);
	return 0;
}

/* A directory member ("net/core/"): no entry, but no file may have its path. */
static int add_dir(struct importer *im, const char *path)
{
	size_t len = strlen(path);
	char **d;

	while (len > 0 && path[len - 1] == '/')
		len--;
	if (im->ndirs == im->adirs) {
		size_t n = im->adirs ? im->adirs * 2 : 256;
		d = realloc(im->dirs, n * sizeof(*d));
		KB_ERROR_CHECK_ALLOC(d);
		im->dirs = d;
		im->adirs = n;
	}
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

static int import_entry(struct importer *im, struct archive_entry *ae)
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
				    S_ISDIR(st.st_mode) ? "a directory" : kind(st.st_mode));
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

/* Every member, or the first error: no damaged member is skipped. */
static int read_tarball(struct importer *im, const char *tarball)
{
	struct kb_buf last = KB_BUF_INIT;
	struct archive_entry *ae;
	const char *name;
	int rc, err;

	import_tick(im);	/* the clock starts */
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

/* ---- one path for one member ---- */

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
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

/*
 * Sorted; refused when two members have one path or a path is a file (or
 * a symlink) and a directory: git could keep only one of them.
 */
static int check_paths(struct importer *im)
{
	const char *below, *what;
	size_t i;

	if (im->n)
		qsort(im->entries, im->n, sizeof(*im->entries), cmp_entry);
	if (im->ndirs)
		qsort(im->dirs, im->ndirs, sizeof(*im->dirs), cmp_str);
	for (i = 0; i < im->n; i++) {
		const struct entry *e = &im->entries[i];

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

/*
 * The tree of entries [from, to) of the sorted entries, each path without
 * its first `skip` bytes: sorted, each index insertion is an append.
 */
static int write_slice(git_oid *tree, git_repository *repo, const struct entry *entries,
		       size_t from, size_t to, size_t skip)
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

/* ---- the commit ---- */

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

int kb_import_tarball(struct kb_import_result *out, git_repository *repo,
		      const char *branch, const char *tarball, const char *title,
		      const char *body, const struct kb_import_opts *opts)
{
	struct importer im = IMPORTER_INIT(repo, opts, tarball, false);
	struct kb_buf refname = KB_BUF_INIT, message = KB_BUF_INIT;
	git_commit *parent = NULL;
	git_oid tip, tree;
	int err;

	memset(out, 0, sizeof(*out));
	kb_buf_printf(&refname, "refs/heads/%s", branch);
	kb_buf_printf(&message, "%s\n\n%s", title, body ? body : "");
	if (!refname.ptr || !message.ptr) {
		err = kb_error_oom();
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
	if ((err = read_tarball(&im, tarball)) < 0 || (err = check_paths(&im)) < 0 ||
	    (err = write_slice(&tree, repo, im.entries, 0, im.n, 0)) < 0 ||
	    (err = commit_tree(&out->commit, repo, refname.ptr, &tree, parent, message.ptr)) < 0)
		goto done;
	out->created = true;
	out->files = im.n;
done:
	importer_release(&im);
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
			    kind(st.st_mode));
}

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
			err = kb_error_oom();
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
			err = kb_error_oom();
		else if (stat(sub.ptr, &st) == 0 && S_ISDIR(st.st_mode))
			err = read_dir(im, sub.ptr, d->d_name);
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
	struct entry *entries;	/* sorted */
	size_t n;
	struct tree_group *groups;
	size_t ngroups;
};

struct kb_trees {
	git_repository *repo;
	char *prefix;
	struct trees_source *sources;
	size_t n;
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

	for (i = 0; i < src->n; i++)
		free(src->entries[i].path);
	free(src->entries);
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

	for (from = 0; from < src->n; from = to) {
		top = strcspn(src->entries[from].path, "/") + 1;
		for (to = from + 1; to < src->n && !strncmp(src->entries[to].path,
							    src->entries[from].path, top); to++)
			;
		g = realloc(src->groups, (src->ngroups + 1) * sizeof(*g));
		KB_ERROR_CHECK_ALLOC(g);
		src->groups = g;
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
		kb_buf_clear(&refname);
		if (kb_buf_printf(&refname, "refs/heads/%s", src->groups[i].branch) < 0)
			err = kb_error_oom();
		else if (!git_reference_is_valid_name(refname.ptr))
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

	src = realloc(set->sources, (set->n + 1) * sizeof(*src));
	KB_ERROR_CHECK_ALLOC(src);
	set->sources = src;
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
		err = read_tarball(&im, path);
	if (!err && (err = check_paths(&im)) == 0) {
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
		kb_buf_clear(&refname);
		if (!err && kb_buf_printf(&refname, "refs/heads/%s", src->groups[g].branch) < 0)
			err = kb_error_oom();
		if (!err)
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
	git_oid tip;
	int err = 0;

	if (kb_buf_printf(&refname, "refs/heads/%s", t->branch) < 0 ||
	    kb_buf_printf(&message, "%s\n\nThe tree '%s/' of %s, imported by kbackport import "
			  "--trees\n(every file of the tree).\n", t->name, t->name, source) < 0) {
		err = kb_error_oom();
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
		if ((err = write_slice(&tree, set->repo, src->entries, g->from, g->to,
				       strlen(g->name) + 1)) == 0)
			err = commit_one(&trees[k], set->repo, &tree, src->base);
	}
	if (err == KB_ENOMEM)
		k = 0;
	for (j = k; j < src->ngroups; j++) {	/* not reached: not in *out */
		free(trees[j].name);
		free(trees[j].branch);
	}
	if (!k) {
		free(trees);
		trees = NULL;
	}
	*out = trees;
	*nout = k;
	return err;
}
