/* Each hunk's state in the tree (witness.h). */
#include "apply/witness.h"
#include "apply/locate.h"
#include "apply/locate_priv.h"
#include "util/array.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/* Lines of the tree looked at on each side of a hunk's place, beyond the
 * hunk's own length: a later commit's lines between them are allowed. */
#define WITNESS_PAD 8

/* The longest run of '+' lines compared in order with the window. */
#define WITNESS_MAX_LINES 400

static const char *const state_names[] = {
	[KB_TREE_POST] = "post-image", [KB_TREE_PRE] = "pre-image",
	[KB_TREE_NEITHER] = "neither", [KB_TREE_NO_FILE] = "no file",
};

static const char *const fate_names[] = {
	[KB_FATE_IN] = "in", [KB_FATE_CHANGED] = "changed", [KB_FATE_GONE] = "gone",
	[KB_FATE_LOST] = "lost",
};

const char *kb_tree_state_name(enum kb_tree_state state)
{
	return state_names[state];
}

const char *kb_hunk_fate_name(enum kb_hunk_fate fate)
{
	return fate_names[fate];
}

static struct kb_slice slice_of(const struct kb_line *l)
{
	return (struct kb_slice){ l->text, l->len };
}

/* A line that can witness: a word in it, three characters or more. */
static bool significant(const struct kb_line *l)
{
	size_t i, n = 0;
	bool word = false;

	for (i = 0; i < l->len; i++) {
		char c = l->text[i];
		if (c == ' ' || c == '\t' || c == '\r')
			continue;
		n++;
		word |= (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
	}
	return word && n >= 3;
}

bool kb_hunk_line_distinctive(const struct kb_hunk *h, size_t i)
{
	const struct kb_line *l = &h->lines[i];
	struct kb_slice s = slice_of(l);
	size_t k;

	if (l->type == KB_LINE_CONTEXT || !significant(l))
		return false;
	for (k = 0; k < h->nlines; k++)
		if (h->lines[k].type != l->type && kb_line_equal(&s, &h->lines[k], true))
			return false;
	return true;
}

/* Is `s` one of the hunk's lines of type `type` (or, with 0, any line not '+')? */
static bool hunk_has(const struct kb_hunk *h, const struct kb_slice *s, int type)
{
	size_t k;

	for (k = 0; k < h->nlines; k++)
		if ((type ? (int)h->lines[k].type == type : h->lines[k].type != KB_LINE_ADD) &&
		    kb_line_equal(s, &h->lines[k], true))
			return true;
	return false;
}

/* The longest common subsequence of the hunk's distinctive '+' lines and
 * the window [from, to) of the file. */
static int kept_in_order(size_t *out, const struct kb_lines *file, size_t from, size_t to,
			 const struct kb_line *const *adds, size_t nadds)
{
	size_t w = to - from, i, j, *row;

	*out = 0;
	if (!nadds || !w)
		return 0;
	row = calloc(w + 1, sizeof(*row));
	KB_ERROR_CHECK_ALLOC(row);
	for (i = 0; i < nadds; i++) {
		size_t diag = 0, up;
		for (j = 0; j < w; j++) {
			up = row[j + 1];
			row[j + 1] = kb_line_equal(&file->v[from + j], adds[i], true) ? diag + 1 :
				     up > row[j] ? up : row[j];
			diag = up;
		}
	}
	*out = row[w];
	free(row);
	return 0;
}

static bool in_window(const struct kb_lines *file, size_t from, size_t to, const struct kb_line *l)
{
	size_t j;

	for (j = from; j < to; j++)
		if (kb_line_equal(&file->v[j], l, true))
			return true;
	return false;
}

/* A line of the window that is `l` in a changed form, and not one of the
 * hunk's pre-image lines as they are (that is a removed line back). */
static bool changed_in_window(const struct kb_lines *file, size_t from, size_t to,
			      const struct kb_hunk *h, const struct kb_line *l)
{
	size_t j;

	for (j = from; j < to; j++)
		if (kb_line_changed_form(l, &file->v[j]) && !hunk_has(h, &file->v[j], 0))
			return true;
	return false;
}

/* A line that closes a C function or a top-level block: '}' at its start. */
static bool closes_block(const struct kb_slice *l)
{
	return l->len && l->ptr[0] == '}';
}

/*
 * Narrow [from, to) to the function the hunk's place [at, at + len) is in:
 * not above the '}' that closes the one before it, not below the '}' that
 * closes its own (a check the next function makes too is not this one's).
 */
static void function_bounds(size_t *from, size_t *to, const struct kb_lines *file, size_t at,
			    size_t len)
{
	size_t j;

	for (j = at; j > *from; j--)
		if (closes_block(&file->v[j - 1])) {
			*from = j;
			break;
		}
	for (j = at + len; j < *to; j++)
		if (closes_block(&file->v[j])) {
			*to = j + 1;
			break;
		}
}

/* How the hunk's own lines stand in the window around its place. */
static int trace(struct kb_hunk_witness *w, const struct kb_lines *file, const struct kb_hunk *h,
		 size_t at, size_t len)
{
	const struct kb_line **adds = NULL;
	size_t pad = WITNESS_PAD + h->nlines, from, to, i, n = 0;
	int err;

	from = at > pad ? at - pad : 0;
	to = at + len + pad < file->n ? at + len + pad : file->n;
	if (w->state == KB_TREE_POST) {
		/* a clean reverse fit holds every line it added, none it removed */
		for (i = 0; i < h->nlines; i++)
			if (h->lines[i].type != KB_LINE_CONTEXT && kb_hunk_line_distinctive(h, i)) {
				w->added += h->lines[i].type == KB_LINE_ADD;
				w->removed += h->lines[i].type == KB_LINE_DEL;
			}
		w->kept = w->kept_in_function = w->added;
		return 0;
	}
	adds = calloc(h->nlines + 1, sizeof(*adds));
	KB_ERROR_CHECK_ALLOC(adds);
	for (i = 0; i < h->nlines; i++) {
		const struct kb_line *l = &h->lines[i];
		if (l->type == KB_LINE_CONTEXT && significant(l)) {
			w->context++;
			w->context_here += in_window(file, from, to, l);
		}
		if (l->type == KB_LINE_CONTEXT || !kb_hunk_line_distinctive(h, i))
			continue;
		if (l->type == KB_LINE_DEL) {
			w->removed++;
			w->back += in_window(file, from, to, l);
			continue;
		}
		w->added++;
		if (n < WITNESS_MAX_LINES)
			adds[n++] = l;
		/* a changed form weighs only where neither image fits (set_fate()) */
		if (w->state == KB_TREE_NEITHER && !in_window(file, from, to, l) &&
		    changed_in_window(file, from, to, h, l))
			w->changed++;
	}
	err = kept_in_order(&w->kept, file, from, to, adds, n);
	if (!err && w->kept == w->added) {
		/* all there: but within the function the hunk is in? */
		function_bounds(&from, &to, file, at, len);
		err = kept_in_order(&w->kept_in_function, file, from, to, adds, n);
		for (i = from; n && i < to && !w->near_line; i++)
			if (kb_line_equal(&file->v[i], adds[0], true))
				w->near_line = i + 1;
	}
	free(adds);
	return err;
}

static void set_fate(struct kb_hunk_witness *w)
{
	size_t half = (w->added + 1) / 2;

	if (w->state == KB_TREE_POST)
		w->fate = KB_FATE_IN;
	else if (w->state == KB_TREE_PRE)
		/* every line it removes stands in place, and where it inserts
		 * nothing is: lines merely like its own near there (a table's
		 * other entries, a call made twice) prove nothing */
		w->fate = KB_FATE_GONE;
	else if (w->kept && w->kept + w->changed >= half)
		w->fate = KB_FATE_CHANGED;
	else if (w->added == 1 && w->changed == 1 && !w->back)
		w->fate = KB_FATE_CHANGED;	/* its one line, reworked */
	else if (!w->kept && (w->back || !w->removed))
		w->fate = KB_FATE_GONE;
	else
		w->fate = KB_FATE_LOST;
}

static size_t count_side(const struct kb_hunk *h, enum kb_line_type skip)
{
	size_t i, n = 0;

	for (i = 0; i < h->nlines; i++)
		n += h->lines[i].type != skip;
	return n;
}

/*
 * Neither image fits cleanly: where the hunk stands all the same, as fuzz,
 * anchors or block by block find it, its post-image first. Unplaced, the
 * place is where it was looked for.
 */
static int near_place(size_t *at, size_t *len, const struct kb_lines *file,
		      const struct kb_hunk *fh, const struct kb_hunk *rh, size_t want)
{
	struct kb_locate_opts o;
	struct kb_match m;
	int err, way;

	kb_locate_opts_init(&o);
	o.max_fuzz = 3;
	for (way = 0; way < 2; way++) {
		const struct kb_hunk *h = way ? fh : rh;
		err = kb_locate_hunk(&m, file, h, want, 0, &o);
		if (err == KB_ENOTFOUND || err == KB_EAMBIGUOUS)
			continue;
		if (err < 0)
			return err;
		*at = m.line >= m.trim_head ? m.line - m.trim_head : 0;
		*len = count_side(fh, way ? KB_LINE_ADD : KB_LINE_DEL);
		return 0;
	}
	return 0;
}

static int place_hunk(struct kb_hunk_witness *w, long *delta, const struct kb_lines *file,
		      const struct kb_hunk *fh, const struct kb_hunk *rh);

/* `fh` undone: '+' and '-' swapped, the sides exchanged (lines borrowed). */
static int reverse_hunk(struct kb_hunk *out, const struct kb_hunk *fh)
{
	size_t i;

	*out = *fh;
	out->old_start = fh->new_start;
	out->old_lines = fh->new_lines;
	out->new_start = fh->old_start;
	out->new_lines = fh->old_lines;
	out->lines = calloc(fh->nlines + 1, sizeof(*out->lines));
	KB_ERROR_CHECK_ALLOC(out->lines);
	for (i = 0; i < fh->nlines; i++) {
		out->lines[i] = fh->lines[i];
		if (fh->lines[i].type != KB_LINE_CONTEXT)
			out->lines[i].type = fh->lines[i].type == KB_LINE_ADD ? KB_LINE_DEL : KB_LINE_ADD;
	}
	return 0;
}

/* One hunk: a clean reverse fit, a clean forward fit, or where it was looked for. */
static int one_hunk(struct kb_hunk_witness *w, long *delta, const struct kb_lines *file,
		    const struct kb_hunk *fh)
{
	struct kb_hunk rev;
	int err;

	if ((err = reverse_hunk(&rev, fh)) < 0)
		return err;
	err = place_hunk(w, delta, file, fh, &rev);
	free(rev.lines);
	return err;
}

static int place_hunk(struct kb_hunk_witness *w, long *delta, const struct kb_lines *file,
		      const struct kb_hunk *fh, const struct kb_hunk *rh)
{
	struct kb_locate_opts o = { 0 };
	struct kb_match m;
	size_t own_pre = fh->old_start ? fh->old_start - 1 : 0;
	size_t own_post = fh->new_start ? fh->new_start - 1 : 0;
	long want;
	size_t at, len;
	int err;

	o.ignore_whitespace = true;
	want = (long)own_post + *delta;
	if ((err = kb_locate_hunk(&m, file, rh, want < 0 ? 0 : (size_t)want, 0, &o)) == 0) {
		w->state = KB_TREE_POST;
		at = m.line;
		w->offset = (long)at - (long)own_post;
		len = count_side(fh, KB_LINE_DEL);
	} else if (err != KB_ENOTFOUND && err != KB_EAMBIGUOUS) {
		return err;
	} else {
		want = (long)own_pre + *delta;
		err = kb_locate_hunk(&m, file, fh, want < 0 ? 0 : (size_t)want, 0, &o);
		if (err && err != KB_ENOTFOUND && err != KB_EAMBIGUOUS)
			return err;
		w->state = err ? KB_TREE_NEITHER : KB_TREE_PRE;
		at = err ? (want < 0 ? 0 : (size_t)want) : m.line;
		len = count_side(fh, KB_LINE_ADD);
		if (err && (err = near_place(&at, &len, file, fh, rh, at)) < 0)
			return err;
		if (at > file->n)
			at = file->n;
		w->offset = (long)at - (long)own_pre;
	}
	if (w->state != KB_TREE_NEITHER)
		*delta = w->offset;
	w->line = at + 1;
	w->span = at + len <= file->n ? len : file->n - at;
	if ((err = trace(w, file, fh, at, len)) < 0)
		return err;
	/* every line it added, in order, near its place, and none it removed
	 * back: in, a few lines from where the hunk expects it */
	if (w->state != KB_TREE_POST && w->added >= 2 && w->kept_in_function == w->added &&
	    !w->back) {
		w->state = KB_TREE_POST;
		w->near = true;
	}
	set_fate(w);
	return 0;
}

/* Where a hunk found in stands: the lines of its post-image, or the first
 * of its own lines found near its place. */
static size_t in_at(const struct kb_hunk_witness *w)
{
	return w->near ? w->near_line : w->line;
}

/*
 * Two hunks of a file never stand in one place: hunks alike (the same
 * check in two functions) that a search found at the same lines are both
 * not in as found; their lines are there, so they read as changed.
 */
static void one_place_each(struct kb_hunk_witness *v, size_t n)
{
	size_t i, k;
	bool *twice = calloc(n + 1, sizeof(*twice));

	if (!twice)
		return;		/* nothing found twice can be said: all stay as found */
	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++)
			if (v[i].state == KB_TREE_POST && v[k].state == KB_TREE_POST &&
			    in_at(&v[i]) == in_at(&v[k]))
				twice[i] = twice[k] = true;
	for (i = 0; i < n; i++)
		if (twice[i]) {
			v[i].state = KB_TREE_NEITHER;
			v[i].near = false;
			set_fate(&v[i]);
		}
	free(twice);
}

