#include "apply/apply.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append one output to `*v` (`*n` entries, room for `*alloc`); takes `data` in every case. */
static int push_output(struct kb_apply_output **v, size_t *n, size_t *alloc, const char *path,
		       char *data, size_t len, git_filemode_t mode)
{
	struct kb_apply_output *o;
	int err;

	if ((err = KB_ARRAY_GROW(*v, *alloc, *n + 1)) < 0) {
		free(data);
		return err;
	}
	o = &(*v)[(*n)++];
	o->data = data;
	o->len = len;
	o->mode = mode;
	o->path = kb_strdup(path);
	KB_ERROR_CHECK_ALLOC(o->path);
	return 0;
}

/* A file's new contents (NULL: deleted). */
static int add_output(struct kb_apply *apply, const char *path, char *data,
		      size_t len, git_filemode_t mode)
{
	return push_output(&apply->outputs, &apply->noutputs, &apply->aoutputs, path, data, len,
			   mode);
}

/* A file's contents with the change undone (the pre-fix state). */
static int add_undo(struct kb_apply *apply, const char *path, char *data,
		    size_t len, git_filemode_t mode)
{
	return push_output(&apply->undo, &apply->nundo, &apply->aundo, path, data, len, mode);
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
	struct kb_locate_opts exact = { 0, false, false, false, false };
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
		err = kb_error_oom();
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

/*
 * A file the patch needs that is missing, or in the way, is an answer
 * about the tree (the variant does not fit); a file that cannot be read
 * is not: that error goes up, never to be taken for an answer.
 */
static int file_error(struct kb_file_result *fr, int code)
{
	fr->state = KB_FILE_FAILED;
	if (code != KB_ENOTFOUND && code != KB_EEXISTS)
		return code;
	fr->error = kb_strdup(kb_error_last());
	KB_ERROR_CHECK_ALLOC(fr->error);
	return 0;
}

/* One way to read a file's change: a file patch, its reverse, whose it is. */
struct cand {
	const struct kb_file_patch *fwd, *rev;
	const char *from;		/* another variant's name, or NULL */
	struct kb_file_decision d;
	struct kb_hunk_result *hunks;
};

struct cands {
	struct cand *v;
	size_t n, alloc;
};

static void cands_release(struct cands *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		kb_file_decision_release(&c->v[i].d);
		free(c->v[i].hunks);
	}
	free(c->v);
}

static int cands_add(struct cands *c, const struct kb_file_patch *fwd,
		     const struct kb_file_patch *rev, const char *from)
{
	struct cand *v;
	int err;

	if ((err = KB_ARRAY_GROW(c->v, c->alloc, c->n + 1)) < 0)
		return err;
	v = c->v;
	memset(&v[c->n], 0, sizeof(*v));
	v[c->n].fwd = fwd;
	v[c->n].rev = rev;
	v[c->n].from = from;
	v[c->n].hunks = calloc(fwd->nhunks ? fwd->nhunks : 1, sizeof(*v->hunks));
	KB_ERROR_CHECK_ALLOC(v[c->n].hunks);
	c->n++;
	return 0;
}

/* The variant's own hunks first, then every other variant's for the file. */
static int gather(struct cands *c, const struct kb_file_patch *fp,
		  const struct kb_file_patch *rfp, const struct kb_fix *fix,
		  const struct kb_variant *self)
{
	const char *path = kb_file_patch_path(fp);
	size_t v, f;
	int err;

	if ((err = cands_add(c, fp, rfp, NULL)) < 0 || !fix)
		return err;
	for (v = 0; v < fix->nvariants; v++) {
		const struct kb_variant *other = &fix->variants[v];
		if (other == self)
			continue;
		for (f = 0; f < other->patch->nfiles; f++) {
			const struct kb_file_patch *g = &other->patch->files[f];
			if (g->old_path && g->new_path && !strcmp(g->new_path, path) &&
			    (err = cands_add(c, g, &other->reverse->files[f], other->name)) < 0)
				return err;
		}
	}
	return 0;
}

static int decide(struct cand *c, const char *buf, size_t len,
		  const struct kb_locate_opts *opts)
{
	return kb_file_decide(&c->d, c->hunks, buf, len, c->fwd, c->rev, opts);
}

static void use(struct kb_file_result *fr, struct cand *c, enum kb_file_state state)
{
	fr->state = state;
	fr->cost = c->d.cost;
	fr->used = c->fwd;
	fr->from = c->from;
	fr->hunks = c->hunks;
	c->hunks = NULL;
}

