#include "kbuild/build.h"
#include "util/buf.h"
#include "kbuild/compat.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "kbuild/kconfig.h"
#include "kbuild/overlay.h"
#include "kbuild/payload.h"
#include "util/process.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STAMP "kbackport.stamp"
#define TAIL_LINES 20

static const char *const build_status_names[] = {
	[KB_BUILD_PASS] = "pass",
	[KB_BUILD_FAIL] = "fail",
	[KB_BUILD_CACHED] = "cached",
	[KB_BUILD_SKIPPED] = "skipped",
};

const char *kb_build_status_name(enum kb_build_status status)
{
	return build_status_names[status];
}

bool kb_build_status_parse(enum kb_build_status *out, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(build_status_names) / sizeof(*build_status_names); i++)
		if (!strcmp(build_status_names[i], name)) {
			*out = (enum kb_build_status)i;
			return true;
		}
	return false;
}

void kb_build_opts_init(struct kb_build_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
}

void kb_build_result_release(struct kb_build_result *r)
{
	free(r->build_dir);
	free(r->staging_dir);
	free(r->image);
	free(r->log);
	free(r->reason);
	free(r->missing_options);
	free(r->shared_with);
	memset(r, 0, sizeof(*r));
}

/* ---- checking the final .config against the fragment ---- */

/* One fragment line: append it to `missing` when `config` disagrees. */
static int check_line(struct kb_buf *missing, const char *line, size_t n,
		      const char *config)
{
	static const char unset[] = " is not set";
	const char *name = line, *want, *got;
	size_t len, wlen, glen;

	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
		n--;
	if (n > 2 && !strncmp(line, "# CONFIG_", 9) && n > strlen(unset) &&
	    !strncmp(line + n - strlen(unset), unset, strlen(unset))) {
		name = line + 2;
		len = n - 2 - strlen(unset);
		want = "not set";
		wlen = strlen(want);
	} else if (!strncmp(line, "CONFIG_", 7) && memchr(line, '=', n)) {
		len = (size_t)((const char *)memchr(line, '=', n) - line);
		want = line + len + 1;
		wlen = n - len - 1;
	} else {
		return 0;
	}
	got = kb_config_value(config, name, len, &glen);
	if (glen == wlen && !strncmp(got, want, wlen))
		return 0;
	if (wlen == 7 && !strncmp(want, "not set", 7))
		return kb_buf_printf(missing, "%.*s is not set (got: %.*s)\n", (int)len,
				     name, (int)glen, got);
	return kb_buf_printf(missing, "%.*s=%.*s (got: %.*s)\n", (int)len, name,
			     (int)wlen, want, (int)glen, got);
}

int kb_build_check_config(char **out, const char *fragment, const char *config)
{
	struct kb_buf missing = KB_BUF_INIT;
	const char *p = fragment;
	size_t n;
	int err = 0;

	*out = NULL;
	for (; p && *p && !err; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		err = check_line(&missing, p, n, config);
	}
	if (err < 0) {
		kb_buf_release(&missing);
		return err;
	}
	if (missing.size)
		missing.ptr[--missing.size] = '\0';	/* no final newline */
	if (missing.size)
		*out = kb_buf_detach(&missing);
	kb_buf_release(&missing);
	return 0;
}

/* ---- one lane's build: paths and key ---- */

struct lane_build {
	git_repository *repo;	/* the caller's, then `own` */
	git_repository *own;	/* reads <workdir>/odb too, writes only there */
	const struct kb_branch *branch;
	const struct kb_lane *lane;
	const struct kb_build_opts *opts;
	struct kb_build_result *out;
	char *workdir;		/* absolute */
	char *src;		/* <workdir>/src/<branch> */
	char *obj;		/* <workdir>/obj/<branch>: where builds run */
	char *obj_log, *obj_staging;
	char *fragment;		/* absolute path */
	char *fragment_text;
	char *fragment_notes;	/* extra fragments left out, and why (for the log) */
	char *cfg;		/* hash of arch, toolchain and fragment */
	char *key;		/* hash of cfg and tree: the build's name */
	char *copied_tree;	/* the tree of the build this one copies (or
				 * resumes a copy of), whatever its cfg */
	bool copied_cfg;	/* ...copied now, from a build of this cfg */
	git_oid built;		/* the lane's tree with the overlay */
	char tree[GIT_OID_HEXSZ + 1];	/* `built`, in hex */
	char lane_tree[GIT_OID_HEXSZ + 1];
	struct kb_compat_result compat;	/* the build rules applied */
	int lock_fd, log_fd;
	struct timespec start;
	bool from_scratch;	/* the O= directory started empty */
	bool no_ccache;		/* make runs with CCACHE_DISABLE=1 */
	char *refused;		/* why the kept build of this key was not
				 * taken (its image not its own kernel) */
	size_t made;		/* "  CC" lines of every step */
	size_t expected;	/* `made` of the branch's last build from
				 * scratch, or 0 */
	double next_tick;
};

static double elapsed(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) +
	       (double)(now.tv_nsec - since->tv_nsec) / 1e9;
}

