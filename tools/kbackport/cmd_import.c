/* kbackport import: Debian's kernel source packages into a git repository. */
#include "cli.h"
#include "util/error.h"
#include "import/import.h"

#include <getopt.h>
#include <git2.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct cli_opt options[] = {
	{ 'r', true, "repo", required_argument, "DIR",
	  "repository, created bare if missing (default: work/linux)" },
	{ 'd', true, "downloads", required_argument, "DIR",
	  "where fetched packages go (default: work/downloads)" },
	{ 'p', true, "package", required_argument, "PKG[=VERSION]",
	  "a package, optionally at an older version; repeatable,\n"
	  "imported in the order given, so older point releases\n"
	  "first make real stable history (default:\n"
	  "linux-source-6.1 and linux-source-6.12, current versions)" },
	{ 't', true, "trees", required_argument, "PATH",
	  "a tarball (read with libarchive, never unpacked) or a\n"
	  "directory whose top-level directories are kernel\n"
	  "trees: each becomes one commit on its own branch,\n"
	  "PREFIX + the directory's name without \"linux-\"\n"
	  "(linux-2.6.32/ -> eras/2.6.32); a branch whose tip\n"
	  "has that tree already gets nothing; repeatable;\n"
	  "every source is read and checked before any\n"
	  "branch is written (two trees for one branch, a\n"
	  "path both a file and a directory or given twice,\n"
	  "a FIFO or device member: the source is refused);\n"
	  "a PATH that is a FIFO, a device or a socket is\n"
	  "refused at once (exit 2); no Debian package is\n"
	  "imported unless --package is given too" },
	{ 'P', false, "prefix", required_argument, "PREFIX",
	  "branch prefix for --trees (default: eras/)" },
	{ 'j', false, "json", no_argument, NULL,
	  "one JSON document: {\"repo\", \"imports\": [...],\n"
	  "\"trees\": [{\"source\", \"name\", \"branch\", \"commit\",\n"
	  "\"created\", \"files\", \"error\", \"seconds\"}]}" },
	{ 'q', true, "quiet", no_argument, NULL,
	  "no progress lines" },
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport import [--repo DIR] [--downloads DIR] [--package PKG[=VERSION]]...\n"
	"                        [--json] [--quiet]\n"
	"   or: kbackport import [--repo DIR] --trees PATH... [--prefix PREFIX] [--json]\n"
	"                        [--quiet]\n"
	"\n"
	"Import Debian's kernel source packages into a local git repository, one\n"
	"commit per package version on stable/<series>.y (linux-source-6.1 ->\n"
	"stable/6.1.y). Missing packages are installed with apt-get; other versions\n"
	"are fetched with apt-get download. Every file of the tarball is imported,\n"
	"whatever its .gitignore says. Importing a version already on the branch\n"
	"adds nothing. While apt-get or dpkg-deb runs and while a tarball is read, a\n"
	"progress line goes to stderr every 30 seconds (KBACKPORT_PROGRESS_INTERVAL),\n"
	"terminal or not: \"progress: linux-source-6.1: download 1m00s\",\n"
	"\"progress: eras.tar.xz: import 30s, 51234 files\".\n"
	"\n",
	.opts = options,
	.column = 24,
	.tail =
	"\n"
	"Exit status: 0 when every package and tree was imported (or already was),\n"
	"1 when one failed, 2 for usage errors.\n",
};

struct import_opts {
	const char *repo, *downloads;
	const char **packages;
	size_t npackages, apackages;
	const char **trees;
	size_t ntrees, atrees;
	const char *prefix;
	bool json, quiet;
	double tick_interval;	/* 0: no progress lines */
};

/* What one --trees PATH gave: its trees, or the error that stopped it. */
struct trees_row {
	const char *source;
	struct kb_import_tree *trees;
	size_t n;
	char *error;
	double seconds;
};

struct import_row {
	char *package, *version, *branch, *error;
	struct kb_import_result result;
	double seconds;
};

static int parse_options(struct import_opts *o, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'r': o->repo = optarg; break;
		case 'd': o->downloads = optarg; break;
		case 'p':
			if (cli_strv_add(&o->packages, &o->npackages, &o->apackages, optarg))
				return EXIT_USAGE;
			break;
		case 't':
			if (cli_strv_add(&o->trees, &o->ntrees, &o->atrees, optarg))
				return EXIT_USAGE;
			break;
		case 'P': o->prefix = optarg; break;
		case 'j': o->json = true; break;
		case 'q': o->quiet = true; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	if ((c = cli_no_arguments(argc, argv)) != 0)
		return c;
	return cli_progress_interval(&o->tick_interval, o->quiet);
}

/* "progress: <who>: download 1m00s"; a terminal's live line is cleared first. */
static void tick(const struct kb_tick *k, void *payload)
{
	struct kb_buf line = KB_BUF_INIT;

	if (kb_tick_format(&line, payload, k) == 0)
		fprintf(stderr, "%s%s\n", isatty(STDERR_FILENO) ? "\r\033[K" : "", line.ptr);
	fflush(stderr);
	kb_buf_release(&line);
}

