#include "apply.h"
#include "buf.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

static int add_output(struct kb_apply *apply, const char *path, char *data,
		      size_t len, git_filemode_t mode)
{
	struct kb_apply_output *v, *o;

	v = realloc(apply->outputs, (apply->noutputs + 1) * sizeof(*v));
	if (!v) {
		free(data);
		return kb_error_set(KB_ENOMEM, "out of memory");
	}
	apply->outputs = v;
	o = &v[apply->noutputs++];
	o->data = data;
	o->len = len;
	o->mode = mode;
	if (!(o->path = kb_strdup(path)))
		return KB_ENOMEM;
	return 0;
}

/* The patch's preimage blob, when the object store has it. */
static int find_preimage(git_blob **out, git_repository *repo,
			 const struct kb_file_patch *fp)
{
	size_t n = strlen(fp->old_id);
	git_oid id;

	*out = NULL;
	if (n < 4 || git_oid_fromstrn(&id, fp->old_id, n) < 0)
		return KB_ENOTFOUND;
	if (git_blob_lookup_prefix(out, repo, &id, n) < 0)
		return KB_ENOTFOUND;
	return 0;
}

/*
 * 3-way fallback: apply the hunks exactly to the preimage blob the patch
 * was made against, then merge that change into the branch's file.
 */