/* A step begins: a "### [seconds] what" line in the log, and progress. */
static void announce(struct lane_build *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void announce(struct lane_build *b, const char *fmt, ...)
{
	double t = elapsed(&b->start);
	char what[512], line[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (b->log_fd >= 0)
		dprintf(b->log_fd, "### [%.1fs] %s\n", t, what);
	snprintf(line, sizeof(line), "%d:%02d %.200s", (int)t / 60, (int)t % 60, what);
	if (b->opts->progress)
		b->opts->progress(line, b->opts->payload);
}

/* `path` made absolute (against the current directory). */
static char *absolute(const char *path)
{
	struct kb_buf buf = KB_BUF_INIT;
	char cwd[4096];

	if (path[0] == '/')
		return kb_strdup(path);
	if (!getcwd(cwd, sizeof(cwd))) {
		kb_error_set(KB_ERROR, "cannot get the current directory: %s", strerror(errno));
		return NULL;
	}
	if (kb_buf_printf(&buf, "%s/%s", cwd, path) < 0)
		return NULL;
	return kb_buf_detach(&buf);
}

static char *path_join(const char *a, const char *b)
{
	struct kb_buf buf = KB_BUF_INIT;

	if (kb_buf_printf(&buf, "%s/%s", a, b) < 0)
		return NULL;
	return kb_buf_detach(&buf);
}

static bool on_path(const char *prog)
{
	const char *path = getenv("PATH"), *p;
	char file[4096];
	size_t n;

	for (p = path; p && *p; p += n + (p[n] == ':')) {
		n = strcspn(p, ":");
		snprintf(file, sizeof(file), "%.*s/%s", (int)n, p, prog);
		if (n && access(file, X_OK) == 0)
			return true;
	}
	return false;
}

/* cfg: what a build depends on besides its tree; key: cfg and tree. */
static int lane_key(struct lane_build *b)
{
	const char *gcc[] = { "gcc", "--version", NULL };
	struct kb_buf data = KB_BUF_INIT;
	char *toolchain = NULL;
	int err;

	if (kb_process_capture(&toolchain, gcc) != 0) {
		free(toolchain);
		toolchain = NULL;
	}
	kb_buf_printf(&data, "arch %s\ntoolchain %s\nfragment\n%s", b->branch->arch,
		      toolchain ? toolchain : "none", b->fragment_text);
	if (b->compat.cc_flags)
		kb_buf_printf(&data, "compat cc-flags %s\n", b->compat.cc_flags);
	if ((err = kb_buf_check(&data)) < 0 ||
	    (err = kb_digest(&b->cfg, data.ptr, data.size, "the build key")) < 0)
		goto done;
	kb_buf_clear(&data);
	if ((err = kb_buf_printf(&data, "cfg %s\ntree %s\n", b->cfg, b->tree)) < 0 ||
	    (err = kb_digest(&b->key, data.ptr, data.size, "the build key")) < 0)
		goto done;
	b->key[16] = '\0';	/* 64 bits name a build well enough */
done:
	free(toolchain);
	kb_buf_release(&data);
	return err;
}

static const char *image_path(const char *arch)
{
	if (!strcmp(arch, "x86_64") || !strcmp(arch, "x86") || !strcmp(arch, "i386"))
		return "arch/x86/boot/bzImage";
	return "vmlinux";
}

/* Whether the lane's image is a bzImage (x86), whose payload is checked. */
static bool boots_bzimage(const struct lane_build *b)
{
	return !strcmp(image_path(b->branch->arch), "arch/x86/boot/bzImage");
}

/*
 * kb_payload_check() on the build in `dir`, with its .config. A .config
 * that cannot be read is KB_ENOTFOUND or KB_ERROR, never KB_EINVALID: that
 * is the image carrying another kernel's payload.
 */
static int check_image(char **note, const char *dir)
{
	char *config_path = path_join(dir, ".config"), *config = NULL;
	int err = config_path ? kb_read_file(&config, NULL, config_path) : kb_error_oom();

	if (err == KB_EINVALID)
		err = KB_ERROR;
	if (!err)
		err = kb_payload_check(note, dir, config);
	free(config);
	free(config_path);
	return err;
}

static int result_paths(struct lane_build *b)
{
	struct kb_build_result *r = b->out;
	struct kb_buf dir = KB_BUF_INIT;

	if (kb_buf_printf(&dir, "%s/builds/%s", b->workdir, b->key) < 0)
		return kb_error_oom();
	r->build_dir = kb_buf_detach(&dir);
	if (!r->build_dir || !(r->staging_dir = path_join(r->build_dir, "staging")) ||
	    !(r->log = path_join(r->build_dir, "build.log")) ||
	    !(r->image = path_join(r->build_dir, image_path(b->branch->arch))))
		return kb_error_oom();
	return 0;
}

static int lane_paths(struct lane_build *b)
{
	const char *fragment = b->branch->config ? b->branch->config : b->opts->fragment;
	struct kb_buf src = KB_BUF_INIT;
	int err;

	if (!fragment)
		return kb_error_set(KB_EINVALID, "no config fragment for branch '%s'",
				    b->branch->name);
	git_oid_tostr(b->lane_tree, sizeof(b->lane_tree), &b->lane->tree);
	if (!(b->workdir = absolute(b->opts->workdir)) ||
	    !(b->fragment = absolute(fragment)))
		return kb_error_oom();
	if ((err = kb_read_file(&b->fragment_text, NULL, b->fragment)) < 0)
		return kb_error_prefix(err, "cannot read config fragment '%s'", fragment);
	if ((err = kb_buf_printf(&src, "%s/src/%s", b->workdir, b->branch->name)) < 0 ||
	    !(b->src = kb_buf_detach(&src)) ||
	    (err = kb_buf_printf(&src, "%s/obj/%s", b->workdir, b->branch->name)) < 0 ||
	    !(b->obj = kb_buf_detach(&src)) ||
	    !(b->obj_log = path_join(b->obj, "build.log")) ||
	    !(b->obj_staging = path_join(b->obj, "staging")))
		return err < 0 ? err : kb_error_oom();
	return 0;
}

/*
 * The tree to build: the lane's, plus the overlay when there is one, with
 * the build rules that hold for it (compat.h). From
 * here on trees are read through a handle whose new objects go to
 * <workdir>/odb: the overlaid trees of earlier runs are found there.
 */
static int built_tree(struct lane_build *b)
{
	struct kb_compat *rules = NULL;
	char *odb = path_join(b->workdir, "odb");
	int err = odb ? kb_mkdir_p(odb) : kb_error_oom();

	git_oid_cpy(&b->out->tree, &b->lane->tree);
	if (!err && (err = kb_overlay_repo_open(&b->own, b->repo, odb)) == 0) {
		b->repo = b->own;
		if (b->opts->noverlays)
			err = kb_overlay_tree(&b->built, b->repo, &b->lane->tree,
					      b->opts->overlays, b->opts->noverlays);
		else
			git_oid_cpy(&b->built, &b->lane->tree);
	}
	if (!err && b->opts->compat && (err = kb_compat_load(&rules, b->opts->compat)) == 0 &&
	    (err = kb_compat_apply(&b->compat, b->repo, &b->built, rules)) == 0)
		git_oid_cpy(&b->built, &b->compat.tree);
	kb_compat_free(rules);
	free(odb);
	if (err < 0)
		return err;
	git_oid_cpy(&b->out->built_tree, &b->built);
	git_oid_tostr(b->tree, sizeof(b->tree), &b->built);
	return 0;
}

/* ---- the config fragment: the common one, and the fixes' tests' ---- */

/* Extra fragment `path`: appended to `text` when the tree knows all it names. */
static int add_extra(struct lane_build *b, struct kb_buf *text, struct kb_buf *notes,
		     const struct kb_kconfig *k, const char *path)
{
	char *extra = NULL, *unknown = NULL;
	int err;

	if ((err = kb_read_file(&extra, NULL, path)) < 0)
		return kb_error_prefix(err, "cannot read the config fragment '%s'", path);
	if ((err = kb_kconfig_first_unknown(&unknown, k, extra)) == 0) {
		if (unknown)
			err = kb_buf_printf(notes, "config fragment '%s' left out: this kernel "
					    "has no %s\n", path, unknown);
		else if ((err = kb_buf_printf(text, "\n# ---- %s ----\n%s", path, extra)) == 0 &&
			 text->ptr[text->size - 1] != '\n')
			err = kb_buf_putc(text, '\n');
	}
	(void)b;
	free(unknown);
	free(extra);
	return err;
}

/*
 * With extra fragments: the fragment built with is the common one and
 * those of them this tree has every option of, written once to
 * <workdir>/fragments/<sha256>.config (merge_config.sh reads files).
 */
static int compose_fragment(struct lane_build *b)
{
	struct kb_buf text = KB_BUF_INIT, notes = KB_BUF_INIT, path = KB_BUF_INIT;
	struct kb_kconfig k;
	char *cache = NULL, hash[65];
	size_t i;
	int err;

	if (!b->opts->nextra_fragments || b->branch->config)
		return 0;
	cache = path_join(b->workdir, "kconfig");
	KB_ERROR_CHECK_ALLOC(cache);
	if ((err = kb_kconfig_load(&k, b->repo, &b->lane->tree, cache)) < 0)
		goto done;
	err = kb_buf_puts(&text, b->fragment_text);
	for (i = 0; i < b->opts->nextra_fragments && !err; i++)
		err = add_extra(b, &text, &notes, &k, b->opts->extra_fragments[i]);
	kb_kconfig_release(&k);
	if (err < 0 || (err = kb_sha256_hex(hash, text.ptr, text.size)) < 0 ||
	    (err = kb_buf_printf(&path, "%s/fragments", b->workdir)) < 0 ||
	    (err = kb_mkdir_p(path.ptr)) < 0 ||
	    (err = kb_buf_printf(&path, "/%.16s.config", hash)) < 0 ||
	    (!kb_path_exists(path.ptr) &&
	     (err = kb_write_file_atomic(path.ptr, text.ptr, text.size)) < 0))
		goto done;
	free(b->fragment);
	free(b->fragment_text);
	b->fragment = kb_buf_detach(&path);
	b->fragment_text = kb_buf_detach(&text);
	b->fragment_notes = notes.size ? kb_buf_detach(&notes) : NULL;
done:
	free(cache);
	kb_buf_release(&text);
	kb_buf_release(&notes);
	kb_buf_release(&path);
	return err;
}

/* ---- stamps: "name value" lines, written whole with a rename ---- */

/* The value of `name` in stamp text `text` (malloc'ed), or NULL. */
static char *stamp_get(const char *text, const char *name)
{
	const char *p = text;
	size_t n, len = strlen(name);

	for (; p && *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		if (n > len && !strncmp(p, name, len) && p[len] == ' ')
			return kb_strndup(p + len + 1, n - len - 1);
	}
	return NULL;
}

static int write_stamp(struct lane_build *b)
{
	struct kb_buf text = KB_BUF_INIT;
	char *path = path_join(b->obj, STAMP);
	int err;

	KB_ERROR_CHECK_ALLOC(path);
	if ((err = kb_buf_printf(&text, "key %s\ncfg %s\ntree %s\nlane-tree %s\n"
				 "branch %s\nlane %s\n", b->key, b->cfg, b->tree,
				 b->lane_tree, b->branch->name,
				 kb_lane_kind_name(b->lane->kind))) == 0)
		err = kb_write_atomic(path, text.ptr);
	kb_buf_release(&text);
	free(path);
	return err;
}

/* The stamp of build directory `dir`, or NULL when it is not complete. */
static char *read_stamp(const char *dir)
{
	char *path = path_join(dir, STAMP), *text = NULL;

	if (path && kb_read_file(&text, NULL, path) < 0)
		text = NULL;
	free(path);
	return text;
}

/* "<branch> <lane>" from a stamp; NULL for this lane's own when `not_self`. */
static char *stamp_label(const struct lane_build *b, const char *stamp, bool not_self)
{
	char *branch = stamp_get(stamp, "branch"), *lane = stamp_get(stamp, "lane");
	struct kb_buf label = KB_BUF_INIT;

	if (branch && lane && (!not_self || strcmp(branch, b->branch->name) ||
			       strcmp(lane, kb_lane_kind_name(b->lane->kind))))
		kb_buf_printf(&label, "%s %s", branch, lane);
	free(branch);
	free(lane);
	return label.size ? kb_buf_detach(&label) : NULL;
}

/*
 * A completed build of this key: the lane is cached (1), unless its image
 * does not carry its own kernel (payload.h), as a build kept by a
 * kbackport before that check may not: then its stamp goes (0), `refused`
 * says why, and the build is resumed as a cut one is, which makes the
 * image again (check_payload). Negative: an error.
 */
static int cached(struct lane_build *b)
{
	char *stamp = read_stamp(b->out->build_dir), *note = NULL, *stamp_path = NULL;
	int err = 1;

	if (!stamp)
		return 0;
	if (boots_bzimage(b) && check_image(&note, b->out->build_dir) == KB_EINVALID) {
		free(b->refused);
		if (!(b->refused = kb_strdup(kb_error_last())) ||
		    !(stamp_path = path_join(b->out->build_dir, STAMP)))
			err = kb_error_oom();
		else if (unlink(stamp_path) < 0)
			err = kb_error_set(KB_ERROR, "cannot remove '%s': %s", stamp_path,
					   strerror(errno));
		else
			err = 0;
	}
	if (err == 1) {
		b->out->status = KB_BUILD_CACHED;
		b->out->shared_with = stamp_label(b, stamp, true);
	}
	free(note);
	free(stamp_path);
	free(stamp);
	return err;
}

/* ---- the branch's source directory ---- */

static int lock_branch(struct lane_build *b)
{
	struct kb_buf path = KB_BUF_INIT;
	int err;

	if ((err = kb_buf_printf(&path, "%s.lock", b->src)) < 0)
		return err;
	if ((b->lock_fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 ||
	    flock(b->lock_fd, LOCK_EX) < 0)
		err = kb_error_set(KB_ERROR, "cannot lock '%s': %s", path.ptr, strerror(errno));
	kb_buf_release(&path);
	return err;
}

/* The tree the source directory holds, from its stamp; NULL when unknown. */
static git_tree *src_tree(struct lane_build *b, const char *stamp_path)
{
	char *text = NULL;
	git_tree *tree = NULL;
	git_oid id;

	if (kb_read_file(&text, NULL, stamp_path) == 0 &&
	    git_oid_fromstrn(&id, text, strcspn(text, "\n")) == 0 &&
	    git_tree_lookup(&tree, b->repo, &id) < 0)
		tree = NULL;
	free(text);
	return tree;
}

/* The paths that differ between `from` and `to`, for checkout's pathspec. */
static int changed_paths(git_strarray *out, git_diff **diff, git_repository *repo,
			 git_tree *from, git_tree *to)
{
	size_t i, n;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = git_diff_tree_to_tree(diff, repo, from, to, NULL)) < 0)
		return kb_error_git(err, "cannot compare trees");
	n = git_diff_num_deltas(*diff);
	out->strings = calloc(2 * n + 1, sizeof(char *));
	KB_ERROR_CHECK_ALLOC(out->strings);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(*diff, i);
		out->strings[out->count++] = (char *)d->new_file.path;
		if (strcmp(d->old_file.path, d->new_file.path))
			out->strings[out->count++] = (char *)d->old_file.path;
	}
	return 0;
}