/*
 * A hunk whose change fits at its own line and elsewhere by the earlier
 * hunks' offsets, or whose reverse fits too (the change may be in): said,
 * never settled by the 3-way merge, which would pick a place without a
 * word. (Kept lines that fit twice once fuzz dropped context are another
 * matter: the merge, with all the context the patch's preimage has, may
 * well tell them apart, as git apply -3 does.)
 */
static bool any_ambiguous(const struct cand *c)
{
	const struct kb_match *m;
	size_t h;

	for (h = 0; h < c->fwd->nhunks; h++) {
		m = &c->hunks[h].match;
		if (c->hunks[h].status == KB_HUNK_AMBIGUOUS &&
		    (m->ambiguity == KB_AMBIG_RULES || m->ambiguity == KB_AMBIG_WAYS || m->reverse))
			return true;
	}
	return false;
}

/* Every candidate's look at the file, each decided once. */
static int decide_all(struct cands *c, const char *buf, size_t len,
		      const struct kb_locate_opts *opts)
{
	size_t i;
	int err;

	for (i = 0; i < c->n; i++)
		if ((err = decide(&c->v[i], buf, len, opts)) < 0)
			return err;
	return 0;
}

/*
 * Which reading of the file wins (decide_all() looked already): the change
 * found in (by any variant's hunks), else the own hunks applied, else
 * another variant's, else the 3-way merge.
 */
static int choose(struct kb_apply *apply, struct kb_file_result *fr, struct cands *c,
		  struct kb_source *src, const char *buf, size_t len, git_filemode_t mode)
{
	const char *path = fr->moved ? fr->moved : kb_file_patch_path(fr->fp);
	struct cand *own = &c->v[0], *in = NULL;
	char *out = NULL;
	size_t i, outlen = 0;
	int err;

	for (i = 0; i < c->n; i++)
		if (c->v[i].d.state == KB_FILE_PRESENT && (!in || (in != own && c->v[i].d.cost < in->d.cost)))
			in = &c->v[i];	/* the own hunks first, else the closest fit */
	/* own hunks: cheaper way wins (a copy of the lines elsewhere need not
	 * be the fix); another variant's form of the change found in the file
	 * means the change is there, whatever the own hunks would still fit */
	if (in && (in != own || own->d.state != KB_FILE_APPLIES)) {
		use(fr, in, KB_FILE_PRESENT);
		err = add_undo(apply, path, in->d.undo, in->d.undolen, mode);
		in->d.undo = NULL;
		return err;
	}
	for (i = 0; i < c->n; i++)
		if (c->v[i].d.state == KB_FILE_APPLIES) {
			use(fr, &c->v[i], KB_FILE_APPLIES);
			err = add_output(apply, path, c->v[i].d.out, c->v[i].d.outlen, mode);
			c->v[i].d.out = NULL;
			return err;
		}
	if (own->d.state == KB_FILE_FAILED && !any_ambiguous(own) &&
	    merge_from_preimage(&out, &outlen, kb_source_repo(src), fr->fp, buf, len) == 0) {
		use(fr, own, KB_FILE_APPLIES);
		fr->merged = true;
		return add_output(apply, path, out, outlen, mode);
	}
	use(fr, own, own->d.state);
	return 0;
}

/* Is the file a symlink, as the patch sees it? */
static bool wants_link(const struct kb_file_patch *fp)
{
	return (fp->old_path ? fp->old_mode : fp->new_mode) == GIT_FILEMODE_LINK;
}

/*
 * The tree's file and its mode. A symlink (its target) is read only where
 * the patch says the file is one; a symlink where the patch expects a
 * regular file, or the other way round, is not the patch's file.
 */
static int read_file(const char **buf, size_t *len, git_filemode_t *mode,
		     struct kb_source *src, const char *path, bool link)
{
	int err;

	if ((err = kb_source_read_any(buf, len, mode, src, path)) < 0)
		return err;
	if (link != (*mode == GIT_FILEMODE_LINK))
		return kb_error_set(KB_EINVALID, "'%s' is not a %s (mode %06o)", path,
				    link ? "symlink" : "regular file", (unsigned)*mode);
	return 0;
}

