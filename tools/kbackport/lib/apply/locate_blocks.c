/*
 * Block by block placement, as wiggle does it: a hunk that makes two
 * changes a few lines apart no longer fits whole once a later commit put
 * lines between them (a comment, a debug call). Fuzz only trims a hunk's
 * ends, so neither the change nor its reverse is found. Here every line of
 * the preimage must still be there, in order, and only a few foreign lines
 * may stand between the blocks (see locate_priv.h for where).
 *
 * Which foreign lines are skipped is decided by a small table: from
 * preimage line p with s foreign lines skipped so far, can the rest fit?
 * The placement takes the fewest foreign lines at each step, so applying
 * finds the same lines the search did.
 */
#include "apply/locate_priv.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

#define COLS (KB_BLOCKS_GAP + 1)

struct chain {
	const struct kb_lines *file;
	const struct kb_hunk *h;
	bool ws;
	size_t *pre;		/* hunk index of each preimage line */
	bool *skip;		/* foreign lines may stand before preimage line p */
	size_t npre;
	unsigned char *eq;	/* npre x COLS: line p equals file line start+p+t */
	unsigned char *ok;	/* (npre + 1) x COLS: from (p, s) the rest fits */
};

static size_t change_blocks(const struct kb_hunk *h)
{
	size_t i, n = 0;

	for (i = 0; i < h->nlines; i++)
		n += h->lines[i].type != KB_LINE_CONTEXT &&
		     (!i || h->lines[i - 1].type == KB_LINE_CONTEXT);
	return n;
}

static bool adds_between(const struct kb_hunk *h, size_t u, size_t v)
{
	for (u++; u < v; u++)
		if (h->lines[u].type == KB_LINE_ADD)
			return true;
	return false;
}

/* May foreign lines stand between preimage lines u and v (hunk indices)? */
static bool may_skip(const struct kb_hunk *h, size_t u, size_t v, size_t lead, size_t trail)
{
	const struct kb_line *l = h->lines;

	if (u < lead || v >= h->nlines - trail)
		return false;	/* the outer context stays whole */
	if (l[u].type != KB_LINE_CONTEXT && l[v].type != KB_LINE_CONTEXT)
		return false;	/* a block's own lines stay together */
	/* inserted lines need their neighbours, unless they replace lines */
	return !adds_between(h, u, v) || l[u].type == KB_LINE_DEL || l[v].type == KB_LINE_DEL;
}

static size_t lead_of(const struct kb_hunk *h)
{
	size_t i = 0;

	while (i < h->nlines && h->lines[i].type == KB_LINE_CONTEXT)
		i++;
	return i;
}

static size_t trail_of(const struct kb_hunk *h)
{
	size_t i = 0;

	while (i < h->nlines && h->lines[h->nlines - 1 - i].type == KB_LINE_CONTEXT)
		i++;
	return i;
}

static void chain_release(struct chain *c)
{
	free(c->pre);
	free(c->skip);
	free(c->eq);
	free(c->ok);
}

/* KB_ENOTFOUND when the hunk has fewer than two change blocks. */
static int chain_init(struct chain *c, const struct kb_lines *file,
		      const struct kb_hunk *h, bool ws)
{
	size_t i, lead = lead_of(h), trail = trail_of(h);

	memset(c, 0, sizeof(*c));
	if (change_blocks(h) < 2)
		return KB_ENOTFOUND;
	c->file = file;
	c->h = h;
	c->ws = ws;
	if (!(c->pre = calloc(h->nlines, sizeof(*c->pre))) ||
	    !(c->skip = calloc(h->nlines, sizeof(*c->skip))) ||
	    !(c->eq = calloc(h->nlines * COLS, 1)) ||
	    !(c->ok = calloc((h->nlines + 1) * COLS, 1))) {
		chain_release(c);
		return kb_error_oom();
	}
	for (i = 0; i < h->nlines; i++) {
		if (h->lines[i].type == KB_LINE_ADD)
			continue;
		c->skip[c->npre] = c->npre && may_skip(h, c->pre[c->npre - 1], i, lead, trail);
		c->pre[c->npre++] = i;
	}
	return 0;
}

static bool pre_equal(const struct chain *c, size_t p, size_t x)
{
	return x < c->file->n && kb_line_equal(&c->file->v[x], &c->h->lines[c->pre[p]], c->ws);
}

/* The most foreign lines skipped once preimage line p is placed. */
static size_t most(const struct chain *c, size_t p, size_t s)
{
	return c->skip[p] ? KB_BLOCKS_GAP : s;
}

/* Fill the tables for `start`; true when the whole preimage fits. */
static bool chain_fits(struct chain *c, size_t start)
{
	size_t p, s, t;

	if (!c->npre || !pre_equal(c, 0, start))
		return false;
	for (p = 0; p < c->npre; p++)
		for (t = 0; t < COLS; t++)
			c->eq[p * COLS + t] = pre_equal(c, p, start + p + t);
	memset(&c->ok[c->npre * COLS], 1, COLS);
	for (p = c->npre; p-- > 0;)
		for (s = 0; s < COLS; s++) {
			unsigned char v = 0;
			for (t = s; t <= most(c, p, s) && !v; t++)
				v = c->eq[p * COLS + t] && c->ok[(p + 1) * COLS + t];
			c->ok[p * COLS + s] = v;
		}
	return c->ok[0];
}

int kb_blocks_find(size_t *n, size_t *first, size_t *second, const struct kb_lines *file,
		   const struct kb_hunk *h, bool ws, size_t min_line)
{
	struct chain c;
	size_t at;
	int err;

	*n = 0;
	if ((err = chain_init(&c, file, h, ws)) < 0)
		return err == KB_ENOTFOUND ? 0 : err;
	for (at = min_line; at + c.npre <= file->n && *n < 2; at++) {
		if (!chain_fits(&c, at))
			continue;
		*(*n ? second : first) = at;
		(*n)++;
	}
	chain_release(&c);
	return 0;
}

int kb_blocks_map(size_t *at, size_t *gap, const struct kb_lines *file,
		  const struct kb_hunk *h, bool ws, size_t start)
{
	struct chain c;
	size_t p, s = 0, t;
	int err;

	if ((err = chain_init(&c, file, h, ws)) < 0)
		return err;
	if (!chain_fits(&c, start)) {
		chain_release(&c);
		return KB_ENOTFOUND;
	}
	for (p = 0; p < c.npre; p++) {
		for (t = s; !(c.eq[p * COLS + t] && c.ok[(p + 1) * COLS + t]); t++)
			;
		at[c.pre[p]] = start + p + t;
		s = t;
	}
	*gap = s;
	chain_release(&c);
	return 0;
}
