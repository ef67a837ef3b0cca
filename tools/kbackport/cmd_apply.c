/* kbackport apply: every fix on every selected branch, one result each. */
#include "backport.h"
#include "cli.h"
#include "error.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
"usage: kbackport apply [--config FILE] [--fix DIR]... [--branch NAME]...\n"
"                       [--dry-run] [--json] [--max-fuzz N]\n"
"\n"
"Apply the right variant of each fix to each branch of branches.yaml, in\n"
"memory, and record a stable-style commit on refs/heads/backport/<fix>/<branch>\n"
"in the branch's repository. Nothing else in the repository is touched.\n"
"\n"
"  -c, --config FILE   branches file (default: ./branches.yaml)\n"
"  -f, --fix DIR       a fix directory, or a directory of fixes; repeatable\n"
"                      (default: every fix under backports/ beside the config)\n"
"  -b, --branch NAME   only this branch; repeatable (default: all)\n"
"  -n, --dry-run       decide and report, write no object and no ref\n"
"      --json          one JSON document per fix (an array when several)\n"
"      --max-fuzz N    context lines a hunk may drop at each end (default 2)\n"
"  -h, --help          this text\n"
"\n"
"Statuses: applied, already-applied, not-affected, conflict, error.\n"
"Exit status: 0 when no result is conflict or error, 1 otherwise, 2 for usage.\n";

struct apply_opts {
	struct cli_target t;
	struct kb_backport_opts backport;
	bool json;
};

static int parse_options(struct apply_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_TARGET_OPTIONS,
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "max-fuzz", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long fuzz;
	int c;

	while ((c = getopt_long(argc, argv, "c:f:b:nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': case 'f': case 'b':
			if (cli_target_option(&o->t, c, optarg))
				return EXIT_USAGE;
			break;
		case 'n': o->backport.dry_run = true; break;
		case 'j': o->json = true; break;
		case 'z':
			fuzz = strtol(optarg, &end, 10);
			if (*end || end == optarg || fuzz < 0 || fuzz > 10) {
				cli_error("--max-fuzz wants a number from 0 to 10, not '%s'", optarg);
				return EXIT_USAGE;
			}
			o->backport.locate.max_fuzz = (unsigned)fuzz;
			break;
		case 'h': cli_help(usage); return -1;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	return cli_no_arguments(argc, argv);
}

static json_t *pre_fix_json(const struct kb_result *r)
{
	if (!r->pre_fix_ref)
		return json_null();
	return json_pack("{s:s, s:o, s:s}", "ref", r->pre_fix_ref,
			 "commit", cli_json_str(r->pre_fix_commit),
			 "reversed_variant", r->pre_fix_variant);
}

static json_t *hunks_json(const struct kb_result *r)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < r->nhunks; i++) {
		const struct kb_placement *p = &r->hunks[i];
		json_array_append_new(list, json_pack("{s:o, s:I, s:s, s:s, s:o, s:I, s:I, s:b, s:o}",
			"file", cli_json_text(p->path, strlen(p->path)),
			"hunk", (json_int_t)p->hunk, "variant", p->variant, "status", p->status,
			"line", p->line ? json_integer((json_int_t)p->line) : json_null(),
			"offset", (json_int_t)p->offset, "fuzz", (json_int_t)p->fuzz,
			"whitespace", p->whitespace, "anchor", cli_json_str(p->anchor)));
	}
	return list;
}

static json_t *result_json(const struct kb_result *r)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o}",
			 "branch", r->branch,
			 "status", kb_status_name(r->status),
			 "variant", cli_json_str(r->variant),
			 "base", cli_json_str(r->base),
			 "commit", cli_json_str(r->commit),
			 "ref", cli_json_str(r->ref),
			 "created", r->created,
			 "forced", r->forced,
			 "detail", cli_json_text(r->detail ? r->detail : "",
						 r->detail ? strlen(r->detail) : 0),
			 "notes", cli_json_lines(r->notes),
			 "reproduce", cli_json_lines(r->reproduce),
			 "pre_fix", pre_fix_json(r),
			 "hunks", hunks_json(r));
}

