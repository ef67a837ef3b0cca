/* What a command works on (see session.h). */
#include "session.h"
#include "apply/backport.h"
#include "util/buf.h"
#include "util/closest.h"
#include "datafiles.h"
#include "util/error.h"
#include "fix.h"
#include "fixset.h"
#include "util/fsutil.h"
#include "repo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* `dir`/branches.yaml, from `dir` upward: the first that is a file, or none. */
static int find_config(struct kb_buf *out, const char *start)
{
	struct kb_buf dir = KB_BUF_INIT;
	struct stat st;
	char *slash;
	int err;

	if ((err = kb_buf_puts(&dir, start)) < 0)
		return err;
	for (;;) {
		kb_buf_clear(out);
		if ((err = kb_buf_printf(out, "%s/branches.yaml", strcmp(dir.ptr, "/") ? dir.ptr : "")) < 0)
			break;
		if (stat(out->ptr, &st) == 0 && S_ISREG(st.st_mode))
			break;
		if (!strcmp(dir.ptr, "/")) {
			kb_buf_clear(out);
			break;
		}
		slash = strrchr(dir.ptr, '/');
		dir.size = slash == dir.ptr ? 1 : (size_t)(slash - dir.ptr);
		dir.ptr[dir.size] = '\0';
	}
	kb_buf_release(&dir);
	return err;
}

int kb_config_find(struct kb_config **out, const char *path)
{
	struct kb_buf found = KB_BUF_INIT;
	char *cwd = NULL;
	int err;

	*out = NULL;
	if (!path || !*path)
		path = getenv("KBACKPORT_CONFIG");
	if (path && *path)
		return kb_config_load(out, path);
	if (!(cwd = getcwd(NULL, 0)))
		return kb_error_set(KB_ERROR, "cannot tell the current directory: %s", strerror(errno));
	if ((err = find_config(&found, cwd)) == 0) {
		/* the current directory's is named as always: branches.yaml */
		if (found.size && !strncmp(found.ptr, cwd, strlen(cwd)) &&
		    !strcmp(found.ptr + strlen(cwd), "/branches.yaml"))
			err = kb_config_load(out, "branches.yaml");
		else if (found.size)
			err = kb_config_load(out, found.ptr);
		else
			err = kb_error_set(KB_ENOTFOUND, "no branches.yaml in '%s' nor in any "
					   "directory above it\nhint: name one with --config FILE "
					   "(or KBACKPORT_CONFIG=FILE)", cwd);
	}
	kb_buf_release(&found);
	free(cwd);
	return err;
}

int kb_fix_resolve(char **out, const char *arg, const struct kb_config *config)
{
	struct kb_buf dir = KB_BUF_INIT, by_id = KB_BUF_INIT;
	char **dirs = NULL, *found = NULL;
	const char **ids = NULL, *near;
	size_t ndirs = 0, k;
	struct stat st;
	int err = 0;

	*out = NULL;
	if (stat(arg, &st) == 0 || strchr(arg, '/') || !*arg)
		return 0;	/* a path: loaded (and judged) as one */
	if ((err = kb_buf_printf(&dir, "%s/backports", config->dir)) < 0 ||
	    (err = kb_buf_printf(&by_id, "%s/%s", dir.ptr, arg)) < 0)
		goto done;
	/* backports/ARG (a fix, or a family's folder), else a fix of that id deeper in */
	if (stat(by_id.ptr, &st) == 0 && S_ISDIR(st.st_mode)) {
		found = kb_buf_detach(&by_id);
	} else {
		if ((err = kb_fix_find_dirs(&dirs, &ndirs, dir.ptr)) < 0)
			goto done;
		if (!(ids = calloc(ndirs + 1, sizeof(*ids)))) {
			err = kb_error_oom();
			goto done;
		}
		for (k = 0; k < ndirs; k++) {	/* a fix's id is its directory's name */
			ids[k] = strrchr(dirs[k], '/') ? strrchr(dirs[k], '/') + 1 : dirs[k];
			if (!found && !strcmp(ids[k], arg))
				found = dirs[k];
		}
		if (found && !(found = kb_strdup(found))) {
			err = kb_error_oom();
			goto done;
		}
	}
	if (found) {
		*out = found;
		found = NULL;
		goto done;
	}
	near = kb_closest(arg, ids, ndirs);
	err = kb_error_set(KB_ENOTFOUND, "no fix '%s': no such directory, nor a fix id under '%s'%s%s%s",
			   arg, dir.ptr, near ? "\nhint: did you mean '" : "", near ? near : "",
			   near ? "'?" : "");
done:
	free(found);
	for (k = 0; k < ndirs; k++)
		free(dirs[k]);
	free(dirs);
	free(ids);
	kb_buf_release(&dir);
	kb_buf_release(&by_id);
	return err;
}

