/* Did you mean ...? The closest of a list of words, as git's help.c finds one. */
#include "util/closest.h"

#include <stdlib.h>
#include <string.h>

/* Optimal string alignment distance (an edit, or two letters swapped). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d;
	size_t *row = calloc(3 * (lb + 1), sizeof(*row));
	size_t *prev2, *prev, *cur, *t;

	if (!row)
		return (size_t)-1;
	prev2 = row;
	prev = row + lb + 1;
	cur = row + 2 * (lb + 1);
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(row);
	return d;
}

const char *kb_closest(const char *word, const char *const *candidates, size_t n)
{
	size_t len = strlen(word), best = (size_t)-1, i, d;
	size_t most = len < 4 ? 1 : len < 9 ? 2 : 3;
	const char *found = NULL;

	if (!len)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!candidates[i])
			continue;
		d = len >= 2 && !strncmp(candidates[i], word, len) ? 1 : distance(word, candidates[i]);
		if (d < best) {
			best = d;
			found = candidates[i];
		}
	}
	return best <= most ? found : NULL;
}
