/* kbackport audit: request_module() calls and their capability guards. */
#include "audit.h"
#include "cli.h"
#include "error.h"
#include "repo.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
"usage: kbackport audit [--config FILE] [--branch NAME]... [--path PREFIX]...\n"
"                       [--all] [--json]\n"
"\n"
"For each branch, list the request_module() calls that a CAP_NET_ADMIN\n"
"check guards, with the module-name format: a fixed prefix (\"netdev-%s\",\n"
"\"tcp_%s\") confines what can be loaded; a bare \"%s\" is the CVE-2011-1019\n"
"pattern. Reads blobs from git: no checkout.\n"
"\n"
"  -c, --config FILE   branches file (default: ./branches.yaml)\n"
"  -b, --branch NAME   only this branch; repeatable (default: all)\n"
"  -p, --path PREFIX   only C files under PREFIX; repeatable (default: all)\n"
"  -a, --all           every request_module() call, whatever guards it\n"
"      --json          one JSON document: {\"branches\": [...]}\n"
"  -h, --help          this text\n"
"\n"
"Exit status: 0 when no branch has a bare format under a direct CAP_NET_ADMIN\n"
"check, 1 when one does or a branch could not be read, 2 for usage.\n";

struct audit_opts {
	const char *config;
	struct cli_branches branches;
	const char **paths;
	size_t npaths;
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
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "branch", required_argument, NULL, 'b' },
		{ "path", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:b:p:ah", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 'b':
			if (cli_branches_add(&o->branches, optarg) < 0)
				return EXIT_USAGE;
			break;
		case 'p':
			if (cli_strv_add(&o->paths, &o->npaths, optarg))
				return EXIT_USAGE;
			break;
		case 'a': o->all = true; break;
		case 'j': o->json = true; break;
		case 'h': cli_help(usage); return -1;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	return cli_no_arguments(argc, argv);
}

/* The CVE-2011-1019 pattern: a bare name directly under CAP_NET_ADMIN. */
static bool bare_on_net_admin(const struct kb_call *call)
{
	return call->bare && call->guard == KB_GUARD_DIRECT && kb_call_net_admin(call);
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
	err = kb_audit_tree(&ba->calls, &ba->ncalls, repo, tree, o->paths, o->npaths, cache);
done:
	if (err < 0 && !(ba->error = strdup(kb_error_last())))
		err = KB_ENOMEM;
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

static json_t *call_json(const struct kb_call *c)
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
			 "cve_2011_1019_pattern", bare_on_net_admin(c));
}

static bool shown(const struct audit_opts *o, const struct kb_call *call)
{
	return o->all || kb_call_net_admin(call);
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
				json_array_append_new(calls, call_json(&ba->calls[i]));
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

static void print_call(const struct kb_call *c)
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
	if (bare_on_net_admin(c))
		printf("  %-44s ^ a bare name on CAP_NET_ADMIN: the CVE-2011-1019 pattern\n", "");
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
				print_call(&ba->calls[i]);
				count++;
			}
		if (!count)
			printf("  no request_module() call %s\n",
			       o->all ? "found" : "guarded by CAP_NET_ADMIN");
	}
}

static int exit_status(const struct branch_audit *audits, size_t n)
{
	size_t b, i;

	for (b = 0; b < n; b++) {
		if (audits[b].error)
			return EXIT_ATTENTION;
		for (i = 0; i < audits[b].ncalls; i++)
			if (bare_on_net_admin(&audits[b].calls[i]))
				return EXIT_ATTENTION;
	}
	return EXIT_OK;
}

static int run(const struct audit_opts *o)
{
	const struct kb_branch **branches = NULL;
	struct branch_audit *audits = NULL;
	struct kb_audit_cache *cache = NULL;
	struct kb_config *config = NULL;
	size_t n = 0, b;
	int rc = EXIT_USAGE;

	if (kb_config_load(&config, o->config) < 0 ||
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
	rc = exit_status(audits, n);
done:
	for (b = 0; audits && b < n; b++) {
		kb_calls_free(audits[b].calls, audits[b].ncalls);
		free(audits[b].error);
	}
	free(audits);
	free(branches);
	kb_audit_cache_free(cache);
	kb_config_free(config);
	return rc;
}

int cmd_audit(int argc, char **argv)
{
	struct audit_opts o = { .config = "branches.yaml" };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	free(o.paths);
	cli_branches_release(&o.branches);
	return rc;
}