/* A new file: applies where nothing is, is in where exactly it is. */
static int create_file(struct kb_apply *apply, struct kb_file_result *fr,
		       const struct kb_file_patch *rfp, struct kb_source *src,
		       const struct kb_locate_opts *opts)
{
	const char *path = fr->fp->new_path, *buf;
	struct cands c = { 0 };
	git_filemode_t mode;
	size_t len;
	int err;

	if ((err = read_file(&buf, &len, &mode, src, path, wants_link(fr->fp))) == KB_ENOTFOUND) {
		buf = "";
		len = 0;
	} else if (err < 0) {
		return file_error(fr, err);
	}
	if ((err = cands_add(&c, fr->fp, rfp, NULL)) < 0 ||
	    (err = decide_all(&c, buf, len, opts)) < 0)
		goto done;
	if (len && c.v[0].d.state != KB_FILE_PRESENT) {
		kb_error_set(KB_EEXISTS, "'%s' already exists", path);
		err = file_error(fr, KB_EEXISTS);
		goto done;
	}
	err = choose(apply, fr, &c, src, buf, len, GIT_FILEMODE_BLOB);
done:
	cands_release(&c);
	return err;
}

/* A deletion: applies only where the file is exactly what it removes. */
static int delete_file(struct kb_apply *apply, struct kb_file_result *fr,
		       const struct kb_file_patch *rfp, struct kb_source *src,
		       const struct kb_locate_opts *opts)
{
	const char *path = fr->fp->old_path, *buf;
	git_filemode_t mode = GIT_FILEMODE_BLOB;
	struct cands c = { 0 };
	size_t len;
	int err;

	if ((err = read_file(&buf, &len, &mode, src, path, wants_link(fr->fp))) == KB_ENOTFOUND) {
		buf = "";
		len = 0;
	} else if (err < 0) {
		return file_error(fr, err);
	}
	if ((err = cands_add(&c, fr->fp, rfp, NULL)) < 0 ||
	    (err = decide(&c.v[0], buf, len, opts)) < 0)
		goto done;
	if (c.v[0].d.state == KB_FILE_APPLIES && c.v[0].d.outlen) {
		/* what is left is not nothing: the file holds more than the patch removes */
		size_t h;
		kb_file_decision_release(&c.v[0].d);
		c.v[0].d.state = KB_FILE_FAILED;
		for (h = 0; h < fr->fp->nhunks; h++)
			c.v[0].hunks[h].status = KB_HUNK_FAILED;
	}
	use(fr, &c.v[0], c.v[0].d.state);
	if (fr->state == KB_FILE_APPLIES)
		err = add_output(apply, path, NULL, 0, mode);
	else if (fr->state == KB_FILE_PRESENT)
		err = add_undo(apply, path, c.v[0].d.undo, c.v[0].d.undolen, mode);
	if (fr->state == KB_FILE_PRESENT)
		c.v[0].d.undo = NULL;
done:
	cands_release(&c);
	return err;
}

/* ---- a file that moved ---- */

struct same_name {
	const char *old;		/* the patch file's path */
	const char *base;		/* its name, no directory */
	char **paths;
	size_t n, alloc;
	int err;
};

/*
 * The tree of `path`'s top directory, or NULL (none, or `path` has no
 * directory). A file moves within its top directory, its subsystem
 * (fs/xfs/linux-2.6/ to fs/xfs/), not to another part of the tree: only
 * that one is walked.
 */
static int top_tree(git_tree **out, struct kb_source *src, const char *path)
{
	const char *slash = strchr(path, '/');
	git_tree_entry *e = NULL;
	char *top;
	int err;

	*out = NULL;
	if (!slash)
		return 0;
	KB_ERROR_CHECK_ALLOC(top = kb_strndup(path, (size_t)(slash - path)));
	err = git_tree_entry_bypath(&e, kb_source_tree(src), top);
	free(top);
	if (err == GIT_ENOTFOUND)
		return 0;
	if (err == 0 && git_tree_entry_type(e) == GIT_OBJECT_TREE)
		err = git_tree_lookup(out, kb_source_repo(src), git_tree_entry_id(e));
	git_tree_entry_free(e);
	return err < 0 ? kb_error_git(err, "cannot read the tree of '%.*s'",
				      (int)(slash - path), path) : 0;
}

static int same_name_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct same_name *s = payload;
	const char *name = git_tree_entry_name(e), *slash = strchr(s->old, '/');

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || strcmp(name, s->base))
		return 0;
	if ((s->err = KB_ARRAY_GROW(s->paths, s->alloc, s->n + 1)) < 0)
		return -1;
	/* the walk is of the top directory's tree: its name comes first */
	if (asprintf(&s->paths[s->n], "%.*s/%s%s", (int)(slash - s->old), s->old, root, name) < 0) {
		s->err = kb_error_oom();
		return -1;
	}
	s->n++;
	return s->n > 64 ? -1 : 0;	/* enough: a name that common proves nothing */
}

