#include "repo.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/closest.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/* The short name of a ref a user may give ("linux-2.6.32.y", "v2.6.32",
 * "origin/master"), or NULL for kbackport's own refs. */
static const char *short_ref(const char *name)
{
	static const char *const prefixes[] = { "refs/heads/", "refs/tags/", "refs/remotes/" };
	size_t i, n;

	if (!strncmp(name, "refs/heads/backport/", 20))
		return NULL;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		n = strlen(prefixes[i]);
		if (!strncmp(name, prefixes[i], n))
			return name + n;
	}
	return name;
}

/* " (did you mean 'X'?)" for the ref of `repo` closest to `ref`, in `hint`. */
static void closest_ref(struct kb_buf *hint, git_repository *repo, const char *ref)
{
	git_reference_iterator *it = NULL;
	const char *name, *near, **names = NULL;
	char **owned = NULL;
	size_t n = 0, alloc = 0, aowned = 0, i;

	if (git_reference_iterator_glob_new(&it, repo, "refs/*") < 0)
		goto done;
	while (git_reference_next_name(&name, it) == 0) {
		if (!(name = short_ref(name)))
			continue;
		if (KB_ARRAY_GROW(names, alloc, n + 1) < 0 || KB_ARRAY_GROW(owned, aowned, n + 1) < 0)
			goto done;
		if (!(owned[n] = strdup(name)))
			goto done;
		names[n] = owned[n];
		n++;
	}
	if ((near = kb_closest(ref, names, n)))
		kb_buf_printf(hint, " (did you mean '%s'?)", near);
done:
	for (i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
	free(names);
	git_reference_iterator_free(it);
	git_error_clear();
}

int kb_branch_open(git_repository **repo, git_commit **commit,
		   const struct kb_branch *branch)
{
	struct kb_buf hint = KB_BUF_INIT;
	git_object *obj = NULL;
	int err;

	*repo = NULL;
	*commit = NULL;
	if ((err = git_repository_open_ext(repo, branch->repo,
					   GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) < 0) {
		err = kb_error_git(err, "branch '%s': cannot open repository '%s'",
				   branch->name, branch->repo);
		goto done;
	}
	if ((err = git_revparse_single(&obj, *repo, branch->ref)) < 0) {
		char *why = strdup(git_error_last() && git_error_last()->message ?
				   git_error_last()->message : "not found");

		closest_ref(&hint, *repo, branch->ref);
		err = kb_error_set(err == GIT_ENOTFOUND ? KB_ENOTFOUND : KB_ERROR,
				   "branch '%s': ref '%s' not found in '%s': %s%s",
				   branch->name, branch->ref, branch->repo, why ? why : "not found",
				   hint.size ? hint.ptr : "");
		free(why);
		goto done;
	}
	if ((err = git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT)) < 0)
		err = kb_error_git(err, "branch '%s': ref '%s' is not a commit",
				   branch->name, branch->ref);
done:
	kb_buf_release(&hint);
	git_object_free(obj);
	if (err < 0) {
		git_repository_free(*repo);
		*repo = NULL;
	}
	return err;
}

int kb_branch_missing(char **why, const struct kb_branch *branch)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	struct kb_buf text = KB_BUF_INIT;
	int err = 0;

	*why = NULL;
	if (!branch->skip_if_missing || branch->kernel)
		return 0;
	if (git_repository_open_ext(&repo, branch->repo, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		kb_buf_printf(&text, "no repository '%s': %s", branch->repo,
			      branch->skip_if_missing);
	else if (git_revparse_single(&obj, repo, branch->ref) < 0)
		kb_buf_printf(&text, "ref '%s' is not in '%s': %s", branch->ref, branch->repo,
			      branch->skip_if_missing);
	git_error_clear();
	if (text.size && !(*why = kb_buf_detach(&text)))
		err = kb_error_oom();
	kb_buf_release(&text);
	git_object_free(obj);
	git_repository_free(repo);
	return err;
}
