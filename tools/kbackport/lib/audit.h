/*
 * Audit: request_module() calls and the capability checks that guard them.
 *
 * CVE-2011-1019 is a request_module("%s", name) reachable with only
 * CAP_NET_ADMIN. The audit finds every request_module()-family call in C
 * sources and tells, for each, the capabilities that guard it and whether
 * its module-name format has a fixed prefix ("netdev-%s", "tcp_%s",
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

/* True when the call is guarded by CAP_NET_ADMIN (direct or function). */
bool kb_call_net_admin(const struct kb_call *call);

/*
 * Scan one C source text for calls to request_module, request_module_nowait
 * and __request_module (not their declarations or definitions). Comments and
 * string contents never produce calls. Appends to *calls / *n (the array is
 * realloc'ed). `path` is copied into each call.
 */
int kb_audit_scan(struct kb_call **calls, size_t *n, const char *path,
		  const char *buf, size_t len);

/*
 * Scan every *.c file of `tree` (blobs read from the object store, no
 * checkout) whose path starts with one of `prefixes` (all files when
 * nprefixes is 0). Results sorted by path and line. `cache` (may be NULL)
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
		  struct kb_audit_cache *cache);

void kb_calls_free(struct kb_call *calls, size_t n);

#endif
