/* kbackport import: Debian's kernel source packages into a git repository. */
#include "cli.h"
#include "error.h"
#include "import.h"

#include <getopt.h>
#include <git2.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
"usage: kbackport import [--repo DIR] [--downloads DIR] [--package PKG[=VERSION]]...\n"
"                        [--json]\n"
"\n"
"Import Debian's kernel source packages into a local git repository, one\n"
"commit per package version on stable/<series>.y (linux-source-6.1 ->\n"
"stable/6.1.y). Missing packages are installed with apt-get; other versions\n"
"are fetched with apt-get download. Every file of the tarball is imported,\n"
"whatever its .gitignore says. Importing a version already on the branch\n"
"adds nothing.\n"
"\n"
"  -r, --repo DIR        repository, created bare if missing (default: work/linux)\n"
"  -d, --downloads DIR   where fetched packages go (default: work/downloads)\n"
"  -p, --package PKG[=VERSION]\n"
"                        a package, optionally at an older version; repeatable,\n"
"                        imported in the order given, so older point releases\n"
"                        first make real stable history (default:\n"
"                        linux-source-6.1 and linux-source-6.12, current versions)\n"
"      --json            one JSON document: {\"repo\", \"imports\": [...]}\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0 when every package was imported (or already was), 1 when\n"
"one failed, 2 for usage errors.\n";

struct import_opts {
	const char *repo, *downloads;
	const char **packages;
	size_t npackages;
	bool json;
};

struct import_row {
	char *package, *version, *branch, *error;
	struct kb_import_result result;
	double seconds;
};

static int parse_options(struct import_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "downloads", required_argument, NULL, 'd' },
		{ "package", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "r:d:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': o->repo = optarg; break;
		case 'd': o->downloads = optarg; break;
		case 'p':
			if (cli_strv_add(&o->packages, &o->npackages, optarg))
				return EXIT_USAGE;
			break;
		case 'j': o->json = true; break;
		case 'h': cli_help(usage); return -1;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	return cli_no_arguments(argc, argv);
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
	struct kb_import_opts iopts = { NULL, row };
	const char *eq = strchr(spec, '=');
	struct kb_debsrc src = { 0 };
	char title[256], body[1024];
	double start = now();
	int err;

	row->package = eq ? strndup(spec, (size_t)(eq - spec)) : strdup(spec);
	if ((err = kb_debsrc_branch(&row->branch, row->package)) < 0 ||
	    (err = kb_debsrc_fetch(&src, row->package, eq ? eq + 1 : NULL, o->downloads)) < 0)
		goto done;
	row->version = strdup(src.version);
	if (isatty(STDERR_FILENO) && !o->json)
		iopts.progress = progress;
	snprintf(title, sizeof(title), "%s %s", src.package, src.version);
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
		err = KB_ENOMEM;
	kb_debsrc_release(&src);
	return err == KB_ENOMEM ? err : 0;
}

static void print_rows(const struct import_row *rows, size_t n, const char *repo, bool json)
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
	if (json) {
		doc = json_pack("{s:s, s:o}", "repo", repo, "imports", list);
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
	size_t n = o->npackages ? o->npackages : 2, i;
	git_repository *repo = NULL;
	struct import_row *rows;
	int rc = EXIT_OK;

	if (!(rows = calloc(n, sizeof(*rows))) || open_repo(&repo, o->repo) < 0) {
		cli_error_last();
		free(rows);
		return EXIT_ATTENTION;
	}
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
	print_rows(rows, n, o->repo, o->json);
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
	struct import_opts o = { .repo = "work/linux", .downloads = "work/downloads" };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	free(o.packages);
	return rc;
}