/*
 * The patch's file is not in the tree: is it elsewhere, moved? Every file
 * of the tree with its name under the same top directory is looked at;
 * exactly one that the hunks fit
 * (applying, or already in) is where the file went. None, or several:
 * no move, and the error names the candidates (the likeliest first).
 */
static int find_moved(struct kb_file_result *fr, const struct kb_file_patch *rfp,
		      struct kb_source *src, const struct kb_locate_opts *opts)
{
	const char *old = fr->fp->old_path, *slash = strrchr(old, '/');
	struct same_name s = { old, slash ? slash + 1 : old, NULL, 0, 0, 0 };
	struct kb_buf hint = KB_BUF_INIT;
	git_tree *top = NULL;
	size_t i, fits = 0, at = 0;
	int err;

	if ((err = top_tree(&top, src, old)) < 0)
		goto done;
	if (top && (err = git_tree_walk(top, GIT_TREEWALK_PRE, same_name_cb, &s)) < 0 && s.err) {
		err = s.err;
		goto done;
	}
	err = 0;
	for (i = 0; i < s.n && s.n <= 64; i++) {
		struct cands c = { 0 };
		const char *buf;
		size_t len;
		git_filemode_t mode;
		if (read_file(&buf, &len, &mode, src, s.paths[i], wants_link(fr->fp)) < 0) {
			kb_error_clear();
			continue;
		}
		if ((err = cands_add(&c, fr->fp, rfp, NULL)) == 0 && (err = decide(&c.v[0], buf, len, opts)) == 0 &&
		    (c.v[0].d.state == KB_FILE_APPLIES || c.v[0].d.state == KB_FILE_PRESENT)) {
			fits++;
			at = i;
		}
		cands_release(&c);
		if (err < 0)
			goto done;
	}
	if (fits == 1) {
		fr->moved = s.paths[at];
		s.paths[at] = NULL;
		goto done;
	}
	kb_buf_printf(&hint, "no file '%s' in the tree", old);
	if (s.n && s.n <= 64) {
		kb_buf_printf(&hint, "; %s of its name: ", fits ? "the hunks fit more than one file" :
			      "the hunks fit none of the files");
		for (i = 0; i < s.n && i < 4; i++)
			kb_buf_printf(&hint, "%s'%s'", i ? ", " : "", s.paths[i]);
		if (s.n > 4)
			kb_buf_printf(&hint, " and %zu more", s.n - 4);
	}
	KB_ERROR_CHECK_ALLOC(hint.ptr);
	kb_error_set(KB_ENOTFOUND, "%s", hint.ptr);
	err = KB_ENOTFOUND;
done:
	for (i = 0; i < s.n; i++)
		free(s.paths[i]);
	free(s.paths);
	kb_buf_release(&hint);
	git_tree_free(top);
	return err;
}

static int apply_file(struct kb_apply *apply, struct kb_file_result *fr,
		      const struct kb_file_patch *rfp, struct kb_source *src,
		      const struct kb_fix *fix, const struct kb_variant *self,
		      const struct kb_locate_opts *opts)
{
	const struct kb_file_patch *fp = fr->fp;
	git_filemode_t mode = GIT_FILEMODE_BLOB;
	struct cands c = { 0 };
	const char *buf;
	size_t len = 0;
	int err;

	if (!fp->old_path)
		return create_file(apply, fr, rfp, src, opts);
	if (!fp->new_path)
		return delete_file(apply, fr, rfp, src, opts);
	err = read_file(&buf, &len, &mode, src, fp->old_path, wants_link(fp));
	if (err == KB_ENOTFOUND && !strcmp(fp->old_path, fp->new_path) &&
	    (err = find_moved(fr, rfp, src, opts)) == 0)
		err = read_file(&buf, &len, &mode, src, fr->moved, wants_link(fp));
	if (err < 0)
		return file_error(fr, err);
	if ((err = gather(&c, fp, rfp, fix, self)) == 0 &&
	    (err = decide_all(&c, buf, len, opts)) == 0)
		err = choose(apply, fr, &c, src, buf, len, mode);
	cands_release(&c);
	return err;
}

/* ---- modes: checked against the tree as the content is ---- */

/* Does the patch change the mode of a file it keeps? */
static bool changes_mode(const struct kb_file_patch *fp)
{
	return fp->old_path && fp->new_path && fp->old_mode != fp->new_mode;
}

/* A file's mode after the patch; `tree` its mode before (0: no file). */
static git_filemode_t mode_after(const struct kb_file_patch *fp, git_filemode_t tree)
{
	if (fp->old_path && !changes_mode(fp))
		return tree;
	return fp->new_mode ? (git_filemode_t)fp->new_mode : GIT_FILEMODE_BLOB;
}

