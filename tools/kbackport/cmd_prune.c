/* kbackport prune: delete kbackport's own refs, and nothing else. */
#include "util/buf.h"
#include "cli.h"
#include "util/error.h"
#include "fix.h"
#include "apply/prune.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt options[] = {
	{ 'c', true, "config", required_argument, "FILE",
	  "branches file (default: $KBACKPORT_CONFIG, else the\n"
	  "nearest branches.yaml from here upward)" },
	{ 'f', true, "fix", required_argument, "ID",
	  "the refs of this fix (its id, as in the ref names);\n"
	  "repeatable" },
	{ 'Q', false, "queue", required_argument, "NAME",
	  "the refs of this queue (apply --queue); repeatable" },
	{ 'b', true, "branch", required_argument, "NAME",
	  "only this branch's refs; repeatable" },
	{ 's', true, "stale", no_argument, NULL,
	  "only the refs whose branch moved on since" },
	{ 'a', true, "all", no_argument, NULL,
	  "every ref kbackport wrote (no other selector)" },
	{ 'n', true, "dry-run", no_argument, NULL,
	  "say what would be deleted; delete nothing" },
	{ 'j', false, "json", no_argument, NULL,
	  "one JSON document: {\"refs\": [...], ...}" },
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport prune [--config FILE] [--fix ID]... [--queue NAME]...\n"
	"                       [--branch NAME]... [--stale] [--dry-run] [--json]\n"
	"       kbackport prune --all [--config FILE] [--dry-run] [--json]\n"
	"\n"
	"Delete the refs kbackport wrote in the repositories of branches.yaml:\n"
	"refs/heads/backport/<fix>/<branch> (resolved by hand or not) and its\n"
	".pre-fix, refs/heads/backport/queue/<queue>/<branch> and its .pre-fix,\n"
	"for a <branch> of branches.yaml. Nothing else is touched: no other ref,\n"
	"no HEAD, index or working tree. A ref checked out in a working tree of\n"
	"its repository (the main one or a linked worktree) is kept, and said.\n"
	"\n"
	"Which refs: those of the fixes and queues named (neither: of all), of\n"
	"the branches named (none: of all), and with --stale only those whose\n"
	"branch moved on (its ref now is not in their history). One of --fix,\n"
	"--queue, --branch, --stale is needed, or --all for every one.\n"
	"\n",
	.opts = options,
	.column = 22,
	.tail =
	"\n"
	"Exit status: 0 when every ref selected was deleted (or would be), 1 when\n"
	"one is kept (checked out, changed meanwhile, locked) or a repository could\n"
	"not be read, 2 for usage, an unknown branch, fix or queue, or a bad\n"
	"config: then nothing is deleted.\n",
};

struct prune_opts {
	const char *config;
	const char **fixes;
	size_t nfixes, afixes;
	const char **queues;
	size_t nqueues, aqueues;
	struct cli_branches branches;
	bool stale, all, dry_run, json;
};

