/*
 * What a tree already says about a fix: is it in, is the vulnerable code
 * there at all, which variant's conditions hold.
 */
#ifndef KB_DETECT_H
#define KB_DETECT_H

#include <stdbool.h>

#include "apply/apply.h"
#include "fix.h"
#include "kbuild/source.h"

/* Does `cond` hold for the tree in `src`? */
int kb_cond_eval(bool *holds, struct kb_source *src, const struct kb_cond *cond);

/* "net/ipv4/ipip.c lacks 'MODULE_ALIAS(\"tunl0\");'" (malloc'ed). */
char *kb_cond_describe(const struct kb_cond *cond);

/*
 * Whether every condition of `variant` holds; *failed (may be NULL) is set
 * to the first one that does not.
 */
int kb_variant_fits(bool *fits, const struct kb_cond **failed,
		    struct kb_source *src, const struct kb_variant *variant);

/*
 * Every variant of a fix looked at on one tree (kb_apply_variant()): which
 * one is wholly in, and is any part of the fix in at all?
 */
struct kb_survey {
	struct kb_apply *v;		/* one per variant, in fix order */
	size_t n;
	const struct kb_variant *present;	/* wholly in, or NULL */
	struct kb_apply *present_apply;	/* its entry in v */
	const struct kb_variant *partly;	/* NULL, or the variant with the
						 * most files in when none is whole */
	struct kb_apply *partly_apply;
};

/*
 * Survey `fix` on the tree of `src`. A variant is present when each of its
 * files has the change, found like a reverse apply (see kb_file_decide()),
 * with its own hunks or another variant's for the same file. Among
 * present variants the one with the most files found by its own hunks
 * wins, ties to the first. Release with kb_survey_release(), also on error.
 */
int kb_survey_fix(struct kb_survey *out, struct kb_source *src,
		  const struct kb_fix *fix, const struct kb_locate_opts *opts);

void kb_survey_release(struct kb_survey *survey);

/* The variant wholly in the tree (kb_survey_fix() with default options), or NULL. */
int kb_detect_applied(const struct kb_variant **out, struct kb_source *src,
		      const struct kb_fix *fix);

/*
 * The path holding the first vulnerable code shape of `fix` found in the
 * tree, or NULL when none is (the tree is not affected). A fix with no
 * `vulnerable` markers counts every tree as affected: *path is then "".
 */
int kb_detect_vulnerable(const char **path, struct kb_source *src,
			 const struct kb_fix *fix);

#endif