/* A file's mode with the patch undone; `tree` its mode with it. */
static git_filemode_t mode_before(const struct kb_file_patch *fp, git_filemode_t tree)
{
	if (fp->new_path && !changes_mode(fp))
		return tree;
	return fp->old_mode ? (git_filemode_t)fp->old_mode : GIT_FILEMODE_BLOB;
}

/* The file and its mode, or no file (*mode 0). */
static int tree_mode(git_filemode_t *mode, struct kb_source *src, const char *path)
{
	const char *buf;
	int err;

	*mode = 0;
	if ((err = kb_source_read_any(&buf, NULL, mode, src, path)) == KB_ENOTFOUND)
		return 0;
	return err;
}

/* The content decided one way, the mode says another: neither fits. */
static int mode_mismatch(struct kb_file_result *fr, const char *fmt, unsigned has,
			 unsigned want)
{
	char msg[128];

	snprintf(msg, sizeof(msg), fmt, has, want);
	fr->state = KB_FILE_FAILED;
	free(fr->hunks);
	fr->hunks = NULL;
	return (fr->error = kb_strdup(msg)) ? 0 : kb_error_oom();
}

/*
 * A change applies where the file has the patch's old mode ("old mode",
 * "deleted file mode") and is in where it has the new one ("new mode",
 * "new file mode"), as its content is; then the outputs written since
 * `nout` and `nundo` get the mode the file has after, and before, the
 * change. The mode of a file the patch leaves alone is the tree's.
 */
static int check_mode(struct kb_apply *apply, struct kb_file_result *fr, struct kb_source *src,
		      size_t nout, size_t nundo)
{
	const struct kb_file_patch *fp = fr->fp;
	git_filemode_t tree;
	int err;

	if (fr->state != KB_FILE_APPLIES && fr->state != KB_FILE_PRESENT)
		return 0;
	if ((err = tree_mode(&tree, src, fr->moved ? fr->moved : kb_file_patch_path(fp))) < 0)
		return err;
	if (fr->state == KB_FILE_APPLIES && tree && fp->old_mode &&
	    (changes_mode(fp) || !fp->new_path) && tree != fp->old_mode)
		return mode_mismatch(fr, "mode %06o in the tree, the patch expects %06o",
				     tree, fp->old_mode);
	if (fr->state == KB_FILE_PRESENT && tree && fp->new_mode &&
	    (changes_mode(fp) || !fp->old_path) && tree != fp->new_mode)
		return mode_mismatch(fr, "in, but with mode %06o, not the patch's %06o",
				     tree, fp->new_mode);
	if (apply->noutputs > nout)
		apply->outputs[nout].mode = mode_after(fp, tree);
	if (apply->nundo > nundo) {
		struct kb_apply_output *u = &apply->undo[nundo];
		u->mode = mode_before(fp, tree);
		if (!fp->old_path) {	/* a file the patch creates: undone, it is gone */
			free(u->data);
			u->data = NULL;
			u->len = 0;
		}
	}
	return 0;
}

/*
 * The whole file after the change (APPLIES) or before it (PRESENT), as it
 * is in the tree: no file where the change deletes it, or undoes its
 * creation. check_mode() sets the mode.
 */
static int whole_output(struct kb_apply *apply, const struct kb_file_result *fr,
			const char *buf, size_t len)
{
	const struct kb_file_patch *fp = fr->fp;
	const char *path = kb_file_patch_path(fp);
	bool applies = fr->state == KB_FILE_APPLIES;
	char *data = NULL;

	if ((applies ? fp->new_path : fp->old_path) && !(data = kb_strndup(buf, len)))
		return kb_error_oom();
	if (applies)
		return add_output(apply, path, data, len, 0);
	return add_undo(apply, path, data, len, 0);
}

/*
 * A file patch without hunks: the mode alone changes, or an empty file is
 * created or deleted. Its content is all or nothing; check_mode() does
 * the rest.
 */
static int file_without_hunks(struct kb_apply *apply, struct kb_file_result *fr,
			      struct kb_source *src)
{
	const struct kb_file_patch *fp = fr->fp;
	const char *path = kb_file_patch_path(fp), *buf = "";
	git_filemode_t mode = 0;
	bool exists = true;
	size_t len = 0;
	int err;

