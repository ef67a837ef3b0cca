/* kbackport audit: the calls a fix's audit: rules name and their capability guards. */
#include "audit/audit.h"
#include "util/buf.h"
#include "cli.h"
#include "util/error.h"
#include "fix.h"
#include "repo.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt options[] = {
	{ 'c', true, "config", required_argument, "FILE",
	  "branches file (default: $KBACKPORT_CONFIG, else the\n"
	  "nearest branches.yaml from here upward)" },
	{ 'f', true, "fix", required_argument, "DIR",
	  "the fix whose audit: rules to use, a fix directory or a\n"
	  "directory of fixes (default: backports/ beside the config,\n"
	  "else kbackport's own); exactly one fix with audit: rules" },
	{ 'b', true, "branch", required_argument, "NAME",
	  "only this branch; repeatable (default: all)" },
	{ 'p', true, "path", required_argument, "PREFIX",
	  "only C files under PREFIX; repeatable (default: all)" },
	{ 'a', true, "all", no_argument, NULL,
	  "every call of the callees, whatever guards it" },
	{ 'j', false, "json", no_argument, NULL,
	  "one JSON document: {\"branches\": [...]}" },
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport audit [--config FILE] [--fix DIR] [--branch NAME]...\n"
	"                       [--path PREFIX]... [--all] [--json]\n"
	"\n"
	"For each branch, list the calls named by the fix's audit: rules (fix.yaml)\n"
	"that its capability guards, with the format: a fixed prefix (\"netdev-%s\",\n"
	"\"tcp_%s\") confines what can be loaded; the rules' flag (for CVE-2011-1019\n"
	"a bare \"%s\" under a direct CAP_NET_ADMIN check) is the pattern. Reads blobs\n"
	"from git: no checkout.\n"
	"\n",
	.opts = options,
	.column = 22,
	.tail =
	"\n"
	"Exit status: 0 when no branch has a call matching the flag, 1 when one does\n"
	"or a branch could not be read, 2 for usage or a fix without audit: rules.\n",
};

struct audit_opts {
	const char *config;
	const char **fixes;
	size_t nfixes, afixes;
	const struct kb_audit_rules *rules;	/* the fix's, once loaded */
	struct cli_branches branches;
	const char **paths;
	size_t npaths, apaths;
	bool all, json;
};

struct branch_audit {
	const struct kb_branch *branch;
	char base[GIT_OID_HEXSZ + 1];
	struct kb_call *calls;
	size_t ncalls;
	char *error;
};

static int parse_options(struct audit_opts *o, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 'f':
			if (cli_strv_add(&o->fixes, &o->nfixes, &o->afixes, optarg))
				return EXIT_USAGE;
			break;
		case 'b':
			if (cli_branches_add(&o->branches, optarg) < 0)
				return EXIT_USAGE;
			break;
		case 'p':
			if (cli_strv_add(&o->paths, &o->npaths, &o->apaths, optarg))
				return EXIT_USAGE;
			break;
		case 'a': o->all = true; break;
		case 'j': o->json = true; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	return cli_no_arguments(argc, argv);
}

static const char *guard_name(enum kb_guard_kind kind)
{
	return kind == KB_GUARD_DIRECT ? "if" : kind == KB_GUARD_FUNCTION ?
		"function" : "none";
}

static int audit_branch(struct branch_audit *ba, const struct audit_opts *o,
			struct kb_audit_cache *cache)
{
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	int err;

	if ((err = kb_branch_open(&repo, &commit, ba->branch)) < 0)
		goto done;
	git_oid_tostr(ba->base, sizeof(ba->base), git_commit_id(commit));
	if ((err = git_commit_tree(&tree, commit)) < 0) {
		err = kb_error_git(err, "branch '%s': cannot read its tree", ba->branch->name);
		goto done;
	}
	err = kb_audit_tree(&ba->calls, &ba->ncalls, repo, tree, o->paths, o->npaths,
			    o->rules, cache);
done:
	if (err < 0 && !(ba->error = strdup(kb_error_last())))
		err = kb_error_oom();
	git_tree_free(tree);
	git_commit_free(commit);
	git_repository_free(repo);
	return err == KB_ENOMEM ? err : 0;
}