/*
 * Write `target` into the source directory. From a known tree, only the
 * paths that differ are considered, so unchanged files keep their mtimes
 * (make stays incremental) and nothing else is read. DONT_UPDATE_INDEX:
 * the repository's own index must not be rewritten.
 */
static int checkout(struct lane_build *b, git_tree *baseline, git_tree *target)
{
	git_checkout_options co;
	git_index *empty = NULL;
	git_diff *diff = NULL;
	git_strarray paths = { NULL, 0 };
	int err;

	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX |
			      GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	co.target_directory = b->src;
	if (baseline) {
		if ((err = changed_paths(&paths, &diff, b->repo, baseline, target)) < 0 ||
		    !paths.count)
			goto done;
		co.baseline = baseline;
		co.paths = paths;
		co.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	} else {
		if ((err = git_index_new(&empty)) < 0)
			goto done;
		co.baseline_index = empty;
	}
	if ((err = git_checkout_tree(b->repo, (git_object *)target, &co)) < 0)
		err = kb_error_git(err, "cannot write tree %s into '%s'", b->tree, b->src);
done:
	free(paths.strings);
	git_diff_free(diff);
	git_index_free(empty);
	return err;
}

/*
 * make goes by mtimes, and the source directory is shared by the
 * branch's lanes: it holds the tree of the last lane written there, its
 * files dated by whenever they were written. A build that starts from a
 * copy of another build (or resumes one) needs the opposite: a file newer
 * than the copied objects exactly when it differs from the tree the copy
 * was built from. So before make, every file of the lane's tree is dated:
 * now when it differs from the copy's tree (make recompiles what reads
 * it), else OLD_MTIME, older than any build (make keeps what the copy
 * compiled from it, though a lane switch rewrote it: the as-is file put
 * back after a pre-fix lane). Only the files whose date is not already
 * right are touched.
 */
