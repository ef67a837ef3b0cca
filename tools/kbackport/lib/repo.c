#include "repo.h"
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