static json_t *caps_json(const struct kb_call *call)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < call->ncaps; i++)
		json_array_append_new(arr, json_string(call->caps[i]));
	return arr;
}

static json_t *call_json(const struct kb_call *c, const struct kb_audit_rules *rules)
{
	return json_pack("{s:s, s:I, s:o, s:s, s:o, s:o, s:b, s:o, s:s, s:o, s:b}",
			 "path", c->path, "line", (json_int_t)c->line,
			 "function", c->function ? json_string(c->function) : json_null(),
			 "callee", c->callee,
			 "format", c->format ? json_string(c->format) : json_null(),
			 "prefix", c->prefix ? json_string(c->prefix) : json_null(),
			 "bare", c->bare, "caps", caps_json(c),
			 "guard", guard_name(c->guard),
			 "conditional", c->conditional ? json_string(c->conditional) : json_null(),
			 rules->key, kb_call_flagged(c, rules));
}

static bool shown(const struct audit_opts *o, const struct kb_call *call)
{
	return o->all || kb_call_guarded(call, o->rules);
}

static void print_json(const struct branch_audit *audits, size_t n,
		       const struct audit_opts *o)
{
	json_t *branches = json_array(), *calls, *doc;
	size_t b, i;

	for (b = 0; b < n; b++) {
		const struct branch_audit *ba = &audits[b];
		calls = json_array();
		for (i = 0; i < ba->ncalls; i++)
			if (shown(o, &ba->calls[i]))
				json_array_append_new(calls, call_json(&ba->calls[i], o->rules));
		json_array_append_new(branches, json_pack("{s:s, s:s, s:o, s:o, s:o}",
			"branch", ba->branch->name, "ref", ba->branch->ref,
			"base", ba->base[0] ? json_string(ba->base) : json_null(),
			"error", ba->error ? json_string(ba->error) : json_null(),
			"calls", calls));
	}
	doc = json_pack("{s:o}", "branches", branches);
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(doc);
}

static void print_call(const struct kb_call *c, const struct kb_audit_rules *rules)
{
	char where[512], fmt[256], guard[256] = "";
	size_t i;

	snprintf(where, sizeof(where), "%s:%zu", c->path, c->line);
	snprintf(fmt, sizeof(fmt), c->format ? "\"%s\"" : "%s",
		 c->format ? c->format : "(not a literal)");
	for (i = 0; i < c->ncaps; i++)
		snprintf(guard + strlen(guard), sizeof(guard) - strlen(guard), "%s%s",
			 i ? "," : "", c->caps[i]);
	printf("  %-44s %-36s %-20s %-6s %s (%s)%s%s%s\n", where,
	       c->function ? c->function : "?", fmt, c->bare ? "bare" : "prefix",
	       c->ncaps ? guard : "-", guard_name(c->guard),
	       c->conditional ? " [" : "", c->conditional ? c->conditional : "",
	       c->conditional ? "]" : "");
	if (kb_call_flagged(c, rules))
		printf("  %-44s ^ %s\n", "", rules->message);
}

static void print_text(const struct branch_audit *audits, size_t n,
		       const struct audit_opts *o)
{
	size_t b, i, count;

	for (b = 0; b < n; b++) {
		const struct branch_audit *ba = &audits[b];
		printf("%s%s (%s %.12s)\n", b ? "\n" : "", ba->branch->name,
		       ba->branch->ref, ba->base[0] ? ba->base : "-");
		if (ba->error) {
			printf("  error: %s\n", ba->error);
			continue;
		}
		for (i = count = 0; i < ba->ncalls; i++)
			if (shown(o, &ba->calls[i])) {
				print_call(&ba->calls[i], o->rules);
				count++;
			}
		if (!count && o->all)
			printf("  no %s() call found\n", o->rules->callees[0].name);
		else if (!count)
			printf("  no %s() call guarded by %s\n", o->rules->callees[0].name,
			       o->rules->capability);
	}
}

