#include "repo.h"
#include "buf.h"
#include "error.h"

int kb_branch_open(git_repository **repo, git_commit **commit,
		   const struct kb_branch *branch)
{
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
		err = kb_error_git(err, "branch '%s': ref '%s' not found in '%s'",
				   branch->name, branch->ref, branch->repo);
		goto done;
	}
	if ((err = git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT)) < 0)
		err = kb_error_git(err, "branch '%s': ref '%s' is not a commit",
				   branch->name, branch->ref);
done:
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
		err = kb_error_set(KB_ENOMEM, "out of memory");
	kb_buf_release(&text);
	git_object_free(obj);
	git_repository_free(repo);
	return err;
}
