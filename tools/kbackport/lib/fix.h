/*
 * backports/<id>/ -> struct kb_fix. A fix is data: fix.yaml plus patches.
 *
 *   id: CVE-2011-1019                  # must equal the directory name
 *   subject: "net: don't allow ..."    # must equal the upstream patch's Subject
 *   upstream: 8909c9ad8ff0...          # 40-hex upstream commit; optional (a
 *                                      # distribution's own patch has none)
 *   cve: CVE-2011-1019                 # optional
 *   introduced-by: a8f80e8ff94e...     # optional, 40-hex
 *   patch: upstream.patch              # the upstream commit, format-patch form:
 *                                      # author, date, subject and body come from it
 *   vulnerable:                        # the code shapes that make a tree affected;
 *     - paths: [net/core/dev.c, net/core/dev_ioctl.c]   # none found: not-affected
 *       code: |
 *         if (!dev && capable(CAP_NET_ADMIN))
 *                 request_module("%s", name);
 *   variants:                          # tried in this order
 *     - name: upstream
 *       patch: upstream.patch
 *       why: "one line: which trees this variant is for"
 *       note: "2.6.32: what the backport changed"   # optional, goes in [ ] in
 *                                                    # the commit message
 *       when:                          # all must hold for automatic choice
 *         - file: net/core/dev.c
 *           contains: "dev = dev_get_by_name_rcu(net, name);"
 *         - file: net/ipv4/ipip.c
 *           lacks: 'MODULE_ALIAS("tunl0");'
 *         - file: net/core/dev_ioctl.c
 *           exists: true               # or false
 *
 *   tests: ../tests                    # optional: the fix's tests, a directory
 *                                      # relative to the fix's (several fixes may
 *                                      # share one); default: tests/ when it has
 *                                      # a cases.yaml (see fixtests.h)
 *
 *   audit:                             # optional: what `kbackport audit` looks
 *     callees: [request_module]        # for (struct kb_audit_rules, audit.h)
 *     checks: [capable, ns_capable]
 *     capability: CAP_NET_ADMIN
 *     flag: {format: bare, guard: if}
 *     message: "a bare name on CAP_NET_ADMIN: the CVE-2011-1019 pattern"
 *
 * `contains`/`lacks`/`code` texts are matched with kb_text_contains()
 * (whitespace-insensitive, may span lines).
 */
#ifndef KB_FIX_H
#define KB_FIX_H

#include <stdbool.h>
#include <stddef.h>

#include "audit/audit.h"
#include "apply/patch.h"

enum kb_cond_kind {
	KB_COND_CONTAINS,	/* file exists and contains text */
	KB_COND_LACKS,		/* file missing, or does not contain text */
	KB_COND_EXISTS,		/* file exists */
	KB_COND_MISSING,	/* file does not exist */
};

struct kb_cond {
	enum kb_cond_kind kind;
	char *path;
	char *text;		/* NULL for EXISTS/MISSING */
};

struct kb_variant {
	char *name;
	char *why;
	char *note;		/* or NULL */
	char *patch_path;	/* resolved path of the patch file */
	struct kb_patch *patch;
	struct kb_patch *reverse;	/* `patch` undone: finds it in a tree */
	struct kb_cond *when;
	size_t nwhen;
};

struct kb_marker {
	char **paths;
	size_t npaths;
	char *code;
};

struct kb_fix {
	char *id;
	char *dir;
	char *subject;
	char *upstream;		/* 40 hex, or NULL: a patch of no upstream commit */
	char *upstream_repo;	/* where to fetch it: `upstream-repo`, or NULL (the
				 * commands to do it by hand then use the patch) */
	char *cve;		/* or NULL */
	char *introduced_by;	/* or NULL */
	bool reapply;		/* `reapply: true`: applied again where the
				 * branch's history reverted it (as --reapply) */
	struct kb_patch *patch;	/* the upstream commit: author, date, body */
	char *patch_path;	/* resolved path of `patch` */
	struct kb_patch *reverse;	/* `patch` undone */
	struct kb_marker *vulnerable;
	size_t nvulnerable;
	struct kb_variant *variants;
	size_t nvariants;
	struct kb_audit_rules *audit;	/* or NULL: no `audit:` section */
	char *tests_dir;	/* the fix's tests (`tests:`, else <dir>/tests), or NULL */
};

/*
 * Load backports/<id>/ from `dir`. Errors (KB_EINVALID, "file:line:col:" for
 * YAML problems): missing fix.yaml or patch, id not matching the directory
 * name, bad sha, subject mismatch, no variants, duplicate variant names,
 * a variant patch that does not parse (the patch's own error is kept).
 */
int kb_fix_load(struct kb_fix **out, const char *dir);

/*
 * Load every fix under `backports_dir` (each subdirectory holding a
 * fix.yaml), sorted by id. Fails on the first fix that does not load.
 */
int kb_fix_load_all(struct kb_fix ***out, size_t *n, const char *backports_dir);

/*
 * Is `id` the name the queues' refs take, "queue" (in any case)? The refs
 * of fix X are refs/heads/backport/X/<branch> and those of a queue
 * refs/heads/backport/queue/<queue>/<branch>: a fix named so would put
 * its refs among the queues'. No fix may have it.
 */
bool kb_fix_id_reserved(const char *id);
#define KB_FIX_ID_RESERVED_WHY "refs/heads/backport/queue/ holds the queues' refs"

/*
 * The fix directories under `root`: `root` itself when it holds a
 * fix.yaml, else its subdirectories searched the same way (a family of
 * fixes in a folder of its own, at most 4 levels down; names starting with
 * '.' skipped), sorted. A missing `root` has none.
 */
int kb_fix_find_dirs(char ***out, size_t *n, const char *root);

void kb_fix_free(struct kb_fix *fix);
void kb_fix_free_all(struct kb_fix **fixes, size_t n);

const struct kb_variant *kb_fix_variant(const struct kb_fix *fix,
					const char *name);

/* Is `dir` a fix directory: does it hold a regular file fix.yaml? */
bool kb_is_fix_dir(const char *dir);

/* The sha256 of `variant`'s patch file of `fix` into out ("" when no
 * variant or no such variant), as results.json's patch_hash. */
int kb_fix_patch_hash(char out[65], const struct kb_fix *fix, const char *variant);

#endif