	if ((err = read_file(&buf, &len, &mode, src, path, wants_link(fp))) == KB_ENOTFOUND &&
	    !(fp->old_path && fp->new_path)) {
		buf = "";
		exists = false;
	} else if (err < 0) {
		return file_error(fr, err);
	}
	if (fp->old_path && fp->new_path) {
		fr->state = mode == fp->new_mode ? KB_FILE_PRESENT : KB_FILE_APPLIES;
	} else if (len && !fp->old_path) {
		kb_error_set(KB_EEXISTS, "'%s' already exists", path);
		return file_error(fr, KB_EEXISTS);
	} else if (len) {
		fr->state = KB_FILE_FAILED;
		fr->error = kb_strdup("not empty: the patch deletes an empty file");
		KB_ERROR_CHECK_ALLOC(fr->error);
		return 0;
	} else if (!fp->old_path) {	/* an empty file created */
		fr->state = exists ? KB_FILE_PRESENT : KB_FILE_APPLIES;
	} else {			/* an empty file deleted */
		fr->state = exists ? KB_FILE_APPLIES : KB_FILE_PRESENT;
	}
	return whole_output(apply, fr, buf, len);
}

/* A file's content, then its mode. */
static int apply_file_and_mode(struct kb_apply *apply, struct kb_file_result *fr,
			       const struct kb_file_patch *rfp, struct kb_source *src,
			       const struct kb_fix *fix, const struct kb_variant *self,
			       const struct kb_locate_opts *opts)
{
	size_t nout = apply->noutputs, nundo = apply->nundo;
	int err;

	if (!fr->fp->nhunks)
		err = file_without_hunks(apply, fr, src);
	else
		err = apply_file(apply, fr, rfp, src, fix, self, opts);
	return err < 0 ? err : check_mode(apply, fr, src, nout, nundo);
}

/* Files found in by their mode, or whole (without hunks to find). */
static size_t in_whole(const struct kb_apply *apply)
{
	size_t i, n = 0;

	for (i = 0; i < apply->patch->nfiles; i++)
		n += apply->files[i].state == KB_FILE_PRESENT &&
		     (!apply->files[i].fp->nhunks || changes_mode(apply->files[i].fp));
	return n;
}

/* Hunks found in the tree with some of their context around them. */
static size_t in_with_context(const struct kb_apply *apply)
{
	size_t i, h, n = 0;

	for (i = 0; i < apply->patch->nfiles; i++) {
		const struct kb_file_result *fr = &apply->files[i];
		for (h = 0; fr->hunks && h < fr->used->nhunks; h++)
			n += fr->hunks[h].status == KB_HUNK_PRESENT &&
			     fr->hunks[h].match.anchor != KB_ANCHOR_BLOCK;
	}
	return n;
}

/*
 * Every file alike gives that state; a mix without failures is partial.
 * A change found only by its own lines, nowhere with its context, is not
 * evidence enough that the fix is in.
 */
static enum kb_file_state overall(const struct kb_apply *apply)
{
	size_t i, count[KB_FILE_FAILED + 1] = { 0 };
	size_t n = apply->patch->nfiles;

	for (i = 0; i < n; i++)
		count[apply->files[i].state]++;
	if (count[KB_FILE_FAILED] || count[KB_FILE_AMBIGUOUS] || !n)
		return KB_FILE_FAILED;
	if ((count[KB_FILE_PRESENT] || count[KB_FILE_PARTIAL]) && !in_with_context(apply) &&
	    !in_whole(apply))
		return KB_FILE_FAILED;
	if (count[KB_FILE_APPLIES] == n)
		return KB_FILE_APPLIES;
	if (count[KB_FILE_PRESENT] == n)
		return KB_FILE_PRESENT;
	return KB_FILE_PARTIAL;
}

static int apply_all(struct kb_apply *out, struct kb_source *src,
		     const struct kb_patch *patch, const struct kb_patch *reverse,
		     const struct kb_fix *fix, const struct kb_variant *self,
		     const struct kb_locate_opts *opts)
{
	size_t i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->patch = patch;
	out->files = calloc(patch->nfiles ? patch->nfiles : 1, sizeof(*out->files));
	KB_ERROR_CHECK_ALLOC(out->files);
	if (reverse->nfiles != patch->nfiles)
		return kb_error_set(KB_ERROR, "the reverse patch does not match");
	for (i = 0; i < patch->nfiles; i++) {
		struct kb_file_result *fr = &out->files[i];
		fr->fp = fr->used = &patch->files[i];
		if ((err = apply_file_and_mode(out, fr, &reverse->files[i], src, fix, self,
					       opts)) < 0)
			return err;
	}
	out->state = overall(out);
	out->ok = out->state == KB_FILE_APPLIES;
	return 0;
}