static int parse_options(struct prune_opts *o, int argc, char **argv)
{
	int c, rc = 0;

	while (!rc && (c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 'f': rc = cli_strv_add(&o->fixes, &o->nfixes, &o->afixes, optarg); break;
		case 'Q': rc = cli_strv_add(&o->queues, &o->nqueues, &o->aqueues, optarg); break;
		case 'b': rc = cli_branches_add(&o->branches, optarg) < 0 ? EXIT_USAGE : 0; break;
		case 's': o->stale = true; break;
		case 'a': o->all = true; break;
		case 'n': o->dry_run = true; break;
		case 'j': o->json = true; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	return rc ? rc : cli_no_arguments(argc, argv);
}

/* Deleting everything is asked for by name: a selector, or --all alone. */
static int check_selection(const struct prune_opts *o)
{
	bool some = o->nfixes || o->nqueues || o->branches.n || o->stale;

	if (o->all && some) {
		cli_error("--all takes no --fix, --queue, --branch or --stale: it selects every ref");
		return EXIT_USAGE;
	}
	if (!o->all && !some) {
		cli_error("which refs? name --fix, --queue, --branch or --stale, or --all "
			  "for every ref kbackport wrote");
		return EXIT_USAGE;
	}
	return 0;
}

/* The ids of the fix directories kbackport would take (backports/ beside the config). */
static int known_fixes(char ***ids, size_t *n, const struct kb_config *config)
{
	struct kb_buf root = KB_BUF_INIT;
	const char *slash;
	size_t i;
	int err = 0;

	*ids = NULL;
	*n = 0;
	if (cli_data_path(&root, config, KB_DATA_FIXES) == 0)
		err = kb_fix_find_dirs(ids, n, root.ptr);
	kb_error_clear();
	for (i = 0; i < *n && !err; i++)
		if ((slash = strrchr((*ids)[i], '/')))
			memmove((*ids)[i], slash + 1, strlen(slash + 1) + 1);
	kb_buf_release(&root);
	return err;
}

static const char *status_name(const struct kb_prune_ref *r, bool dry_run)
{
	return r->kept ? "kept" : r->deleted ? "deleted" : dry_run ? "would-delete" : "kept";
}

static void count(const struct kb_prune *p, size_t *gone, size_t *kept)
{
	size_t i;

	*gone = *kept = 0;
	for (i = 0; i < p->nrefs; i++) {
		if (p->refs[i].kept)
			(*kept)++;
		else
			(*gone)++;
	}
}

static json_t *ref_json(const struct kb_prune_ref *r, bool dry_run)
{
	return json_pack("{s:o, s:o, s:o, s:s, s:o, s:o, s:s, s:s, s:o, s:o}",
			 "ref", kb_json_str(r->name), "repo", kb_json_str(r->who.branch->repo),
			 "branch", kb_json_str(r->who.branch->name),
			 "kind", kb_prune_kind_name(r->who.kind),
			 "fix", kb_json_str(r->who.fix), "queue", kb_json_str(r->who.queue),
			 "commit", r->commit, "status", status_name(r, dry_run),
			 "stale", kb_json_str(r->stale), "kept", kb_json_str(r->kept));
}

static void print_json(const struct kb_prune *p, bool dry_run)
{
	json_t *refs = json_array(), *errors = json_array(), *doc;
	size_t i, gone, kept;

	for (i = 0; i < p->nrefs; i++)
		json_array_append_new(refs, ref_json(&p->refs[i], dry_run));
	for (i = 0; i < p->nerrors; i++)
		json_array_append_new(errors, kb_json_str(p->errors[i]));
	count(p, &gone, &kept);
	doc = json_pack("{s:b, s:o, s:o, s:I, s:I}", "dry_run", dry_run, "refs", refs,
			"errors", errors, "deleted", (json_int_t)gone, "kept", (json_int_t)kept);
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(doc);
}

static void print_text(const struct kb_prune *p, bool dry_run)
{
	struct kb_buf q = KB_BUF_INIT;
	const struct kb_prune_ref *r;
	size_t i, gone, kept;

	for (i = 0; i < p->nerrors; i++)
		cli_error("%s", p->errors[i]);
	for (i = 0; i < p->nrefs; i++) {
		r = &p->refs[i];
		printf("%s %s", r->kept ? "kept" : dry_run ? "would delete" : "deleted",
		       cli_quote(&q, r->name, ""));
		printf(" (%s %.12s)", r->deleted ? "was" : "at", r->commit);
		if (r->stale)
			printf(": stale: %s", cli_quote(&q, r->stale, ""));
		if (r->kept)
			printf(": %s", cli_quote(&q, r->kept, ""));
		putchar('\n');
	}
	count(p, &gone, &kept);
	printf("%s%zu ref%s %s, %zu kept\n", dry_run ? "dry run: " : "", gone,
	       gone == 1 ? "" : "s", dry_run ? "would be deleted" : "deleted", kept);
	kb_buf_release(&q);
}

/* The branches, fixes and queues of `o` for the library. */
static int find(struct kb_prune **out, const struct prune_opts *o, const struct kb_config *config)
{
	const struct kb_branch **branches = NULL;
	struct kb_prune_select sel = {
		.fixes = o->fixes, .nfixes = o->nfixes,
		.queues = o->queues, .nqueues = o->nqueues, .stale = o->stale,
	};
	char **known = NULL;
	size_t nknown = 0, i;
	int err;

	if ((err = cli_select(&branches, &sel.nbranches, config, &o->branches)) < 0 ||
	    (o->nfixes && (err = known_fixes(&known, &nknown, config)) < 0))
		goto done;
	sel.branches = branches;
	sel.known_fixes = (const char *const *)known;
	sel.nknown_fixes = nknown;
	err = kb_prune_find(out, config, &sel);
done:
	for (i = 0; i < nknown; i++)
		free(known[i]);
	free(known);
	free(branches);
	return err;
}

static int run(const struct prune_opts *o)
{
	struct kb_config *config = NULL;
	struct kb_prune *p = NULL;
	size_t gone, kept;
	int rc = EXIT_USAGE;

	if (cli_config_load(&config, o->config) < 0 || find(&p, o, config) < 0) {
		cli_error_last();
		goto done;
	}
	if (!o->dry_run && kb_prune_delete(p) < 0) {
		cli_error_last();
		rc = EXIT_ATTENTION;
		goto done;
	}
	if (o->json)
		print_json(p, o->dry_run);
	else
		print_text(p, o->dry_run);
	count(p, &gone, &kept);
	rc = kept || p->nerrors ? EXIT_ATTENTION : EXIT_OK;
done:
	kb_prune_free(p);
	kb_config_free(config);
	return rc;
}

int cmd_prune(int argc, char **argv)
{
	struct prune_opts o = { .config = NULL };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0 && (rc = check_selection(&o)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	free(o.fixes);
	free(o.queues);
	cli_branches_release(&o.branches);
	return rc;
}
