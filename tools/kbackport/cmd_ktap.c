/* kbackport ktap: what the KTAP parser reads in a console log. */
#include "util/buf.h"
#include "cli.h"
#include "util/error.h"
#include "boot/ktap.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cli_opt options[] = {
	{ 'j', true, "json", no_argument, NULL,
	  "one JSON document: {\"suites\": [...], \"error\": ...}" },
	{ 'd', true, "document", required_argument, "SUITE",
	  "print SUITE alone as a KTAP document (prefix and\n"
	  "timestamps stripped), e.g. for `kunit.py parse`" },
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport ktap [--json] FILE\n"
	"       kbackport ktap --document SUITE FILE\n"
	"\n"
	"Parse the KTAP documents in a console log (FILE, or - for standard input)\n"
	"as `kbackport test` does, and print one line per suite, case and\n"
	"parameterised run: \"SUITE STATUS\", \"SUITE CASE STATUS\", \"SUITE CASE\n"
	"PARAM STATUS\", with STATUS pass, fail, skip or error. Lines starting with\n"
	"'#' say why a suite or document is broken, and show the diagnostics of a\n"
	"case that did not pass.\n"
	"\n",
	.opts = options,
	.column = 24,
	.tail =
	"\n"
	"Exit status: 0 when the log's KTAP is sound (whatever the tests' results),\n"
	"1 when a suite is error, a document is broken or there is no KTAP at all,\n"
	"2 for usage, an unreadable file or a SUITE not in the log.\n",
};

struct ktap_opts {
	const char *file, *document;
	bool json;
};

static int parse_options(struct ktap_opts *o, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 'd': o->document = optarg; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	if (optind >= argc) {
		cli_error("no log file given");
		cli_usage_print(stderr, &usage);
		return EXIT_USAGE;
	}
	o->file = argv[optind++];
	return cli_no_arguments(argc, argv);
}

static json_t *cases_json(const struct kb_ktap_case *cases, size_t n)
{
	json_t *arr = json_array(), *c;
	size_t i;

	for (i = 0; i < n; i++) {
		c = json_pack("{s:s, s:s, s:o}", "name", cases[i].name,
			      "status", kb_ktap_status_name(cases[i].status),
			      "diag", kb_json_lines(cases[i].diag));
		if (cases[i].params)
			json_object_set_new(c, "params",
					    cases_json(cases[i].params, cases[i].nparams));
		json_array_append_new(arr, c);
	}
	return arr;
}

static json_t *suite_json(const struct kb_ktap_suite *s)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:o, s:o}", "name", s->name,
			 "status", kb_ktap_status_name(s->status), "line", (json_int_t)s->line,
			 "pass", (json_int_t)s->pass, "fail", (json_int_t)s->fail,
			 "skip", (json_int_t)s->skip, "error", kb_json_str(s->error),
			 "cases", cases_json(s->cases, s->ncases));
}

static json_t *result_json(const struct kb_ktap_result *r)
{
	json_t *suites = json_array();
	size_t i;

	for (i = 0; i < r->nsuites; i++)
		json_array_append_new(suites, suite_json(&r->suites[i]));
	return json_pack("{s:I, s:o, s:o}", "documents", (json_int_t)r->ndocuments,
			 "suites", suites, "error", kb_json_str(r->error));
}

/* "# " before each line of `text`. */
static void print_comment(const char *text)
{
	const char *p = text;
	size_t len;

	while (p && *p) {
		len = strcspn(p, "\n");
		printf("#   %.*s\n", (int)len, p);
		p += len + (p[len] == '\n');
	}
}

static void print_case(json_t *c, const char *path)
{
	const char *name = json_string_value(json_object_get(c, "name"));
	const char *status = json_string_value(json_object_get(c, "status"));
	json_t *params = json_object_get(c, "params"), *line, *p;
	enum kb_ktap_status st;
	size_t i;

	printf("%s %s %s\n", path, name, status);
	if (!kb_ktap_status_parse(&st, status) || st != KB_KTAP_PASS)
		json_array_foreach(json_object_get(c, "diag"), i, line)
			printf("#   %s\n", json_string_value(line));
	json_array_foreach(params, i, p) {
		struct kb_buf sub = KB_BUF_INIT;

		if (kb_buf_printf(&sub, "%s %s", path, name) == 0)
			print_case(p, sub.ptr);
		kb_buf_release(&sub);
	}
}

/* The text form, from the same JSON tree as --json. */
static void print_text(json_t *doc)
{
	json_t *s, *c;
	const char *name;
	size_t i, j;

	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		name = json_string_value(json_object_get(s, "name"));
		printf("%s %s\n", name, json_string_value(json_object_get(s, "status")));
		print_comment(json_string_value(json_object_get(s, "error")));
		json_array_foreach(json_object_get(s, "cases"), j, c)
			print_case(c, name);
	}
	print_comment(json_string_value(json_object_get(doc, "error")));
}

static bool sound(const struct kb_ktap_result *r)
{
	size_t i;

	for (i = 0; i < r->nsuites; i++)
		if (r->suites[i].status == KB_KTAP_ERROR)
			return false;
	return r->ndocuments && !r->error;
}

static int print_document(const struct kb_ktap_result *r, const char *name)
{
	char *doc = NULL;

	if (kb_ktap_suite_document(&doc, r, name) < 0) {
		cli_error_last();
		return EXIT_USAGE;
	}
	fputs(doc, stdout);
	free(doc);
	return kb_ktap_find_suite(r, name)->status == KB_KTAP_ERROR ? EXIT_ATTENTION : EXIT_OK;
}

static int run(const struct ktap_opts *o)
{
	struct kb_ktap_result r = { 0 };
	char *log = NULL;
	size_t len = 0;
	json_t *doc;
	int rc = EXIT_USAGE;

	if ((strcmp(o->file, "-") ? kb_read_file(&log, &len, o->file) :
	     kb_read_fd(&log, &len, STDIN_FILENO, "standard input")) < 0 ||
	    kb_ktap_parse(&r, log, len) < 0) {
		cli_error_last();
		goto done;
	}
	if (o->document) {
		rc = print_document(&r, o->document);
		goto done;
	}
	doc = result_json(&r);
	if (o->json) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		print_text(doc);
	}
	json_decref(doc);
	if (!r.ndocuments)
		cli_error("no KTAP in '%s'", o->file);
	rc = sound(&r) ? EXIT_OK : EXIT_ATTENTION;
done:
	kb_ktap_result_release(&r);
	free(log);
	return rc;
}

int cmd_ktap(int argc, char **argv)
{
	struct ktap_opts o = { 0 };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	return rc;
}