static bool named(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* "no branch 'x' in 'f'", and the closest branch, or the branches there are. */
static int no_branch(const struct kb_config *config, const char *name)
{
	struct kb_buf hint = KB_BUF_INIT;
	const char **all = calloc(config->nbranches + 1, sizeof(*all));
	const char *near = NULL;
	size_t i;
	int err;

	for (i = 0; all && i < config->nbranches; i++)
		all[i] = config->branches[i].name;
	if (all && (near = kb_closest(name, all, config->nbranches))) {
		kb_buf_printf(&hint, "\nhint: did you mean '%s'?", near);
	} else if (config->nbranches) {
		kb_buf_puts(&hint, "\nhint: its branches: ");
		for (i = 0; i < config->nbranches && i < 12; i++)
			kb_buf_printf(&hint, "%s%s", i ? ", " : "", config->branches[i].name);
		if (config->nbranches > 12)
			kb_buf_printf(&hint, " and %zu more", config->nbranches - 12);
	}
	err = kb_error_set(KB_ENOTFOUND, "no branch '%s' in '%s'%s", name, config->path,
			   hint.ptr ? hint.ptr : "");
	kb_buf_release(&hint);
	free(all);
	return err;
}

int kb_branches_select(const struct kb_branch ***out, size_t *n, char **notes,
		       const struct kb_config *config, const char *const *names, size_t nnames,
		       bool with_kernels)
{
	struct kb_buf said = KB_BUF_INIT;
	const struct kb_branch **list;
	const struct kb_branch *b;
	size_t i;

	*n = 0;
	*out = NULL;
	*notes = NULL;
	for (i = 0; i < nnames; i++)
		if (!kb_config_branch(config, names[i]))
			return no_branch(config, names[i]);
	KB_ERROR_CHECK_ALLOC(*out = list = calloc(config->nbranches + 1, sizeof(*list)));
	for (i = 0; i < config->nbranches; i++) {
		b = &config->branches[i];
		if (nnames && !named(names, nnames, b->name))
			continue;
		if (b->kernel && !with_kernels) {
			if (nnames)
				kb_buf_printf(&said, "note: branch '%s' is the kernel package '%s', "
					      "booted as shipped: nothing to do here\n", b->name, b->kernel);
			continue;
		}
		if (!with_kernels) {
			char *why = NULL;
			int err = kb_branch_missing(&why, b);
			if (err < 0) {
				free(list);
				*out = NULL;
				kb_buf_release(&said);
				return err;
			}
			if (why) {
				kb_buf_printf(&said, "note: branch '%s' skipped: %s\n", b->name, why);
				free(why);
				continue;
			}
		}
		list[(*n)++] = b;
	}
	if (said.size)
		*notes = kb_buf_detach(&said);
	kb_buf_release(&said);
	return 0;
}

/* ---- the session ---- */

/* Each --fix argument as a path: a fix id made its directory, a path copied. */
static int resolve_fixes(struct kb_session *s, const struct kb_session_opts *o)
{
	char *dir = NULL;
	size_t i;
	int err;

	s->fix_dirs = calloc(o->nfixes + 1, sizeof(*s->fix_dirs));
	KB_ERROR_CHECK_ALLOC(s->fix_dirs);
	for (i = 0; i < o->nfixes; i++) {
		if ((err = kb_fix_resolve(&dir, o->fixes[i], s->config)) < 0)
			return err;
		if (!dir && !(dir = kb_strdup(o->fixes[i])))
			return kb_error_oom();
		s->fix_dirs[s->nfix_dirs++] = dir;
	}
	return 0;
}

/* The series of opts->queue, its name checked as part of each branch's queue ref. */
static int load_queue(struct kb_session *s, const struct kb_session_opts *o)
{
	char *ref = NULL;
	size_t i;
	int err;

	if ((err = kb_series_load(&s->series, o->queue)) < 0)
		return err;
	s->queue_name = o->queue_name ? o->queue_name : s->series.name;
	for (i = 0; i < s->nbranches && !err; i++, free(ref), ref = NULL)
		err = kb_queue_ref(&ref, s->queue_name, s->branches[i]->name);
	return err;
}

static int load_fixes(struct kb_session *s, const struct kb_session_opts *o)
{
	int err;

	if (o->queue)
		return load_queue(s, o);
	if ((err = kb_fix_set_load(&s->fixes, &s->nfixes, (const char *const *)s->fix_dirs,
				   s->nfix_dirs, s->config)) < 0)
		return err;
	if (o->one_fix && s->nfixes != 1)
		return kb_error_set(KB_EINVALID, "%zu fixes found: a run is about one fix, "
				    "name it with --fix DIR", s->nfixes);
	return 0;
}

/*
 * The kernel.config of the collection: the fixes under the --fix paths
 * and under backports/ beside the config, so that one fix of a family run
 * alone gets the config its family's runs get.
 */
static int collection_configs(struct kb_session *s, const struct kb_fix *const *fixes,
			      size_t nfixes)
{
	struct kb_buf def = KB_BUF_INIT;
	const char **all;
	size_t i;
	int err;

	all = calloc(s->nfix_dirs + 2, sizeof(*all));
	KB_ERROR_CHECK_ALLOC(all);
	for (i = 0; i < s->nfix_dirs; i++)
		all[i] = s->fix_dirs[i];
	if ((err = kb_buf_printf(&def, "%s/backports", s->config->dir)) == 0) {
		all[s->nfix_dirs] = def.ptr;
		err = kb_fix_tests_configs(&s->configs, &s->nconfigs, all, s->nfix_dirs + 1,
					   fixes, nfixes);
	}
	free(all);
	kb_buf_release(&def);
	return err;
}

static int data_path(struct kb_buf *out, const struct kb_session *s,
		     const struct kb_session_opts *o, enum kb_data_id id)
{
	return kb_data_path(out, id, s->config->dir, o->datadir);
}

/* The overlays lanes are built with: the one given, none, or the fixes' KUnit suites. */
static void pick_overlays(struct kb_session *s, const struct kb_session_opts *o)
{
	if (o->overlay) {
		s->given.name = "overlay";
		s->given.path = o->overlay;
		s->overlays = &s->given;
		s->noverlays = 1;
	} else if (!o->no_overlay) {
		s->overlays = s->tests.kunit;
		s->noverlays = s->tests.nkunit;
	}
}

/* What build, test and run share, each unless given; the fixes under test are the queue's with one. */
static int build_paths(struct kb_session *s, const struct kb_session_opts *o)
{
	const struct kb_fix *const *fixes = (const struct kb_fix *const *)
		(o->queue ? s->series.fixes : s->fixes);
	size_t nfixes = o->queue ? s->series.nfixes : s->nfixes;
	int err = 0;

	s->workdir = o->workdir;
	s->fragment = o->fragment;
	if (!s->workdir && (err = kb_buf_printf(&s->own_workdir, "%s/work", s->config->dir)) == 0)
		s->workdir = s->own_workdir.ptr;
	if (!err && !s->fragment &&
	    (err = data_path(&s->own_fragment, s, o, KB_DATA_FRAGMENT)) == 0)
		s->fragment = s->own_fragment.ptr;
	if (err < 0 || (err = data_path(&s->compat, s, o, KB_DATA_COMPAT)) < 0 ||
	    (err = kb_fix_tests_load(&s->tests, fixes, nfixes)) < 0 ||
	    (err = collection_configs(s, fixes, nfixes)) < 0)
		return err;
	pick_overlays(s, o);
	return o->guest ? data_path(&s->guest, s, o, KB_DATA_GUEST) : 0;
}

int kb_session_open(struct kb_session *s, const struct kb_session_opts *opts)
{
	int err;

	memset(s, 0, sizeof(*s));
	if ((err = kb_config_find(&s->config, opts->config)) < 0 ||
	    (err = resolve_fixes(s, opts)) < 0 ||
	    (err = kb_branches_select(&s->branches, &s->nbranches, &s->notes, s->config,
				      opts->branches, opts->nbranches, opts->with_kernels)) < 0 ||
	    (err = load_fixes(s, opts)) < 0)
		return err;
	if (opts->build && (err = build_paths(s, opts)) < 0)
		return err;
	if (opts->lock && (err = kb_session_lock(s)) < 0)
		return err;
	return 0;
}

int kb_session_lock(struct kb_session *s)
{
	int err;

	if (!s->workdir)
		return kb_error_set(KB_EINVALID, "no work directory to lock");
	if (s->locked)
		return 0;
	if ((err = kb_lock_dir(&s->lock_fd, s->workdir)) == 0)
		s->locked = true;
	return err;
}

void kb_session_release(struct kb_session *s)
{
	size_t i;

	kb_buf_release(&s->compat);
	kb_buf_release(&s->guest);
	kb_fix_tests_release(&s->tests);
	kb_fix_tests_configs_free(s->configs, s->nconfigs);
	kb_fix_free_all(s->fixes, s->nfixes);
	kb_series_release(&s->series);
	free(s->notes);
	free(s->branches);
	for (i = 0; i < s->nfix_dirs; i++)
		free(s->fix_dirs[i]);
	free(s->fix_dirs);
	kb_config_free(s->config);
	kb_buf_release(&s->own_workdir);
	kb_buf_release(&s->own_fragment);
	if (s->locked)
		close(s->lock_fd);
	memset(s, 0, sizeof(*s));
}

void kb_session_build_opts(struct kb_build_opts *out, const struct kb_session *s)
{
	out->workdir = s->workdir;
	out->fragment = s->fragment;
	out->extra_fragments = (const char *const *)s->configs;
	out->nextra_fragments = s->nconfigs;
	out->overlays = s->overlays;
	out->noverlays = s->noverlays;
	out->compat = s->compat.ptr;
}
