/* Error codes and the last error message, libgit2-style. */
#ifndef KB_ERROR_H
#define KB_ERROR_H

#include <stdarg.h>

enum kb_error_code {
	KB_OK = 0,
	KB_ERROR = -1,		/* generic failure */
	KB_ENOMEM = -2,		/* out of memory */
	KB_ENOTFOUND = -3,	/* ref, file, hunk position, ... not found */
	KB_EINVALID = -4,	/* malformed input: YAML, patch, option */
	KB_ECONFLICT = -5,	/* a patch does not apply */
	KB_EEXISTS = -6,	/* something is in the way */
	KB_EAMBIGUOUS = -7,	/* more than one place fits */
};

/*
 * Record `fmt` as the last error message and return `code`, so callers can
 * write `return kb_error_set(KB_EINVALID, "...")`.
 */
int kb_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Like kb_error_set(), with ": <libgit2's message>" appended when libgit2
 * has one. Returns `code` mapped to a kb code (GIT_ENOTFOUND -> KB_ENOTFOUND).
 */
int kb_error_git(int git_code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Out of memory, the one way to say it: records "out of memory" (no
 * allocation) and returns KB_ENOMEM.
 */
int kb_error_oom(void);

/* Return kb_error_oom() from the calling function when `ptr` is NULL. */
#define KB_ERROR_CHECK_ALLOC(ptr) \
	do { \
		if (!(ptr)) \
			return kb_error_oom(); \
	} while (0)

/* Prefix the current message with "<prefix>: " (adds context going up). */
int kb_error_prefix(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The last message, or "unknown error" when none was recorded. */
const char *kb_error_last(void);

void kb_error_clear(void);

#endif