#define OLD_MTIME 946684800	/* 2000-01-01 */
#define BASE_FILE "kbackport.base"	/* in a build dir: the copy's tree */

static git_diff *diff_to_lane(struct lane_build *b, const char *tree_hex);

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct dating {
	struct lane_build *b;
	const char **changed;	/* sorted: the paths that differ from the copy's tree */
	size_t n;
	struct kb_buf path;
	int err;
};

static int date_entry(const char *root, const git_tree_entry *e, void *payload)
{
	struct dating *d = payload;
	const char *rel;
	struct timespec t[2];
	struct stat st;
	bool now;

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	d->path.size = 0;
	if ((d->err = kb_buf_printf(&d->path, "%s/%s%s", d->b->src, root,
				    git_tree_entry_name(e))) < 0)
		return -1;
	rel = d->path.ptr + strlen(d->b->src) + 1;
	now = d->n && bsearch(&rel, d->changed, d->n, sizeof(*d->changed), cmp_path);
	if (!now && lstat(d->path.ptr, &st) == 0 && st.st_mtim.tv_sec == OLD_MTIME &&
	    st.st_mtim.tv_nsec == 0)
		return 0;
	t[0] = t[1] = now ? (struct timespec){ 0, UTIME_NOW } : (struct timespec){ OLD_MTIME, 0 };
	if (utimensat(AT_FDCWD, d->path.ptr, t, AT_SYMLINK_NOFOLLOW) < 0) {
		d->err = kb_error_set(KB_ERROR, "cannot date '%s': %s", d->path.ptr,
				      strerror(errno));
		return -1;
	}
	return 0;
}

static int date_sources(struct lane_build *b, git_tree *want)
{
	struct dating d = { .b = b, .path = KB_BUF_INIT };
	git_diff *changed = diff_to_lane(b, b->copied_tree);
	size_t i, count;
	int err = 0;

	if (!changed)
		return kb_error_set(KB_ERROR, "cannot compare tree %s with the copied build's %s",
				    b->tree, b->copied_tree);
	count = git_diff_num_deltas(changed);
	if (count && !(d.changed = malloc(count * sizeof(*d.changed))))
		err = kb_error_oom();
	for (i = 0; !err && i < count; i++) {
		const git_diff_delta *delta = git_diff_get_delta(changed, i);

		if (delta->status != GIT_DELTA_DELETED)
			d.changed[d.n++] = delta->new_file.path;
	}
	if (!err && d.n)
		qsort(d.changed, d.n, sizeof(*d.changed), cmp_path);
	if (!err && git_tree_walk(want, GIT_TREEWALK_PRE, date_entry, &d) < 0)
		err = d.err ? d.err : kb_error_set(KB_ERROR, "cannot read tree %s", b->tree);
	kb_buf_release(&d.path);
	free(d.changed);
	git_diff_free(changed);
	return err;
}

static int materialise(struct lane_build *b)
{
	struct kb_buf stamp = KB_BUF_INIT;
	git_tree *have = NULL, *want = NULL;
	bool wrote;
	int err;

	if ((err = kb_buf_printf(&stamp, "%s.tree", b->src)) < 0)
		return err;
	if ((err = git_tree_lookup(&want, b->repo, &b->built)) < 0) {
		err = kb_error_git(err, "tree %s not found", b->tree);
		goto done;
	}
	have = src_tree(b, stamp.ptr);
	wrote = !have || git_oid_cmp(git_tree_id(have), &b->built);
	if (wrote) {
		announce(b, "write tree %s into %s%s", b->tree, b->src,
			 have ? " (the files that differ)" : "");
		/* half-written until the new stamp is in place */
		if (unlink(stamp.ptr) < 0 && errno != ENOENT)
			err = kb_error_set(KB_ERROR, "cannot remove '%s': %s", stamp.ptr,
					   strerror(errno));
		if (!err && !have && (err = kb_remove_tree(b->src)) == 0)
			err = kb_mkdir_p(b->src);
		if (!err)
			err = checkout(b, have, want);
		/*
		 * The tree the directory holds may be there while objects it
		 * names are not: a lane of a repository since deleted (a
		 * clone's own commits), whose built tree the work directory's
		 * odb keeps. Then every file is written, as into a new one.
		 */
		if (err == KB_ENOTFOUND && have) {
			announce(b, "the tree %s held cannot be read whole any more (%s): "
				 "every file written", git_oid_tostr_s(git_tree_id(have)),
				 kb_error_last());
			git_tree_free(have);
			have = NULL;
			if ((err = kb_remove_tree(b->src)) == 0 && (err = kb_mkdir_p(b->src)) == 0)
				err = checkout(b, NULL, want);
		}
	}
	if (!err && b->copied_tree)
		err = date_sources(b, want);
	if (!err && wrote)
		err = kb_write_atomic(stamp.ptr, b->tree);
done:
	git_tree_free(have);
	git_tree_free(want);
	kb_buf_release(&stamp);
	return err;
}

/* ---- the build directory: resume, copy the closest build, or start ---- */

struct base {
	char *dir;
	char *label;
	char *tree;		/* hex id of the tree it was built from */
	size_t distance;	/* files that differ from the built tree, plus
				 * OTHER_CONFIG when the config differs */
};

/* Another config still beats a cold build, but loses to the same config. */
#define OTHER_CONFIG (SIZE_MAX / 2)

