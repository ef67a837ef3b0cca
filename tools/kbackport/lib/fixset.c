/*
 * The fixes a command works on: those under each --fix path, else every
 * fix under backports/ beside the config, checked as a set (one id once;
 * every `variant: {FIX: NAME}` of the config names a fix there is).
 */
#include "fixset.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"
#include "apply/series.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The fixes loaded so far, NULL-terminated. */
struct fix_list {
	struct kb_fix **v;
	size_t n, alloc;
};

static int append_fixes(struct fix_list *all, struct kb_fix **more, size_t nmore)
{
	int err;

	if ((err = KB_ARRAY_GROW(all->v, all->alloc, all->n + nmore + 1)) < 0) {
		kb_fix_free_all(more, nmore);
		return err;
	}
	memcpy(all->v + all->n, more, nmore * sizeof(*more));
	all->n += nmore;
	all->v[all->n] = NULL;
	free(more);
	return 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int load_dir(struct fix_list *all, const char *dir)
{
	struct kb_fix **more = NULL, *one = NULL;
	size_t nmore = 0;
	int err;

	if (kb_is_fix_dir(dir) || is_file(dir)) {
		/* a fix directory, or a patch or mbox file: a one-off fix */
		if ((err = kb_is_fix_dir(dir) ? kb_fix_load(&one, dir) : kb_fix_load_patch(&one, dir)) < 0)
			return err;
		if (!(more = malloc(sizeof(*more)))) {
			kb_fix_free(one);
			return kb_error_oom();
		}
		more[0] = one;
		nmore = 1;
	} else if ((err = kb_fix_load_all(&more, &nmore, dir)) < 0) {
		return err;
	}
	return append_fixes(all, more, nmore);
}

/*
 * Two --fix directories with one id would write the same refs
 * (refs/heads/backport/<id>/...), the second undoing the first.
 */
static int check_unique_ids(struct kb_fix *const *fixes, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(fixes[i]->id, fixes[j]->id))
				return kb_error_set(KB_EINVALID, "fix '%s' is given twice: '%s' and '%s'",
						    fixes[i]->id, fixes[j]->dir, fixes[i]->dir);
	return 0;
}

/* Is there a fix `id`: loaded, beside a loaded one, or under backports/? */
static bool known_fix(const char *id, struct kb_fix *const *fixes, size_t n,
		      const struct kb_config *config)
{
	struct kb_buf dir = KB_BUF_INIT;
	bool known = false;
	size_t i, len;

	for (i = 0; i < n && !known; i++)
		known = !strcmp(fixes[i]->id, id);
	for (i = 0; i < n && !known; i++) {
		len = strlen(fixes[i]->dir);
		while (len > 1 && fixes[i]->dir[len - 1] == '/')
			len--;
		while (len > 0 && fixes[i]->dir[len - 1] != '/')
			len--;
		kb_buf_clear(&dir);
		if (kb_buf_printf(&dir, "%.*s%s", (int)len, fixes[i]->dir, id) == 0)
			known = kb_is_fix_dir(dir.ptr);
	}
	kb_buf_clear(&dir);
	if (!known && kb_buf_printf(&dir, "%s/backports/%s", config->dir, id) == 0)
		known = kb_is_fix_dir(dir.ptr);
	kb_buf_release(&dir);
	return known;
}

/*
 * `variant: {FIX: NAME}` naming a fix that does not exist would be
 * ignored (a typo, say): it is an error at its place in branches.yaml.
 */
static int check_variant_fixes(struct kb_fix *const *fixes, size_t n,
			       const struct kb_config *config)
{
	const struct kb_variant_choice *c;
	struct kb_buf ids = KB_BUF_INIT;
	size_t i, j, k;
	int err = 0;

	for (i = 0; i < config->nbranches && !err; i++)
		for (j = 0; j < config->branches[i].nvariants && !err; j++) {
			c = &config->branches[i].variants[j];
			if (!c->fix || known_fix(c->fix, fixes, n, config))
				continue;
			for (k = 0; k < n; k++)
				kb_buf_printf(&ids, "%s%s", k ? ", " : "", fixes[k]->id);
			err = kb_error_set(KB_EINVALID, "%s:%zu:%zu: variant for unknown fix '%s' "
					   "(fixes here: %s)", config->path, c->line, c->column,
					   c->fix, ids.ptr ? ids.ptr : "none");
		}
	kb_buf_release(&ids);
	return err;
}

int kb_fix_set_load(struct kb_fix ***out, size_t *n, const char *const *dirs,
		    size_t ndirs, const struct kb_config *config)
{
	struct kb_buf def = KB_BUF_INIT;
	struct fix_list all = { 0 };
	size_t i;
	int err = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < ndirs && !err; i++)
		err = load_dir(&all, dirs[i]);
	if (!ndirs) {
		if ((err = kb_buf_printf(&def, "%s/backports", config->dir)) == 0)
			err = load_dir(&all, def.ptr);
		kb_buf_release(&def);
	}
	if (!err && (err = check_unique_ids(all.v, all.n)) == 0)
		err = check_variant_fixes(all.v, all.n, config);
	if (err < 0) {
		kb_fix_free_all(all.v, all.n);
		return err;
	}
	*out = all.v;
	*n = all.n;
	return err;
}
