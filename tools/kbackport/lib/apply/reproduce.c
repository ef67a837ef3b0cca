#include "apply/reproduce.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/shell.h"

#include <stdlib.h>
#include <string.h>

int kb_reproduce_dir(char **out, const char *repo, const char *fix, const char *branch)
{
	struct kb_buf dir = KB_BUF_INIT;
	char *abs = NULL;
	size_t end, start;
	int err;

	*out = NULL;
	if ((err = kb_path_absolute(&abs, repo)) < 0)
		return err;
	/* "/x/linux/.git" is the repository of "/x/linux" */
	end = strlen(abs);
	if (end > 5 && !strcmp(abs + end - 5, "/.git"))
		end -= 5;
	for (start = end; start > 0 && abs[start - 1] != '/'; start--)
		;
	if (end - start > 4 && !strncmp(abs + end - 4, ".git", 4))
		end -= 4;
	err = kb_buf_printf(&dir, "%.*s%.*s-%s-%s", (int)start, abs, (int)(end - start),
			    abs + start, fix, branch);
	free(abs);
	if (err < 0)
		return err;
	*out = kb_buf_detach(&dir);
	return 0;
}

/* The patch whose hunks `res` names. */
static int tried_patch(const char **out, const struct kb_fix *fix, const struct kb_result *res)
{
	const struct kb_variant *v = res->variant ? kb_fix_variant(fix, res->variant) : NULL;

	if (!(*out = v ? v->patch_path : fix->patch_path))
		return kb_error_set(KB_ENOTFOUND, "fix '%s' has no patch file", fix->id);
	return 0;
}

/* "# TEXT<quoted dir>TAIL": a comment naming the work tree. */
static int comment(struct kb_buf *out, const char *text, const char *dir, const char *tail)
{
	kb_buf_printf(out, "# %s", text);
	if (dir)
		kb_sh_quote(out, dir);
	kb_buf_printf(out, "%s\n", tail);
	return kb_buf_check(out);
}

/* One comment line: the commands chained, to copy instead of git am's. */
static int cherry_pick_line(struct kb_buf *out, const struct kb_fix *fix, const char *dir)
{
	const char *abort[] = { "git", "-C", dir, "am", "--abort", NULL };
	const char *fetch[] = { "git", "-C", dir, "fetch", fix->upstream_repo, fix->upstream, NULL };
	const char *pick[] = { "git", "-C", dir, "cherry-pick", "-x", fix->upstream, NULL };

	kb_buf_puts(out, "# or cherry-pick the upstream commit instead of git am: ");
	kb_sh_words(out, abort);
	kb_buf_puts(out, " && ");
	kb_sh_words(out, fetch);
	kb_buf_puts(out, " && ");
	return kb_sh_command(out, pick);
}

static int worktree_line(struct kb_buf *out, const char *repo, const char *dir,
			 const char *newref, const char *start)
{
	const char *add[] = { "git", "-C", repo, "worktree", "add", dir, "-b", newref, start, NULL };

	return kb_sh_command(out, add);
}

/* What the person does once git am stopped on the conflicts. */
static int resolve_lines(struct kb_buf *out, const char *dir)
{
	const char *cont[] = { "git", "-C", dir, "am", "--continue", NULL };

	comment(out, "resolve the conflicts (see the failed hunks), then: git -C ", dir,
		" add <files>");
	comment(out, "build and test the kernel", NULL, "");
	return kb_sh_command(out, cont);
}

/* git -C DIR am -3 PATCH, the patch's path made absolute. */
static int am_line(struct kb_buf *out, const char *dir, const char *patch)
{
	char *abs = NULL;
	int err;

	if ((err = kb_path_absolute(&abs, patch)) == 0) {
		const char *am[] = { "git", "-C", dir, "am", "-3", abs, NULL };
		err = kb_sh_command(out, am);
	}
	free(abs);
	return err;
}

static int start_point(const char **out, const struct kb_branch *branch,
		       const struct kb_result *res, struct kb_buf *cmds)
{
	*out = branch->ref;
	if (!res->pre_fix_ref)
		return 0;
	*out = res->pre_fix_ref;
	if (res->pre_fix_commit[0])
		return 0;
	return kb_buf_puts(cmds, "# a dry run wrote no pre-fix commit: run kbackport apply "
			   "without --dry-run first\n");
}

int kb_reproduce(char **out, const struct kb_branch *branch, const struct kb_fix *fix,
		 const struct kb_result *res, const char *const *before)
{
	struct kb_buf cmds = KB_BUF_INIT, newref = KB_BUF_INIT;
	char *repo = NULL, *dir = NULL;
	const char *start = NULL, *patch = NULL;
	int err;

	*out = NULL;
	if ((err = kb_path_absolute(&repo, branch->repo)) < 0 ||
	    (err = kb_reproduce_dir(&dir, branch->repo, fix->id, branch->name)) < 0 ||
	    (err = tried_patch(&patch, fix, res)) < 0 ||
	    (err = kb_buf_printf(&newref, "backport/%s/%s", fix->id, branch->name)) < 0 ||
	    (err = start_point(&start, branch, res, &cmds)) < 0)
		goto done;
	if ((err = worktree_line(&cmds, repo, dir, newref.ptr, start)) < 0)
		goto done;
	for (; before && *before && !err; before++)
		err = am_line(&cmds, dir, *before);
	if (err < 0 || (err = am_line(&cmds, dir, patch)) < 0 ||
	    (err = resolve_lines(&cmds, dir)) < 0)
		goto done;
	if (fix->upstream && fix->upstream_repo)
		err = cherry_pick_line(&cmds, fix, dir);
done:
	if (!err)
		*out = kb_buf_detach(&cmds);
	kb_buf_release(&cmds);
	kb_buf_release(&newref);
	free(repo);
	free(dir);
	return err;
}
