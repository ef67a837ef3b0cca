/*
 * What a command works on, as every command finds it: the config (found as
 * git finds its directory), its branches (those named, checked, with a
 * hint for a name that is none) and the fixes named by id; and the whole
 * of it opened and released at once (struct kb_session).
 */
#ifndef KB_SESSION_H
#define KB_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "config.h"
#include "fix.h"
#include "boot/fixtests.h"
#include "kbuild/build.h"
#include "kbuild/overlay.h"
#include "apply/series.h"

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

/*
 * What a command asks of its session: its target (--config, --fix,
 * --branch) and the steps it needs beyond the config, the branches and
 * the fixes.
 */
struct kb_session_opts {
	const char *config;		/* kb_config_find()'s `path` */
	const char *const *fixes;	/* fix directories, patch files or fix ids; */
	size_t nfixes;			/* none: every fix under backports/ */
	const char *const *branches;	/* branch names; none: every branch */
	size_t nbranches;
	bool with_kernels;		/* kb_branches_select()'s */
	const char *queue;		/* a series file, whose fixes are the fixes then */
	const char *queue_name;		/* its name in refs, else the file's */
	bool one_fix;			/* a run: any number of fixes but one is an error */
	bool build;			/* the build paths (workdir, fragment, compat...) */
	const char *workdir;		/* build: given, else work/ beside the config */
	const char *fragment;		/* build: given, else kbackport's own data file */
	const char *overlay;		/* build: this KUnit suite instead of the fixes' */
	bool no_overlay;		/* build: no KUnit suite */
	bool guest;			/* build: the guest program's source too */
	const char *datadir;		/* kbackport's data (kb_data_path()), for build */
	bool lock;			/* build: the work directory locked, last */
};

/*
 * An opened session owns all of it. Zeroed (or released), it holds nothing.
 */
struct kb_session {
	struct kb_config *config;
	char **fix_dirs;		/* the --fix arguments, ids made paths */
	size_t nfix_dirs;
	const struct kb_branch **branches;	/* NULL-terminated, into `config` */
	size_t nbranches;
	char *notes;			/* the selection's "note: ..." lines, or NULL */
	struct kb_fix **fixes;		/* without a queue: the fix set */
	size_t nfixes;
	struct kb_series series;	/* with a queue */
	const char *queue_name;		/* with a queue: opts' or the series' name */

	/* the build paths, with opts->build */
	const char *workdir;
	const char *fragment;
	struct kb_buf compat;			/* the build compatibility rules */
	struct kb_buf guest;			/* with opts->guest */
	struct kb_fix_tests tests;		/* of the fixes under test (the queue's) */
	char **configs;				/* the collection's kernel.config */
	size_t nconfigs;
	const struct kb_overlay_dir *overlays;	/* what lanes are built with */
	size_t noverlays;

	int lock_fd;			/* when `locked` */
	bool locked;

	struct kb_buf own_workdir, own_fragment;	/* the defaults' storage */
	struct kb_overlay_dir given;			/* opts->overlay */
};

/*
 * Open `s` as the commands need it, in this order, stopping at the first
 * error: the config (kb_config_find()), each --fix that is a fix id made
 * its directory (kb_fix_resolve()), the branches (kb_branches_select(),
 * notes in s->notes), the fixes (kb_fix_set_load() of the --fix paths, or
 * the queue's series, its name checked as part of each branch's queue ref;
 * exactly one with `one_fix`), with `build` the build paths (the work
 * directory, the fragment and the compatibility rules, the tests of the
 * fixes, the kernel.config of the collection: the fixes under the --fix
 * paths and under backports/ beside the config, and the overlays; with
 * `guest` the guest program's source), and with `lock` the work
 * directory's lock (kb_lock_dir()). Nothing is printed: an error is
 * returned (kb_error_last() says it), and what was opened stays in `s`,
 * its notes too, for kb_session_release().
 */
int kb_session_open(struct kb_session *s, const struct kb_session_opts *opts);

/*
 * The work directory's lock, held by `s` until released: for a command
 * that takes it later than kb_session_open() (after checks of its own).
 * Needs the build paths.
 */
int kb_session_lock(struct kb_session *s);

/* Release what `s` holds, the lock last: safe when zeroed, half-opened or released. */
void kb_session_release(struct kb_session *s);

/*
 * The build paths of an opened session (opts->build) into `out`: work
 * directory, fragments, overlays and compat rules, pointing into `s`. The
 * other fields (jobs, ...) are left as they are.
 */
void kb_session_build_opts(struct kb_build_opts *out, const struct kb_session *s);

#endif