/* The diff from tree `tree_hex` to the built tree; NULL when unknown. */
static git_diff *diff_to_lane(struct lane_build *b, const char *tree_hex)
{
	git_tree *from = NULL, *to = NULL;
	git_diff *diff = NULL;
	git_oid id;

	if (tree_hex && git_oid_fromstr(&id, tree_hex) == 0 &&
	    git_tree_lookup(&from, b->repo, &id) == 0 &&
	    git_tree_lookup(&to, b->repo, &b->built) == 0 &&
	    git_diff_tree_to_tree(&diff, b->repo, from, to, NULL) < 0)
		diff = NULL;
	git_tree_free(from);
	git_tree_free(to);
	return diff;
}

/* Files that differ between the built tree and `tree_hex`; SIZE_MAX if unknown. */
static size_t distance(struct lane_build *b, const char *tree_hex)
{
	git_diff *diff = diff_to_lane(b, tree_hex);
	size_t n = diff ? git_diff_num_deltas(diff) : SIZE_MAX;

	git_diff_free(diff);
	return n;
}

/* Is the build in `dir` (stamp text) a better base than `best`? */
static int consider(struct base *best, struct lane_build *b, const char *dir,
		    const char *stamp)
{
	char *branch = stamp_get(stamp, "branch"), *cfg = stamp_get(stamp, "cfg");
	char *tree = stamp_get(stamp, "tree");
	size_t d = SIZE_MAX;
	int err = 0;

	if (branch && cfg && !strcmp(branch, b->branch->name) &&
	    (d = distance(b, tree)) != SIZE_MAX && strcmp(cfg, b->cfg))
		d += OTHER_CONFIG;
	if (d < best->distance) {
		free(best->dir);
		free(best->label);
		free(best->tree);
		best->distance = d;
		best->label = stamp_label(b, stamp, false);
		best->tree = tree;
		tree = NULL;
		if (!(best->dir = kb_strdup(dir)))
			err = kb_error_oom();
	}
	free(branch);
	free(cfg);
	free(tree);
	return err;
}

/* The completed build of this branch closest to the built tree and config. */
static int find_base(struct base *best, struct lane_build *b)
{
	char *builds = path_join(b->workdir, "builds"), *dir, *stamp;
	struct kb_dir ents = KB_DIR_INIT;
	size_t i;
	int err;

	memset(best, 0, sizeof(*best));
	best->distance = SIZE_MAX;
	KB_ERROR_CHECK_ALLOC(builds);
	err = kb_dir_read(&ents, builds, KB_DIR_NO_HIDDEN | KB_DIR_UNREADABLE_OK);
	for (i = 0; !err && i < ents.n; i++) {
		if (!(dir = path_join(builds, ents.names[i])))
			continue;
		if ((stamp = read_stamp(dir)))
			err = consider(best, b, dir, stamp);
		free(stamp);
		free(dir);
	}
	kb_dir_release(&ents);
	free(builds);
	return err;
}

static int move(const char *from, const char *to)
{
	if (rename(from, to) < 0)
		return kb_error_set(KB_ERROR, "cannot move '%s' to '%s': %s", from, to,
				    strerror(errno));
	return 0;
}

/* Copy `base` to `dir`, mtimes kept: make then rebuilds only what changed. */
static int copy_build(const char *base, const char *dir)
{
	const char *argv[] = { "cp", "-a", "--reflink=auto", "--", base, dir, NULL };
	char *stamp = path_join(dir, STAMP);
	int err = 0;

	KB_ERROR_CHECK_ALLOC(stamp);
	if (kb_process_run(argv, NULL, NULL) != 0)
		err = kb_error_set(KB_ERROR, "cannot copy build '%s' to '%s'", base, dir);
	else if (unlink(stamp) < 0)
		err = kb_error_set(KB_ERROR, "cannot remove '%s': %s", stamp, strerror(errno));
	free(stamp);
	return err;
}

/* A build from scratch: how many objects the last one from scratch made. */
static int expected_objects(struct lane_build *b)
{
	struct kb_buf path = KB_BUF_INIT;
	char *text = NULL;
	int err;

	b->from_scratch = true;
	if ((err = kb_buf_printf(&path, "%s.objects", b->obj)) < 0)
		return err;
	if (kb_path_exists(path.ptr) && kb_read_file(&text, NULL, path.ptr) == 0)
		b->expected = strtoul(text, NULL, 10);
	free(text);
	kb_buf_release(&path);
	return 0;
}

/* After a complete build from scratch: its count, for the next one. */
static int save_objects(struct lane_build *b)
{
	struct kb_buf path = KB_BUF_INIT, text = KB_BUF_INIT;
	int err;

	if (!b->from_scratch)
		return 0;
	if ((err = kb_buf_printf(&path, "%s.objects", b->obj)) == 0 &&
	    (err = kb_buf_printf(&text, "%zu\n", b->made)) == 0)
		err = kb_write_atomic(path.ptr, text.ptr);
	kb_buf_release(&path);
	kb_buf_release(&text);
	return err;
}

/*
 * A copy records the tree it was built from (BASE_FILE), for the dates of
 * the sources (date_sources()), also when an interrupted copy is resumed.
 */
static int write_copied_tree(struct lane_build *b, const char *tree)
{
	char *path = path_join(b->obj, BASE_FILE);
	int err;

	KB_ERROR_CHECK_ALLOC(path);
	if (!(b->copied_tree = kb_strdup(tree)))
		err = kb_error_oom();
	else
		err = kb_write_atomic(path, tree);
	free(path);
	return err;
}

static int read_copied_tree(struct lane_build *b)
{
	char *path = path_join(b->obj, BASE_FILE), *text = NULL;
	git_oid id;
	int err = 0;

	KB_ERROR_CHECK_ALLOC(path);
	if (kb_path_exists(path) && (err = kb_read_file(&text, NULL, path)) == 0) {
		text[strcspn(text, "\n")] = '\0';
		if (git_oid_fromstr(&id, text) == 0)
			b->copied_tree = text;	/* a resumed build from scratch has none */
		else
			free(text);
	}
	free(path);
	return err;
}

/*
 * Every build of a branch runs in the same directory, obj/<branch>: make and
 * objtool record absolute paths, and a build moved elsewhere would be
 * rebuilt whole. A build is moved there from builds/: this key's own when it
 * is incomplete (interrupted, or failed: make redoes what is missing), else
 * a copy of the closest completed build of the branch; or it starts empty.
 * Whatever obj/ held is a leftover of a run that died: never trusted.
 */
