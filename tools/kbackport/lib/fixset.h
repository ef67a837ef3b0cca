/* The fixes a command works on, checked as a set. */
#ifndef KB_FIXSET_H
#define KB_FIXSET_H

#include <stddef.h>

#include "config.h"
#include "fix.h"

/*
 * The fixes under each of `dirs` (a fix directory, a directory of fixes,
 * or a patch or mbox file: a one-off fix without variants), in order;
 * with none, every fix under "<config dir>/backports". Two fixes with one
 * id (their refs would collide) are an error naming both, and so is a
 * `variant: {FIX: NAME}` of the config whose FIX is no fix: not loaded,
 * not beside a loaded one, not under "<config dir>/backports" (an error at
 * its line and column, listing the fixes there are). *out is
 * NULL-terminated, *n fixes; nothing on error (KB_EINVALID, KB_ENOMEM,
 * or the load's error).
 */
int kb_fix_set_load(struct kb_fix ***out, size_t *n, const char *const *dirs,
		    size_t ndirs, const struct kb_config *config);

#endif
