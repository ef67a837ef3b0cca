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

/*
 * A file whose every line ends in CRLF is matched as if it had LF endings
 * (patches are LF) and gets CRLF back when joined, added lines included.
 */
static void strip_crlf(struct kb_lines *lines)
{
	size_t i, terminated = lines->n - (lines->no_final_newline ? 1 : 0);

	for (i = 0; i < terminated; i++)
		if (!lines->v[i].len || lines->v[i].ptr[lines->v[i].len - 1] != '\r')
			return;
	if (!terminated)
		return;
	for (i = 0; i < terminated; i++)
		lines->v[i].len--;
	lines->crlf = true;
}

int kb_lines_split(struct kb_lines *out, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	int err;

	out->n = 0;
	out->crlf = false;
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
	strip_crlf(out);
	return 0;
}

int kb_lines_join(char **out, size_t *len, const struct kb_lines *lines)
{
	size_t i, eol = lines->crlf ? 2 : 1, total = 0;
	char *p;

	*out = NULL;
	for (i = 0; i < lines->n; i++)
		total += lines->v[i].len + eol;
	if (lines->n && lines->no_final_newline)
		total -= eol;
	if (!(*out = p = malloc(total + 1)))
		return nomem();
	for (i = 0; i < lines->n; i++) {
		memcpy(p, lines->v[i].ptr, lines->v[i].len);
		p += lines->v[i].len;
		if (i + 1 < lines->n || !lines->no_final_newline) {
			if (lines->crlf)
				*p++ = '\r';
			*p++ = '\n';
		}
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
	lines->crlf = false;
}

void kb_locate_opts_init(struct kb_locate_opts *opts)
{
	opts->max_fuzz = 2;
	opts->ignore_whitespace = true;
	opts->anchor = true;
	opts->block = false;
}

/* ---- comparing lines ---- */

/* '\r' too: a CRLF line reads like its LF twin (kb_text_contains, when:) */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
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

static bool blank_line(const char *s, size_t len);

/*
 * How many file lines from `at` the span's preimage covers, or 0 when it
 * does not fit there. Exact: line for line. Whitespace-insensitive (sp->ws):
 * lines compared as ws_equal() does, and blank lines on either side may be
 * skipped, so a vendor copy that lost or gained a blank line still fits.
 */
static size_t fit_at(const struct kb_lines *file, size_t at,
		     const struct kb_hunk *h, const struct span *sp)
{
	size_t i = sp->from, j = at;
	bool hb, fb;

	if (!sp->ws) {
		if (sp->npre > file->n || at > file->n - sp->npre)
			return 0;
		for (; i < sp->to; i++)
			if (h->lines[i].type != KB_LINE_ADD &&
			    !line_equal(&file->v[j++], &h->lines[i], false))
				return 0;
		return sp->npre;
	}
	for (;;) {
		while (i < sp->to && h->lines[i].type == KB_LINE_ADD)
			i++;
		if (i == sp->to)
			break;
		hb = blank_line(h->lines[i].text, h->lines[i].len);
		fb = j < file->n && blank_line(file->v[j].ptr, file->v[j].len);
		if (j >= file->n && !hb)
			return 0;
		if (hb || fb) {
			if (fb && !hb && j == at)
				return 0;	/* never start on a skipped line */
			i += hb;
			j += fb;
			continue;
		}
		if (!line_equal(&file->v[j], &h->lines[i], true))
			return 0;
		i++;
		j++;
	}
	return j - at;
}

static bool match_at(const struct kb_lines *file, size_t at,
		     const struct kb_hunk *h, const struct span *sp)
{
	return fit_at(file, at, h, sp) > 0;
}

/* The last line a match may start at; false when none can. */
static bool last_start(size_t *last, const struct kb_lines *file, const struct span *sp,
		       size_t min_line)
{
	size_t need = sp->ws ? 1 : sp->npre;

	if (need > file->n || min_line > file->n - need)
		return false;
	*last = file->n - need;
	return true;
}

/* Nearest match to `base` at or after `min_line`; earlier line on a tie. */
static bool search(size_t *found, const struct kb_lines *file,
		   const struct kb_hunk *h, const struct span *sp, size_t base,
		   size_t min_line, bool anchored)
{
	size_t last, d;
	bool lo, hi;

	if (!last_start(&last, file, sp, min_line))
		return false;
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

/*
 * Up to two places at or after `min_line` where the span fits, the first
 * in *first and a second in *second. Returns how many (0, 1 or 2).
 */
static size_t find_two(size_t *first, size_t *second, const struct kb_lines *file,
		       const struct kb_hunk *h, const struct span *sp, size_t min_line)
{
	size_t at, last, n = 0, prev_end = (size_t)-1;

	if (!last_start(&last, file, sp, min_line))
		return 0;
	for (at = min_line; at <= last && n < 2; at++) {
		size_t used = fit_at(file, at, h, sp);
		/* a blank line skipped or not is still the same place */
		if (!used || at + used == prev_end)
			continue;
		prev_end = at + used;
		*(n++ ? second : first) = at;
	}
	return n;
}

static void set_match(struct kb_match *out, size_t line, size_t th, size_t tt,
		      size_t expected, bool ws)
{
	out->line = line;
	out->offset = (long)line - (long)th - (long)expected;
	out->fuzz = (unsigned)(th > tt ? th : tt);
	out->trim_head = (unsigned)th;
	out->trim_tail = (unsigned)tt;
	out->whitespace = ws;
}

/*
 * With context dropped, the kept lines may fit elsewhere too: a place
 * found by fuzz counts only when it is the one place they fit, compared
 * whitespace-insensitively. Returns 0 or KB_EAMBIGUOUS.
 */
static int check_unique(struct kb_match *out, const struct kb_lines *file,
			const struct kb_hunk *h, struct span sp, size_t min_line)
{
	size_t first = 0, second = 0;

	if (!out->fuzz)
		return 0;
	sp.ws = true;
	if (find_two(&first, &second, file, h, &sp, min_line) < 2)
		return 0;
	out->other_line = first == out->line ? second : first;
	return KB_EAMBIGUOUS;
}

/* Returns 0 when found, KB_ENOTFOUND or KB_EAMBIGUOUS. */
static int try_fuzz(struct kb_match *out, const struct kb_lines *file,
		    const struct kb_hunk *h, size_t th, size_t tt,
		    size_t expected, size_t min_line, bool ignore_ws)
{
	struct span sp = { th, h->nlines - tt, 0, false };
	bool anchored = h->old_start <= 1 && lead_context(h) < trail_context(h);
	size_t base = anchored ? th : expected + th, line;
	int pass;

	if (th + tt >= h->nlines || !(sp.npre = count_pre(h, sp.from, sp.to)))
		return KB_ENOTFOUND;
	/* fuzz keeps some context: a change found by its own lines alone is
	 * the stricter block rule's to judge */
	if (th + tt && th + tt == lead_context(h) + trail_context(h))
		return KB_ENOTFOUND;
	for (pass = 0; pass < (ignore_ws ? 2 : 1); pass++) {
		sp.ws = pass == 1;
		if (search(&line, file, h, &sp, base, min_line, anchored)) {
			set_match(out, line, th, tt, expected, sp.ws);
			return check_unique(out, file, h, sp, min_line);
		}
	}
	return KB_ENOTFOUND;
}

static size_t count_nonblank(const struct kb_hunk *h, size_t from, size_t to);

/* Where one side's context alone fits: 0, 1 or 2 (= more than one) places. */
static size_t anchor_side(size_t *line, size_t *other, const struct kb_lines *file,
			  const struct kb_hunk *h, const struct span *sp,
			  size_t ctx_from, size_t ctx_to, size_t min_line)
{
	if (count_nonblank(h, ctx_from, ctx_to) < 2)
		return 0;
	return find_two(line, other, file, h, sp, min_line);
}

static bool pure_insertion(const struct kb_hunk *h)
{
	return count_not(h, 0, h->nlines, KB_LINE_DEL) == h->nlines &&
	       count_not(h, 0, h->nlines, KB_LINE_ADD) < h->nlines;
}

/*
 * An insertion whose context no longer fits as a whole: hang it on the
 * side whose context fits exactly one place. Both sides fitting one place
 * each (not adjacent, or fuzz 0 would have found them) disagree: refused.
 */
static int try_anchor(struct kb_match *out, const struct kb_lines *file,
		      const struct kb_hunk *h, size_t expected, size_t min_line)
{
	size_t lead = lead_context(h), trail = trail_context(h);
	struct span ls = { 0, h->nlines - trail, lead, true };
	struct span ts = { lead, h->nlines, trail, true };
	size_t l1 = 0, l2 = 0, t1 = 0, t2 = 0, nl, nt;

	if (!pure_insertion(h))
		return KB_ENOTFOUND;
	nl = anchor_side(&l1, &l2, file, h, &ls, 0, lead, min_line);
	nt = anchor_side(&t1, &t2, file, h, &ts, h->nlines - trail, h->nlines, min_line);
	/* a side found nowhere means the tree lacks what the patch expects
	 * next to its change (a missing prerequisite): no anchor then */
	if (!nl || !nt)
		return KB_ENOTFOUND;
	if (nl == 1 && nt == 1) {
		/* the side that also meets the file's start or end is the surer */
		bool lead_bof = l1 == 0, trail_eof = t1 + fit_at(file, t1, h, &ts) == file->n;
		if (lead_bof != trail_eof) {
			nl = lead_bof;
			nt = trail_eof;
		} else {
			set_match(out, l1, 0, trail, expected, true);
			out->other_line = t1;
			return KB_EAMBIGUOUS;
		}
	}
	if (nl == 1 || nt == 1) {
		if (nl == 1)
			set_match(out, l1, 0, trail, expected, false);
		else
			set_match(out, t1, lead, 0, expected, false);
		out->anchor = nl == 1 ? KB_ANCHOR_LEAD : KB_ANCHOR_TRAIL;
		ls.ws = ts.ws = false;
		out->whitespace = !match_at(file, out->line, h, nl == 1 ? &ls : &ts);
		return 0;
	}
	if (nl > 1 || nt > 1) {
		set_match(out, nl > 1 ? l1 : t1, 0, 0, expected, true);
		out->other_line = nl > 1 ? l2 : t2;
		return KB_EAMBIGUOUS;
	}
	return KB_ENOTFOUND;
}

/* A deletion found by the lines it deletes, when they occur exactly once. */
static int try_block(struct kb_match *out, const struct kb_lines *file,
		     const struct kb_hunk *h, size_t expected, size_t min_line)
{
	size_t lead = lead_context(h), trail = trail_context(h), first = 0, second = 0, n;
	struct span sp = { lead, h->nlines - trail, 0, true };

	if (count_not(h, 0, h->nlines, KB_LINE_ADD) != h->nlines ||
	    count_nonblank(h, lead, h->nlines - trail) < 2)
		return KB_ENOTFOUND;
	sp.npre = count_pre(h, sp.from, sp.to);
	n = find_two(&first, &second, file, h, &sp, min_line);
	if (!n)
		return KB_ENOTFOUND;
	set_match(out, first, lead, trail, expected, true);
	out->anchor = KB_ANCHOR_BLOCK;
	if (n == 1)
		return 0;
	out->other_line = second;
	return KB_EAMBIGUOUS;
}

int kb_locate_hunk(struct kb_match *out, const struct kb_lines *file,
		   const struct kb_hunk *hunk, size_t expected, size_t min_line,
		   const struct kb_locate_opts *opts)
{
	size_t lead = lead_context(hunk), trail = trail_context(hunk);
	size_t th, tt, prev_th = (size_t)-1, prev_tt = (size_t)-1;
	struct kb_locate_opts defaults;
	unsigned f;
	int err = KB_ENOTFOUND;

	memset(out, 0, sizeof(*out));
	if (!opts) {
		kb_locate_opts_init(&defaults);
		opts = &defaults;
	}
	if (!count_pre(hunk, 0, hunk->nlines))
		return locate_in_empty(out, file, expected, min_line);
	for (f = 0; f <= opts->max_fuzz && err == KB_ENOTFOUND; f++) {
		th = f < lead ? f : lead;
		tt = f < trail ? f : trail;
		if (th == prev_th && tt == prev_tt)
			break;	/* no context left to drop */
		prev_th = th;
		prev_tt = tt;
		err = try_fuzz(out, file, hunk, th, tt, expected, min_line,
			       opts->ignore_whitespace);
	}
	if (err == KB_ENOTFOUND && opts->anchor)
		err = try_anchor(out, file, hunk, expected, min_line);
	if (err == KB_ENOTFOUND && opts->block)
		err = try_block(out, file, hunk, expected, min_line);
	if (err == KB_ENOTFOUND)
		memset(out, 0, sizeof(*out));
	return err;
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

/*
 * The postimage of the matched region, walking hunk and file together as
 * fit_at() does: context lines keep the file's text, '-' lines drop theirs,
 * '+' lines come from the patch, and blank lines that only one side has
 * are kept when the file has them. Returns how many slices were written.
 */
static size_t fill_postimage(struct kb_slice *post, const struct kb_lines *file,
			     const struct kb_hunk *h, const struct span *sp,
			     size_t at, size_t end)
{
	struct kb_slice *p = post;
	size_t i = sp->from, j = at;
	bool hb, fb;

	while (i < sp->to || j < end) {
		const struct kb_line *l = i < sp->to ? &h->lines[i] : NULL;
		if (l && l->type == KB_LINE_ADD) {
			*p++ = (struct kb_slice){ l->text, l->len };
			i++;
			continue;
		}
		hb = l && blank_line(l->text, l->len);
		fb = j < end && blank_line(file->v[j].ptr, file->v[j].len);
		if (!l || j == end || (sp->ws && hb != fb && (hb || fb))) {
			/* a line only one side has */
			if (l && (j == end || hb)) {
				i++;
			} else {
				*p++ = file->v[j++];
			}
			continue;
		}
		if (l->type == KB_LINE_CONTEXT)
			*p++ = file->v[j];
		i++;
		j++;
	}
	return (size_t)(p - post);
}

int kb_hunk_apply(struct kb_lines *file, const struct kb_hunk *hunk,
		  const struct kb_match *match, size_t *end)
{
	struct span sp = { match->trim_head, hunk->nlines - match->trim_tail, 0,
			   match->whitespace };
	struct kb_slice *post = NULL;
	size_t npost, nfile, tail, at = match->line;
	bool at_eof;
	int err = 0;

	if (sp.from > sp.to || sp.to > hunk->nlines || at > file->n)
		return kb_error_set(KB_ERROR, "hunk match is outside the file");
	sp.npre = count_pre(hunk, sp.from, sp.to);
	if (!(nfile = fit_at(file, at, hunk, &sp)) && sp.npre)
		return kb_error_set(KB_ERROR, "hunk match is outside the file");
	tail = file->n - at - nfile;
	at_eof = tail == 0 && match->trim_tail == 0;
	if (!(post = malloc((hunk->nlines + nfile + 1) * sizeof(*post)))) {
		err = nomem();
		goto done;
	}
	npost = fill_postimage(post, file, hunk, &sp, at, at + nfile);
	if ((err = lines_reserve(file, file->n - nfile + npost)) < 0)
		goto done;
	if (tail)
		memmove(&file->v[at + npost], &file->v[at + nfile], tail * sizeof(*post));
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

static size_t count_nonblank(const struct kb_hunk *h, size_t from, size_t to)
{
	size_t n = 0;

	for (; from < to; from++)
		n += !blank_line(h->lines[from].text, h->lines[from].len);
	return n;
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

/* ---- whole files ---- */

struct region {
	size_t from, to;	/* lines [from, to) an applied hunk wrote */
};

struct apply_state {
	long delta;		/* lines added - removed by earlier hunks */
	long offset;		/* where earlier hunks were found vs the patch */
	size_t min_line;	/* end of the previous applied hunk */
	size_t failed, first_failed;
	struct region *done;	/* what the applied hunks wrote */
	size_t ndone;
};

static bool overlaps(const struct apply_state *st, size_t from, size_t to)
{
	size_t i;

	for (i = 0; i < st->ndone; i++)
		if (from < st->done[i].to && st->done[i].from < to)
			return true;
	return false;
}

/* Remember [at, end) and move the regions after `at` by `shift` lines. */
static int add_region(struct apply_state *st, size_t at, size_t end, long shift)
{
	struct region *v;
	size_t i;

	for (i = 0; i < st->ndone; i++)
		if (st->done[i].from >= at) {
			st->done[i].from = (size_t)((long)st->done[i].from + shift);
			st->done[i].to = (size_t)((long)st->done[i].to + shift);
		}
	if (!(v = reallocarray(st->done, st->ndone + 1, sizeof(*v))))
		return nomem();
	st->done = v;
	v[st->ndone++] = (struct region){ at, end };
	return 0;
}

/*
 * A hunk not found after the previous one may still be in place before
 * it, when a vendor reordered the functions: looked for without fuzz, and
 * only where no earlier hunk wrote.
 */
static int locate_before(struct kb_match *m, const struct kb_lines *file,
			 const struct kb_hunk *h, size_t expected,
			 const struct apply_state *st, const struct kb_locate_opts *opts)
{
	struct kb_locate_opts exact = *opts;
	struct span sp;
	size_t nfile;

	if (!st->min_line)
		return KB_ENOTFOUND;
	exact.max_fuzz = 0;
	exact.anchor = exact.block = false;
	if (kb_locate_hunk(m, file, h, expected, 0, &exact) < 0)
		return KB_ENOTFOUND;
	sp = (struct span){ 0, h->nlines, count_pre(h, 0, h->nlines), m->whitespace };
	nfile = fit_at(file, m->line, h, &sp);
	if (m->line >= st->min_line || overlaps(st, m->line, m->line + (nfile ? nfile : 1)))
		return KB_ENOTFOUND;
	return 0;
}

static int apply_hunk(struct kb_lines *file, const struct kb_hunk *h,
		      struct kb_hunk_result *r, struct apply_state *st,
		      const struct kb_locate_opts *opts)
{
	/* headers may name any line: past every file, clamped so e cannot overflow */
	size_t start = h->old_start < LONG_MAX / 2 ? h->old_start : LONG_MAX / 2;
	long e = (long)start - 1 + st->delta + st->offset;
	size_t expected = e < 0 ? 0 : (size_t)e, before = file->n, end;
	bool in_order = true;
	int err;

	memset(r, 0, sizeof(*r));
	err = kb_locate_hunk(&r->match, file, h, expected, st->min_line, opts);
	if (err == KB_ENOTFOUND && locate_before(&r->match, file, h, expected, st, opts) == 0) {
		err = 0;
		in_order = false;
	}
	r->status = !err ? KB_HUNK_APPLIED : err == KB_EAMBIGUOUS ?
		    KB_HUNK_AMBIGUOUS : KB_HUNK_FAILED;
	if (err)
		return 0;
	st->delta += (long)h->new_lines - (long)h->old_lines;
	if ((err = kb_hunk_apply(file, h, &r->match, &end)) < 0 ||
	    (err = add_region(st, r->match.line, end, (long)file->n - (long)before)) < 0)
		return err;
	if (in_order) {
		st->offset += r->match.offset;
		st->min_line = end;
	} else {
		st->min_line = (size_t)((long)st->min_line + (long)file->n - (long)before);
	}
	return 0;
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
	struct apply_state st = { 0, 0, 0, 0, 0, NULL, 0 };
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
		if (results[i].status != KB_HUNK_APPLIED && !st.failed++)
			st.first_failed = i;
	}
	if (st.failed)
		err = conflict(fp, &st);
	else
		err = kb_lines_join(out, outlen, &file);
done:
	kb_lines_release(&file);
	free(st.done);
	return err;
}

/* ---- applied, or already in? ---- */

static unsigned hunk_cost(const struct kb_hunk_result *r, const struct kb_locate_opts *opts)
{
	/* beyond every fuzz level; an insertion hung on one side counts more
	 * than finding the very lines it would insert (a second copy is wrong) */
	unsigned fuzz = r->match.anchor == KB_ANCHOR_BLOCK ? opts->max_fuzz + 1 :
			r->match.anchor ? opts->max_fuzz + 2 : r->match.fuzz;

	return fuzz * 2 + r->match.whitespace;
}

static unsigned pass_cost(const struct kb_hunk_result *r, size_t n,
			  const struct kb_locate_opts *opts)
{
	unsigned cost = 0;
	size_t i;

	for (i = 0; i < n; i++)
		cost += hunk_cost(&r[i], opts);
	return cost;
}

/*
 * Each hunk alone: in (its reverse fits, more cheaply than the hunk
 * itself if that fits too), missing (only the hunk fits, or it fits more
 * cheaply), ambiguous (both fit equally well) or failed. The per-hunk view
 * goes to `hunks`; counts to `n`.
 */
/*
 * Both ways fit equally well, at one place: the hunk's lines already
 * stand where it would put them (an insertion with no context after it,
 * at the end of a file, fits again right after its context). It is in.
 */
static bool same_place(const struct kb_hunk_result *f, const struct kb_hunk_result *r,
		       const struct kb_hunk *h)
{
	size_t fl = f->match.line - f->match.trim_head, rl = r->match.line - r->match.trim_head;

	return fl >= rl && fl <= rl + h->new_lines;
}

static void classify(struct kb_hunk_result *hunks, size_t count[4],
		     const struct kb_hunk_result *f, const struct kb_hunk_result *r,
		     const struct kb_file_patch *fp, const struct kb_locate_opts *opts)
{
	size_t i, n = fp->nhunks;
	bool fok, rok;

	for (i = 0; i < n; i++) {
		fok = f[i].status == KB_HUNK_APPLIED;
		rok = r[i].status == KB_HUNK_APPLIED;
		if (rok && (!fok || hunk_cost(&r[i], opts) < hunk_cost(&f[i], opts) ||
			    (hunk_cost(&r[i], opts) == hunk_cost(&f[i], opts) &&
			     same_place(&f[i], &r[i], &fp->hunks[i])))) {
			hunks[i] = r[i];
			hunks[i].status = KB_HUNK_PRESENT;
		} else if (fok && (!rok || hunk_cost(&f[i], opts) < hunk_cost(&r[i], opts))) {
			hunks[i] = f[i];
		} else {
			hunks[i] = f[i];
			if (fok)
				hunks[i].status = KB_HUNK_AMBIGUOUS;
		}
		count[hunks[i].status]++;
	}
}

static void take(struct kb_hunk_result *hunks, const struct kb_hunk_result *from,
		 size_t n, enum kb_hunk_status status)
{
	size_t i;

	for (i = 0; i < n; i++) {
		hunks[i] = from[i];
		hunks[i].status = status;
	}
}

int kb_file_decide(struct kb_file_decision *out, struct kb_hunk_result *hunks,
		   const char *buf, size_t len, const struct kb_file_patch *fwd,
		   const struct kb_file_patch *rev, const struct kb_locate_opts *opts)
{
	struct kb_hunk_result *f = NULL, *r = NULL;
	struct kb_locate_opts defaults, ropts;
	size_t n = fwd->nhunks, count[4] = { 0 };
	int ferr, rerr, err = 0;

	memset(out, 0, sizeof(*out));
	if (!opts) {
		kb_locate_opts_init(&defaults);
		opts = &defaults;
	}
	if (rev->nhunks != n)
		return kb_error_set(KB_ERROR, "'%s': the reverse patch does not match",
				    kb_file_patch_path(fwd));
	if (!(f = calloc(n ? n : 1, sizeof(*f))) || !(r = calloc(n ? n : 1, sizeof(*r)))) {
		err = nomem();
		goto done;
	}
	/* the reverse pass looks for the change itself: a deletion may be found
	 * by its lines alone, but an insertion hung on one side's context says
	 * only that some lines are missing, which is no evidence */
	ropts = *opts;
	ropts.anchor = false;
	ropts.block = true;
	ferr = kb_file_apply(&out->out, &out->outlen, f, buf, len, fwd, opts);
	rerr = kb_file_apply(&out->undo, &out->undolen, r, buf, len, rev, &ropts);
	if ((ferr < 0 && ferr != KB_ECONFLICT) || (rerr < 0 && rerr != KB_ECONFLICT)) {
		err = ferr < 0 && ferr != KB_ECONFLICT ? ferr : rerr;
		goto done;
	}
	kb_error_clear();
	classify(hunks, count, f, r, fwd, opts);
	if (!rerr && !count[KB_HUNK_APPLIED] && !count[KB_HUNK_FAILED] && count[KB_HUNK_PRESENT]) {
		out->state = KB_FILE_PRESENT;
		out->cost = pass_cost(r, n, opts);
		take(hunks, r, n, KB_HUNK_PRESENT);
	} else if (!ferr && !count[KB_HUNK_PRESENT] && !count[KB_HUNK_FAILED] &&
		   count[KB_HUNK_APPLIED]) {
		out->state = KB_FILE_APPLIES;
		out->cost = pass_cost(f, n, opts);
		take(hunks, f, n, KB_HUNK_APPLIED);
	} else if (!ferr && count[KB_HUNK_AMBIGUOUS] == n) {
		out->state = KB_FILE_AMBIGUOUS;
	} else if (count[KB_HUNK_PRESENT] && count[KB_HUNK_APPLIED] &&
		   count[KB_HUNK_PRESENT] + count[KB_HUNK_APPLIED] == n) {
		out->state = KB_FILE_PARTIAL;
	} else {
		out->state = KB_FILE_FAILED;
	}
	if (out->state != KB_FILE_APPLIES) {
		free(out->out);
		out->out = NULL;
		out->outlen = 0;
	}
	if (out->state != KB_FILE_PRESENT) {
		free(out->undo);
		out->undo = NULL;
		out->undolen = 0;
	}
done:
	free(f);
	free(r);
	if (err < 0)
		kb_file_decision_release(out);
	return err;
}

void kb_file_decision_release(struct kb_file_decision *d)
{
	free(d->out);
	free(d->undo);
	memset(d, 0, sizeof(*d));
}
