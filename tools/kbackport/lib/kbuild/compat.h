/*
 * Build compatibility as data: adjustments that let today's toolchain build
 * an old kernel tree (a compiler-gcc12.h, a Perl fix, decompressor flags,
 * configuration targets), written as rules in a file of the repository
 * (tests/kernel/compat/rules) and chosen by what the tree contains, never
 * by a branch or version name:
 *
 *   rule timeconst-perl
 *       contains kernel/timeconst.pl "defined(@val)"
 *       replace kernel/timeconst.pl "defined(@val)" "@val"
 *
 * Conditions (all must hold, on the lane's tree as it is):
 *   exists PATH | absent PATH | contains PATH TEXT | lacks PATH TEXT
 *   (lacks: PATH exists and does not contain TEXT)
 * Actions (in order, each on the tree the previous one left):
 *   copy FROM TO | add PATH FILE (FILE beside the rules file; executable
 *   when it is) | replace PATH OLD NEW (every occurrence; none is an
 *   error) | append PATH TEXT | cc-flags FLAGS (added to make's CC)
 * Words are separated by blanks; "..." quotes one with blanks, with \" \\
 * \n and \t escapes; lines starting with # are comments.
 *
 * The adjusted tree is made in memory like the KUnit overlay: it is built,
 * never committed to a branch.
 */
#ifndef KB_COMPAT_H
#define KB_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

enum kb_compat_op {
	KB_COMPAT_EXISTS, KB_COMPAT_ABSENT, KB_COMPAT_CONTAINS, KB_COMPAT_LACKS,
	KB_COMPAT_COPY, KB_COMPAT_ADD, KB_COMPAT_REPLACE, KB_COMPAT_APPEND,
	KB_COMPAT_CC_FLAGS,
};

struct kb_compat_step {
	enum kb_compat_op op;
	char *arg[3];
	char *data;		/* add: the file's contents */
	size_t len;
	bool executable;	/* add: the file is executable */
	unsigned line;
};

struct kb_compat_rule {
	char *name;
	unsigned line;
	struct kb_compat_step *when, *actions;
	size_t nwhen, nactions;
	size_t awhen, aactions;	/* how many `when` and `actions` hold */
};

struct kb_compat {
	char *path;
	struct kb_compat_rule *rules;
	size_t n, alloc;	/* alloc: how many `rules` holds */
};

/* Read and check the rules file `path`: errors name "path:line". */
int kb_compat_load(struct kb_compat **out, const char *path);
void kb_compat_free(struct kb_compat *compat);

/* holds[i]: every condition of rule i holds for `tree` (compat->n entries). */
int kb_compat_select(bool *holds, git_repository *repo, const git_oid *tree,
		     const struct kb_compat *compat);

struct kb_compat_result {
	git_oid tree;		/* `tree` with the actions of the rules that hold */
	char *cc_flags;		/* their cc-flags, blank-separated, or NULL */
	char *log;		/* one line per rule applied, or NULL when none */
};

/*
 * Apply the rules that hold for `tree`; the new objects are written to
 * `repo` (for a build: the overlay's handle, see overlay.h). A rule whose
 * action cannot be done (a missing file, a replace that finds nothing) is
 * an error naming the rule.
 */
int kb_compat_apply(struct kb_compat_result *out, git_repository *repo,
		    const git_oid *tree, const struct kb_compat *compat);
void kb_compat_result_release(struct kb_compat_result *result);

#endif
