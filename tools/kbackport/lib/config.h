/*
 * branches.yaml -> struct kb_config.
 *
 *   repo: PATH                  # default repository for every branch
 *   branches:
 *     - name: 2.6.32.y          # required, unique, a valid ref component
 *       ref: linux-2.6.32.y     # required: branch name, refs/... or a commit
 *       repo: PATH              # optional, this branch's own repository
 *       variant: 2.6.32         # optional: force a variant for every fix,
 *       variant: {CVE-2011-1019: 2.6.32}   # ... or per fix id
 *       arch: x86_64            # later stages: target arch (default x86_64)
 *       config: tests/kernel.config   # later stages: config fragment
 *       build: false            # later stages: do not build this lane
 *       build-skip-reason: "gcc 12 cannot build 2.6.x"
 *       pre-fix: true           # add a lane: `ref` with the fix reverse-
 *                               # applied (a reconstructed pre-fix state),
 *                               # and backport onto that lane
 *       skip-if-missing: "import linux-eras.tar.xz first"
 *                               # when the repository or ref is not there,
 *                               # the branch is skipped with this reason
 *                               # instead of failing (kb_branch_missing)
 *       mail:                   # the FAILED mail of a fix that does not
 *         to: "Vendor <k@acme>" #  apply here (default: the fix's author)
 *         cc: [list@acme]       # a sequence (or one address)
 *         tree: ACME vendor 5.10   # the tree's name in the subject and text
 *                               # (default: the branch's name)
 *         send-to: list@acme    # where a backport is to be sent
 *     - name: debian-6.1
 *       kernel: linux-image-amd64   # a distribution kernel package, booted
 *                               # as shipped with the capability tests: no
 *                               # ref, repo, variant, config or pre-fix
 *
 *   mail: {...}                 # top level: the same keys, the default of
 *                               # every branch for what its own `mail:`
 *                               # does not say
 *
 * FAILED mails (kb_mail): a `mail:` given, at the top level or on the
 * branch, is all there is: nothing of the stable team's is added. With no
 * `mail:` at all, a branch that looks like a stable branch (its name or
 * its ref's last component is [linux-]N.N[.N...].y) gets the stable team's
 * defaults: tree "N.N-stable", Cc and send-to stable@vger.kernel.org; any
 * other branch gets its name as the tree and no Cc, no send-to.
 *
 * Relative paths are relative to the directory holding the config file.
 * Unknown keys and wrong types are errors reported as file:line:column.
 */
#ifndef KB_CONFIG_H
#define KB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct kb_variant_choice {
	char *fix;	/* fix id, or NULL: applies to every fix */
	char *variant;
	size_t line, column;	/* where the fix id (or the name) is, 1-based */
};

/* Who gets a branch's FAILED mails and how its tree is named. */
struct kb_mail {
	bool given;		/* a `mail:` mapping was written */
	bool stable;		/* the stable team's defaults (no `mail:` at all) */
	char *to;		/* NULL: the fix's author */
	char **cc;		/* NULL-terminated, or NULL */
	size_t ncc;
	char *tree;		/* "4.19-stable", "ACME vendor 5.10" */
	char *send_to;		/* where a backport goes, or NULL */
};

#define KB_STABLE_LIST "stable@vger.kernel.org"

struct kb_branch {
	char *name;
	char *ref;
	char *repo;		/* resolved path: own repo or the default one */
	struct kb_variant_choice *variants;
	size_t nvariants;
	char *arch;		/* "x86_64" when not given */
	char *config;		/* resolved path, or NULL */
	bool build;		/* true when not given */
	char *build_skip_reason;	/* or NULL */
	bool pre_fix;		/* reconstruct the pre-fix state from `ref` */
	char *skip_if_missing;	/* why a missing repo or ref is a skip, or NULL */
	char *kernel;		/* a distribution kernel package, or NULL;
				 * such a branch has no ref and no repo */
	struct kb_mail mail;	/* resolved: its own, the default, or stable's */
	size_t line, column;	/* where the entry starts, 1-based */
};

struct kb_config {
	char *path;		/* as given */
	char *dir;		/* directory of path, "." when none */
	char *repo;		/* resolved default repository, or NULL */
	struct kb_mail mail;	/* the top-level `mail:` (given: false when none) */
	struct kb_branch *branches;
	size_t nbranches;
};

/*
 * Read and validate `path`. Errors: KB_ENOTFOUND when the file is missing,
 * KB_EINVALID with "path:line:col: message" for YAML syntax, unknown keys,
 * wrong types, missing name/ref (unless `kernel`), duplicate names, a branch with no repo
 * (neither its own nor the default one), a branch named "x.pre-fix" beside a
 * branch x with a pre-fix lane (the two would share one ref).
 */
int kb_config_load(struct kb_config **out, const char *path);

/* Same from a buffer; `path` names it and gives the base directory. */
int kb_config_parse(struct kb_config **out, const char *buf, size_t len,
		    const char *path);

void kb_config_free(struct kb_config *config);

const struct kb_branch *kb_config_branch(const struct kb_config *config,
					 const char *name);

/* The variant forced for `fix_id` on `branch`, or NULL for automatic. */
const char *kb_branch_variant(const struct kb_branch *branch,
			      const char *fix_id);

/*
 * Does a branch named `name` on `ref` (may be NULL) look like a stable
 * branch: its name, or its ref's last component, "[linux-]N.N[.N...].y"?
 * *version and *len then give "N.N[.N...]" (into `name` or `ref`).
 */
bool kb_branch_looks_stable(const char *name, const char *ref, const char **version,
			    size_t *len);

#endif