int kb_apply_variant(struct kb_apply *out, struct kb_source *src,
		     const struct kb_fix *fix, const struct kb_variant *variant,
		     const struct kb_locate_opts *opts)
{
	return apply_all(out, src, variant->patch, variant->reverse, fix, variant, opts);
}

int kb_apply_patch(struct kb_apply *out, struct kb_source *src,
		   const struct kb_patch *patch, const struct kb_patch *reverse,
		   const struct kb_locate_opts *opts)
{
	return apply_all(out, src, patch, reverse, NULL, NULL, opts);
}

int kb_apply_write_tree(git_oid *tree_id, git_repository *repo, git_tree *base,
			const struct kb_apply *apply, bool undo)
{
	const struct kb_apply_output *outputs = undo ? apply->undo : apply->outputs;
	size_t i, n = undo ? apply->nundo : apply->noutputs;
	git_tree_update *updates;
	int err = 0;

	updates = calloc(n ? n : 1, sizeof(*updates));
	KB_ERROR_CHECK_ALLOC(updates);
	for (i = 0; i < n && !err; i++) {
		const struct kb_apply_output *o = &outputs[i];
		updates[i].path = o->path;
		updates[i].filemode = o->mode;
		updates[i].action = o->data ? GIT_TREE_UPDATE_UPSERT :
					      GIT_TREE_UPDATE_REMOVE;
		if (o->data && (err = git_blob_create_from_buffer(&updates[i].id, repo,
								  o->data, o->len)) < 0)
			err = kb_error_git(err, "cannot write blob for '%s'", o->path);
	}
	if (!err && (err = git_tree_create_updated(tree_id, repo, base, n, updates)) < 0)
		err = kb_error_git(err, "cannot write tree");
	free(updates);
	return err;
}

static void outputs_free(struct kb_apply_output *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].data);
	}
	free(v);
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
			free(apply->files[i].moved);
		}
	free(apply->files);
	outputs_free(apply->outputs, apply->noutputs);
	outputs_free(apply->undo, apply->nundo);
	memset(apply, 0, sizeof(*apply));
}

static const char *const file_state_names[] = {
	[KB_FILE_APPLIES] = "applies",
	[KB_FILE_PRESENT] = "already in",
	[KB_FILE_PARTIAL] = "partly in",
	[KB_FILE_AMBIGUOUS] = "ambiguous",
	[KB_FILE_FAILED] = "does not apply",
};

const char *kb_file_state_name(enum kb_file_state state)
{
	return file_state_names[state];
}

/* " (offset +3, fuzz 1, ignoring whitespace, anchored on ...)" or "". */
static void describe_place(struct kb_buf *out, const struct kb_match *m)
{
	if (!m->offset && !m->fuzz && !m->whitespace && !m->anchor)
		return;
	kb_buf_printf(out, " (offset %+ld", m->offset);
	if (m->anchor == KB_ANCHOR_BLOCK)
		kb_buf_puts(out, ", by its own lines alone");
	else if (m->anchor == KB_ANCHOR_BLOCKS)
		kb_buf_printf(out, ", block by block, %zu line%s of the tree between its blocks",
			      m->gap, m->gap == 1 ? "" : "s");
	else if (m->anchor)
		kb_buf_printf(out, ", anchored on its %s context alone",
			      m->anchor == KB_ANCHOR_LEAD ? "leading" : "trailing");
	else if (m->fuzz)
		kb_buf_printf(out, ", fuzz %u", m->fuzz);
	if (m->whitespace)
		kb_buf_puts(out, ", ignoring whitespace");
	kb_buf_puts(out, ")");
}

/*
 * "hunk 1 of 'f.c' dropped its context line 'x = old(y);' by fuzz, and line
 * 12 of the tree holds it changed: a change this fix builds on may be
 * missing; check the result".
 */
static void describe_changed(struct kb_buf *out, const struct kb_file_result *fr, size_t h)
{
	const struct kb_match *m = &fr->hunks[h].match;
	const struct kb_line *l = &fr->used->hunks[h].lines[m->changed_hunk_line];
	size_t skip = 0;

	while (skip < l->len && (l->text[skip] == ' ' || l->text[skip] == '\t'))
		skip++;
	kb_buf_printf(out, "hunk %zu of '%s' dropped its context line '%.*s' by fuzz, and line %zu "
		      "of the tree holds it changed: a change this fix builds on may be missing; "
		      "check the result", h + 1, kb_file_patch_path(fr->fp), (int)(l->len - skip),
		      l->text + skip, m->changed_file_line + 1);
}

