/*
 * Growing an array by doubling, as git's ALLOC_GROW and kmod's array.h: a
 * pointer, its element count and how many are allocated, the last kept by
 * the caller beside the array.
 */
#ifndef KB_ARRAY_H
#define KB_ARRAY_H

#include <stddef.h>

/*
 * Room for at least `need` elements of `size` bytes at *ptr, which holds
 * `*alloc` now: doubled (from 8) until `need` fit. On failure (out of
 * memory, or `need` * `size` overflows) *ptr and *alloc stay as they were
 * and KB_ENOMEM is returned with kb_error_oom()'s message.
 * `ptr` is the address of any object pointer (see KB_ARRAY_GROW).
 */
int kb_array_grow(void *ptr, size_t *alloc, size_t need, size_t size);

/*
 * Room for `need` elements in the typed array `ptr` (an lvalue such as
 * list->v) of `alloc` allocated (a size_t lvalue); nothing is called while
 * they fit. 0 or KB_ENOMEM:
 *
 *	if ((err = KB_ARRAY_GROW(l->v, l->alloc, l->n + 1)) < 0)
 *		return err;
 *	l->v[l->n++] = x;
 */
#define KB_ARRAY_GROW(ptr, alloc, need) \
	((size_t)(need) <= (alloc) ? 0 : \
	 kb_array_grow(&(ptr), &(alloc), (need), sizeof(*(ptr))))

#endif
