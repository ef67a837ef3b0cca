#include "detect.h"
#include "buf.h"
#include "error.h"
#include "locate.h"

#include <stdlib.h>
#include <string.h>

/* Read `path`; a missing file is not an error here: *buf is NULL. */
static int read_optional(const char **buf, size_t *len, struct kb_source *src,
			 const char *path)
{
	int err = kb_source_read(buf, len, src, path);

	if (err == KB_ENOTFOUND) {
		*buf = NULL;
		*len = 0;
		return 0;
	}
	return err;
}

int kb_cond_eval(bool *holds, struct kb_source *src, const struct kb_cond *cond)
{
	const char *buf;
	size_t len;
	bool found;
	int err;

	if ((err = read_optional(&buf, &len, src, cond->path)) < 0)
		return err;
	found = buf && cond->text &&
		kb_text_contains(buf, len, cond->text, strlen(cond->text));
	switch (cond->kind) {
	case KB_COND_CONTAINS: *holds = found; break;
	case KB_COND_LACKS:    *holds = !found; break;
	case KB_COND_EXISTS:   *holds = buf != NULL; break;
	case KB_COND_MISSING:  *holds = buf == NULL; break;
	}
	return 0;
}

char *kb_cond_describe(const struct kb_cond *cond)
{
	struct kb_buf out = KB_BUF_INIT;
	static const char *const verbs[] = {
		[KB_COND_CONTAINS] = "contains", [KB_COND_LACKS] = "lacks",
		[KB_COND_EXISTS] = "exists", [KB_COND_MISSING] = "is missing",
	};
	const char *p;

	kb_buf_printf(&out, "%s %s", cond->path, verbs[cond->kind]);
	if (cond->text) {
		/* one line: the text's lines joined, trailing newline dropped */
		kb_buf_puts(&out, " '");
		for (p = cond->text; *p; p++) {
			if (*p == '\n' && p[1])
				kb_buf_puts(&out, "\\n");
			else if (*p != '\n')
				kb_buf_putc(&out, *p);
		}
		kb_buf_putc(&out, '\'');
	}
	return kb_buf_detach(&out);
}

int kb_variant_fits(bool *fits, const struct kb_cond **failed,
		    struct kb_source *src, const struct kb_variant *variant)
{
	bool holds = true;
	size_t i;
	int err;

	if (failed)
		*failed = NULL;
	for (i = 0; i < variant->nwhen; i++) {
		if ((err = kb_cond_eval(&holds, src, &variant->when[i])) < 0)
			return err;
		if (!holds) {
			if (failed)
				*failed = &variant->when[i];
			break;
		}
	}
	*fits = holds;
	return 0;
}

static void free_blocks(char **blocks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
}

/* Are the hunk's changes visible in `buf`? Additions present, or for a
 * hunk that only removes lines, the removed lines gone. */
static int hunk_in(bool *in, const struct kb_hunk *hunk, const char *buf,
		   size_t len)
{
	char **blocks = NULL;
	size_t n = 0, i;
	int err;

	if ((err = kb_hunk_added_blocks(&blocks, &n, hunk)) < 0)
		return err;
	*in = true;
	for (i = 0; i < n && *in; i++)
		*in = kb_text_contains(buf, len, blocks[i], strlen(blocks[i]));
	free_blocks(blocks, n);
	if (n == 0) {
		struct kb_buf removed = KB_BUF_INIT;
		for (i = 0; i < hunk->nlines; i++)
			if (hunk->lines[i].type == KB_LINE_DEL) {
				kb_buf_put(&removed, hunk->lines[i].text, hunk->lines[i].len);
				kb_buf_putc(&removed, '\n');
			}
		*in = !kb_text_contains(buf, len, removed.ptr ? removed.ptr : "",
					removed.size);
		kb_buf_release(&removed);
	}
	return 0;
}

/* Is the hunk's whole postimage (context and additions) in `buf`? */
static bool postimage_in(const struct kb_hunk *hunk, const char *buf, size_t len)
{
	struct kb_buf post = KB_BUF_INIT;
	bool in;
	size_t i;

	for (i = 0; i < hunk->nlines; i++)
		if (hunk->lines[i].type != KB_LINE_DEL) {
			kb_buf_put(&post, hunk->lines[i].text, hunk->lines[i].len);
			kb_buf_putc(&post, '\n');
		}
	in = kb_text_contains(buf, len, post.ptr ? post.ptr : "", post.size);
	kb_buf_release(&post);
	return in;
}

/*
 * Are the file's changes in the tree? *score counts the hunks whose whole
 * postimage is there too, which tells apart variants that add the same
 * lines in different surroundings.
 */
static int file_patch_in(bool *in, size_t *score, struct kb_source *src,
			 const struct kb_file_patch *fp)
{
	const char *buf;
	size_t len, i;
	int err;

	if ((err = read_optional(&buf, &len, src, kb_file_patch_path(fp))) < 0)
		return err;
	if (!fp->new_path || !buf) {
		/* a deletion is in when the file is gone; anything else needs it */
		*in = !fp->new_path && !buf;
		return 0;
	}
	*in = true;
	for (i = 0; i < fp->nhunks && *in; i++) {
		if ((err = hunk_in(in, &fp->hunks[i], buf, len)) < 0)
			return err;
		*score += *in && postimage_in(&fp->hunks[i], buf, len);
	}
	return 0;
}

static int variant_in(bool *in, size_t *score, struct kb_source *src,
		      const struct kb_variant *variant)
{
	const struct kb_patch *patch = variant->patch;
	size_t f;
	int err;

	*score = 0;
	*in = patch->nfiles > 0;
	for (f = 0; f < patch->nfiles && *in; f++)
		if ((err = file_patch_in(in, score, src, &patch->files[f])) < 0)
			return err;
	return 0;
}

int kb_detect_applied(const struct kb_variant **out, struct kb_source *src,
		      const struct kb_fix *fix)
{
	size_t v, score, best = 0;
	bool in;
	int err;

	*out = NULL;
	for (v = 0; v < fix->nvariants; v++) {
		if ((err = variant_in(&in, &score, src, &fix->variants[v])) < 0)
			return err;
		if (in && (!*out || score > best)) {
			*out = &fix->variants[v];
			best = score;
		}
	}
	return 0;
}

int kb_detect_vulnerable(const char **path, struct kb_source *src,
			 const struct kb_fix *fix)
{
	const struct kb_marker *m;
	const char *buf;
	size_t i, p, len;
	int err;

	*path = fix->nvulnerable ? NULL : "";
	for (i = 0; i < fix->nvulnerable; i++) {
		m = &fix->vulnerable[i];
		for (p = 0; p < m->npaths; p++) {
			if ((err = read_optional(&buf, &len, src, m->paths[p])) < 0)
				return err;
			if (buf && kb_text_contains(buf, len, m->code, strlen(m->code))) {
				*path = m->paths[p];
				return 0;
			}
		}
	}
	return 0;
}
