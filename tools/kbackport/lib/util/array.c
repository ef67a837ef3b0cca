#include "util/array.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int kb_array_grow(void *ptr, size_t *alloc, size_t need, size_t size)
{
	size_t n = *alloc ? *alloc : 8;
	void *p;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : 2 * n;
	/* checked here too: sanitizers report an overflowing reallocarray() */
	if (size && n > SIZE_MAX / size)
		return kb_error_oom();
	/* `ptr` points to a T *, read and written as bytes: no type punning */
	memcpy(&p, ptr, sizeof(p));
	if (!(p = reallocarray(p, n, size)))
		return kb_error_oom();
	memcpy(ptr, &p, sizeof(p));
	*alloc = n;
	return 0;
}