static bool warns(const struct kb_file_result *fr, size_t h)
{
	return fr->hunks && fr->state == KB_FILE_APPLIES && !fr->merged &&
	       fr->hunks[h].status == KB_HUNK_APPLIED && fr->hunks[h].match.changed;
}

char *kb_apply_warning(const struct kb_apply *apply)
{
	struct kb_buf out = KB_BUF_INIT;
	size_t f, h, n = 0;

	for (f = 0; apply->patch && f < apply->patch->nfiles; f++)
		for (h = 0; apply->files[f].hunks && h < apply->files[f].used->nhunks; h++) {
			if (!warns(&apply->files[f], h))
				continue;
			if (!n++)
				describe_changed(&out, &apply->files[f], h);
		}
	if (n > 1)
		kb_buf_printf(&out, " (and %zu more hunk%s like it)", n - 1, n > 2 ? "s" : "");
	return kb_buf_detach(&out);
}

static const char *way(bool reverse)
{
	return reverse ? "in reverse" : "forward";
}

/* "line 2 forward, line 13 in reverse": both places a hunk fits, and how,
 * in the lines of the tree's file. */
static void describe_places(struct kb_buf *out, const struct kb_hunk_result *r)
{
	const struct kb_match *m = &r->match;
	size_t line = r->tree_line + 1, other = m->other_line + 1;

	switch (m->ambiguity) {
	case KB_AMBIG_RULES:
		kb_buf_printf(out, "line %zu %s nearest the earlier hunks' offset, line %zu %s nearest its own line",
			      line, way(m->reverse), other, way(m->other_reverse));
		break;
	case KB_AMBIG_SIDES:
		kb_buf_printf(out, "line %zu %s by its leading context, line %zu %s by its trailing context",
			      line, way(m->reverse), other, way(m->other_reverse));
		break;
	default:
		kb_buf_printf(out, "line %zu %s, line %zu %s", line, way(m->reverse),
			      other, way(m->other_reverse));
	}
}

static void describe_hunk(struct kb_buf *out, const struct kb_file_result *fr,
			  size_t h, bool failures_only)
{
	const struct kb_hunk_result *r = &fr->hunks[h];
	const char *path = kb_file_patch_path(fr->fp);
	const struct kb_match *m = &r->match;
	bool partial = fr->state == KB_FILE_PARTIAL;

	switch (r->status) {
	case KB_HUNK_FAILED:
		kb_buf_printf(out, "hunk %zu of '%s' does not apply\n", h + 1, path);
		return;
	case KB_HUNK_AMBIGUOUS:
		kb_buf_printf(out, "hunk %zu of '%s' fits more than one place (", h + 1, path);
		describe_places(out, r);
		kb_buf_puts(out, "): not guessing\n");
		return;
	case KB_HUNK_PRESENT:
		if (failures_only && !partial)
			return;
		kb_buf_printf(out, "hunk %zu of '%s' is already in, at line %zu", h + 1, path,
			      r->tree_line + 1);
		break;
	case KB_HUNK_APPLIED:
		if (partial) {
			kb_buf_printf(out, "hunk %zu of '%s' is missing (it would apply at line %zu)\n",
				      h + 1, path, r->tree_line + 1);
			return;
		}
		if (failures_only || (!m->offset && !m->fuzz && !m->whitespace && !m->anchor))
			return;
		kb_buf_printf(out, "hunk %zu of '%s' applied at line %zu", h + 1, path,
			      m->line - m->trim_head + 1);
		break;
	}
	describe_place(out, m);
	kb_buf_puts(out, "\n");
	if (warns(fr, h)) {
		kb_buf_puts(out, "warning: ");
		describe_changed(out, fr, h);
		kb_buf_puts(out, "\n");
	}
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
		if (fr->moved)
			kb_buf_printf(&out, "'%s' is '%s' in this tree (the file moved): its hunks "
				      "placed there\n", path, fr->moved);
		if (fr->merged) {
			if (!failures_only)
				kb_buf_printf(&out, "'%s' merged 3-way from the patch's preimage blob %s\n",
					      path, fr->fp->old_id);
			continue;
		}
		if (fr->from && (!failures_only || fr->state == KB_FILE_PARTIAL))
			kb_buf_printf(&out, "'%s': %s with the hunks of variant '%s'\n", path,
				      kb_file_state_name(fr->state), fr->from);
		for (h = 0; h < fr->used->nhunks && fr->hunks; h++)
			describe_hunk(&out, fr, h, failures_only);
	}
	return kb_buf_detach(&out);
}
