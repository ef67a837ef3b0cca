/* What a command works on (see session.h). */
#include "session.h"
#include "buf.h"
#include "closest.h"
#include "error.h"
#include "fix.h"
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
			err = kb_error_set(KB_ENOMEM, "out of memory");
			goto done;
		}
		for (k = 0; k < ndirs; k++) {	/* a fix's id is its directory's name */
			ids[k] = strrchr(dirs[k], '/') ? strrchr(dirs[k], '/') + 1 : dirs[k];
			if (!found && !strcmp(ids[k], arg))
				found = dirs[k];
		}
		if (found && !(found = kb_strdup(found))) {
			err = kb_error_set(KB_ENOMEM, "out of memory");
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
	if (!(*out = list = calloc(config->nbranches + 1, sizeof(*list))))
		return kb_error_set(KB_ENOMEM, "out of memory");
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