static int prepare_dir(struct lane_build *b)
{
	char *builds = path_join(b->workdir, "builds");
	struct base base;
	int err;

	err = builds ? kb_mkdir_p(builds) : kb_error_oom();
	free(builds);
	/* mkdir first: the parents must exist, the leftovers must not */
	if (err < 0 || (err = kb_mkdir_p(b->obj)) < 0 || (err = kb_remove_tree(b->obj)) < 0)
		return err;
	if (kb_path_exists(b->out->build_dir)) {
		if ((err = move(b->out->build_dir, b->obj)) == 0)
			err = read_copied_tree(b);
		return err;
	}
	if ((err = find_base(&base, b)) == 0 && !base.dir)
		err = expected_objects(b);
	if (err == 0 && base.dir &&
	    (err = copy_build(base.dir, b->obj)) == 0 &&
	    (err = write_copied_tree(b, base.tree)) == 0) {
		b->out->shared_with = base.label;
		base.label = NULL;
		b->copied_cfg = base.distance < OTHER_CONFIG;
	}
	free(base.dir);
	free(base.label);
	free(base.tree);
	return err < 0 ? err : kb_mkdir_p(b->obj);
}

/* Complete or not, the build goes to builds/<key>; the stamp says which. */
static int finish_dir(struct lane_build *b, int err)
{
	int moved;

	if (b->log_fd >= 0)
		close(b->log_fd);
	b->log_fd = -1;
	if (!kb_path_exists(b->obj))
		return err;
	moved = move(b->obj, b->out->build_dir);
	return err < 0 ? err : moved;
}

/* ---- running make, its output into the log ---- */

struct watch {
	struct lane_build *b;
	size_t cc;		/* "  CC" lines: objects compiled */
	char *first_error;
	struct kb_buf line;
	double last_progress;
};

static void progress(struct watch *w, const char *line)
{
	const struct kb_build_opts *o = w->b->opts;
	char text[256];
	double t = elapsed(&w->b->start);

	if (!o->progress || t - w->last_progress < 0.25)
		return;
	w->last_progress = t;
	while (*line == ' ')
		line++;
	snprintf(text, sizeof(text), "%d:%02d %zu objects  %.160s", (int)t / 60,
		 (int)t % 60, w->cc, line);
	o->progress(text, o->payload);
}

static void watch_line(struct watch *w, const char *line)
{
	if (!strncmp(line, "  CC", 4)) {
		w->cc++;
		w->b->made++;
		progress(w, line);
	}
	if (!w->first_error && (strstr(line, "error:") || strstr(line, "Error ")))
		w->first_error = kb_strdup(line);
}

static void watch_output(struct watch *w, const char *data, size_t n)
{
	const char *nl;
	size_t len;

	while (n) {
		nl = memchr(data, '\n', n);
		len = nl ? (size_t)(nl - data) : n;
		kb_buf_put(&w->line, data, len);
		if (nl) {
			watch_line(w, w->line.ptr ? w->line.ptr : "");
			kb_buf_clear(&w->line);
			len++;
		}
		data += len;
		n -= len;
	}
}

static bool write_all(int fd, const char *data, size_t n)
{
	ssize_t w;

	while (n) {
		if ((w = write(fd, data, n)) < 0 && errno != EINTR)
			return false;
		if (w > 0) {
			data += w;
			n -= (size_t)w;
		}
	}
	return true;
}

/* An outer make's flags (-s, a jobserver) must not reach ours, nor these. */
static const char *const make_unset_env[] = {
	"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "KCONFIG_CONFIG",
	"LC_CTYPE", "LC_MESSAGES",	/* hashed by ccache: see run_step() */
	"CCACHE_DEPEND",		/* never depend mode: see run_step() */
	NULL
};

/* The command line as one string, for messages and the log. */
static char *command_line(const char *const argv[])
{
	struct kb_buf buf = KB_BUF_INIT;
	size_t i;

	for (i = 0; argv[i]; i++)
		kb_buf_printf(&buf, strchr(argv[i], ' ') ? "%s'%s'" : "%s%s", i ? " " : "",
			      argv[i]);
	return kb_buf_detach(&buf);
}

/* A tick when one is due: the build goes on, however quiet make is. */
static void tick(struct lane_build *b)
{
	const struct kb_ticker *t = &b->opts->ticker;
	struct kb_tick k = { "build", elapsed(&b->start), true, b->made, b->expected, NULL };

	if (kb_ticker_due(t, &b->next_tick, k.seconds))
		t->tick(&k, t->payload);
}

