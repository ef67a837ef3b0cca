/*
 * Where a hunk fits in a file, and applying it there.
 *
 * The search follows GNU patch: fuzz levels in order, each trying the
 * nearest position to the expected line first. Two GNU rules are kept:
 * only context lines are trimmed, and a hunk at the start of the file
 * whose leading context is shorter than its trailing context (the diff
 * ran out of lines above it) is anchored to line 0 rather than allowed to
 * match wherever its trailing context happens to recur. GNU's matching
 * rule for the end of the file is not applied: a hunk cannot tell how long
 * the file was, and hand-edited variants often have uneven context.
 *
 * Offsets are measured from where the untrimmed preimage would start, so a
 * fuzzed match in place has offset 0, and kb_file_apply() adds them up:
 * every hunk after a shifted one is expected to be shifted as much.
 */
#include "locate.h"
#include "buf.h"
#include "error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int nomem(void)
{
	return kb_error_set(KB_ENOMEM, "out of memory");
}

/* ---- lines ---- */

static int lines_reserve(struct kb_lines *lines, size_t need)
{
	size_t n = lines->alloc ? lines->alloc : 64;
	struct kb_slice *v;

	if (need <= lines->alloc)
		return 0;
	while (n < need)
		n *= 2;
	if (!(v = reallocarray(lines->v, n, sizeof(*v))))
		return nomem();
	lines->v = v;
	lines->alloc = n;
	return 0;
}

