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
 * every hunk after a shifted one is expected to be shifted as much. git
 * apply carries no offset: it looks for each hunk nearest its own line.
 * kb_file_apply() places every hunk both ways and calls two different
 * places ambiguous, so that a clean git apply is matched byte for byte.
 */
#include "apply/locate.h"
#include "apply/locate_priv.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- lines ---- */

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
		if ((err = KB_ARRAY_GROW(out->v, out->alloc, out->n + 1)) < 0)
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
	KB_ERROR_CHECK_ALLOC(*out = p = malloc(total + 1));
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
	opts->blocks = true;
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

bool kb_line_equal(const struct kb_slice *s, const struct kb_line *l, bool ws)
{
	return line_equal(s, l, ws);
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

/* Nearest match to `base` at or after `min_line`; on a tie the later line,
 * as git apply and GNU patch take it. */
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
		if (hi && match_at(file, base + d, h, sp)) {
			*found = base + d;
			return true;
		}
		if (lo && match_at(file, base - d, h, sp)) {
			*found = base - d;
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

/* Placed by a rule other than fuzz: the lines it leaves out are no fuzz,
 * which never goes beyond max_fuzz; `anchor` names the rule. */
static void set_rule(struct kb_match *out, enum kb_anchor anchor)
{
	out->anchor = anchor;
	out->fuzz = 0;
}

/* Where a place found for lines [from, ...) of the hunk has its first line. */
static size_t whole_start(size_t at, size_t from)
{
	return at > from ? at - from : 0;
}

static int ambiguous(struct kb_match *out, enum kb_ambiguity why, size_t other)
{
	out->ambiguity = why;
	out->other_line = other;
	return KB_EAMBIGUOUS;
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
	return ambiguous(out, KB_AMBIG_TWICE,
			 whole_start(first == out->line ? second : first, sp.from));
}

/* ---- a context line dropped by fuzz, changed ---- */

/* Lines longer than this are compared by their first bytes only. */
#define SIMILAR_MAX 240

/* `s` trimmed, each run of blanks as one space, at most SIMILAR_MAX bytes. */
static size_t squeeze(char *out, const char *s, size_t len)
{
	const char *end = s + len;
	size_t n = 0;

	trim(&s, &end);
	while (s < end && n < SIMILAR_MAX) {
		if (is_blank(*s)) {
			out[n++] = ' ';
			while (s < end && is_blank(*s))
				s++;
		} else {
			out[n++] = *s++;
		}
	}
	return n;
}

static size_t lcs(const char *a, size_t na, const char *b, size_t nb)
{
	unsigned short row[SIMILAR_MAX + 1] = { 0 }, diag, up;
	size_t i, j;

	for (i = 0; i < na; i++)
		for (j = 0, diag = 0; j < nb; j++) {
			up = row[j + 1];
			row[j + 1] = a[i] == b[j] ? diag + 1 :
				     up > row[j] ? up : row[j];
			diag = up;
		}
	return row[nb];
}

static bool has_word(const char *s, size_t n)
{
	for (; n; n--, s++)
		if ((*s >= '0' && *s <= '9') || ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z') || *s == '_')
			return true;
	return false;
}

/*
 * The same line in a changed form: not equal, but most of it in common
 * (a call renamed, an argument added), and words in both, so that braces
 * and blank lines never count.
 */
static bool changed_form(const struct kb_line *l, const struct kb_slice *f)
{
	char a[SIMILAR_MAX], b[SIMILAR_MAX];
	size_t na = squeeze(a, l->text, l->len), nb = squeeze(b, f->ptr, f->len);

	if (!has_word(a, na) || !has_word(b, nb) || (na == nb && !memcmp(a, b, na)))
		return false;
	return 10 * 2 * lcs(a, na, b, nb) >= 6 * (na + nb);
}

bool kb_line_changed_form(const struct kb_line *l, const struct kb_slice *f)
{
	return changed_form(l, f);
}

static bool check_changed(struct kb_match *out, const struct kb_lines *file,
			  const struct kb_hunk *h, size_t i, size_t at)
{
	if (at >= file->n || !changed_form(&h->lines[i], &file->v[at]))
		return false;
	out->changed = true;
	out->changed_hunk_line = i;
	out->changed_file_line = at;
	return true;
}

/*
 * Fuzz dropped context lines; where they would stand, does the file hold
 * one of them changed? That is evidence (a change the fix builds on may
 * be missing), not noise: the line nearest the change is noted.
 */
static void note_changed(struct kb_match *out, const struct kb_lines *file,
			 const struct kb_hunk *h, const struct span *sp)
{
	size_t k, end = out->line + fit_at(file, out->line, h, sp);

	for (k = sp->from; k-- > 0;)
		if (out->line >= sp->from - k &&
		    check_changed(out, file, h, k, out->line - (sp->from - k)))
			return;
	for (k = sp->to; k < h->nlines; k++)
		if (check_changed(out, file, h, k, end + (k - sp->to)))
			return;
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
			if (th + tt)
				note_changed(out, file, h, &sp);
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

/* Hung on the leading (lead_side) or the trailing context, found at `at`. */
static void set_anchor(struct kb_match *out, const struct kb_lines *file,
		       const struct kb_hunk *h, bool lead_side, size_t at, size_t expected)
{
	size_t lead = lead_context(h), trail = trail_context(h);
	struct span sp = { lead_side ? 0 : lead, lead_side ? h->nlines - trail : h->nlines,
			   lead_side ? lead : trail, false };

	if (lead_side)
		set_match(out, at, 0, trail, expected, false);
	else
		set_match(out, at, lead, 0, expected, false);
	set_rule(out, lead_side ? KB_ANCHOR_LEAD : KB_ANCHOR_TRAIL);
	out->whitespace = !match_at(file, at, h, &sp);
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
		if (lead_bof == trail_eof) {
			set_anchor(out, file, h, true, l1, expected);
			return ambiguous(out, KB_AMBIG_SIDES, whole_start(t1, lead));
		}
		nl = lead_bof;
		nt = trail_eof;
	}
	if (nl == 1 || nt == 1) {
		set_anchor(out, file, h, nl == 1, nl == 1 ? l1 : t1, expected);
		return 0;
	}
	set_anchor(out, file, h, true, l1, expected);
	return ambiguous(out, KB_AMBIG_TWICE, l2);
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
	set_rule(out, KB_ANCHOR_BLOCK);
	if (n == 1)
		return 0;
	return ambiguous(out, KB_AMBIG_TWICE, whole_start(second, lead));
}

/*
 * Block by block (locate_blocks.c): exactly first, else whitespace-
 * insensitively; one place only, counted whitespace-insensitively.
 */
static int try_blocks(struct kb_match *out, const struct kb_lines *file,
		      const struct kb_hunk *h, size_t expected, size_t min_line)
{
	size_t n = 0, nws = 0, first = 0, second = 0, wfirst = 0, wsecond = 0, gap = 0;
	size_t *at = NULL;
	int err;

	if ((err = kb_blocks_find(&n, &first, &second, file, h, false, min_line)) < 0 ||
	    (err = kb_blocks_find(&nws, &wfirst, &wsecond, file, h, true, min_line)) < 0)
		return err;
	if (!nws)
		return KB_ENOTFOUND;
	if (!n)
		first = wfirst;
	at = calloc(h->nlines, sizeof(*at));
	KB_ERROR_CHECK_ALLOC(at);
	err = kb_blocks_map(at, &gap, file, h, !n, first);
	free(at);
	if (err < 0)
		return err;
	set_match(out, first, 0, 0, expected, !n);
	set_rule(out, KB_ANCHOR_BLOCKS);
	out->gap = gap;
	if (nws < 2)
		return 0;
	return ambiguous(out, KB_AMBIG_TWICE, wfirst == first ? wsecond : wfirst);
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
		memset(out, 0, sizeof(*out));
		err = try_fuzz(out, file, hunk, th, tt, expected, min_line,
			       opts->ignore_whitespace);
	}
	if (err == KB_ENOTFOUND && opts->blocks)
		err = try_blocks(out, file, hunk, expected, min_line);
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

/* Hunk line i, or for a '+' line the '-' line after it in its block (the
 * line it replaces, as a reversed hunk writes them), else itself. */
static size_t replaced(const struct kb_hunk *h, size_t i)
{
	size_t k = i;

	if (h->lines[i].type != KB_LINE_ADD)
		return i;
	while (k < h->nlines && h->lines[k].type == KB_LINE_ADD)
		k++;
	return k < h->nlines && h->lines[k].type == KB_LINE_DEL ? k : i;
}

/*
 * The postimage of a hunk placed block by block: the file's foreign lines
 * stay where they are, between the blocks. *nfile: the lines it replaces.
 */
static int blocks_postimage(struct kb_slice **post, size_t *npost, size_t *nfile,
			    const struct kb_lines *file, const struct kb_hunk *h,
			    const struct kb_match *m)
{
	size_t *at = NULL, i, j = m->line, gap, n = 0;
	const struct kb_line *l;
	int err;

	*post = NULL;
	at = calloc(h->nlines ? h->nlines : 1, sizeof(*at));
	KB_ERROR_CHECK_ALLOC(at);
	if ((err = kb_blocks_map(at, &gap, file, h, m->whitespace, m->line)) < 0) {
		free(at);
		return err == KB_ENOTFOUND ?
		       kb_error_set(KB_ERROR, "hunk match is outside the file") : err;
	}
	if (!(*post = malloc((h->nlines + gap + 1) * sizeof(**post)))) {
		free(at);
		return kb_error_oom();
	}
	for (i = 0; i < h->nlines; i++) {
		l = &h->lines[i];
		/* lines that replace others go where those were */
		while (j < at[replaced(h, i)])
			(*post)[n++] = file->v[j++];
		if (l->type == KB_LINE_ADD)
			(*post)[n++] = (struct kb_slice){ l->text, l->len };
		else if (l->type == KB_LINE_CONTEXT)
			(*post)[n++] = file->v[j];
		j += l->type != KB_LINE_ADD;
	}
	free(at);
	*npost = n;
	*nfile = j - m->line;
	return 0;
}

/* The postimage of the matched region; *nfile: the lines it replaces. */
static int postimage(struct kb_slice **post, size_t *npost, size_t *nfile,
		     const struct kb_lines *file, const struct kb_hunk *h,
		     const struct kb_match *m, struct span *sp)
{
	*post = NULL;
	if (m->anchor == KB_ANCHOR_BLOCKS)
		return blocks_postimage(post, npost, nfile, file, h, m);
	if (!(*nfile = fit_at(file, m->line, h, sp)) && sp->npre)
		return kb_error_set(KB_ERROR, "hunk match is outside the file");
	*post = malloc((h->nlines + *nfile + 1) * sizeof(**post));
	KB_ERROR_CHECK_ALLOC(*post);
	*npost = fill_postimage(*post, file, h, sp, m->line, m->line + *nfile);
	return 0;
}

int kb_hunk_apply(struct kb_lines *file, const struct kb_hunk *hunk,
		  const struct kb_match *match, size_t *end)
{
	struct span sp = { match->trim_head, hunk->nlines - match->trim_tail, 0,
			   match->whitespace };
	struct kb_slice *post = NULL;
	size_t npost = 0, nfile = 0, tail, at = match->line;
	bool at_eof;
	int err = 0;

	if (sp.from > sp.to || sp.to > hunk->nlines || at > file->n)
		return kb_error_set(KB_ERROR, "hunk match is outside the file");
	sp.npre = count_pre(hunk, sp.from, sp.to);
	if ((err = postimage(&post, &npost, &nfile, file, hunk, match, &sp)) < 0)
		goto done;
	tail = file->n - at - nfile;
	at_eof = tail == 0 && match->trim_tail == 0;
	if ((err = KB_ARRAY_GROW(file->v, file->alloc, file->n - nfile + npost)) < 0)
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
	long shift;		/* lines it added (- removed) */
};

struct apply_state {
	long delta;		/* lines added - removed by earlier hunks */
	long missed;		/* lines added - removed by hunks that did not apply */
	long offset;		/* where earlier hunks were found vs the patch */
	size_t min_line;	/* end of the previous applied hunk */
	size_t failed, first_failed;
	struct region *done;	/* what the applied hunks wrote */
	size_t ndone, adone;
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
	size_t i;
	int err;

	for (i = 0; i < st->ndone; i++)
		if (st->done[i].from >= at) {
			st->done[i].from = (size_t)((long)st->done[i].from + shift);
			st->done[i].to = (size_t)((long)st->done[i].to + shift);
		}
	if ((err = KB_ARRAY_GROW(st->done, st->adone, st->ndone + 1)) < 0)
		return err;
	st->done[st->ndone++] = (struct region){ at, end, shift };
	return 0;
}

/* Line `at` of the file as the applied hunks left it, in the tree's file. */
static size_t tree_line(const struct apply_state *st, size_t at)
{
	long x = (long)at;
	size_t i;

	for (i = 0; i < st->ndone; i++)
		if (st->done[i].to <= at)
			x -= st->done[i].shift;
	return x < 0 ? 0 : (size_t)x;
}

/* Where the hunk (and a second place it fits) starts in the tree's file. */
static void set_tree_lines(struct kb_hunk_result *r, const struct apply_state *st)
{
	struct kb_match *m = &r->match;

	r->tree_line = tree_line(st, whole_start(m->line, m->trim_head));
	if (r->status == KB_HUNK_AMBIGUOUS)
		m->other_line = tree_line(st, m->other_line);
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
	exact.anchor = exact.block = exact.blocks = false;
	if (kb_locate_hunk(m, file, h, expected, 0, &exact) < 0)
		return KB_ENOTFOUND;
	sp = (struct span){ 0, h->nlines, count_pre(h, 0, h->nlines), m->whitespace };
	nfile = fit_at(file, m->line, h, &sp);
	if (m->line >= st->min_line || overlaps(st, m->line, m->line + (nfile ? nfile : 1)))
		return KB_ENOTFOUND;
	return 0;
}

/* Exactly, and not over lines an earlier hunk wrote. */
static bool own_fits(const struct kb_lines *file, const struct kb_hunk *h,
		     const struct span *sp, const struct apply_state *st, size_t at)
{
	return match_at(file, at, h, sp) && !overlaps(st, at, at + sp->npre);
}

/*
 * Where git apply puts the hunk: its exact preimage nearest its own line
 * (the header's new start, in the file as the earlier hunks left it), the
 * later line first on a tie, never over lines an earlier hunk wrote; a
 * hunk from line 1 only at the start, one without trailing context only
 * at the end. No offset is carried from hunk to hunk.
 */
static bool own_place(size_t *found, const struct kb_lines *file, const struct kb_hunk *h,
		      const struct apply_state *st)
{
	struct span sp = { 0, h->nlines, count_pre(h, 0, h->nlines), false };
	long p = h->new_start ? (long)(h->new_start < LONG_MAX / 2 ? h->new_start : LONG_MAX / 2) - 1 : 0;
	bool begin = h->old_start <= 1, end = !trail_context(h);
	size_t last, pos, d;

	if (!sp.npre || sp.npre > file->n)
		return false;
	last = file->n - sp.npre;
	if (begin || end) {
		*found = begin ? 0 : last;
		return (!end || *found == last) && own_fits(file, h, &sp, st, *found);
	}
	p -= st->missed;
	pos = p < 0 ? 0 : (size_t)p > last ? last : (size_t)p;
	for (d = 0; d <= pos || pos + d <= last; d++) {
		if (pos + d <= last && own_fits(file, h, &sp, st, pos + d)) {
			*found = pos + d;
			return true;
		}
		if (d && d <= pos && own_fits(file, h, &sp, st, pos - d)) {
			*found = pos - d;
			return true;
		}
	}
	return false;
}

/*
 * The place found from the earlier hunks' offsets (GNU patch's rule) and
 * git apply's (own_place()) must be one: a place only git apply's rule
 * gives is taken, so a clean git apply is matched byte for byte, and two
 * different places are ambiguous, never chosen.
 */
static int check_own_line(struct kb_match *m, int err, bool *in_order,
			  const struct kb_lines *file, const struct kb_hunk *h,
			  size_t expected, const struct apply_state *st)
{
	size_t own;

	if (err == KB_EAMBIGUOUS || !own_place(&own, file, h, st))
		return err;
	if (err == KB_ENOTFOUND) {
		memset(m, 0, sizeof(*m));
		set_match(m, own, 0, 0, expected, false);
		*in_order = own >= st->min_line;
		return 0;
	}
	if (m->line == own && !m->trim_head && !m->trim_tail && !m->whitespace && !m->anchor)
		return 0;
	return ambiguous(m, KB_AMBIG_RULES, own);
}

static int apply_hunk(struct kb_lines *file, const struct kb_hunk *h,
		      struct kb_hunk_result *r, struct apply_state *st,
		      const struct kb_locate_opts *opts)
{
	/* headers may name any line: past every file, clamped so e cannot overflow */
	size_t start = h->old_start < LONG_MAX / 2 ? h->old_start : LONG_MAX / 2;
	long e = (long)start - 1 + st->delta + st->offset;
	size_t expected = e < 0 ? 0 : (size_t)e, before = file->n, end;
	long delta = (long)h->new_lines - (long)h->old_lines;
	bool in_order = true;
	int err;

	memset(r, 0, sizeof(*r));
	err = kb_locate_hunk(&r->match, file, h, expected, st->min_line, opts);
	if (err == KB_ENOTFOUND && locate_before(&r->match, file, h, expected, st, opts) == 0) {
		err = 0;
		in_order = false;
	}
	if (err < 0 && err != KB_ENOTFOUND && err != KB_EAMBIGUOUS)
		return err;
	err = check_own_line(&r->match, err, &in_order, file, h, expected, st);
	r->status = !err ? KB_HUNK_APPLIED : err == KB_EAMBIGUOUS ?
		    KB_HUNK_AMBIGUOUS : KB_HUNK_FAILED;
	set_tree_lines(r, st);
	if (err) {
		st->missed += delta;
		return 0;
	}
	st->delta += delta;
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
	struct apply_state st = { 0 };
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
	unsigned fuzz = r->match.anchor == KB_ANCHOR_BLOCK ||
			r->match.anchor == KB_ANCHOR_BLOCKS ? opts->max_fuzz + 1 :
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
 * Not so a deletion there: its reverse fits wherever its context does,
 * the lines it deletes still after it.
 */
static bool same_place(const struct kb_hunk_result *f, const struct kb_hunk_result *r,
		       const struct kb_hunk *h)
{
	size_t fl = f->match.line - f->match.trim_head, rl = r->match.line - r->match.trim_head;

	return h->new_lines > h->old_lines && fl >= rl && fl <= rl + h->new_lines;
}

/*
 * The hunk is in: its reverse fits and its change does not, or only at a
 * higher cost; as cheap both ways, where its lines already stand, or where
 * its reverse is strictly nearer the hunk's line than its change (both
 * git apply -R and GNU patch -R take that place). Anything else that fits
 * both ways is ambiguous, never in.
 */
static bool reverse_wins(const struct kb_hunk_result *f, const struct kb_hunk_result *r,
			 const struct kb_hunk *h, const struct kb_locate_opts *opts)
{
	unsigned fc = hunk_cost(f, opts), rc = hunk_cost(r, opts);

	if (r->status != KB_HUNK_APPLIED)
		return false;
	if (f->status != KB_HUNK_APPLIED || rc < fc)
		return true;
	return rc == fc && (same_place(f, r, h) || labs(r->match.offset) < labs(f->match.offset));
}

/* The hunk's change fits, and so does its reverse, elsewhere, as cheaply. */
static void both_ways(struct kb_hunk_result *out, const struct kb_hunk_result *f,
		      const struct kb_hunk_result *r)
{
	*out = *f;
	out->status = KB_HUNK_AMBIGUOUS;
	out->match.ambiguity = KB_AMBIG_WAYS;
	out->match.other_line = r->tree_line;
	out->match.other_reverse = true;
}

/* Neither way places the hunk: a reverse that fits twice says more. */
static void neither_way(struct kb_hunk_result *out, const struct kb_hunk_result *f,
			const struct kb_hunk_result *r)
{
	*out = *f;
	if (f->status != KB_HUNK_FAILED || r->status != KB_HUNK_AMBIGUOUS)
		return;
	*out = *r;
	out->match.reverse = out->match.other_reverse = true;
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
		if (reverse_wins(&f[i], &r[i], &fp->hunks[i], opts)) {
			hunks[i] = r[i];
			hunks[i].status = KB_HUNK_PRESENT;
			hunks[i].match.reverse = true;
		} else if (fok && (!rok || hunk_cost(&f[i], opts) < hunk_cost(&r[i], opts))) {
			hunks[i] = f[i];
		} else if (fok) {
			both_ways(&hunks[i], &f[i], &r[i]);
		} else {
			neither_way(&hunks[i], &f[i], &r[i]);
		}
		count[hunks[i].status]++;
	}
}

/*
 * A hunk the reverse pass could not place may still be in, right where
 * the forward pass would apply it: an earlier hunk's reverse can take its
 * place (two functions that open alike, the change in the second only:
 * the first hunk's reverse fits the second function too), and fuzz lets
 * the insertion apply again just below its own lines. Its reverse is then
 * looked for alone, on the file as it is, and counts (classify() weighs
 * it) only where the forward pass put the hunk, and only when it fits
 * there more cheaply: applying the hunk would write its lines twice.
 */
static int reverse_alone(struct kb_hunk_result *r, const struct kb_hunk_result *f,
			 const char *buf, size_t len, const struct kb_file_patch *fwd,
			 const struct kb_file_patch *rev, const struct kb_locate_opts *opts,
			 const struct kb_locate_opts *ropts)
{
	struct kb_lines file = KB_LINES_INIT;
	struct kb_hunk_result alone;
	const struct kb_hunk *h;
	bool split = false;
	size_t i, at;
	int err = 0;

	for (i = 0; i < fwd->nhunks && !err; i++) {
		h = &fwd->hunks[i];
		if (f[i].status != KB_HUNK_APPLIED || r[i].status == KB_HUNK_APPLIED ||
		    h->new_lines <= h->old_lines)
			continue;
		if (!split && (err = kb_lines_split(&file, buf, len)) < 0)
			break;
		split = true;
		memset(&alone, 0, sizeof(alone));
		if (kb_locate_hunk(&alone.match, &file, &rev->hunks[i], f[i].tree_line, 0, ropts))
			continue;
		alone.status = KB_HUNK_APPLIED;
		alone.tree_line = at = whole_start(alone.match.line, alone.match.trim_head);
		if (f[i].tree_line >= at && f[i].tree_line <= at + h->new_lines &&
		    hunk_cost(&alone, opts) < hunk_cost(&f[i], opts))
			r[i] = alone;
	}
	kb_lines_release(&file);
	return err;
}

static void take(struct kb_hunk_result *hunks, const struct kb_hunk_result *from,
		 size_t n, enum kb_hunk_status status)
{
	size_t i;

	for (i = 0; i < n; i++) {
		hunks[i] = from[i];
		hunks[i].status = status;
		hunks[i].match.reverse = status == KB_HUNK_PRESENT;
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
		err = kb_error_oom();
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
	if (rerr && (err = reverse_alone(r, f, buf, len, fwd, rev, opts, &ropts)) < 0)
		goto done;
	kb_error_clear();
	classify(hunks, count, f, r, fwd, opts);
	/* a hunk that fits both ways, or twice, is never counted as in */
	if (!rerr && !count[KB_HUNK_APPLIED] && !count[KB_HUNK_FAILED] &&
	    !count[KB_HUNK_AMBIGUOUS] && count[KB_HUNK_PRESENT]) {
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