int kb_witness_file(struct kb_witness *out, struct kb_source *src,
		    const struct kb_file_patch *fp)
{
	return kb_witness_file_at(out, src, fp, NULL);
}

int kb_witness_file_at(struct kb_witness *out, struct kb_source *src,
		       const struct kb_file_patch *fp, const char *at)
{
	struct kb_lines file = KB_LINES_INIT;
	const char *path = at ? at : kb_file_patch_path(fp), *buf = NULL;
	size_t len = 0, h, first = out->n;
	long delta = 0;
	int err;

	if ((err = KB_ARRAY_GROW(out->v, out->alloc, out->n + fp->nhunks + 1)) < 0)
		return err;
	for (h = 0; h < fp->nhunks; h++)
		out->v[out->n++] = (struct kb_hunk_witness){ .path = path, .hunk = h + 1,
							      .state = KB_TREE_NO_FILE,
							      .fate = KB_FATE_LOST };
	if ((err = kb_source_read(&buf, &len, src, path)) == KB_ENOTFOUND ||
	    err == KB_EINVALID || !fp->nhunks) {
		kb_error_clear();
		return 0;
	}
	if (err < 0 || (err = kb_lines_split(&file, buf, len)) < 0)
		goto done;
	for (h = 0; h < fp->nhunks && !err; h++)
		err = one_hunk(&out->v[first + h], &delta, &file, &fp->hunks[h]);
	if (!err)
		one_place_each(out->v + first, fp->nhunks);
done:
	kb_lines_release(&file);
	return err;
}