static int merge_from_preimage(char **out, size_t *outlen, git_repository *repo,
			       const struct kb_file_patch *fp, const char *ours,
			       size_t ours_len)
{
	struct kb_locate_opts exact = { 0, false };
	git_merge_file_input base, mine, theirs;
	git_merge_file_options opts;
	git_merge_file_result result = { 0 };
	struct kb_hunk_result *tmp = NULL;
	git_blob *pre = NULL;
	char *post = NULL;
	size_t post_len = 0;
	int err = KB_ECONFLICT;

	*out = NULL;
	if (find_preimage(&pre, repo, fp) < 0)
		return KB_ECONFLICT;
	if (!(tmp = calloc(fp->nhunks ? fp->nhunks : 1, sizeof(*tmp))) ||
	    kb_file_apply(&post, &post_len, tmp, git_blob_rawcontent(pre),
			  (size_t)git_blob_rawsize(pre), fp, &exact) < 0)
		goto done;
	git_merge_file_input_init(&base, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_input_init(&mine, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_input_init(&theirs, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_options_init(&opts, GIT_MERGE_FILE_OPTIONS_VERSION);
	base.ptr = git_blob_rawcontent(pre);
	base.size = (size_t)git_blob_rawsize(pre);
	mine.ptr = ours;
	mine.size = ours_len;
	theirs.ptr = post;
	theirs.size = post_len;
	if (git_merge_file(&result, &base, &mine, &theirs, &opts) < 0 ||
	    !result.automergeable)
		goto done;
	if (!(*out = kb_strndup(result.ptr, result.len))) {
		err = KB_ENOMEM;
		goto done;
	}
	*outlen = result.len;
	err = 0;
done:
	git_merge_file_result_free(&result);
	git_blob_free(pre);
	free(post);
	free(tmp);
	return err;
}

static int file_error(struct kb_file_result *fr, int code)
{
	if (!(fr->error = kb_strdup(kb_error_last())))
		return KB_ENOMEM;
	return code == KB_ENOMEM ? code : 0;
}

static int apply_file(struct kb_apply *apply, struct kb_file_result *fr,
		      struct kb_source *src, const struct kb_locate_opts *opts)
{
	const struct kb_file_patch *fp = fr->fp;
	const char *path = kb_file_patch_path(fp), *buf = "";
	git_filemode_t mode = GIT_FILEMODE_BLOB;
	char *out = NULL;
	size_t len = 0, outlen = 0;
	git_oid id;
	int err;

	if (fp->old_path) {
		if ((err = kb_source_read(&buf, &len, src, fp->old_path)) < 0 ||
		    (err = kb_source_entry(&id, &mode, src, fp->old_path)) < 0)
			return file_error(fr, err);
	} else if (kb_source_entry(&id, &mode, src, fp->new_path) == 0) {
		kb_error_set(KB_EEXISTS, "'%s' already exists", fp->new_path);
		return file_error(fr, KB_EEXISTS);
	}
	if (!fp->new_path)
		return add_output(apply, path, NULL, 0, mode) < 0 ? KB_ENOMEM :
			(fr->ok = true, 0);
	err = kb_file_apply(&out, &outlen, fr->hunks, buf, len, fp, opts);
	if (err == KB_ECONFLICT) {
		err = merge_from_preimage(&out, &outlen, kb_source_repo(src), fp,
					  buf, len);
		fr->merged = err == 0;
	}
	if (err == KB_ECONFLICT)
		return 0;
	if (err < 0)
		return err;
	fr->ok = true;
	return add_output(apply, path, out, outlen, mode);
}

int kb_apply_patch(struct kb_apply *out, struct kb_source *src,
		   const struct kb_patch *patch, const struct kb_locate_opts *opts)
{
	size_t i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->patch = patch;
	if (!(out->files = calloc(patch->nfiles ? patch->nfiles : 1, sizeof(*out->files))))
		return kb_error_set(KB_ENOMEM, "out of memory");
	out->ok = true;
	for (i = 0; i < patch->nfiles; i++) {
		struct kb_file_result *fr = &out->files[i];
		fr->fp = &patch->files[i];
		if (!(fr->hunks = calloc(fr->fp->nhunks ? fr->fp->nhunks : 1,
					 sizeof(*fr->hunks))))
			return kb_error_set(KB_ENOMEM, "out of memory");
		if ((err = apply_file(out, fr, src, opts)) < 0)
			return err;
		out->ok = out->ok && fr->ok;
	}
	return 0;
}

int kb_apply_write_tree(git_oid *tree_id, git_repository *repo, git_tree *base,
			const struct kb_apply *apply)
{
	git_tree_update *updates;
	size_t i;
	int err = 0;

	if (!(updates = calloc(apply->noutputs ? apply->noutputs : 1, sizeof(*updates))))
		return kb_error_set(KB_ENOMEM, "out of memory");
	for (i = 0; i < apply->noutputs && !err; i++) {
		const struct kb_apply_output *o = &apply->outputs[i];
		updates[i].path = o->path;
		updates[i].filemode = o->mode;
		updates[i].action = o->data ? GIT_TREE_UPDATE_UPSERT :
					      GIT_TREE_UPDATE_REMOVE;
		if (o->data && (err = git_blob_create_from_buffer(&updates[i].id, repo,
								  o->data, o->len)) < 0)
			err = kb_error_git(err, "cannot write blob for '%s'", o->path);
	}
	if (!err && (err = git_tree_create_updated(tree_id, repo, base,
						   apply->noutputs, updates)) < 0)
		err = kb_error_git(err, "cannot write tree");
	free(updates);
	return err;
}

void kb_apply_release(struct kb_apply *apply)
{
	size_t i;

	if (!apply)
		return;
	if (apply->files && apply->patch)
		for (i = 0; i < apply->patch->nfiles; i++) {
			free(apply->files[i].hunks);
			free(apply->files[i].error);
		}
	free(apply->files);
	for (i = 0; i < apply->noutputs; i++) {
		free(apply->outputs[i].path);
		free(apply->outputs[i].data);
	}
	free(apply->outputs);
	memset(apply, 0, sizeof(*apply));
}

static void describe_hunk(struct kb_buf *out, const struct kb_file_result *fr,
			  size_t h, bool failures_only)
{
	const struct kb_hunk_result *r = &fr->hunks[h];
	const char *path = kb_file_patch_path(fr->fp);
	const struct kb_match *m = &r->match;

	if (r->status == KB_HUNK_FAILED) {
		kb_buf_printf(out, "hunk %zu of '%s' does not apply\n", h + 1, path);
		return;
	}
	if (failures_only)
		return;
	if (r->status == KB_HUNK_PRESENT) {
		kb_buf_printf(out, "hunk %zu of '%s' is already present\n", h + 1, path);
		return;
	}
	if (!m->offset && !m->fuzz && !m->whitespace)
		return;
	kb_buf_printf(out, "hunk %zu of '%s' applied at line %zu (offset %+ld",
		      h + 1, path, m->line - m->trim_head + 1, m->offset);
	if (m->fuzz)
		kb_buf_printf(out, ", fuzz %u", m->fuzz);
	if (m->whitespace)
		kb_buf_puts(out, ", ignoring whitespace");
	kb_buf_puts(out, ")\n");
}

char *kb_apply_describe(const struct kb_apply *apply, bool failures_only)
{
	struct kb_buf out = KB_BUF_INIT;
	size_t f, h;

	for (f = 0; apply->patch && f < apply->patch->nfiles; f++) {
		const struct kb_file_result *fr = &apply->files[f];
		const char *path = kb_file_patch_path(fr->fp);
		if (fr->error) {
			kb_buf_printf(&out, "'%s': %s\n", path, fr->error);
			continue;
		}
		if (fr->merged) {
			if (!failures_only)
				kb_buf_printf(&out, "'%s' merged 3-way from the patch's preimage blob %s\n",
					      path, fr->fp->old_id);
			continue;
		}
		for (h = 0; h < fr->fp->nhunks; h++)
			describe_hunk(&out, fr, h, failures_only);
	}
	return kb_buf_detach(&out);
}
