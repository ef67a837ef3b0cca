/* Did you mean ...? */
#ifndef KB_CLOSEST_H
#define KB_CLOSEST_H

#include <stddef.h>

/*
 * The candidate closest to `word` (edit distance, two letters swapped
 * counting as one edit, a prefix as one), or NULL when none is close
 * enough to be what was meant: at most 1 edit for words under 4 letters,
 * 2 under 9, 3 beyond. NULL candidates are skipped.
 */
const char *kb_closest(const char *word, const char *const *candidates, size_t n);

#endif