static int pump(struct watch *w, int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char chunk[16384];
	ssize_t n = 1;
	int ready;

	while (n != 0) {
		tick(w->b);
		if ((ready = poll(&pfd, 1, 250)) < 0 && errno != EINTR)
			return kb_error_set(KB_ERROR, "cannot wait for make's output: %s",
					    strerror(errno));
		if (ready <= 0)
			continue;
		if ((n = read(fd, chunk, sizeof(chunk))) < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kb_error_set(KB_ERROR, "cannot read make's output: %s",
					    strerror(errno));
		if (!write_all(w->b->log_fd, chunk, (size_t)n))
			return kb_error_set(KB_ERROR, "cannot write '%s': %s",
					    w->b->obj_log, strerror(errno));
		watch_output(w, chunk, (size_t)n);
	}
	return 0;
}

/* The failure of `cmd`: the first error line and the log's tail, in out->reason. */
static int step_failed(struct watch *w, const char *cmd, int status)
{
	struct kb_build_result *r = w->b->out;
	struct kb_buf reason = KB_BUF_INIT;
	char *tail = kb_file_tail(w->b->obj_log, TAIL_LINES);

	kb_buf_printf(&reason, "'%s' failed (exit %d)", cmd, status);
	if (w->first_error)
		kb_buf_printf(&reason, ": %s", w->first_error);
	kb_buf_printf(&reason, "\nlast lines of %s:\n%s", r->log, tail ? tail : "");
	free(r->reason);
	r->reason = kb_buf_detach(&reason);
	free(tail);
	return kb_error_set(KB_ERROR, "'%s' failed (exit %d)", cmd, status);
}

/* Run `argv` in `cwd`, output appended to the log and watched. */
static int run_step(struct lane_build *b, const char *const argv[], const char *cwd,
		    size_t *compiled)
{
	struct watch w = { .b = b, .line = KB_BUF_INIT, .last_progress = -1 };
	char *cmd = command_line(argv);
	const char *path = getenv("PATH");
	char path_env[8192], basedir_env[4200];
	/*
	 * One locale for every build: ccache hashes LANG and LC_* (they change
	 * the compiler's messages), so a build under C.UTF-8 (make demo, a
	 * user's shell) and one under C (the tests) would share no object.
	 */
	const char *set_env[] = { path_env, "LANG=C", "LC_ALL=C", NULL, NULL, NULL, NULL, NULL };
	size_t nenv = 3;
	struct kb_process s;
	int err = 0, status, ws;

	KB_ERROR_CHECK_ALLOC(cmd);
	announce(b, "%s", cmd);
	/* modules_install runs depmod, which lives in /sbin */
	snprintf(path_env, sizeof(path_env), "PATH=%s:/usr/sbin:/sbin",
		 path ? path : "/usr/bin:/bin");
	/* ccache: paths under the work directory hashed relative to it, so that
	 * the same tree built in another work directory (a CI clone, make demo
	 * after make check) finds the objects compiled there; the user's own
	 * setting wins */
	if (!getenv("CCACHE_BASEDIR") &&
	    (size_t)snprintf(basedir_env, sizeof(basedir_env), "CCACHE_BASEDIR=%s", b->workdir) <
		    sizeof(basedir_env))
		set_env[nenv++] = basedir_env;
	/*
	 * Never ccache's depend mode, whatever the user's ccache.conf says:
	 * it hashes a source and the headers -MMD names, not what an .incbin
	 * pulls in. The kernel's arch/x86/boot/compressed/piggy.S .incbin's
	 * the compressed vmlinux and names only its size: when two lanes'
	 * compressed kernels were the same size (seen: a pre-fix lane and the
	 * as-is build it was copied from, 1909290 bytes each), ccache handed
	 * back the other lane's piggy.o, and the lane booted the other kernel.
	 * The preprocessor mode finds .incbin and does not cache such a file.
	 * (Depend mode had cut the CPU of a cold miss by about a fifth.)
	 */
	set_env[nenv++] = "CCACHE_NODEPEND=1";
	/*
	 * ...and a namespace of kbackport's own (KB_CCACHE_NAMESPACE), unless
	 * the user set one: depend mode stored such objects keyed by source
	 * and headers alone (kbackport's caches before 277347c, a user's own
	 * ccache.conf), and entries of another namespace are never looked at.
	 * Seen after that fix: a lane of a reused work directory booted the
	 * kernel of an earlier depend-mode build, which only those entries
	 * held (not reproduced; ccache 4.7.5 refuses .incbin otherwise).
	 */
	if (!getenv("CCACHE_NAMESPACE"))
		set_env[nenv++] = "CCACHE_NAMESPACE=" KB_CCACHE_NAMESPACE;
	if (b->no_ccache)
		set_env[nenv++] = "CCACHE_DISABLE=1";
	kb_process_init(&s, argv);
	s.cwd = cwd;
	s.unset_env = make_unset_env;
	s.set_env = set_env;
	s.out = KB_PROCESS_PIPE;
	s.err = KB_PROCESS_AS_OUT;
	if (kb_process_start(&s) < 0)
		err = kb_error_set(KB_ERROR, "cannot run '%s': %s", cmd, strerror(errno));
	if (!err)
		err = pump(&w, s.pipe_fd);
	if (s.pid > 0) {
		status = kb_process_wait(&s, &ws) < 0 ? -1 : kb_process_exit_code(ws);
		if (status != 0 && !err)
			err = step_failed(&w, cmd, status);
	}
	if (s.pipe_fd >= 0)
		close(s.pipe_fd);
	if (compiled)
		*compiled += w.cc;
	free(w.first_error);
	kb_buf_release(&w.line);
	free(cmd);
	return err;
}

/* ---- configure, build, install ---- */

/* make [ARCH=..] [CC="ccache gcc"] O=<dir> <targets...>, -j when `jobs`. */
static int run_make(struct lane_build *b, const char *const *targets, unsigned jobs,
		    size_t *compiled)
{
	const char *argv[16];
	char out_arg[4200], jobs_arg[32], arch_arg[64], cc_arg[1024];
	const char *cc = on_path("ccache") ? "ccache gcc" : "gcc";
	size_t n = 0;

	argv[n++] = "make";
	snprintf(out_arg, sizeof(out_arg), "O=%s", b->obj);
	argv[n++] = out_arg;
	if (jobs) {
		snprintf(jobs_arg, sizeof(jobs_arg), "-j%u", jobs);
		argv[n++] = jobs_arg;
	}
	if (strcmp(b->branch->arch, "x86_64")) {
		snprintf(arch_arg, sizeof(arch_arg), "ARCH=%s", b->branch->arch);
		argv[n++] = arch_arg;
	}
	if (b->compat.cc_flags) {
		snprintf(cc_arg, sizeof(cc_arg), "CC=%s %s", cc, b->compat.cc_flags);
		argv[n++] = cc_arg;
	} else if (strcmp(cc, "gcc")) {
		argv[n++] = "CC=ccache gcc";
	}
	while (*targets && n < sizeof(argv) / sizeof(argv[0]) - 1)
		argv[n++] = *targets++;
	argv[n] = NULL;
	return run_step(b, argv, b->src, compiled);
}

/* Can a change of `path` change what tinyconfig + fragment + olddefconfig give? */
static bool config_input(const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(name);

	return !strncmp(name, "Kconfig", 7) || !strcmp(path, "Makefile") ||
	       !strncmp(path, "scripts/kconfig/", 16) ||
	       (n > 7 && !strcmp(name + n - 7, ".config"));	/* tiny.config */
}

/*
 * The copied build's .config is this lane's too when the config key is the
 * same and no Kconfig file, config fragment of the tree, kconfig program or
 * the top Makefile differs: reconfiguring would give the same file.
 */
static bool config_kept(struct lane_build *b)
{
	git_diff *diff = b->copied_cfg ? diff_to_lane(b, b->copied_tree) : NULL;
	size_t i, n = diff ? git_diff_num_deltas(diff) : 0;
	bool kept = diff != NULL;

	for (i = 0; i < n && kept; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		kept = !config_input(d->old_file.path) && !config_input(d->new_file.path);
	}
	git_diff_free(diff);
	return kept;
}

/* tinyconfig, the fragment merged in, olddefconfig: the kernel's own tools. */
static int reconfigure(struct lane_build *b, const char *config_path)
{
	const char *tiny[] = { "tinyconfig", NULL }, *old[] = { "olddefconfig", NULL };
	char *merge = path_join(b->src, "scripts/kconfig/merge_config.sh");
	const char *argv[] = { merge, "-m", "-O", b->obj, config_path, b->fragment, NULL };
	int err;

	KB_ERROR_CHECK_ALLOC(merge);
	if ((err = run_make(b, tiny, 0, NULL)) == 0 &&
	    (err = run_step(b, argv, b->src, NULL)) == 0)
		err = run_make(b, old, 0, NULL);
	free(merge);
	return err;
}

/* The lane's .config, then name the fragment lines that did not survive. */
static int configure(struct lane_build *b)
{
	char *config_path = path_join(b->obj, ".config"), *config = NULL;
	int err = config_path ? 0 : kb_error_oom();

	if (!err && config_kept(b))
		announce(b, "configuration kept: no Kconfig input differs from the copied build");
	else if (!err)
		err = reconfigure(b, config_path);
	if (!err && (err = kb_read_file(&config, NULL, config_path)) == 0)
		err = kb_build_check_config(&b->out->missing_options, b->fragment_text,
					    config);
	free(config);
	free(config_path);
	return err;
}

static unsigned jobs(const struct kb_build_opts *opts)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return opts->jobs ? opts->jobs : n > 0 ? (unsigned)n : 1;
}

static int make_kernel(struct lane_build *b)
{
	const char *x86[] = { "bzImage", "modules", NULL };
	const char *other[] = { "vmlinux", "modules", NULL };

	return run_make(b, boots_bzimage(b) ? x86 : other, jobs(b->opts), &b->out->rebuilt);
}

