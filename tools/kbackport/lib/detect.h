/*
 * What a tree already says about a fix: is it in, is the vulnerable code
 * there at all, which variant's conditions hold.
 */
#ifndef KB_DETECT_H
#define KB_DETECT_H

#include <stdbool.h>

#include "fix.h"
#include "source.h"

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
 * The variant whose every added block is already in the tree (whitespace-
 * insensitive, see kb_text_contains()), or NULL: this is how a vendor's
 * copy of the fix with whitespace drift is recognised. When several
 * variants add the same lines, the one with the most hunks whose whole
 * postimage (context included) is in the tree wins; ties go to the first.
 */
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