int kb_lines_split(struct kb_lines *out, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	int err;

	out->n = 0;
	out->no_final_newline = len > 0 && buf[len - 1] != '\n';
	if (!len)
		return 0;
	while (p < end) {
		if ((err = lines_reserve(out, out->n + 1)) < 0)
			return err;
		nl = memchr(p, '\n', (size_t)(end - p));
		out->v[out->n++] = (struct kb_slice){ p, (size_t)((nl ? nl : end) - p) };
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int kb_lines_join(char **out, size_t *len, const struct kb_lines *lines)
{
	size_t i, total = lines->n;
	char *p;

	*out = NULL;
	for (i = 0; i < lines->n; i++)
		total += lines->v[i].len;
	if (lines->n && lines->no_final_newline)
		total--;
	if (!(*out = p = malloc(total + 1)))
		return nomem();
	for (i = 0; i < lines->n; i++) {
		memcpy(p, lines->v[i].ptr, lines->v[i].len);
		p += lines->v[i].len;
		if (i + 1 < lines->n || !lines->no_final_newline)
			*p++ = '\n';
	}
	*p = '\0';
	*len = total;
	return 0;
}

void kb_lines_release(struct kb_lines *lines)
{
	free(lines->v);
	lines->v = NULL;
	lines->n = lines->alloc = 0;
	lines->no_final_newline = false;
}

void kb_locate_opts_init(struct kb_locate_opts *opts)
{
	opts->max_fuzz = 2;
	opts->ignore_whitespace = true;
}

/* ---- comparing lines ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void trim(const char **s, const char **end)
{
	while (*s < *end && is_blank(**s))
		(*s)++;
	while (*end > *s && is_blank((*end)[-1]))
		(*end)--;
}

/* Equal once trimmed and with runs of blanks read as one space. */
static bool ws_equal(const char *a, size_t alen, const char *b, size_t blen)
{
	const char *ae = a + alen, *be = b + blen;

	trim(&a, &ae);
	trim(&b, &be);
	while (a < ae && b < be) {
		if (is_blank(*a) && is_blank(*b)) {
			while (a < ae && is_blank(*a))
				a++;
			while (b < be && is_blank(*b))
				b++;
			continue;
		}
		if (*a++ != *b++)
			return false;
	}
	return a == ae && b == be;
}

static bool line_equal(const struct kb_slice *s, const struct kb_line *l, bool ws)
{
	if (ws)
		return ws_equal(s->ptr, s->len, l->text, l->len);
	return s->len == l->len && !memcmp(s->ptr, l->text, l->len);
}

/* ---- locating ---- */

/* The hunk lines [from, to) kept after trimming, and their preimage size. */
struct span {
	size_t from, to, npre;
	bool ws;
};

static size_t count_not(const struct kb_hunk *h, size_t from, size_t to,
			enum kb_line_type type)
{
	size_t n = 0;

	for (; from < to; from++)
		n += h->lines[from].type != type;
	return n;
}

static size_t count_pre(const struct kb_hunk *h, size_t from, size_t to)
{
	return count_not(h, from, to, KB_LINE_ADD);
}

static size_t count_post(const struct kb_hunk *h, size_t from, size_t to)
{
	return count_not(h, from, to, KB_LINE_DEL);
}

static size_t lead_context(const struct kb_hunk *h)
{
	size_t i = 0;

	while (i < h->nlines && h->lines[i].type == KB_LINE_CONTEXT)
		i++;
	return i;
}

static size_t trail_context(const struct kb_hunk *h)
{
	size_t i = 0;

	while (i < h->nlines && h->lines[h->nlines - 1 - i].type == KB_LINE_CONTEXT)
		i++;
	return i;
}

static bool match_at(const struct kb_lines *file, size_t at,
		     const struct kb_hunk *h, const struct span *sp)
{
	size_t i;

	for (i = sp->from; i < sp->to; i++)
		if (h->lines[i].type != KB_LINE_ADD &&
		    !line_equal(&file->v[at++], &h->lines[i], sp->ws))
			return false;
	return true;
}

/* Nearest match to `base` at or after `min_line`; earlier line on a tie. */
static bool search(size_t *found, const struct kb_lines *file,
		   const struct kb_hunk *h, const struct span *sp, size_t base,
		   size_t min_line, bool anchored)
{
	size_t last, d;
	bool lo, hi;

	if (sp->npre > file->n || min_line > file->n - sp->npre)
		return false;
	last = file->n - sp->npre;
	if (anchored)
		return base >= min_line && base <= last &&
		       match_at(file, base, h, sp) && (*found = base, true);
	base = base < min_line ? min_line : base > last ? last : base;
	for (d = 0;; d++) {
		lo = d <= base - min_line;
		hi = d > 0 && d <= last - base;
		if (!lo && !hi)
			return false;
		if (lo && match_at(file, base - d, h, sp)) {
			*found = base - d;
			return true;
		}
		if (hi && match_at(file, base + d, h, sp)) {
			*found = base + d;
			return true;
		}
	}
}

/* A hunk with no preimage at all creates a file: it fits an empty one. */
static int locate_in_empty(struct kb_match *out, const struct kb_lines *file,
			   size_t expected, size_t min_line)
{
	if (file->n || min_line)
		return KB_ENOTFOUND;
	out->offset = -(long)expected;
	return 0;
}

static bool try_fuzz(struct kb_match *out, const struct kb_lines *file,
		     const struct kb_hunk *h, size_t th, size_t tt,
		     size_t expected, size_t min_line, bool ignore_ws)
{
	struct span sp = { th, h->nlines - tt, 0, false };
	bool anchored = h->old_start <= 1 && lead_context(h) < trail_context(h);
	size_t base = anchored ? th : expected + th;
	int pass;

	if (th + tt >= h->nlines || !(sp.npre = count_pre(h, sp.from, sp.to)))
		return false;
	for (pass = 0; pass < (ignore_ws ? 2 : 1); pass++) {
		sp.ws = pass == 1;
		if (search(&out->line, file, h, &sp, base, min_line, anchored)) {
			out->offset = (long)out->line - (long)th - (long)expected;
			out->fuzz = (unsigned)(th > tt ? th : tt);
			out->trim_head = (unsigned)th;
			out->trim_tail = (unsigned)tt;
			out->whitespace = sp.ws;
			return true;
		}
	}
	return false;
}

int kb_locate_hunk(struct kb_match *out, const struct kb_lines *file,
		   const struct kb_hunk *hunk, size_t expected, size_t min_line,
		   const struct kb_locate_opts *opts)
{
	size_t lead = lead_context(hunk), trail = trail_context(hunk);
	size_t th, tt, prev_th = (size_t)-1, prev_tt = (size_t)-1;
	unsigned f;

	struct kb_locate_opts defaults;

	memset(out, 0, sizeof(*out));
	if (!opts) {
		kb_locate_opts_init(&defaults);
		opts = &defaults;
	}
	if (!count_pre(hunk, 0, hunk->nlines))
		return locate_in_empty(out, file, expected, min_line);
	for (f = 0; f <= opts->max_fuzz; f++) {
		th = f < lead ? f : lead;
		tt = f < trail ? f : trail;
		if (th == prev_th && tt == prev_tt)
			break;	/* no context left to drop */
		prev_th = th;
		prev_tt = tt;
		if (try_fuzz(out, file, hunk, th, tt, expected, min_line,
			     opts->ignore_whitespace))
			return 0;
	}
	memset(out, 0, sizeof(*out));
	return KB_ENOTFOUND;
}

/* ---- applying ---- */

static const struct kb_line *last_of(const struct kb_hunk *h, size_t from,
				     size_t to, enum kb_line_type skip)
{
	while (to > from)
		if (h->lines[--to].type != skip)
			return &h->lines[to];
	return NULL;
}

/*
 * The file's final newline changes only when the hunk reaches the end of
 * the file and its "\ No newline" markers differ between pre- and
 * postimage; otherwise the file keeps its own.
 */
static void update_final_newline(struct kb_lines *file, const struct kb_hunk *h,
				 size_t from, size_t to)
{
	const struct kb_line *pre = last_of(h, from, to, KB_LINE_ADD);
	const struct kb_line *post = last_of(h, from, to, KB_LINE_DEL);
	bool pre_nonl = pre && pre->no_newline, post_nonl = post && post->no_newline;

	if (pre_nonl != post_nonl)
		file->no_final_newline = post_nonl;
}

static void fill_postimage(struct kb_slice *post, const struct kb_lines *file,
			   const struct kb_hunk *h, const struct span *sp, size_t at)
{
	const struct kb_line *l;
	size_t i;

	for (i = sp->from; i < sp->to; i++) {
		l = &h->lines[i];
		if (l->type == KB_LINE_CONTEXT)
			*post++ = file->v[at];
		else if (l->type == KB_LINE_ADD)
			*post++ = (struct kb_slice){ l->text, l->len };
		at += l->type != KB_LINE_ADD;
	}
}

int kb_hunk_apply(struct kb_lines *file, const struct kb_hunk *hunk,
		  const struct kb_match *match, size_t *end)
{
	struct span sp = { match->trim_head, hunk->nlines - match->trim_tail, 0, false };
	struct kb_slice *post = NULL;
	size_t npost, tail, at = match->line;
	bool at_eof;
	int err = 0;

	if (sp.from > sp.to || sp.to > hunk->nlines || at > file->n ||
	    (sp.npre = count_pre(hunk, sp.from, sp.to)) > file->n - at)
		return kb_error_set(KB_ERROR, "hunk match is outside the file");
	npost = count_post(hunk, sp.from, sp.to);
	tail = file->n - at - sp.npre;
	at_eof = tail == 0 && match->trim_tail == 0;
	if (npost && !(post = malloc(npost * sizeof(*post)))) {
		err = nomem();
		goto done;
	}
	if ((err = lines_reserve(file, file->n - sp.npre + npost)) < 0)
		goto done;
	fill_postimage(post, file, hunk, &sp, at);
	if (tail)
		memmove(&file->v[at + npost], &file->v[at + sp.npre],
			tail * sizeof(*post));
	if (npost)
		memcpy(&file->v[at], post, npost * sizeof(*post));
	file->n = at + npost + tail;
	if (at_eof)
		update_final_newline(file, hunk, sp.from, sp.to);
	if (end)
		*end = at + npost;
done:
	free(post);
	return err;
}

/* ---- whitespace-insensitive text ---- */

static bool blank_line(const char *s, size_t len)
{
	const char *end = s + len;

	trim(&s, &end);
	return s == end;
}

/* Append the line trimmed, with each run of blanks as one space. */
static int put_normalised(struct kb_buf *b, const char *s, size_t len)
{
	const char *end = s + len;
	char *p;
	int err;

	trim(&s, &end);
	if ((err = kb_buf_grow(b, (size_t)(end - s))) < 0)
		return err;
	p = b->ptr + b->size;
	while (s < end) {
		if (is_blank(*s)) {
			*p++ = ' ';
			while (is_blank(*s))
				s++;
		} else
			*p++ = *s++;
	}
	b->size = (size_t)(p - b->ptr);
	b->ptr[b->size] = '\0';
	return 0;
}

/* Non-blank lines normalised and joined with '\n', no final '\n'. */
static int normalise_text(struct kb_buf *b, const char *s, size_t len)
{
	const char *end = s + len, *nl;
	size_t n;
	int err = 0;

	for (; s < end && !err; s = nl ? nl + 1 : end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		n = (size_t)((nl ? nl : end) - s);
		if (blank_line(s, n))
			continue;
		if (b->size && (err = kb_buf_putc(b, '\n')) < 0)
			break;
		err = put_normalised(b, s, n);
	}
	return err;
}

bool kb_text_contains(const char *haystack, size_t hlen,
		      const char *needle, size_t nlen)
{
	struct kb_buf h = KB_BUF_INIT, n = KB_BUF_INIT;
	bool found = false;

	if (normalise_text(&n, needle, nlen) < 0)
		goto done;
	if (!n.size) {
		found = true;
		goto done;
	}
	if (normalise_text(&h, haystack, hlen) < 0)
		goto done;
	found = h.size && memmem(h.ptr, h.size, n.ptr, n.size) != NULL;
done:
	kb_buf_release(&h);
	kb_buf_release(&n);
	return found;
}

static int push_block(char ***blocks, size_t *n, struct kb_buf *b)
{
	char **v, *s;

	if (!(s = kb_buf_detach(b)))
		return nomem();
	if (!(v = reallocarray(*blocks, *n + 1, sizeof(*v)))) {
		free(s);
		return nomem();
	}
	*blocks = v;
	v[(*n)++] = s;
	return 0;
}

int kb_hunk_added_blocks(char ***blocks, size_t *n, const struct kb_hunk *hunk)
{
	struct kb_buf b = KB_BUF_INIT;
	bool in_run = false;
	size_t i;
	int err = 0;

	for (i = 0; i <= hunk->nlines && !err; i++) {
		const struct kb_line *l = i < hunk->nlines ? &hunk->lines[i] : NULL;

		if (l && l->type == KB_LINE_ADD) {
			if (in_run)
				err = kb_buf_putc(&b, '\n');
			if (!err)
				err = kb_buf_put(&b, l->text, l->len);
			in_run = true;
		} else if (in_run) {
			err = push_block(blocks, n, &b);
			in_run = false;
		}
	}
	kb_buf_release(&b);
	return err;
}

/*
 * Is the hunk's postimage (context and '+' lines) already in the file?
 * Lines are compared normalised as kb_text_contains() does, blank lines
 * dropped, and as whole lines, so an applied hunk is recognised after
 * whitespace drift or a blank line lost on the way. Finding each block of
 * '+' lines somewhere is not enough: a block such as "}" or "break;" is in
 * almost every file, and calling a missing hunk present would drop a fix
 * silently.
 */
static int hunk_present(bool *present, const struct kb_lines *file,
			const struct kb_hunk *h)
{
	struct kb_buf hay = KB_BUF_INIT, needle = KB_BUF_INIT;
	size_t i;
	int err;

	*present = false;
	if ((err = kb_buf_putc(&hay, '\n')) < 0 || (err = kb_buf_putc(&needle, '\n')) < 0)
		goto done;
	for (i = 0; i < h->nlines && !err; i++)
		if (h->lines[i].type != KB_LINE_DEL &&
		    !blank_line(h->lines[i].text, h->lines[i].len) &&
		    (err = put_normalised(&needle, h->lines[i].text, h->lines[i].len)) == 0)
			err = kb_buf_putc(&needle, '\n');
	for (i = 0; i < file->n && !err && needle.size > 1; i++)
		if (!blank_line(file->v[i].ptr, file->v[i].len) &&
		    (err = put_normalised(&hay, file->v[i].ptr, file->v[i].len)) == 0)
			err = kb_buf_putc(&hay, '\n');
	if (!err && needle.size > 1)
		*present = memmem(hay.ptr, hay.size, needle.ptr, needle.size) != NULL;
done:
	kb_buf_release(&hay);
	kb_buf_release(&needle);
	return err;
}

/* ---- whole files ---- */

struct apply_state {
	long delta;		/* lines added - removed by earlier hunks */
	long offset;		/* where earlier hunks were found vs the patch */
	size_t min_line;	/* end of the previous applied hunk */
	size_t failed, first_failed;
};

/*
 * The postimage test comes between the unfuzzed and the fuzzed search: with
 * its outer context dropped, an applied hunk's preimage can match again
 * (short context around a pure addition) and the change would be doubled.
 */
static int apply_hunk(struct kb_lines *file, const struct kb_hunk *h,
		      struct kb_hunk_result *r, struct apply_state *st,
		      const struct kb_locate_opts *opts)
{
	/* headers may name any line: past every file, clamped so e cannot overflow */
	size_t start = h->old_start < LONG_MAX / 2 ? h->old_start : LONG_MAX / 2;
	long e = (long)start - 1 + st->delta + st->offset;
	size_t expected = e < 0 ? 0 : (size_t)e;
	struct kb_locate_opts nofuzz = *opts;
	bool found, present = false;
	int err;

	memset(r, 0, sizeof(*r));
	nofuzz.max_fuzz = 0;
	found = kb_locate_hunk(&r->match, file, h, expected, st->min_line, &nofuzz) == 0;
	if (!found && (err = hunk_present(&present, file, h)) < 0)
		return err;
	if (!found && !present && opts->max_fuzz)
		found = kb_locate_hunk(&r->match, file, h, expected, st->min_line, opts) == 0;
	r->status = found ? KB_HUNK_APPLIED : present ? KB_HUNK_PRESENT : KB_HUNK_FAILED;
	if (r->status == KB_HUNK_FAILED)
		return 0;
	/* a present hunk has moved the lines after it as an applied one does */
	st->delta += (long)h->new_lines - (long)h->old_lines;
	if (!found)
		return 0;
	st->offset += r->match.offset;
	return kb_hunk_apply(file, h, &r->match, &st->min_line);
}

static int conflict(const struct kb_file_patch *fp, const struct apply_state *st)
{
	const char *path = kb_file_patch_path(fp);

	if (st->failed == 1)
		return kb_error_set(KB_ECONFLICT, "hunk %zu of '%s' does not apply",
				    st->first_failed + 1, path);
	return kb_error_set(KB_ECONFLICT,
			    "hunk %zu of '%s' does not apply (%zu of %zu hunks failed)",
			    st->first_failed + 1, path, st->failed, fp->nhunks);
}

int kb_file_apply(char **out, size_t *outlen, struct kb_hunk_result *results,
		  const char *buf, size_t len, const struct kb_file_patch *fp,
		  const struct kb_locate_opts *opts)
{
	struct kb_lines file = KB_LINES_INIT;
	struct apply_state st = { 0, 0, 0, 0, 0 };
	struct kb_locate_opts defaults;
	size_t i;
	int err;

	*out = NULL;
	*outlen = 0;
	if (!opts) {
		kb_locate_opts_init(&defaults);
		opts = &defaults;
	}
	if ((err = kb_lines_split(&file, buf, len)) < 0)
		goto done;
	for (i = 0; i < fp->nhunks; i++) {
		if ((err = apply_hunk(&file, &fp->hunks[i], &results[i], &st, opts)) < 0)
			goto done;
		if (results[i].status == KB_HUNK_FAILED && !st.failed++)
			st.first_failed = i;
	}
	if (st.failed)
		err = conflict(fp, &st);
	else
		err = kb_lines_join(out, outlen, &file);
done:
	kb_lines_release(&file);
	return err;
}