/*
 * The bzImage must carry this build's own compressed vmlinux (payload.h):
 * when it carries another, piggy.o came from elsewhere (a compiler cache).
 * piggy.o and what was linked from it (the chain to the bzImage, which
 * make could otherwise take for intermediate files it need not remake) are
 * deleted and made again without ccache; a second mismatch fails the
 * build, so that no lane boots another lane's kernel.
 */
static const char *const payload_chain[] = {
	"arch/x86/boot/compressed/piggy.o", "arch/x86/boot/compressed/vmlinux",
	"arch/x86/boot/vmlinux.bin", "arch/x86/boot/bzImage",
};

static int check_payload(struct lane_build *b)
{
	const char *x86[] = { "bzImage", NULL };
	char *note = NULL, *path;
	size_t i;
	int err;

	if (!boots_bzimage(b))
		return 0;
	if ((err = check_image(&note, b->obj)) == KB_EINVALID) {
		announce(b, "error: %s; made again without ccache", kb_error_last());
		for (i = 0, err = 0; i < sizeof(payload_chain) / sizeof(*payload_chain) && !err; i++) {
			if (!(path = path_join(b->obj, payload_chain[i])))
				err = kb_error_oom();
			else if (unlink(path) < 0 && errno != ENOENT)
				err = kb_error_set(KB_ERROR, "cannot remove '%s': %s", path,
						   strerror(errno));
			free(path);
		}
		b->no_ccache = true;
		if (!err)
			err = run_make(b, x86, jobs(b->opts), &b->out->rebuilt);
		b->no_ccache = false;
		if (!err && (err = check_image(&note, b->obj)) == KB_EINVALID) {
			/* not ccache's, then: what this build directory holds */
			char *why = kb_strdup(kb_error_last());

			err = why ? kb_error_set(KB_EINVALID, "%s, made without ccache too: "
						 "remove '%s' to build the lane anew",
						 why, b->out->build_dir) : kb_error_oom();
			free(why);
		}
	}
	if (!err)
		announce(b, "%s", note ? note : "payload: the bzImage carries this build's vmlinux");
	free(note);
	return err;
}

static int install_modules(struct lane_build *b)
{
	struct kb_buf arg = KB_BUF_INIT;
	const char *targets[] = { NULL, "modules_install", NULL };
	int err;

	if ((err = kb_remove_tree(b->obj_staging)) < 0 ||
	    (err = kb_buf_printf(&arg, "INSTALL_MOD_PATH=%s", b->obj_staging)) < 0)
		goto done;
	targets[0] = arg.ptr;
	err = run_make(b, targets, 0, NULL);
done:
	kb_buf_release(&arg);
	return err;
}

/* The log starts with the build rules this lane's tree got (compat.h). */
static int open_log(struct lane_build *b)
{
	const char *p;
	size_t n;

	b->log_fd = open(b->obj_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b->log_fd < 0)
		return kb_error_set(KB_ERROR, "cannot write '%s': %s", b->obj_log,
				    strerror(errno));
	for (p = b->compat.log; p && *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		announce(b, "%.*s", (int)n, p);
	}
	for (p = b->fragment_notes; p && *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		announce(b, "%.*s", (int)n, p);
	}
	return 0;
}

/* The log says why a kept build was not taken (cached()). */
static int say_refused(struct lane_build *b)
{
	if (b->refused)
		announce(b, "error: the kept build was refused: %s; resumed", b->refused);
	return 0;
}

static int build(struct lane_build *b)
{
	int err;

	if ((err = lane_paths(b)) < 0 || (err = built_tree(b)) < 0 ||
	    (err = compose_fragment(b)) < 0 || (err = lane_key(b)) < 0 ||
	    (err = result_paths(b)) < 0)
		return err;
	if ((err = cached(b)) != 0)
		return err < 0 ? err : 0;
	if (b->opts->lookup_only && b->refused)
		return kb_error_set(KB_ENOTFOUND, "not built (the kept build %s was refused: %s): "
				    "run kbackport build", b->key, b->refused);
	if (b->opts->lookup_only)
		return kb_error_set(KB_ENOTFOUND, "not built (no completed build %s): "
				    "run kbackport build", b->key);
	if ((err = kb_mkdir_p(b->src)) < 0 || (err = lock_branch(b)) < 0)
		return err;
	if ((err = cached(b)) != 0)	/* built by another run while we waited */
		return err < 0 ? err : 0;
	if ((err = prepare_dir(b)) == 0 && (err = open_log(b)) == 0 &&
	    (err = say_refused(b)) == 0 && (err = materialise(b)) == 0 && (err = configure(b)) == 0 &&
	    (err = make_kernel(b)) == 0 && (err = check_payload(b)) == 0 &&
	    (err = install_modules(b)) == 0 &&
	    (err = save_objects(b)) == 0)
		err = write_stamp(b);
	if (b->log_fd >= 0)
		announce(b, "%s", err ? "failed" : "done");
	if ((err = finish_dir(b, err)) == 0)
		b->out->status = KB_BUILD_PASS;
	return err;
}

static int skip(struct kb_build_result *out, const struct kb_branch *branch)
{
	out->status = KB_BUILD_SKIPPED;
	out->reason = kb_strdup(branch->build_skip_reason ? branch->build_skip_reason :
				"build: false");
	return out->reason ? 0 : kb_error_oom();
}

static void lane_build_release(struct lane_build *b)
{
	if (b->log_fd >= 0)
		close(b->log_fd);
	if (b->lock_fd >= 0)
		close(b->lock_fd);	/* releases the flock */
	free(b->workdir);
	free(b->src);
	free(b->obj);
	free(b->obj_log);
	free(b->obj_staging);
	free(b->fragment);
	free(b->fragment_text);
	free(b->fragment_notes);
	free(b->cfg);
	free(b->key);
	free(b->copied_tree);
	free(b->refused);
	kb_compat_result_release(&b->compat);
	git_repository_free(b->own);
}

int kb_build_lane(struct kb_build_result *out, git_repository *repo,
		  const struct kb_branch *branch, const struct kb_lane *lane,
		  const struct kb_build_opts *opts)
{
	struct lane_build b = { .repo = repo, .branch = branch, .lane = lane, .opts = opts,
				.out = out, .lock_fd = -1, .log_fd = -1 };
	int err;

	memset(out, 0, sizeof(*out));
	if (!branch->build)
		return skip(out, branch);
	if (!opts->workdir)
		return kb_error_set(KB_EINVALID, "no work directory for builds");
	clock_gettime(CLOCK_MONOTONIC, &b.start);
	err = build(&b);
	out->seconds = elapsed(&b.start);
	lane_build_release(&b);
	if (err == KB_ENOMEM)
		return err;
	if (err < 0) {
		out->status = KB_BUILD_FAIL;
		if (!out->reason && !(out->reason = kb_strdup(kb_error_last())))
			return kb_error_oom();
	}
	return 0;
}