static int exit_status(const struct branch_audit *audits, size_t n,
		       const struct kb_audit_rules *rules)
{
	size_t b, i;

	for (b = 0; b < n; b++) {
		if (audits[b].error)
			return EXIT_ATTENTION;
		for (i = 0; i < audits[b].ncalls; i++)
			if (kb_call_flagged(&audits[b].calls[i], rules))
				return EXIT_ATTENTION;
	}
	return EXIT_OK;
}

/* The one fix with audit: rules among those loaded: it says what to look for. */
static int audit_fix(const struct kb_fix **out, struct kb_fix *const *fixes, size_t n,
		     const char *where)
{
	struct kb_buf ids = KB_BUF_INIT;
	size_t i, with = 0;
	int err = 0;

	*out = NULL;
	for (i = 0; i < n; i++)
		if (fixes[i]->audit) {
			kb_buf_printf(&ids, "%s%s", with++ ? ", " : "", fixes[i]->id);
			*out = fixes[i];
		}
	if (with > 1)
		err = kb_error_set(KB_EINVALID, "several fixes have audit: rules (%s): "
				   "choose one with --fix", ids.ptr);
	else if (!with && n == 1)
		err = kb_error_set(KB_EINVALID, "fix '%s' has no audit: section in "
				   "'%s/fix.yaml': nothing to audit", fixes[0]->id, fixes[0]->dir);
	else if (!with)
		err = kb_error_set(KB_EINVALID, "no fix under '%s' has an audit: section: "
				   "nothing to audit", where);
	kb_buf_release(&ids);
	return err;
}

/* --fix, else backports/ beside the config, else kbackport's own. */
static int load_rules(struct kb_fix ***fixes, size_t *nfixes, struct audit_opts *o,
		      const struct kb_config *config)
{
	struct kb_buf def = KB_BUF_INIT;
	const struct kb_fix *fix;
	const char *dir;
	int err;

	if ((err = cli_data_path(&def, config, KB_DATA_FIXES)) < 0)
		goto done;
	dir = def.ptr;
	if ((err = kb_fix_set_load(fixes, nfixes, o->nfixes ? o->fixes : &dir,
				   o->nfixes ? o->nfixes : 1, config)) < 0 ||
	    (err = audit_fix(&fix, *fixes, *nfixes, o->nfixes ? o->fixes[0] : dir)) < 0)
		goto done;
	o->rules = fix->audit;
done:
	kb_buf_release(&def);
	return err;
}

static int run(struct audit_opts *o)
{
	const struct kb_branch **branches = NULL;
	struct branch_audit *audits = NULL;
	struct kb_audit_cache *cache = NULL;
	struct kb_config *config = NULL;
	struct kb_fix **fixes = NULL;
	size_t n = 0, nfixes = 0, b;
	int rc = EXIT_USAGE;

	if (cli_config_load(&config, o->config) < 0 ||
	    load_rules(&fixes, &nfixes, o, config) < 0 ||
	    cli_select(&branches, &n, config, &o->branches) < 0 ||
	    kb_audit_cache_new(&cache) < 0 ||
	    !(audits = calloc(n + 1, sizeof(*audits)))) {
		cli_error_last();
		goto done;
	}
	for (b = 0; b < n; b++) {
		audits[b].branch = branches[b];
		if (audit_branch(&audits[b], o, cache) < 0) {
			cli_error_last();
			rc = EXIT_ATTENTION;
			goto done;
		}
	}
	if (o->json)
		print_json(audits, n, o);
	else
		print_text(audits, n, o);
	rc = exit_status(audits, n, o->rules);
done:
	for (b = 0; audits && b < n; b++) {
		kb_calls_free(audits[b].calls, audits[b].ncalls);
		free(audits[b].error);
	}
	free(audits);
	free(branches);
	kb_audit_cache_free(cache);
	kb_fix_free_all(fixes, nfixes);
	kb_config_free(config);
	return rc;
}

int cmd_audit(int argc, char **argv)
{
	struct audit_opts o = { .config = NULL };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	free(o.paths);
	free(o.fixes);
	cli_branches_release(&o.branches);
	return rc;
}
