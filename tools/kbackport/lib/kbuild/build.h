/*
 * Building a lane's kernel, out of tree, with reuse.
 *
 *   <workdir>/src/<branch>/     the branch's sources, one tree at a time:
 *                               switching lanes rewrites only the files that
 *                               differ, so the others keep their mtimes
 *   <workdir>/obj/<branch>/     where the branch's builds run (O=): make and
 *                               objtool record absolute paths, so a build is
 *                               only ever continued at the path it was made
 *   <workdir>/obj/<branch>.objects  objects compiled by the branch's last
 *                               build from scratch: the total of progress
 *   <workdir>/odb/              the objects of overlaid trees (a loose-object
 *                               directory): the repository gets none
 *   <workdir>/builds/<key>/     where a build is kept afterwards; key = hash
 *                               of (built tree id, config fragment, `gcc
 *                               --version`, arch):
 *     build.log                 everything make printed
 *     staging/                  modules_install's INSTALL_MOD_PATH
 *     kbackport.stamp           written last: the build is complete
 *
 * A lane whose key has a stamp is not built again (cached); one without
 * (failed, interrupted) is resumed. A new key starts from a copy of the
 * closest completed build of the same branch, so make recompiles only what
 * the lane changed. The user's repository (index, HEAD, working tree,
 * objects) is never touched: trees are read from the object database.
 *
 * With an overlay (see overlay.h), what is built is the lane's tree plus
 * kbackport's KUnit suite: the "built tree", made in memory, its objects
 * kept in <workdir>/odb so later runs find it again by id. The key, the
 * stamps and the source directory all follow the built tree.
 */
#ifndef KB_BUILD_H
#define KB_BUILD_H

/*
 * The ccache namespace of kernel builds (CCACHE_NAMESPACE, unless the user
 * set one): objects that ccache's depend mode once cached wrongly are in
 * no other namespace. A new value would start every cache cold once.
 */
#define KB_CCACHE_NAMESPACE "kbackport-1"

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "config.h"
#include "lanes.h"
#include "kbuild/overlay.h"
#include "util/progress.h"

struct kb_build_opts {
	const char *workdir;	/* required: src/ and builds/ go here */
	const char *fragment;	/* config fragment; a branch's `config` wins */
	const char *const *extra_fragments;	/* merged after it, each only into
						 * trees that know every option it
						 * names (the fixes' tests' kernel.config,
						 * fixtests.h; kconfig.h) */
	size_t nextra_fragments;
	const struct kb_overlay_dir *overlays;	/* KUnit suites added to every
						 * tree (overlay.h); none: the
						 * lane's tree is built as it is */
	size_t noverlays;
	const char *compat;	/* build rules file (compat.h) applied to
				 * every tree that needs them; NULL: none */
	unsigned jobs;		/* make -j; 0 = online CPUs */
	bool lookup_only;	/* find a completed build, never build: a lane
				 * without one is a KB_BUILD_FAIL "not built" */
	/* Called now and then during make with a one-line summary. */
	void (*progress)(const char *line, void *payload);
	void *payload;
	/* Ticks while a build runs: step "build", objects compiled out of
	 * the count of the branch's last build from scratch (kept in
	 * <workdir>/obj/<branch>.objects), when this one starts from scratch
	 * too; else out of an unknown total. */
	struct kb_ticker ticker;
};

enum kb_build_status {
	KB_BUILD_PASS,		/* built now */
	KB_BUILD_FAIL,		/* a step failed: see reason and log */
	KB_BUILD_CACHED,	/* a completed build of this key exists */
	KB_BUILD_SKIPPED,	/* build: false in branches.yaml */
};

struct kb_build_result {
	enum kb_build_status status;
	git_oid tree;		/* the lane's tree; zero when skipped */
	git_oid built_tree;	/* what was built: the lane's tree with the
				 * overlay, or the lane's tree without one */
	char *build_dir;	/* the O= directory; NULL when skipped */
	char *staging_dir;	/* INSTALL_MOD_PATH, holds lib/modules/<release> */
	char *image;		/* the kernel image (bzImage on x86); it exists
				 * when the status is pass or cached */
	char *log;		/* the build log */
	char *reason;		/* fail: what failed and the log's last lines;
				 * skipped: why */
	char *missing_options;	/* fragment lines olddefconfig dropped, one
				 * per line ("CONFIG_X=m (got: not set)"), or
				 * NULL */
	char *shared_with;	/* "<branch> <lane>" whose build this one reused
				 * (cached) or started from (a copy), or NULL */
	double seconds;		/* wall time spent on this lane now */
	size_t rebuilt;		/* objects compiled ("CC" lines of make) */
};

void kb_build_opts_init(struct kb_build_opts *opts);

/*
 * Build `lane` of `branch` from `repo`. Fills `out` in every case: a failed
 * checkout, configuration or make is a KB_BUILD_FAIL result, not an error;
 * `repo` and `lane` may be NULL for a branch with `build: false`. Returns a
 * negative code only when out of memory or given no workdir.
 */
int kb_build_lane(struct kb_build_result *out, git_repository *repo,
		  const struct kb_branch *branch, const struct kb_lane *lane,
		  const struct kb_build_opts *opts);

void kb_build_result_release(struct kb_build_result *result);

/* "pass", "fail", "cached", "skipped". */
const char *kb_build_status_name(enum kb_build_status status);
/* The status named `name`: true, or false when none is. */
bool kb_build_status_parse(enum kb_build_status *out, const char *name);

/*
 * The lines of `fragment` (CONFIG_X=value, "# CONFIG_X is not set") that
 * `config` (a .config) does not have, one per line as
 * "CONFIG_X=value (got: <what .config says>)"; *out is NULL when none.
 */
int kb_build_check_config(char **out, const char *fragment, const char *config);

#endif
