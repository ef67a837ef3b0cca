/*
 * Audit: calls of a fix's callees and the capability checks that guard them.
 *
 * What to look for is the fix's data (the `audit:` section of fix.yaml,
 * struct kb_audit_rules): for CVE-2011-1019, request_module("%s", name)
 * reachable with only CAP_NET_ADMIN. The audit finds every call of the
 * callees in C sources and tells, for each, the capabilities that guard it
 * and whether its format has a fixed prefix ("netdev-%s", "tcp_%s",
 * "char-major-%i-%i") or is bare ("%s").
 */
#ifndef KB_AUDIT_H
#define KB_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

enum kb_guard_kind {
	KB_GUARD_NONE,		/* no capability check controls the call */
	KB_GUARD_DIRECT,	/* an enclosing if/while condition checks it */
	KB_GUARD_FUNCTION,	/* checked earlier in the same function, not as
				 * an enclosing condition (comedi_open's early
				 * returns) */
};

struct kb_call {
	char *path;		/* file path in the tree */
	size_t line;		/* 1-based line of the call */
	char *function;		/* enclosing function name, or NULL */
	char *callee;		/* "request_module", "request_module_nowait", ... */
	char *format;		/* the format literal's text without quotes,
				 * adjacent literals concatenated; NULL when
				 * the first argument is not a literal */
	char *prefix;		/* fixed text before the first '%': "netdev-",
				 * "tcp_", "char-major-"; "" when bare */
	bool bare;		/* format begins with a conversion ("%s") */
	/* Capabilities named in positive checks (capable(CAP_X),
	 * ns_capable(.., CAP_X), ...) guarding the call: "CAP_NET_ADMIN",
	 * "CAP_SYS_MODULE". Negated checks (!capable(CAP_X)) that end in
	 * an early return count as KB_GUARD_FUNCTION. */
	char **caps;
	size_t ncaps;
	enum kb_guard_kind guard;	/* strongest kind among caps */
	char *conditional;	/* "CONFIG_KMOD" when inside #ifdef/#if of a
				 * config symbol, innermost; or NULL */
};

struct kb_audit_callee {
	char *name;		/* "request_module" */
	unsigned format_arg;	/* 0-based argument holding the format */
};

/*
 * A fix's `audit:` section:
 *
 *   audit:
 *     callees:                     # the calls to find
 *       - request_module
 *       - {name: __request_module, format-arg: 2}    # 1-based, default 1
 *     checks: [capable, ns_capable]  # checks whose last argument is a CAP_
 *     capability: CAP_NET_ADMIN    # calls it guards are listed
 *     flag:                        # the pattern that fails the audit
 *       format: bare               # bare | prefix | any
 *       guard: if                  # if | function | any
 *       prefix: "tcp_"             # optional: only this fixed prefix
 *     message: "a bare name on CAP_NET_ADMIN: the CVE-2011-1019 pattern"
 *
 * `key` is the JSON field telling a call matches the flag: the fix id,
 * lowercase, '-' as '_', and "_pattern" ("cve_2011_1019_pattern").
 */
enum kb_audit_format { KB_AUDIT_ANY_FORMAT, KB_AUDIT_BARE, KB_AUDIT_PREFIX };

struct kb_audit_rules {
	struct kb_audit_callee *callees;
	size_t ncallees;
	char **checks;
	size_t nchecks;
	char *capability;
	enum kb_audit_format flag_format;
	enum kb_guard_kind flag_guard;	/* KB_GUARD_NONE: any guard */
	char *flag_prefix;		/* or NULL: any prefix */
	char *message;
	char *key;
};

struct kb_yaml;
struct yaml_node_s;
/*
 * Read the `audit:` mapping `map` of fix `id` (errors name file:line:col:
 * unknown keys, missing callees/checks/capability/message, empty lists,
 * a format-arg that is not a number from 1 to 16, unknown flag values).
 */
int kb_audit_rules_load(struct kb_audit_rules **out, struct kb_yaml *y,
			struct yaml_node_s *map, const char *id);
void kb_audit_rules_free(struct kb_audit_rules *rules);

/* True when the rules' capability guards the call (direct or function). */
bool kb_call_guarded(const struct kb_call *call, const struct kb_audit_rules *rules);
/* True when the call matches the rules' flag, on their capability. */
bool kb_call_flagged(const struct kb_call *call, const struct kb_audit_rules *rules);

/*
 * Scan one C source text for calls to the rules' callees (not their
 * declarations or definitions). Comments and string contents never
 * produce calls. Appends to *calls / *n (the array is realloc'ed). `path`
 * is copied into each call.
 */
int kb_audit_scan(struct kb_call **calls, size_t *n, const struct kb_audit_rules *rules,
		  const char *path, const char *buf, size_t len);

/*
 * Scan every *.c file of `tree` (blobs read from the object store, no
 * checkout) whose path starts with one of `prefixes` (all files when
 * nprefixes is 0). Results sorted by path and line. `cache` (may be NULL,
 * used with one `rules` only)
 * remembers results by blob id across calls, so branches sharing files
 * are scanned once.
 */
struct kb_audit_cache;
int kb_audit_cache_new(struct kb_audit_cache **out);
void kb_audit_cache_free(struct kb_audit_cache *cache);
/* Blobs answered from the cache so far (tests check that sharing works). */
size_t kb_audit_cache_hits(const struct kb_audit_cache *cache);

int kb_audit_tree(struct kb_call **calls, size_t *n, git_repository *repo,
		  git_tree *tree, const char *const *prefixes, size_t nprefixes,
		  const struct kb_audit_rules *rules, struct kb_audit_cache *cache);

void kb_calls_free(struct kb_call *calls, size_t n);

#endif