int kb_witness_patch(struct kb_witness *out, struct kb_source *src, const struct kb_patch *fwd)
{
	size_t f;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (f = 0; f < fwd->nfiles && !err; f++)
		err = kb_witness_file(out, src, &fwd->files[f]);
	return err;
}

void kb_witness_release(struct kb_witness *w)
{
	if (!w)
		return;
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/* ---- fuzz as a witness ---- */

static bool ident_char(char c, bool first)
{
	return c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (!first && c >= '0' && c <= '9');
}

/* Words of C that name nothing of the fix's own. */
static bool common_word(const char *w, size_t n)
{
	static const char *const words[] = {
		"auto", "break", "case", "char", "const", "continue", "default", "define",
		"do", "double", "else", "endif", "enum", "extern", "float", "for", "goto",
		"if", "ifdef", "ifndef", "include", "inline", "int", "long", "register",
		"return", "short", "signed", "sizeof", "static", "struct", "switch",
		"typedef", "union", "unsigned", "void", "volatile", "while", "bool",
		"true", "false", "NULL", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
		"s64", "size_t", "err", "ret", "error", "out", "unlikely", "likely",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strlen(words[i]) == n && !memcmp(words[i], w, n))
			return true;
	return n < 3;
}

/* Does `text` hold the identifier w[0..n) as a whole word? */
static bool has_ident(const char *text, size_t len, const char *w, size_t n)
{
	size_t i;

	for (i = 0; i + n <= len; i++)
		if (!memcmp(text + i, w, n) && (i == 0 || !ident_char(text[i - 1], false)) &&
		    (i + n == len || !ident_char(text[i + n], false)))
			return true;
	return false;
}

/* A name of `l` that a '+' or '-' line of `h` names too, or NULL. */
static const char *shared_name(size_t *n, const struct kb_line *l, const struct kb_hunk *h)
{
	size_t i = 0, k, len;

	while (i < l->len) {
		if (!ident_char(l->text[i], true) || (i && ident_char(l->text[i - 1], false))) {
			i++;
			continue;
		}
		for (len = 1; i + len < l->len && ident_char(l->text[i + len], false); len++)
			;
		if (!common_word(l->text + i, len))
			for (k = 0; k < h->nlines; k++)
				if (h->lines[k].type != KB_LINE_CONTEXT &&
				    has_ident(h->lines[k].text, h->lines[k].len, l->text + i, len)) {
					*n = len;
					return l->text + i;
				}
		i += len;
	}
	return NULL;
}

static bool comment_or_blank(const struct kb_line *l)
{
	const char *p = l->text, *end = l->text + l->len;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == end || *p == '*' || (end - p >= 2 && p[0] == '/' && (p[1] == '*' || p[1] == '/'));
}

static int add_gap(struct kb_fuzz_gap **out, size_t *n, size_t *alloc, struct kb_fuzz_gap g)
{
	int err;

	if ((err = KB_ARRAY_GROW(*out, *alloc, *n + 1)) < 0)
		return err;
	(*out)[(*n)++] = g;
	return 0;
}

/* The gaps of one applied file. */
static int file_gaps(struct kb_fuzz_gap **out, size_t *n, size_t *alloc, struct kb_source *src,
		     const struct kb_file_result *fr, size_t f)
{
	struct kb_lines file = KB_LINES_INIT;
	const char *path = kb_file_patch_path(fr->used), *buf, *name;
	size_t len, h, i, nlen = 0;
	bool read = false;
	int err = 0;

	for (h = 0; h < fr->used->nhunks && !err; h++) {
		const struct kb_hunk_result *r = &fr->hunks[h];
		const struct kb_hunk *hk = &fr->used->hunks[h];
		if (r->status != KB_HUNK_APPLIED || !r->match.fuzz || r->match.anchor != KB_ANCHOR_NONE)
			continue;
		if (!read) {
			read = true;
			if ((err = kb_source_read(&buf, &len, src, path)) < 0 ||
			    (err = kb_lines_split(&file, buf, len)) < 0)
				break;
		}
		for (i = 0; i < hk->nlines && !err; i++) {
			const struct kb_line *l = &hk->lines[i];
			if ((i >= r->match.trim_head && i + r->match.trim_tail < hk->nlines) ||
			    l->type != KB_LINE_CONTEXT || comment_or_blank(l) || in_window(&file, 0, file.n, l) ||
			    !(name = shared_name(&nlen, l, hk)))
				continue;
			err = add_gap(out, n, alloc, (struct kb_fuzz_gap){ path, f, h, l, name, nlen });
		}
	}
	kb_lines_release(&file);
	return err;
}

int kb_fuzz_gaps(struct kb_fuzz_gap **out, size_t *n, struct kb_source *src,
		 const struct kb_apply *apply)
{
	size_t f, alloc = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	for (f = 0; f < apply->patch->nfiles && !err; f++) {
		const struct kb_file_result *fr = &apply->files[f];
		if (fr->hunks && fr->state == KB_FILE_APPLIES && !fr->merged)
			err = file_gaps(out, n, &alloc, src, fr, f);
	}
	if (err < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}