static struct kb_ticker ticker(const struct import_opts *o, const char *who)
{
	struct kb_ticker t = { o->tick_interval, tick, (void *)who };

	return t;
}

static void progress(size_t files, void *payload)
{
	const struct import_row *row = payload;

	fprintf(stderr, "\rimporting %s %s: %zu files", row->package, row->version, files);
	fflush(stderr);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int import_one(struct import_row *row, git_repository *repo,
		      const char *spec, const struct import_opts *o)
{
	struct kb_import_opts iopts = { .payload = row };
	const char *eq = strchr(spec, '=');
	struct kb_debsrc src = { 0 };
	struct kb_ticker fetching = ticker(o, spec);
	char title[256], body[1024];
	double start = now();
	int err;

	row->package = eq ? strndup(spec, (size_t)(eq - spec)) : strdup(spec);
	if ((err = kb_debsrc_branch(&row->branch, row->package)) < 0 ||
	    (err = kb_debsrc_fetch(&src, row->package, eq ? eq + 1 : NULL, o->downloads,
				    &fetching)) < 0)
		goto done;
	row->version = strdup(src.version);
	if (isatty(STDERR_FILENO) && !o->json)
		iopts.progress = progress;
	snprintf(title, sizeof(title), "%s %s", src.package, src.version);
	iopts.ticker = ticker(o, title);
	snprintf(body, sizeof(body),
		 "Debian's %s package, version %s, imported by kbackport import\n"
		 "from %s (every file of the tarball).\n", src.package, src.version,
		 src.tarball);
	err = kb_import_tarball(&row->result, repo, row->branch, src.tarball, title, body,
				&iopts);
	if (iopts.progress)
		fputc('\n', stderr);
done:
	row->seconds = now() - start;
	if (err < 0 && !(row->error = strdup(kb_error_last())))
		err = kb_error_oom();
	kb_debsrc_release(&src);
	return err == KB_ENOMEM ? err : 0;
}

static void trees_progress(size_t files, void *payload)
{
	fprintf(stderr, "\rimporting %s: %zu files", (const char *)payload, files);
	fflush(stderr);
}

/* A step of one --trees source failed: the error goes in its row. */
static int row_error(struct trees_row *row, int err)
{
	if (err < 0 && !row->error && !(row->error = strdup(kb_error_last())))
		err = kb_error_oom();
	return err == KB_ENOMEM ? err : 0;
}

static int read_trees(struct trees_row *row, struct kb_trees *set, const char *path,
		      const struct import_opts *o)
{
	struct kb_import_opts iopts = { .payload = (void *)path, .ticker = ticker(o, path) };
	double start = now();
	int err;

	row->source = path;
	if (isatty(STDERR_FILENO) && !o->json)
		iopts.progress = trees_progress;
	err = kb_trees_read(set, path, &iopts);
	if (iopts.progress)
		fputc('\n', stderr);
	row->seconds = now() - start;
	return row_error(row, err);
}

/*
 * Every --trees source read, then checked against the others, then
 * committed: a source refused (its error in its row) writes no branch.
 */
static int import_trees(struct trees_row *rows, git_repository *repo,
			const struct import_opts *o)
{
	struct kb_trees *set = NULL;
	double start;
	size_t i;
	int err;

	if ((err = kb_trees_new(&set, repo, o->prefix)) < 0)
		return err;
	for (i = 0; i < o->ntrees && !err; i++)
		err = read_trees(&rows[i], set, o->trees[i], o);
	for (i = 0; i < o->ntrees && !err; i++)
		if (!rows[i].error)
			err = row_error(&rows[i], kb_trees_check(set, i));
	for (i = 0; i < o->ntrees && !err; i++) {
		if (rows[i].error)
			continue;
		start = now();
		err = row_error(&rows[i], kb_trees_commit(&rows[i].trees, &rows[i].n, set, i));
		rows[i].seconds += now() - start;
	}
	kb_trees_free(set);
	return err;
}

static json_t *trees_json(const struct trees_row *rows, size_t n)
{
	json_t *list = json_array();
	char id[GIT_OID_HEXSZ + 1];
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < rows[i].n; j++) {
			const struct kb_import_tree *t = &rows[i].trees[j];
			git_oid_tostr(id, sizeof(id), &t->commit);
			json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:o, s:b, s:I, s:n, s:f}",
				"source", rows[i].source, "name", t->name, "branch", t->branch,
				"commit", git_oid_is_zero(&t->commit) ? json_null() : json_string(id),
				"created", t->created, "files", (json_int_t)t->files,
				"error", "seconds", rows[i].seconds));
		}
		if (rows[i].error)
			json_array_append_new(list, json_pack("{s:s, s:n, s:n, s:n, s:b, s:i, s:s, s:f}",
				"source", rows[i].source, "name", "branch", "commit",
				"created", 0, "files", 0, "error", rows[i].error,
				"seconds", rows[i].seconds));
	}
	return list;
}

