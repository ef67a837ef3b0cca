/*
 * What a command works on, as every command finds it: the config (found as
 * git finds its directory), its branches (those named, checked, with a
 * hint for a name that is none) and the fixes named by id.
 */
#ifndef KB_SESSION_H
#define KB_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/*
 * The config at `path` when given (not empty), else $KBACKPORT_CONFIG,
 * else the first branches.yaml from the current directory upward (the
 * current directory's is named "branches.yaml", as given). None found:
 * KB_ENOTFOUND saying where it looked, and a hint line naming --config.
 */
int kb_config_find(struct kb_config **out, const char *path);

/*
 * A --fix argument that is no path (nothing there by that name, no '/'):
 * the fix directory of that id under "<config dir>/backports" (a folder
 * of that name there, else a fix of that id deeper in, as a family's),
 * in *out (malloc'ed). *out is NULL when `arg` is a path, to be loaded as
 * one. An id found nowhere is KB_ENOTFOUND with the closest id as a hint.
 */
int kb_fix_resolve(char **out, const char *arg, const struct kb_config *config);

/*
 * The branches of `config` to work on, in its order: every one, or those
 * `names` names (a name that is none is KB_ENOTFOUND, with the closest
 * branch as a hint, or the branches there are). Without `with_kernels`, a
 * distribution kernel branch (`kernel:`) is left out, and so is a branch
 * whose `skip-if-missing:` applies; each such branch named or skipped gets
 * a "note: ..." line in *notes (malloc'ed, NULL when none). *out is
 * malloc'ed, NULL-terminated, pointing into `config`.
 */
int kb_branches_select(const struct kb_branch ***out, size_t *n, char **notes,
		       const struct kb_config *config, const char *const *names, size_t nnames,
		       bool with_kernels);

#endif