static void print_json(struct kb_result *results, size_t nbranches,
		       struct kb_fix **fixes, size_t nfixes)
{
	json_t *docs = json_array(), *doc, *list;
	size_t f, b;

	for (f = 0; f < nfixes; f++) {
		list = json_array();
		for (b = 0; b < nbranches; b++)
			json_array_append_new(list, result_json(&results[f * nbranches + b]));
		doc = json_pack("{s:s, s:o}", "fix", fixes[f]->id, "results", list);
		json_array_append_new(docs, doc);
	}
	json_dumpf(nfixes == 1 ? json_array_get(docs, 0) : docs, stdout,
		   JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(docs);
}

static void print_matrix(const struct kb_result *results, size_t n)
{
	size_t i, w = 6;

	for (i = 0; i < n; i++)
		if (strlen(results[i].branch) > w)
			w = strlen(results[i].branch);
	printf("%-*s  %-14s  %-15s  %-9s  %s\n", (int)w, "BRANCH", "FIX", "STATUS",
	       "VARIANT", "COMMIT");
	for (i = 0; i < n; i++) {
		const struct kb_result *r = &results[i];
		printf("%-*s  %-14s  %-15s  %-9s  %.12s\n", (int)w, r->branch, r->fix,
		       kb_status_name(r->status), r->variant ? r->variant : "-",
		       r->commit[0] ? r->commit : "-");
	}
	for (i = 0; i < n; i++) {
		const struct kb_result *r = &results[i];
		printf("\n%s (%s): %s\n", r->branch, r->fix, r->detail);
		if (r->pre_fix_ref)
			printf("  on the reconstructed pre-fix state %s (variant '%s' reversed)\n",
			       r->pre_fix_ref, r->pre_fix_variant);
		if (r->ref)
			printf("  ref: %s\n", r->ref);
		cli_print_indented(r->notes, "  ");
		if (r->reproduce) {
			printf("  to resolve it by hand:\n");
			cli_print_indented(r->reproduce, "    ");
		}
	}
}

static int run(struct apply_opts *o)
{
	const struct kb_branch **branches = NULL;
	struct kb_config *config = NULL;
	struct kb_fix **fixes = NULL;
	struct kb_result *results = NULL;
	size_t nbranches = 0, nfixes = 0, f, b, nresults = 0;
	int rc = EXIT_USAGE;

	if (kb_config_load(&config, o->t.config) < 0 ||
	    cli_select(&branches, &nbranches, config, &o->t.branches) < 0 ||
	    cli_load_fixes(&fixes, &nfixes, o->t.fixes, o->t.nfixes, config) < 0) {
		cli_error_last();
		goto done;
	}
	if (!(results = calloc(nfixes * nbranches + 1, sizeof(*results))))
		goto done;
	rc = EXIT_OK;
	for (f = 0; f < nfixes; f++)
		for (b = 0; b < nbranches; b++, nresults++) {
			struct kb_result *r = &results[nresults];
			if (kb_backport(r, branches[b], fixes[f], &o->backport) < 0) {
				cli_error_last();
				rc = EXIT_ATTENTION;
				goto done;
			}
			if (r->status == KB_STATUS_CONFLICT || r->status == KB_STATUS_PARTIAL ||
			    r->status == KB_STATUS_ERROR)
				rc = EXIT_ATTENTION;
		}
	if (o->json)
		print_json(results, nbranches, fixes, nfixes);
	else
		print_matrix(results, nresults);
done:
	for (b = 0; results && b < nresults; b++)
		kb_result_release(&results[b]);
	free(results);
	free(branches);
	kb_fix_free_all(fixes, nfixes);
	kb_config_free(config);
	return rc;
}

int cmd_apply(int argc, char **argv)
{
	struct apply_opts o = { .t.config = "branches.yaml" };
	int rc;

	kb_backport_opts_init(&o.backport);
	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	cli_target_release(&o.t);
	return rc;
}
