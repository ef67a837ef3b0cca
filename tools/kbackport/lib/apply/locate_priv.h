/*
 * What locate.c shares with locate_blocks.c, witness.c and history.c; not
 * part of the library's interface.
 */
#ifndef KB_LOCATE_PRIV_H
#define KB_LOCATE_PRIV_H

#include "apply/locate.h"

/* Foreign lines a hunk placed block by block may have between its blocks,
 * in all. */
#define KB_BLOCKS_GAP 8

/* Equal lines; `ws`: once trimmed and with runs of blanks read as one. */
bool kb_line_equal(const struct kb_slice *s, const struct kb_line *l, bool ws);

/* The same line in a changed form (a call renamed, an argument added):
 * not equal, most of it in common, words in both. */
bool kb_line_changed_form(const struct kb_line *l, const struct kb_slice *f);

/*
 * Block by block (locate_blocks.c): a hunk of at least two change blocks
 * whose context no longer fits whole. Its preimage must be in the file in
 * order from `start`, every line of it, with at most KB_BLOCKS_GAP foreign
 * lines in all, and those only between a change block and the context that
 * separates it from the next one: the leading context, the trailing
 * context and each block's own lines stay together, and lines the hunk
 * inserts keep both their neighbours unless they replace deleted lines
 * (then they go where those were).
 */

/* Up to two starts at or after `min_line` where the hunk fits block by
 * block (the first in *first); returns how many (0, 1 or 2), or a
 * negative error. */
int kb_blocks_find(size_t *n, size_t *first, size_t *second, const struct kb_lines *file,
		   const struct kb_hunk *h, bool ws, size_t min_line);

/* The file line of each preimage line (at[], one per hunk line; those of
 * '+' lines are left alone) of the fit at `start`, and the foreign lines
 * between blocks in *gap. KB_ENOTFOUND when it does not fit there. */
int kb_blocks_map(size_t *at, size_t *gap, const struct kb_lines *file,
		  const struct kb_hunk *h, bool ws, size_t start);

#endif