static void print_trees(const struct trees_row *rows, size_t n)
{
	char id[GIT_OID_HEXSZ + 1];
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < rows[i].n; j++) {
			const struct kb_import_tree *t = &rows[i].trees[j];
			git_oid_tostr(id, sizeof(id), &t->commit);
			if (git_oid_is_zero(&t->commit))
				continue;
			printf("%-16s %-20s %s %.12s", t->branch, t->name,
			       t->created ? "imported" : "already imported", id);
			if (t->created)
				printf(" (%zu files)", t->files);
			putchar('\n');
		}
		if (rows[i].error)
			printf("%-16s %-20s error: %s\n", "-", rows[i].source, rows[i].error);
	}
}

static void print_rows(const struct import_row *rows, size_t n, const char *repo, bool json,
		       const struct trees_row *trows, size_t ntrows)
{
	json_t *list = json_array(), *doc;
	char id[GIT_OID_HEXSZ + 1];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct import_row *r = &rows[i];
		git_oid_tostr(id, sizeof(id), &r->result.commit);
		if (json) {
			json_array_append_new(list, json_pack("{s:s, s:o, s:o, s:o, s:o, s:b, s:I, s:f}",
				"package", r->package,
				"version", r->version ? json_string(r->version) : json_null(),
				"branch", r->branch ? json_string(r->branch) : json_null(),
				"commit", r->error ? json_null() : json_string(id),
				"error", r->error ? json_string(r->error) : json_null(),
				"created", r->result.created, "files", (json_int_t)r->result.files,
				"seconds", r->seconds));
		} else if (r->error) {
			printf("%-14s %-20s error: %s\n", r->branch ? r->branch : "-", r->package, r->error);
		} else {
			printf("%-14s %s %-12s %s %.12s", r->branch, r->package, r->version,
			       r->result.created ? "imported" : "already imported", id);
			if (r->result.created)
				printf(" (%zu files, %.0f s)", r->result.files, r->seconds);
			putchar('\n');
		}
	}
	if (!json)
		print_trees(trows, ntrows);
	if (json) {
		doc = json_pack("{s:s, s:o, s:o}", "repo", repo, "imports", list,
				"trees", trees_json(trows, ntrows));
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		json_decref(list);
	}
}

static int open_repo(git_repository **repo, const char *path)
{
	int err = git_repository_open_ext(repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);

	if (err == GIT_ENOTFOUND)
		err = git_repository_init(repo, path, 1);
	if (err < 0)
		return kb_error_git(err, "cannot open or create repository '%s'", path);
	return 0;
}

static int run(const struct import_opts *o)
{
	static const char *const defaults[] = { "linux-source-6.1", "linux-source-6.12" };
	const char *const *specs = o->npackages ? o->packages : defaults;
	size_t n = o->npackages ? o->npackages : o->ntrees ? 0 : 2, i, nt = 0;
	struct trees_row *trows = NULL;
	git_repository *repo = NULL;
	struct import_row *rows = NULL;
	int rc = EXIT_OK;

	for (i = 0; i < o->ntrees; i++) {
		if (kb_trees_path_check(o->trees[i]) < 0) {
			cli_error_last();
			return EXIT_USAGE;
		}
	}
	if (!(trows = calloc(o->ntrees + 1, sizeof(*trows))) ||
	    !(rows = calloc(n + 1, sizeof(*rows))) || open_repo(&repo, o->repo) < 0) {
		cli_error_last();
		free(rows);
		free(trows);
		return EXIT_ATTENTION;
	}
	nt = o->ntrees;
	if (nt && import_trees(trows, repo, o) < 0) {
		cli_error_last();
		rc = EXIT_ATTENTION;
		n = 0;
	}
	for (i = 0; i < nt; i++)
		if (trows[i].error)
			rc = EXIT_ATTENTION;
	for (i = 0; i < n; i++) {
		if (import_one(&rows[i], repo, specs[i], o) < 0) {
			cli_error_last();
			rc = EXIT_ATTENTION;
			n = i + 1;
			break;
		}
		if (rows[i].error)
			rc = EXIT_ATTENTION;
	}
	print_rows(rows, n, o->repo, o->json, trows, nt);
	for (i = 0; i < nt; i++) {
		kb_import_trees_free(trows[i].trees, trows[i].n);
		free(trows[i].error);
	}
	free(trows);
	for (i = 0; i < n; i++) {
		free(rows[i].package);
		free(rows[i].version);
		free(rows[i].branch);
		free(rows[i].error);
	}
	free(rows);
	git_repository_free(repo);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o = { .repo = "work/linux", .downloads = "work/downloads",
				 .prefix = "eras/" };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	free(o.packages);
	free(o.trees);
	return rc;
}
